"""The parent's side of a run, without processes: what arcmemo reads from a run's result lines
(strictly, sanitised, every grid accounted for) and how a run's folder is removed where a run
cannot have a tmpfs of its own."""

from __future__ import annotations

import json
import os
import signal
import tempfile
from pathlib import Path

import pytest

from arcmemo.sandbox.folders import remove_tree
from arcmemo.sandbox.results import line_bytes, outcomes, sanitised


def line(i: int, **fields) -> bytes:
    base = {"i": i, "ok": True, "output": [[i]], "error": None, "message": "", "stdout": ""}
    return (json.dumps({**base, **fields}) + "\n").encode()


def never() -> int:
    raise AssertionError("the wait status was asked for though every grid had its result")


def signalled(sig: int) -> int:
    return sig  # a wait status for a process killed by `sig` (no core dump)


def test_every_grid_with_its_first_result_needs_no_status():
    stream = line(1) + line(0) + line(0, output=[[9]]) + b"not json\n"   # after all n: ignored
    got = outcomes(stream, "eof", never, 2, 1.0)
    assert [o["output"] for o in got] == [[[0]], [[1]]]


@pytest.mark.parametrize("bad", [
    b"{", b'{"i": 5, "ok": true, "output": [[1]]}', b'{"i": 0, "ok": 1, "output": [[1]]}',
    b'{"i": 0, "ok": true, "output": [[10]]}', b'{"i": 0, "ok": false, "error": "oops"}',
    b'{"i": 0, "ok": true, "output": [[1]], "called": ["not a name"]}', b'\xff\xfe',
])
def test_a_malformed_line_ends_what_is_read(bad):
    got = outcomes(line(0) + bad + b"\n" + line(1), "eof", never, 2, 1.0)
    assert got[0]["ok"] and got[1]["error"] == "crash" and "malformed results" in got[1]["message"]


def test_grids_without_a_result_say_how_the_run_ended():
    got = outcomes(line(0) + b'{"i": 1, "ok": tr', "timeout", never, 3, 0.5)   # the half line is ignored
    assert [o["error"] for o in got] == [None, "timeout", "timeout"]
    assert got[1]["message"] == "no result within 0.5 s (wall clock); the run was stopped"
    assert got[2]["message"] == "not run: the program's process ended on grid 1 (timeout)"
    cases = [(signalled(signal.SIGXCPU), "timeout", "CPU time limit exceeded"),
             (signalled(signal.SIGSEGV), "crash", "killed by SIGSEGV"),
             (3 << 8, "crash", "exited with status 3"),
             (None, "crash", "ended before returning a result")]
    for status, kind, words in cases:
        (got,) = outcomes(b"", "eof", lambda s=status: s, 1, 1.0)
        assert got["error"] == kind and words in got["message"], (status, got)
    (got,) = outcomes(b"", "overflow", never, 1, 1.0)
    assert got["error"] == "crash" and "more to the result channel" in got["message"]


def test_text_is_sanitised_and_bounded():
    text = "a\udcffb\x00c\x1b[1m\u202e\u2066d\ufeff\n\te\x85"
    assert sanitised(text) == "a\ufffdbc[1md\n\te"
    (got,) = outcomes(line(0, ok=False, output=None, error="exception", message=text * 1000, stdout=text),
                      "eof", never, 1, 1.0, max_stdout=5)
    assert got["message"].startswith("a\ufffdbc[1md") and len(got["message"]) <= 4000
    assert got["stdout"] == sanitised(text) and got["error"] == "exception"
    assert sanitised("plain\nascii\ttext") == "plain\nascii\ttext"


def test_an_honest_line_always_fits_the_room_a_run_is_given():
    worst = line(0, ok=False, output=None, error="exception", message="\U0001F600" * 4000,
                 stdout="\U0001F600" * 8200, called=["x" * 200] * 200, rebound=["y" * 200] * 200)
    assert len(worst) <= line_bytes(8000)


@pytest.fixture
def scratch(tmp_path):
    """A directory on a tmpfs where there is one (3,000 rmdirs on a journalled disk take seconds)."""
    if os.access("/dev/shm", os.W_OK):
        with tempfile.TemporaryDirectory(dir="/dev/shm") as name:
            yield Path(name)
    else:
        yield tmp_path


def test_a_deep_tree_with_unreadable_folders_is_removed_without_recursion(scratch):
    top = scratch / "run"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    for depth in range(3000):                      # deeper than PATH_MAX and the recursion limit
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
        if depth % 700 == 0:
            os.close(os.open("f", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd))
            os.mkdir("shut", 0o000, dir_fd=fd)     # no one may list it (its owner included)
            os.mkdir("blind", 0o300, dir_fd=fd)
    os.close(fd)
    outside = scratch / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    (top / "link").symlink_to(outside)             # removed as a link, never followed
    assert remove_tree(str(top)) and not top.exists()
    assert (outside / "keep").read_text() == "x"
    assert remove_tree(str(top))                   # gone already: nothing to do
