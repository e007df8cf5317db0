"""The words a run's records use for who made an answer and how a program failed, kept in one
light module so the views that read records (run/records/answered.py, `runs show`) need not load
the solver or the model client.

- FIT_LABEL, FIT_SAMPLE: a step made by memory (a helper call that gave every train output, run
  as a candidate: run/stages/probe.py), not by a model sample.
- WRONG_OUTPUT: the error of a program that ran and gave a wrong train output (solverkit).
- `describe_origin`: an Origin record (run/stages/candidates.py) in words.
"""

from __future__ import annotations

from typing import Any

FIT_LABEL = "memory fit"       # an attempt made by memory (a fit), not by the model
FIT_SAMPLE = -1                # its sample index: no model sample made it
WRONG_OUTPUT = "wrong_output"  # the error of a program that ran and gave a wrong train output


def describe_origin(record: dict[str, Any]) -> str:
    """An origin record in words, for every view: "memory's fit flip_grid(grid, 'horizontal')", or
    "the model's program (thread 1, sample 1, retry 0)"."""
    if record.get("by") == "memory":
        return f"memory's fit {record.get('call')}"
    if record.get("by") == "model":
        return (f"the model's program (thread {int(record.get('thread', 0)) + 1}, sample {record.get('sample')}, "
                f"retry {record.get('round')})")
    return "unknown"


__all__ = ["FIT_LABEL", "FIT_SAMPLE", "WRONG_OUTPUT", "describe_origin"]
