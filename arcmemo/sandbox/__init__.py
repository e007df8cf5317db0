"""Isolated execution of model-written programs: a pool of warm fork-server workers.

The parent process keeps a pool of *workers*: Python processes started with a clean
environment that have numpy (and common stdlib modules) imported. Each program run is
one `os.fork()` of a worker, so every run is its own process with its own limits and a
worker is never poisoned by the code it runs. Programs whose source (or extra modules)
mention scipy are forked instead from a second fork server, a child of the worker that
also has scipy.ndimage imported: a process with scipy loaded costs about twice as much
to fork, and most programs only use numpy. Layers of containment in the forked child,
from the kernel up:

- its own session (a `killpg` reaches only itself), SIGKILL when its worker dies;
- rlimits: address space (the worker's size + `memory_mb`), CPU time, no new processes
  or threads (RLIMIT_NPROC=0), file size, no core dumps, few open files;
- as root (checked at worker start, each layer falls back cleanly when refused): the
  worker lives in its own network namespace (no interfaces up) and mount namespace with
  private tmpfs on /tmp, /var/tmp and /dev/shm, and the child drops to a uid of its own
  (so it cannot signal the worker, the parent, or another run, and cannot write to files
  it does not own);
- a fresh temporary working directory, an empty `os.environ`, stdin/stdout/stderr on
  /dev/null and every inherited descriptor closed except its result pipe;
- a Python audit hook refusing sockets, process creation, signals to other processes and
  writes outside the working directory (this layer alone can be bypassed with ctypes,
  which is why the kernel layers exist);
- what it prints goes to a bounded buffer; what it returns is converted to plain lists
  inside the child (hostile `__eq__`/`__array__`/generators never reach the parent) and
  travels back as JSON text, one line per grid, never as a pickle.

Each worker forks the next run's process ahead of time, while the current run is still
running (set up down to the audit hook, it waits on a pipe for its request), and reaps
finished ones once they are gone or the worker is idle, so a fork overlaps a run and an
exit never delays a reply; the request arrives as JSON and the program is compiled inside
the limited child. The
worker enforces the wall-clock timeout (per grid: the clock restarts whenever a grid result
arrives; the first grid's budget also covers compiling and importing the program) and
kills the child's process group; the parent has a backstop on the worker itself and replaces a worker that
died or stopped answering.

When the runtime lives in a private home (pyenv under /root), runs with their own uid
could not import anything not already loaded; the worker then covers that home with an
empty tmpfs in its mount namespace and bind-mounts only Python's directories back, so the
rest of the home is invisible to runs. Without root (or when the kernel refuses a layer)
`Sandbox.isolation` says which layers are off; the Python-level guards still hold, but a
program using ctypes could then reach the network or signal same-user processes.

Code layout: `pool.py` is the parent side (Sandbox, the worker pool),
`worker.py` the warm fork server and its isolation, `child.py` the forked process that
runs one program, `common.py` what the three share (limits, result shape, pipe framing).

Cost: one fork per run, and that sets the floor. On the 2-core development VM (a nested
VM where page faults are slow) an empty fork+exit of a numpy process costs 0.5 ms of CPU
(about 230 page faults in the child: refaulted interpreter code and copy-on-write), 2.5-3x
what plain in-process exec of a typical small program costs (0.18 ms). A whole sandboxed
run costs 1.5-2.5 ms of latency and 2.5-4 ms of CPU over all processes: 8-14x in-process
exec, 35-70x faster than a fresh interpreter per run (benchmarks/sandbox.py).
"""

from arcmemo.sandbox.common import ERROR_KINDS, MAX_SIDE
from arcmemo.sandbox.pool import RunOutcome, Sandbox, SandboxError, SandboxIsolationError, get_sandbox
from arcmemo.sandbox.worker import LEVELS

__all__ = ["ERROR_KINDS", "LEVELS", "MAX_SIDE", "RunOutcome", "Sandbox", "SandboxError", "SandboxIsolationError",
           "get_sandbox"]
