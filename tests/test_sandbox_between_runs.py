"""One program cannot touch the next (issue 26): every program starts from the same clean state
in a warm worker, whatever the program before it did. CI runs this file as root and as an
ordinary user.

The property: for every (poisoner, victim) pair run one after the other in the same worker
(one worker, so the pair always shares it; a scipy victim's poisoner runs on the scipy server),
the victim's outcomes (result, error, message, stdout, helpers called) and timing class are
those it has when it runs alone. The pairs of the core poisoners with every victim, and of
every poisoner with the victim that looks hardest at its folder, run unmarked; the rest of the
cross product is marked slow. Then what the pairs cannot show: a run finds nothing of the
request before it, a run cannot list or watch the other runs' folders, a forger cannot hold
its worker past its deadline, text comes back sanitised, a helper's verification cannot make
a later program fail, and a worker that cannot restore a clean state is replaced first.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sandbox_poisoners import (
    CORE_POISONERS,
    POISON_AT_IMPORT,
    POISONERS,
    REFUSING_KERNEL_PRELUDE,
    SCIPY_VICTIMS,
    VICTIMS,
)

from arcmemo.core.tasks import load_tasks
from arcmemo.memory.helpers.value import Helper
from arcmemo.run.helpers.verify import check_program
from arcmemo.sandbox import Sandbox

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 2.0
SLACK_S = 2.0  # a victim after a poisoner may take this much longer than alone (a busy machine), no more
FLIP = "def transform(grid):\n    return grid[::-1]\n"


def observed(box, program, scipy: bool = False) -> tuple[list, float]:
    started = time.monotonic()
    outcomes = program.run(box, scipy=scipy)
    return [o.to_dict() for o in outcomes], time.monotonic() - started


def timing_class(outcomes: list[dict]) -> str:
    return "timeout" if any(o["error"] == "timeout" for o in outcomes) else "in time"


def budget(program) -> float:
    """The longest a run of `program` may hold its worker: its grids' time, the worker's grace,
    and the machine's slack."""
    return len(program.grids) * (program.timeout_s or TIMEOUT_S) + 0.25 + SLACK_S


def is_clean(text: str) -> bool:
    text.encode("utf-8")  # no lone surrogate
    return not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) <= 0x9F for c in text)


@pytest.fixture(scope="module")
def alone():
    """Each victim's outcomes and time when it runs alone: in a fresh worker, after nothing but
    the other victims (honest programs)."""
    with Sandbox(workers=1, timeout_s=TIMEOUT_S, memory_mb=256) as box:
        box.warm()
        return {name: observed(box, victim) for name, victim in VICTIMS.items()}


@pytest.fixture(scope="module")
def box():
    with Sandbox(workers=1, timeout_s=TIMEOUT_S, memory_mb=256) as one:
        one.warm()
        yield one


def pairs():
    for p in POISONERS:
        for v in VICTIMS:
            core = p in CORE_POISONERS or v == "files"
            yield pytest.param(p, v, id=f"{p}-then-{v}", marks=() if core else pytest.mark.slow)


@pytest.mark.parametrize("poisoner, victim", pairs())
def test_a_poisoner_changes_nothing_for_the_next_program_in_its_worker(box, alone, poisoner, victim):
    assert box.workers == 1
    replaced = box.replaced
    before, took = observed(box, POISONERS[poisoner], scipy=victim in SCIPY_VICTIMS)
    assert took <= budget(POISONERS[poisoner]), f"the poisoner held its worker {took:.1f}s"
    assert all(is_clean(o["message"]) and is_clean(o["stdout"]) for o in before), before
    after, elapsed = observed(box, VICTIMS[victim])
    expected, alone_s = alone[victim]
    assert after == expected
    assert timing_class(after) == timing_class(expected)
    assert elapsed <= alone_s + SLACK_S, f"{elapsed:.2f}s after the poisoner, {alone_s:.2f}s alone"
    assert box.replaced == replaced  # nothing of this needed a new worker


def test_the_victims_do_what_they_say_when_alone(alone):
    """The property means something only if each victim's lone result is the honest one."""
    assert [o["output"] for o in alone["plain"][0]] == [[[2], [1]], [[3, 4]]]
    files = alone["files"][0][0]
    assert files["ok"] and files["stdout"].splitlines()[:2] == ["[]", "[]"], files
    assert "4194304 ['data.bin', 'sub']" in files["stdout"]
    assert [o["output"] for o in alone["scipy"][0]] == [[[2]], [[1]]]
    assert alone["raises"][0][0]["error"] == "exception" and "IndexError" in alone["raises"][0][0]["message"]
    assert [o["error"] for o in alone["times_out"][0]] == ["timeout", "timeout"]
    assert alone["helpers"][0][0]["called"] == ["flip"] and alone["helpers"][0][0]["ok"]
    assert alone["prints"][0][0]["stdout"] == "sum 10 [0 1 2]\n"


SPY = r'''
import ctypes, gc, json, os, sys

# the two markers the honest program carried, in halves: this process must hold neither whole
HALVES = [(b"ZQX-SOU", b"RCE-7731"), (b"ZQX-MOD", b"ULE-7731")]

def markers_in(data: bytes) -> list:
    found = []
    for head, tail in HALVES:
        at = data.find(head)
        while at >= 0:
            if data[at + len(head):at + len(head) + len(tail)] == tail:
                found.append(head.decode())
                break
            at = data.find(head, at + 1)
    return found

def found_in_frames_and_objects():
    hits = []
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
            if isinstance(value, (str, bytes)) and markers_in(str(value).encode("utf-8", "replace")):
                hits.append("frame")
        frame = frame.f_back
    for obj in gc.get_objects():
        try:
            text = json.dumps(obj) if isinstance(obj, (dict, list)) else ""
        except Exception:
            text = ""
        if markers_in(text.encode("utf-8", "replace")):
            hits.append("object")
    return hits

def found_in_memory():
    """Every readable page near this process's objects, read raw (pwrite(2) from an address
    fails with EFAULT on a page that cannot be read, where a read would fault)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.pwrite.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
    libc.pwrite.restype = ctypes.c_long
    probe = os.open("probe", os.O_CREAT | os.O_RDWR, 0o600)  # in its own folder (memfds are refused)
    page, span = 4096, 1 << 20
    starts = {id(o) // span * span for o in gc.get_objects()[::50]} | {id(None) // span * span}
    regions = set()
    for s in starts:
        regions.update(range(max(s - 16 * span, span), s + 16 * span, span))
    hits, scanned = [], 0
    for base in sorted(regions):
        whole = libc.pwrite(probe, base, span, 0) == span
        for start, size in [(base, span)] if whole else [(a, page) for a in range(base, base + span, page)]:
            # each chunk is read right after it is found readable: freeing the copy of the one
            # before can give memory back to the system, unmapping pages found readable earlier
            if size == span or libc.pwrite(probe, start, size, 0) == size:
                data = ctypes.string_at(start, size)
                scanned += size
                hits += markers_in(data)
    return hits, scanned

def transform(grid):
    hits, scanned = found_in_memory()
    print(json.dumps({"objects": found_in_frames_and_objects(), "memory": hits, "scanned": scanned}))
    return grid
'''


@pytest.mark.parametrize("scipy", [False, True], ids=["numpy", "scipy"])
def test_a_run_finds_nothing_of_the_request_before_it(scipy):
    """The previous program's source, helper module and grids are nowhere in the next run's
    process: not in inherited frames or objects, not in raw memory near them."""
    prefix = "import scipy.ndimage\n" if scipy else ""
    honest = prefix + "SECRET = 'ZQX-SOURCE-7731'\nfrom helper import flip\n\ndef transform(grid):\n    return flip(grid)\n"
    with Sandbox(workers=1, timeout_s=20.0, memory_mb=512) as box:
        for _ in range(3):
            out = box.run(honest, [[[5, 6]]], modules={"helper": "MARK = 'ZQX-MODULE-7731'\n"
                                                                  "def flip(g):\n    return g[::-1]\n"})
            assert out[0].ok, out
        spied = box.run(prefix + SPY, [[[1]]])[0]
    assert spied.ok, spied
    report = json.loads(spied.stdout)
    assert report["scanned"] > 8 << 20, report   # the scan read a real share of the process
    assert report["objects"] == [] and report["memory"] == [], report


FORGER = '''
import json, os, time

def transform(grid):
    line = json.dumps({"i": 0, "ok": True, "output": [[9]], "error": None, "message": "", "stdout": ""})
    while True:                            # grid 0's result, again and again: it used to restart the clock
        os.write(3, (line + "\\n").encode())
        time.sleep(0.05)
'''


def test_forged_result_lines_cannot_hold_a_worker_past_its_deadline():
    """The deadline is the worker's, one per request (3 grids x 0.5 s), whatever the run writes;
    a forged line is the forger's own result, nothing more."""
    with Sandbox(workers=1, timeout_s=0.5) as box:
        box.warm()
        started = time.monotonic()
        out = box.run(FORGER, [[[1]], [[2]], [[3]]])
        took = time.monotonic() - started
        assert took < 3 * 0.5 + 0.25 + SLACK_S, took
        assert [o.output for o in out] == [[[9]], None, None] and [o.error for o in out] == [None, "timeout", "timeout"]
        assert box.run(FLIP, [[[1], [2]]])[0].output == [[2], [1]]
        assert box.replaced == 0


def test_a_grid_that_overruns_is_stopped_by_its_own_clock():
    """Per grid: the first grid's time covers compiling the program, and a slow grid is a
    timeout even when the grids after it would have been quick; the run stops then."""
    slow_first = "import time\n\ndef transform(grid):\n    time.sleep(0.8 if grid[0][0] == 1 else 0)\n    return grid\n"
    with Sandbox(workers=1, timeout_s=0.5) as box:
        started = time.monotonic()
        out = box.run(slow_first, [[[1]], [[2]], [[3]]])
        assert time.monotonic() - started < 0.5 + SLACK_S
        assert [o.error for o in out] == ["timeout"] * 3
        assert out[0].message == "no result within 0.5 s (wall clock); the run was stopped"
        assert out[1].message == "not run: the program's process ended on grid 0 (timeout)"
        slow_last = slow_first.replace("grid[0][0] == 1", "grid[0][0] == 3")
        out = box.run(slow_last, [[[1]], [[2]], [[3]]])
        assert [o.error for o in out] == [None, None, "timeout"]


def test_what_a_run_says_comes_back_sanitised():
    """Lone surrogates and control characters in a program's error text and output are
    replaced or dropped before anything in arcmemo reads them (they would break the next
    prompt's encoding)."""
    with Sandbox(workers=1) as box:
        out = box.run(POISONERS["surrogates"].source, [[[1]]])[0]
    assert out.error == "exception"
    assert out.message.endswith("ValueError: bad \ufffd text"), out.message
    assert out.stdout == "out \ufffd[2Jend\n", repr(out.stdout)
    assert is_clean(out.message) and is_clean(out.stdout)


WATCHER = r'''
import ctypes, json, os, struct, time
libc = ctypes.CDLL(None, use_errno=True)

def transform(grid):
    seen = {}
    for path in ("..", "/tmp", "/tmp/..", "/dev/shm", "/var/tmp"):
        try:
            seen[path] = sorted(os.listdir(path))
        except OSError as exc:
            seen[path] = exc.errno
    fd = libc.inotify_init1(os.O_NONBLOCK)
    watched = [p for p in (".", "..", "/tmp", "/dev/shm") if libc.inotify_add_watch(fd, p.encode(), 0xFFF) >= 0]
    events = 0
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        try:
            events += len(os.read(fd, 4096)) > 0
        except BlockingIOError:
            time.sleep(0.01)
    print(json.dumps({"seen": seen, "watched": watched, "events": events}))
    return grid
'''


def test_a_run_cannot_list_or_watch_the_other_runs_folders():
    """While other runs come and go (in the other worker, and on this worker's scipy server),
    a run sees only its own folder: the base above it holds nothing but the one directory its
    folder covers, and nothing that happens elsewhere reaches a watch it sets."""
    busy = "import os\n\ndef transform(grid):\n    open('made', 'w').write('x')\n    os.mkdir('dir')\n    return grid\n"
    with Sandbox(workers=2, timeout_s=5.0) as box:
        box.warm()
        stop = threading.Event()

        def others():
            while not stop.is_set():
                box.run(busy, [[[1]]])

        thread = threading.Thread(target=others)
        thread.start()
        try:
            spied = box.run(WATCHER, [[[1]]])[0]
        finally:
            stop.set()
            thread.join()
    assert spied.ok, spied
    report = json.loads(spied.stdout)
    assert report["events"] == 0, report
    assert report["seen"][".."] in (["run"], 13), report  # its base: the one folder, or not listable
    for path in ("/tmp", "/tmp/..", "/dev/shm", "/var/tmp"):
        assert report["seen"][path] == 13, report          # outside the view: refused


HELPER_SOURCE = POISON_AT_IMPORT + '''

def rotate_grid(grid, turns):
    """Turn the grid clockwise by quarter turns."""
    return np.rot90(grid, -turns)
'''


def test_a_helpers_verification_cannot_make_a_later_program_fail():
    """A model-written helper that leaves a deep tree and a full folder at import still verifies
    (it is correct); the honest program checked after it, in the same worker, passes as alone."""
    task = load_tasks("training", ids=["6150a2bd"]).by_id("6150a2bd")
    honest = "import numpy as np\n\ndef transform(grid):\n    return np.rot90(grid, 2)\n"
    helper = {"rotate_grid": Helper("rotate_grid", HELPER_SOURCE)}
    program = "from memory_helpers import rotate_grid\n\ndef transform(grid):\n    return rotate_grid(grid, 2)\n"
    with Sandbox(workers=1, timeout_s=5.0) as box:
        assert check_program(box, task, honest, {}) == (None, set())
        for _ in range(2):
            assert check_program(box, task, program, helper, ["rotate_grid"]) == (None, {"rotate_grid"})
            assert check_program(box, task, honest, {}) == (None, set())
        assert box.replaced == 0


IMMUTABLE = r'''
import ctypes, fcntl, os, struct

def transform(grid):
    fd = os.open("stuck-%s", os.O_CREAT | os.O_RDONLY, 0o600)
    fcntl.ioctl(fd, 0x40086602, struct.pack("l", 0x10))    # FS_IOC_SETFLAGS: immutable
    return grid
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a run that can make a file no one can remove (root, no kernel layers)")
def test_a_worker_that_cannot_restore_a_clean_state_is_replaced_before_the_next_program(tmp_path):
    """Without a mount namespace a run's folder is a directory its worker removes; a run that
    leaves one its worker cannot remove gets its own result, and the next program runs in a
    new worker, never in the dirty one."""
    tag = f"{os.getpid()}-{time.monotonic_ns()}"
    with Sandbox(workers=1, kernel_isolation=False) as box:
        try:
            out = box.run(IMMUTABLE % tag, [[[1]]])[0]
        except Exception:
            out = None
        try:
            if out is None or not out.ok:
                pytest.skip(f"this filesystem keeps no immutable files: {out}")
            first = box._idle[0].pid if box._idle else None
            assert box.run(FLIP, [[[1], [2]]])[0].output == [[2], [1]]
            assert box.replaced == 1 and box._idle[0].pid != first
        finally:
            found = subprocess.run(["find", "/tmp", "-name", f"stuck-{tag}"], capture_output=True, text=True)
            for path in found.stdout.split():  # and the replaced worker's base, which it could not remove
                subprocess.run(["chattr", "-i", path], check=False)
                shutil.rmtree(os.path.dirname(os.path.dirname(path)), ignore_errors=True)


UNCONTAINABLE = REFUSING_KERNEL_PRELUDE + r'''
from arcmemo.sandbox import Sandbox, SandboxError

with Sandbox(workers=1) as sb:
    landlock = sb.check_isolation()["landlock"]
    try:
        out = sb.run("def transform(grid):\n    return grid\n", [[[1]]])
        said = f"ran: {out}"
    except SandboxError as exc:
        said = f"refused: {exc}"
    print(json.dumps({"landlock": landlock, "said": said, "replaced": sb.replaced}))
'''


def test_a_program_whose_run_cannot_be_contained_never_runs_and_is_not_blamed(tmp_path):
    """On a kernel where a forked run cannot enter its filesystem view, no program runs
    without it: the worker says so before handing anything over, the program goes to a new
    worker, and when that one cannot either, the sandbox (not the program) is the error."""
    script = tmp_path / "uncontainable.py"
    script.write_text(UNCONTAINABLE)
    result = subprocess.run([sys.executable, str(script), "landlock_restrict_self"], cwd=REPO, capture_output=True,
                            text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    if not report["landlock"]:
        pytest.skip("no Landlock here: runs do not restrict themselves")
    assert report["said"].startswith("refused: the sandbox cannot start a run: a run's process could not contain "
                                     "itself"), report
    assert report["replaced"] == 2, report
