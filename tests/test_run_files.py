"""Run files are read as regular files only, within limits (issue 37, point 1): a FIFO, a symbolic
link or an oversized file in a run directory is refused at once with an error naming it, by the
one reader of runs (run/records/reader.py) and so by every command, the page and resume; the
page shows that run's error and every other page as usual; the server stops on SIGTERM and
Ctrl-C within a few seconds even while a page is stuck.

Each test that could block (reading a FIFO waits for a writer that never comes) runs its reads
in a thread with a time limit, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from web_support import copy_fixture, serve_process

from arcmemo.cli import cli
from arcmemo.run.records import rundir as rundir_module
from arcmemo.run.records.reader import read_run
from arcmemo.run.records.rundir import RunDir, RunDirError

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 10
FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]


def within(seconds: float, work):
    """work()'s result (or its exception), failing the test if it is still at work after `seconds`."""
    found: dict = {}

    def run():
        try:
            found["value"] = work()
        except BaseException as exc:        # handed back to the test
            found["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s (reading a FIFO?)"
    if "error" in found:
        raise found["error"]
    return found["value"]


def release(fifo: Path) -> None:
    """Let a reader blocked on `fifo` go (a writer opens it and closes it): the test's threads end."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.fixture
def runs(web_fixture, tmp_path):
    """A copy of the fixture's runs (the continual run and the baseline) to break."""
    copy_fixture(web_fixture, tmp_path / "copy")
    return tmp_path / "copy" / "runs"


def _fifo_instead(run: Path, name: str) -> Path:
    path = run / name
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


# each run file, and a command that reads it
READERS = {"events.jsonl": ["show", "--task"], "summary.json": ["show"], "status.json": ["list"],
           "selections.jsonl": ["selections"], "config.json": ["show"]}


@pytest.mark.parametrize("name", [*READERS, "tasks.json"])
def test_a_fifo_in_a_run_is_refused_at_once_naming_it(runs, web_fixture, name):
    run, task = runs / web_fixture.baseline, web_fixture.tasks[0]
    if name == "status.json":
        RunDir(run).set_status("finished")
    fifo = _fifo_instead(run, name)
    refused = rf"{name}: a FIFO \(named pipe\), not a regular file"
    try:
        def read_everything():
            record = read_run(run)
            record.status(), record.summary, record.log, record.selections(task), record.run_tasks()

        with pytest.raises(RunDirError, match=refused):
            within(LIMIT_S, read_everything)
        command = READERS.get(name, ["show", "--task"])
        args = ["runs", command[0], *([] if command[0] == "list" else [web_fixture.baseline]), *command[1:],
                *([task] if "--task" in command else []), "--run-dir", str(runs)]
        shown = within(LIMIT_S, lambda: CliRunner().invoke(cli, args))
    finally:
        release(fifo)
    assert "Traceback" not in shown.output and re.search(refused, shown.output), shown.output
    if name == "tasks.json":          # the attempts are shown, the puzzle said to be unreadable
        assert shown.exit_code == 0 and "the puzzle is not recorded" in shown.output
    elif name == "status.json":       # the list goes on, the run's state says why
        assert shown.exit_code == 0 and "cannot be read" in shown.output
    else:
        assert shown.exit_code == 1


def test_symbolic_links_and_devices_are_not_followed_in_a_run(runs, web_fixture):
    run = runs / web_fixture.baseline
    (run / "events.jsonl").unlink()
    (run / "events.jsonl").symlink_to("/dev/zero")             # an endless file behind a link
    with pytest.raises(RunDirError, match="events.jsonl: a symbolic link, not a regular file"):
        within(LIMIT_S, lambda: read_run(run).log)


def test_the_event_log_is_read_within_its_limits(runs, web_fixture, monkeypatch):
    run = runs / web_fixture.baseline
    longest = max(len(line) for line in (run / "events.jsonl").read_bytes().splitlines(keepends=True))
    monkeypatch.setattr(rundir_module, "LINE_MAX", longest - 1)
    with pytest.raises(RunDirError, match=r"events.jsonl: line \d+ is longer than the .* a line may have here"):
        read_run(run).usage()
    monkeypatch.setattr(rundir_module, "LINE_MAX", longest)
    assert len(read_run(run).log.outcomes) == 3
    monkeypatch.setattr(rundir_module, "LOG_MAX", (run / "events.jsonl").stat().st_size - 1)
    with pytest.raises(RunDirError, match=r"events.jsonl: .* more than the .* a file may have here"):
        read_run(run).usage()


def test_a_page_s_deadline_stops_a_read_without_blaming_the_run(runs, web_fixture):
    """Past its thread's reading deadline a read stops with ReadTimedOut (the page answers 503),
    never with the run's error (the runs list would show a good run as unreadable)."""
    from arcmemo.core.files import ReadTimedOut, reading_deadline

    with reading_deadline(-1), pytest.raises(ReadTimedOut):
        read_run(runs / web_fixture.baseline).usage()
    assert read_run(runs / web_fixture.baseline).usage().calls > 0


def test_an_event_log_arcmemo_did_not_write_is_refused_naming_the_event(runs, web_fixture):
    run = runs / web_fixture.baseline
    with open(run / "events.jsonl", "a") as fh:
        fh.write(json.dumps({"type": "task", "task_id": "x", "usage": {"calls": "many"}}) + "\n")
    with pytest.raises(RunDirError, match=r"events.jsonl: event 6 \(task\) is not one arcmemo wrote"):
        read_run(run).usage()


def test_resume_and_concept_counts_refuse_a_fifo_log(runs, web_fixture, fake_model):
    run = runs / web_fixture.baseline
    fifo = _fifo_instead(run, "events.jsonl")
    (run / "summary.json").unlink()
    memory = str(runs.parent / "memory.db")
    try:
        resumed = within(60, lambda: CliRunner().invoke(cli, ["solve", "--resume", web_fixture.baseline, "--run-dir",
                                                              str(runs), "--db", memory, *FAKE]))
        stats = within(LIMIT_S, lambda: CliRunner().invoke(cli, ["concepts", "stats", "--run", web_fixture.baseline,
                                                                 "--run-dir", str(runs), "--db", memory]))
    finally:
        release(fifo)
    for done in (resumed, stats):
        assert done.exit_code == 1 and "events.jsonl: a FIFO" in done.output and "Traceback" not in done.output


def test_the_page_shows_a_bad_run_s_error_and_every_other_page(runs, web_fixture, tmp_path):
    """A run whose event log is a FIFO and one whose task source names a FIFO, beside good runs:
    the runs list, the concept pages (they read every run) and the good runs answer; the bad
    run's page says what is wrong with it."""
    from starlette.testclient import TestClient

    from arcmemo.memory.store import Memory
    from arcmemo.web.app import create_app

    good = web_fixture.baseline
    shutil.copytree(runs / good, runs / "fifo-log")
    fifo = _fifo_instead(runs / "fifo-log", "events.jsonl")
    shutil.copytree(runs / good, runs / "fifo-source")
    source_fifo = tmp_path / "tasks.json"
    os.mkfifo(source_fifo)
    config = json.loads((runs / "fifo-source" / "config.json").read_text())
    config["settings"]["source"] = str(source_fifo)
    config.pop("puzzles", None)                      # a run from before runs kept their puzzles
    (runs / "fifo-source" / "config.json").write_text(json.dumps(config))
    (runs / "fifo-source" / "tasks.json").unlink(missing_ok=True)
    try:
        with Memory(str(runs.parent / "memory.db")) as memory:
            app = create_app(memory, runs, actor="user:test", allowed_hosts=["testserver"])
            client = TestClient(app)            # a portal per request: one left blocked holds nothing up

            def get(path):
                return within(LIMIT_S, lambda: client.get(path))

            listed = get("/runs")
            assert listed.status_code == 200
            assert "fifo-log" in listed.text and "a FIFO (named pipe), not a regular file" in listed.text
            assert f'href="/runs/{good}"' in listed.text and f'href="/runs/{web_fixture.continual}"' in listed.text
            bad = get("/runs/fifo-log")
            assert bad.status_code == 500 and "This run cannot be read" in bad.text and "events.jsonl" in bad.text
            assert get(f"/runs/{good}").status_code == 200
            assert get("/concepts/1").status_code == 200
            task = get(f"/runs/fifo-source/tasks/{web_fixture.tasks[0]}")
            assert task.status_code == 200 and "The puzzle is not recorded" in task.text
    finally:
        release(fifo)
        release(source_fifo)


STUCK_SERVER = textwrap.dedent("""
    import os, sys
    from starlette.routing import Route
    from arcmemo.memory.store import Memory
    from arcmemo.web import serve
    from arcmemo.web.app import create_app

    runs, fifo = sys.argv[1], sys.argv[2]

    def stuck(request):       # a handler stuck in a system call: opening a FIFO no one writes
        with open(fifo) as fh:
            return fh.read()

    memory = Memory(os.path.join(runs, "..", "memory.db"))
    app = create_app(memory, runs, actor="user:test", allowed_hosts=["127.0.0.1"])
    app.router.routes.append(Route("/stuck", stuck))
    sock = serve.bind("127.0.0.1", 0)
    serve.run(app, sock, on_start=lambda: print("port", sock.getsockname()[1], flush=True))
""")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_server_stops_within_seconds_while_a_handler_is_stuck(runs, tmp_path, sig):
    from arcmemo.web.limits import FORCE_S

    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    process = subprocess.Popen([sys.executable, "-c", STUCK_SERVER, str(runs), str(fifo)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        port = int(process.stdout.readline().split()[-1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /stuck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            time.sleep(1.0)                      # the handler is in its open() now
            started = time.monotonic()
            process.send_signal(sig)
            process.wait(timeout=FORCE_S + 5)
            took = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        release(fifo)
    assert took < FORCE_S + 2, f"took {took:.1f} s to stop"


@pytest.mark.slow
def test_the_real_server_answers_beside_a_fifo_run(runs, web_fixture, tmp_path):
    """`arcmemo serve` over a runs folder with a FIFO for a run's event log: 60 requests at once to
    the pages that read every run (the runs list, a concept page) all answer."""
    from concurrent.futures import ThreadPoolExecutor
    from urllib.request import urlopen

    shutil.copytree(runs / web_fixture.baseline, runs / "fifo-log")
    fifo = _fifo_instead(runs / "fifo-log", "events.jsonl")
    env = dict(os.environ, ARCMEMO_HOME=str(tmp_path / "home"))

    def fetch(url):
        try:
            with urlopen(url, timeout=30) as response:
                return response.status
        except OSError as exc:
            return getattr(exc, "code", str(exc))

    try:
        with serve_process(["--db", str(runs.parent / "memory.db"), "--runs", str(runs)], env) as base:
            paths = ["/runs", "/concepts/1", f"/runs/{web_fixture.baseline}"] * 20
            with ThreadPoolExecutor(60) as pool:
                answers = list(pool.map(fetch, [base + p for p in paths]))
            assert answers == [200] * len(paths)
            assert fetch(base + "/runs/fifo-log") == 500
    finally:
        release(fifo)
