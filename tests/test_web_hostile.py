"""The page reads only arcmemo's data: hostile URLs against the real `arcmemo serve`.

A server runs in a subprocess over a copy of the fixture, with a fake OPENAI_API_KEY in its
environment (so /proc/self/environ holds it) and, outside --runs, a marker file, a run and a
task folder that each carry a marker. Inside --runs: a symlink to the outside run, a run whose
config.json is a symlink out, and a run whose task source names /proc/self/environ. Requests
go out as raw bytes (no client normalises `..` or encodings away). Each answer must have the
expected status, and no body may hold a marker, the key, or a line of /etc/passwd.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from web_support import copy_fixture, serve_process

pytest.importorskip("starlette")

TOKEN = secrets.token_hex(6)
MARKER = f"MARKER{TOKEN}"
FAKE_KEY = f"sk-fake{TOKEN}"
OUTSIDE_TASK = f"outside{TOKEN}"
PASSWD_LINE = "root:x:0:0"


def _request(url: str, target: bytes, method: bytes = b"GET") -> tuple[int, bytes]:
    """(status, body) of one raw HTTP/1.1 request; status 0 when the server closed without answering."""
    address = urlsplit(url)
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(method + b" " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                     b"Content-Length: 0\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    if not data:
        return 0, b""
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def _run_copy(origin: Path, target: Path, **settings) -> Path:
    shutil.copytree(origin, target)
    config = json.loads((target / "config.json").read_text())
    config["settings"].update(settings)
    (target / "config.json").write_text(json.dumps(config))
    return target


@pytest.fixture(scope="module")
def hostile_server(web_fixture, tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    root, outside = base / "copy", base / "outside"
    memory = copy_fixture(web_fixture, root)
    runs = root / "runs"
    good = runs / web_fixture.baseline
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{MARKER}\n")
    elsewhere = _run_copy(good, outside / "run-elsewhere", note=MARKER)
    (outside / "tasks").mkdir()
    shutil.copy(Path(__file__).parent / "data" / "mirror_rows.json", outside / "tasks" / f"{OUTSIDE_TASK}.json")
    (runs / "linked").symlink_to(elsewhere, target_is_directory=True)
    leaky = _run_copy(good, runs / "leaky")
    (leaky / "config.json").unlink()
    (leaky / "config.json").symlink_to(elsewhere / "config.json")
    _run_copy(good, runs / "envsource", source="/proc/self/environ")
    mine = root / "mine"
    mine.mkdir()
    shutil.copy(Path(__file__).parent / "data" / "mirror_rows.json", mine / "mirrorrows.json")
    env = dict(os.environ, ARCMEMO_HOME=str(root / "home"), OPENAI_API_KEY=FAKE_KEY)
    with serve_process(["--db", str(memory), "--runs", str(runs), "--tasks-from", str(mine)], env) as url:
        yield url, outside, web_fixture


def _hostile_requests(outside: Path, good: str) -> list[tuple[bytes, bytes, int]]:
    """(method, request target, expected status)."""
    o = str(outside).encode()
    get = [
        # datasets: a name from the server's own list, never a path
        (b"/tasks?dataset=/proc/self/environ", 404),
        (b"/tasks?dataset=" + o + b"/secret.txt", 404),
        (b"/tasks?dataset=" + o + b"/tasks", 404),
        (b"/tasks/" + OUTSIDE_TASK.encode() + b"?dataset=" + o + b"/tasks", 404),
        (b"/tasks?dataset=../../../../etc/passwd", 404),
        (b"/tasks?dataset=%2Fproc%2Fself%2Fenviron", 404),
        (b"/tasks?dataset=%252Fproc%252Fself%252Fenviron", 404),
        (b"/tasks?dataset=%2e%2e%2f%2e%2e%2fetc%2fpasswd", 404),
        (b"/tasks?dataset=training%00/etc/passwd", 404),
        (b"/tasks?dataset=mine/../../outside/tasks", 404),
        (b"/tasks/..%2F..%2F..%2Fetc%2Fpasswd?dataset=training", 404),
        (b"/tasks/%2e%2e/%2e%2e/etc/passwd", 404),
        (b"/tasks/nope%00.json?dataset=training", 404),
        (b"/tasks?dataset=training&page=" + b"9" * 5000, 200),
        # runs: a name directly under --runs, never a path, never a symlink out
        (b"/runs/compare?run=" + o + b"/run-elsewhere", 404),
        (b"/runs/compare?run=" + good + b"&run=" + o + b"/run-elsewhere", 404),
        (b"/runs/compare?run=../../outside/run-elsewhere", 404),
        (b"/runs/compare?run=%2E%2E%2F%2E%2E%2Foutside%2Frun-elsewhere", 404),
        (b"/runs/compare?run=linked", 404),
        (b"/runs/compare?run=leaky", 404),
        (b"/runs/linked", 404),
        (b"/runs/linked/report.html", 404),
        (b"/runs/linked/progress", 404),
        (b"/runs/leaky", 404),
        (b"/runs/..", 404),
        (b"/runs/.", 404),
        (b"/runs/%2e%2e", 404),
        (b"/runs/..%2F..%2Foutside%2Frun-elsewhere", 404),
        (b"/runs/%252e%252e%252Fetc", 404),
        (b"/runs/" + good + b"%00", 404),
        (b"/runs/" + good + b"/tasks/..%2F..%2F..%2Fetc%2Fpasswd", 404),
        (b"/runs/" + b"x" * 4000, 404),
        # concepts: an id in the table's range, looked up
        (b"/concepts/1234567890123456789012345", 404),
        (b"/concepts/9223372036854775808", 404),
        (b"/concepts/0", 404),
        (b"/concepts/-1", 404),
        (b"/concepts/1%00", 404),
        (b"/concepts/" + b"9" * 5000, 404),
        # the one static file
        (b"/static/..%2Fapp.py", 404),
        (b"/static/%2e%2e%2f%2e%2e%2fcore%2ftasks.py", 404),
        (b"/static/" + o + b"/secret.txt", 404),
    ]
    posts = [(b"/concepts/1234567890123456789012345/edit", 404), (b"/concepts/" + b"9" * 400 + b"/edit", 404)]
    return [(b"GET", t, s) for t, s in get] + [(b"POST", t, s) for t, s in posts]


def _leaks(body: bytes) -> list[str]:
    return [s for s in (MARKER, FAKE_KEY, OUTSIDE_TASK, PASSWD_LINE) if s.encode() in body]


def test_hostile_urls_get_404_and_nothing_from_outside(hostile_server):
    url, outside, fx = hostile_server
    wrong = []
    for method, target, status in _hostile_requests(outside, fx.baseline.encode()):
        got, body = _request(url, target, method)
        if got != status or _leaks(body):
            wrong.append((method, target[:120], got, status, _leaks(body)))
    assert not wrong, wrong


def test_a_nul_byte_in_the_request_line_is_refused(hostile_server):
    url, _, _ = hostile_server
    status, body = _request(url, b"/tasks?dataset=/proc/self/environ\x00")
    assert status in (0, 400) and not _leaks(body)


def test_arcmemos_own_data_is_still_served(hostile_server):
    """The same server shows the runs under --runs (not the ones leading out), the named folder
    and a run whose task source is a file it must not read (its puzzles are simply missing)."""
    url, _, fx = hostile_server
    status, listing = _request(url, b"/runs")
    assert status == 200 and fx.baseline.encode() in listing and b"envsource" in listing
    assert b"linked" not in listing and b"leaky" not in listing and not _leaks(listing)
    status, mine = _request(url, b"/tasks?dataset=mine")
    assert status == 200 and b"mirrorrows" in mine
    status, puzzle = _request(url, b"/tasks/mirrorrows?dataset=mine&answers=1")
    assert status == 200 and b"Test 1 answer" in puzzle
    for target in (b"/runs/envsource", b"/runs/envsource/tasks/" + fx.tasks[0].encode(),
                   b"/runs/envsource/report.html", b"/runs/compare?run=envsource&run=" + fx.baseline.encode()):
        status, body = _request(url, target)
        assert status == 200 and not _leaks(body), target
    status, body = _request(url, b"/tasks?dataset=arc-agi-2/evaluation")
    assert status == 200 and b"120 tasks" in body
