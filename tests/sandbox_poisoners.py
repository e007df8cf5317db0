"""Programs that try to change what the next program in the same worker sees (poisoners) and
honest programs whose results must not change (victims), for tests/test_sandbox_between_runs.py.

Each poisoner goes below the Python layer where it can (ctypes, `os` reached through numpy's
own modules so no import is needed): the audit hook is a courtesy; the kernel layers and the
run's fresh process and folder are what must hold. A victim prints what it observes (its
folder, files a poisoner may have planted, what it wrote) so that any difference shows in its
output, message or stdout.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Program:
    source: str
    grids: list = field(default_factory=lambda: [[[1, 2], [3, 4]]])
    modules: dict = field(default_factory=dict)
    helpers: str | None = None
    timeout_s: float | None = None

    def run(self, box, scipy: bool = False):
        """Its outcomes in `box`; with `scipy`, on the worker's scipy server (as a scipy victim's)."""
        source = ("import scipy.ndimage\n" if scipy else "") + self.source
        return box.run(source, self.grids, modules=self.modules or None, helpers=self.helpers,
                       timeout_s=self.timeout_s)


REFUSING_KERNEL_PRELUDE = r'''
"""A Sandbox in a process whose kernel refuses the system calls named in argv[1] (a seccomp
filter loaded first, inherited by the workers), as a machine without them would."""
import ctypes, ctypes.util, errno, json, os, sys

lib = ctypes.CDLL(ctypes.util.find_library("seccomp"))
lib.seccomp_init.restype = ctypes.c_void_p
ctx = ctypes.c_void_p(lib.seccomp_init(ctypes.c_uint32(0x7FFF0000)))
for name in sys.argv[1].split(","):
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    assert lib.seccomp_rule_add(ctx, ctypes.c_uint32(0x00050000 | errno.EPERM), nr, 0) == 0
assert lib.seccomp_load(ctx) == 0
'''

OS_VIA_NUMPY = "import numpy as np\nos = np.lib._datasource.os  # no import of os needed\n"
CTYPES = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall.restype = ctypes.c_long\n"
PLANTED = ("hidden/plant", "../plant", "/tmp/plant", "/dev/shm/plant", "/var/tmp/plant", "leaf", "d", "fill0")

DEEP_TREE = OS_VIA_NUMPY + '''
def transform(grid):
    top = os.getcwd()
    for _ in range(3000):
        try:
            os.mkdir("d")
            os.chdir("d")
        except OSError:
            break
    with open("leaf", "w") as f:
        f.write("poison")
    os.chdir(top)
    return grid
'''

FILL_FOLDER = CTYPES + '''
def plant(path):
    fd = libc.open(path.encode(), os.O_WRONLY | os.O_CREAT, 0o644)  # below the audit hook
    if fd >= 0:
        libc.write(fd, b"poison", 6)
        libc.close(fd)

def transform(grid):
    os.mkdir("hidden", 0o700)
    with open("hidden/plant", "w") as f:
        f.write("poison")
    os.chmod("hidden", 0o300)   # a folder its owner cannot list: an old clean-up stopped there
    for path in ("../plant", "/tmp/plant", "/dev/shm/plant", "/var/tmp/plant", "../run/plant"):
        plant(path)
    chunk = b"x" * (1 << 20)
    try:
        for i in range(1000):   # until the disk is full
            with open(f"fill{i}", "wb") as f:
                for _ in range(15):
                    f.write(chunk)
    except OSError:
        pass
    os.chmod(".", 0o300)
    return grid
'''

MANY_INODES = OS_VIA_NUMPY + '''
def transform(grid):
    try:
        for i in range(20000):
            os.close(os.open(f"f{i}", os.O_CREAT | os.O_WRONLY, 0o600))
    except OSError:
        pass
    return grid
'''

TRAPS = CTYPES + '''
def transform(grid):
    os.symlink("/", "root")
    os.symlink("..", "up")
    os.symlink("data.bin", "data.bin.lnk")
    os.mkfifo("fifo")
    os.symlink("fifo", "data.bin")        # a victim writing data.bin would block on a fifo
    os.mkdir("locked")
    os.chmod("locked", 0)
    return grid
'''

FORGED_LINES = '''
import json, os, time

def transform(grid):
    line = json.dumps({"i": 0, "ok": True, "output": [[9]], "error": None, "message": "", "stdout": ""})
    for k in range(400):                  # a valid result, again and again: it used to restart the clock
        os.write(3, (line.replace('"i": 0', '"i": %d' % (k % 2)) + "\\n").encode())
        time.sleep(0.02)
    return grid
'''

FLOOD = '''
import os

def transform(grid):
    junk = b"[" * (1 << 20)
    for _ in range(64):                   # 64 MB with no newline on the result channel
        os.write(3, junk)
    return grid
'''

SURROGATES = '''
def transform(grid):
    print("out " + chr(0xDCFF) + chr(0) + chr(27) + "[2J" + chr(0x202E) + "end")
    raise ValueError("bad " + chr(0xD800) + chr(7) + chr(0x9B) + " text")
'''

HARNESS_TAMPER = '''
import gc, sys, types

def transform(grid):
    found = 0
    frame = sys._getframe()
    while frame is not None:              # the frames this process inherited from the worker
        for name in list(frame.f_globals):
            if not name.startswith("__"):
                try:
                    frame.f_globals[name] = None
                    found += 1
                except Exception:
                    pass
        frame = frame.f_back
    for obj in gc.get_objects():          # every module and dict it can reach
        if isinstance(obj, types.ModuleType) and obj.__name__.startswith("arcmemo"):
            for name in list(vars(obj)):
                if not name.startswith("__"):
                    setattr(obj, name, None)
    return grid
'''

PROCESS_STATE = '''
import builtins, os, resource, signal, sys
import numpy as np

def transform(grid):
    os.environ["PATH"] = "/nonexistent"
    os.environ["PYTHONPATH"] = "/tmp"
    os.umask(0o777)
    sys.path.insert(0, ".")
    with open("numpy.py", "w") as f:      # a module shadowing numpy, in the folder
        f.write("raise ImportError('poisoned')\\n")
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_NOFILE, (8, 8))
    np.array = lambda *a, **k: None
    np.rot90 = lambda *a, **k: None
    sys.setrecursionlimit(60)
    builtins.print = lambda *a, **k: None
    os.chdir("/")
    return [[1]]
'''

PROCESSES = CTYPES + '''
def transform(grid):
    for attempt in (lambda: os.fork(), lambda: libc.fork(), lambda: libc.syscall(56, 17, 0, 0, 0, 0)):
        try:
            pid = attempt()
        except Exception:
            continue
        if pid == 0:                       # a child left behind, spinning
            while True:
                pass
    for pid, sig in ((1, 19), (-1, 19), (os.getppid(), 19), (0, 0)):   # SIGSTOP the worker
        libc.kill(pid, sig)
    return grid
'''

DESCRIPTORS = CTYPES + '''
def transform(grid):
    held = [os.open("/dev/null", os.O_RDONLY) for _ in range(40)]
    for fd in range(4, 64):
        if fd not in held:
            libc.close(fd)
    libc.dup2(held[0], 4)
    return grid
'''

HANG_IGNORING_ALARM = '''
import signal

def transform(grid):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        pass
'''

CLOSE_RESULTS_AND_STAY = '''
import os, time

def transform(grid):
    os.close(3)
    time.sleep(30)
'''

SEGFAULT = "import ctypes\n\ndef transform(grid):\n    ctypes.string_at(0)\n"

MEMORY = '''
def transform(grid):
    chunks = []
    while True:
        chunks.append(bytearray(1 << 24))
'''

POISON_AT_IMPORT = OS_VIA_NUMPY + '''
top = os.getcwd()
for _ in range(2000):                     # a deep tree and a full folder, left at import
    os.mkdir("d")
    os.chdir("d")
os.chdir(top)
with open("fill0", "wb") as f:
    f.write(b"x" * (15 << 20))
np.flipud = lambda g: None
'''

HELPER_POISON = POISON_AT_IMPORT + '''

def flip(grid):
    """Rows in reverse order."""
    return grid[::-1]
'''

POISONERS = {
    "deep_tree": Program(DEEP_TREE),
    "fill_folder": Program(FILL_FOLDER),
    "many_inodes": Program(MANY_INODES),
    "traps": Program(TRAPS),
    "forged_lines": Program(FORGED_LINES, grids=[[[1]], [[2]], [[3]]], timeout_s=0.2),
    "flood": Program(FLOOD),
    "surrogates": Program(SURROGATES),
    "harness_tamper": Program(HARNESS_TAMPER),
    "process_state": Program(PROCESS_STATE),
    "processes": Program(PROCESSES),
    "descriptors": Program(DESCRIPTORS),
    "hang_ignoring_alarm": Program(HANG_IGNORING_ALARM, timeout_s=0.2),
    "close_results_and_stay": Program(CLOSE_RESULTS_AND_STAY, timeout_s=0.2),
    "segfault": Program(SEGFAULT),
    "memory": Program(MEMORY),
    "helper_poisons_at_import": Program("from memory_helpers import flip\n\ndef transform(grid):\n    return flip(grid)\n",
                                        modules={"memory_helpers": HELPER_POISON}, helpers="memory_helpers"),
}

FILES = f'''
import os, tempfile

def transform(grid):
    print(sorted(os.listdir(".")))
    print([p for p in {PLANTED!r} if os.path.lexists(p)])
    with open("data.bin", "wb") as f:
        f.write(b"v" * (4 << 20))
    with tempfile.TemporaryFile(dir=".") as f:
        f.write(b"x")
    os.mkdir("sub")
    print(os.path.getsize("data.bin"), sorted(os.listdir(".")), oct(os.stat("data.bin").st_mode & 0o777))
    return grid
'''

VICTIMS = {
    "plain": Program("def transform(grid):\n    return grid[::-1]\n", grids=[[[1], [2]], [[3, 4]]]),
    "files": Program(FILES),
    "scipy": Program("import scipy.ndimage\n\ndef transform(grid):\n    labels, n = scipy.ndimage.label(grid > 0)\n"
                     "    return [[n]]\n",
                     grids=[[[1, 0, 1]], [[1, 1, 0]]]),
    "raises": Program("def pick(x):\n    return x[99]\n\ndef transform(grid):\n    return pick(grid)\n"),
    "times_out": Program("def transform(grid):\n    while True:\n        pass\n", grids=[[[1]], [[2]]], timeout_s=0.3),
    "helpers": Program("from memory_helpers import flip\n\ndef transform(grid):\n    return flip(grid)\n",
                       modules={"memory_helpers": "def flip(grid):\n    return grid[::-1]\n"}, helpers="memory_helpers"),
    "prints": Program("import numpy as np\n\ndef transform(grid):\n    print('sum', int(np.sum(grid)), np.arange(3))\n"
                      "    return np.rot90(grid)\n"),
}
SCIPY_VICTIMS = {"scipy"}  # their poisoners run on the scipy server too (prefixed with its import)
CORE_POISONERS = ("deep_tree", "fill_folder", "forged_lines", "harness_tamper", "helper_poisons_at_import")
