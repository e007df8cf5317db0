"""Run an arcmemo command in this process and report its peak memory.

    python benchmarks/peak.py REPORT.json concepts export --db memory.db out.yaml

The command runs as `python -m arcmemo ARGS` would; REPORT.json gets {"peak": bytes, "exit": code}.
Why not the parent's wait4/getrusage: Linux folds the memory of the process image an exec
replaces into the new program's ru_maxrss, so a child started by a benchmark holding a large
memory reports the benchmark's size, not its own. The high-water mark of the process's own
address space (VmHWM in /proc/self/status) starts afresh at exec.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path


def high_water() -> int:
    """This process's peak resident memory in bytes, since its exec."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # not Linux: the best there is


def main() -> int:
    report, args = Path(sys.argv[1]), sys.argv[2:]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from arcmemo.cli import cli

    try:
        code = cli.main(args, prog_name="arcmemo", standalone_mode=False) or 0
    except SystemExit as exc:
        code = exc.code or 0
    sys.stdout.flush()
    report.write_text(json.dumps({"peak": high_water(), "exit": code}))
    return code if isinstance(code, int) else 1


if __name__ == "__main__":
    sys.exit(main())
