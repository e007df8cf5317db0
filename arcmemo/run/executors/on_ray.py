"""A run's tasks as Ray work: a local Ray instance by default, a cluster by address.

Workers are Ray actors (`TaskWorker`), each a process with its own sandbox pool, model
client and memory connection, solving several tasks at once on threads (a task waits on
the model most of the time, so a worker per task would only cost memory). Each task is
`Runner.solve_task`, the same function a local run calls: the worker hands back its
`TaskResult` and the driver alone commits it to the run directory and writes memory, so a
Ray run's directory and memory are those of a sequential run.

What every worker must reach:
- the memory: the driver's SQLite file on this machine; on a cluster, a PostgreSQL URL
  (`check_cluster_memory` refuses a SQLite path there before anything is made);
- the call log and cache: on this machine the workers open the driver's call log file
  itself (a shared store: SQLite in WAL mode takes several writers), so a cached answer
  is served to any worker and `arcmemo calls` sees every call as a local run's. A remote
  worker cannot open that file, so it logs to its own and ships its task's call rows back
  with the result; the driver appends them to its log (same log; the cache then answers
  the next run on this machine, and each node's own log answers its repeats).

A worker that dies mid-task (killed, out of memory) is restarted and its task retried
(`MAX_TASK_RETRIES`); a task whose retries ran out is recorded as lost (not attempted),
so the run goes on and `--resume` tries it again.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import socket
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from arcmemo.core.errors import ArcmemoError
from arcmemo.run.executors.local import Executor
from arcmemo.run.records.taskrecords import TaskRecords, TaskResult

MAX_TASK_RETRIES = 2      # a task on a worker that died is tried again this often
INSTALL_HINT = "Ray is not installed: pip install 'arcmemo[ray]'"


class RayUnavailable(ArcmemoError):
    """Ray cannot be used for this run (not installed, cluster unreachable, memory not shared)."""


def import_ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailable(INSTALL_HINT) from None
    return ray


def is_remote_address(address: str | None) -> bool:
    """A Ray Client address (ray://host:port) puts the workers on other machines than this one."""
    return bool(address) and address.startswith("ray://")


def check_cluster_memory(memory_url: str, *, remote: bool) -> None:
    """Workers on other machines cannot open this machine's SQLite file: say what to use instead."""
    if remote and ("://" not in memory_url or memory_url.startswith("sqlite")):
        raise RayUnavailable(f"the memory {memory_url} is a SQLite file on this machine, which workers on other "
                             "machines cannot open: give a Ray cluster a PostgreSQL memory "
                             "(--db postgresql://user:pw@host/db), or run on this machine without --ray-address")


def connect(address: str | None, memory_url: str) -> tuple[bool, bool]:
    """Join the cluster at `address` (None: start a local Ray instance, unless this process is
    already connected). Returns (whether workers may be on other machines, whether this call
    connected). Every problem is a RayUnavailable naming the fix."""
    ray = import_ray()
    check_cluster_memory(memory_url, remote=is_remote_address(address))
    connected_here = not ray.is_initialized()
    if connected_here and address and address != "auto":
        _check_reachable(address)
    if connected_here:
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR, include_dashboard=False,
                     configure_logging=False)
        except Exception as exc:       # ConnectionError, a timeout, a bad address: Ray raises many kinds
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise RayUnavailable(f"cannot reach {where}: {str(exc).splitlines()[0] if str(exc) else exc!r}; "
                                 "check the address (ray://HOST:10001 or auto for a cluster started on this "
                                 "machine with `ray start --head`), or leave --ray-address out to start "
                                 "one here") from None
    remote = is_remote_address(address) or len([n for n in ray.nodes() if n.get("Alive")]) > 1
    try:
        check_cluster_memory(memory_url, remote=remote)
    except RayUnavailable:
        if connected_here:
            ray.shutdown()
        raise
    return remote, connected_here


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """A TCP connect to the cluster's port first: Ray itself retries an unreachable one for minutes."""
    hostport = address.removeprefix("ray://").split("/", 1)[0]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise RayUnavailable(f"--ray-address {address!r} is not auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise RayUnavailable(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}; check the address "
                             "(ray://HOST:10001 for Ray Client, HOST:6379 from a node of the cluster), or leave "
                             "--ray-address out to start Ray here") from None


@dataclass
class WorkerSpec:
    """What a worker needs to solve the run's tasks (plain data, sent once per worker)."""

    config: Any            # RunConfig
    run_path: str          # the run directory (a worker only takes its id: it never writes there)
    memory_url: str
    models: Any            # LLMSettings; log_path None on a remote worker: it logs to its own
    settings: Any          # Settings
    ship_calls: bool       # send the task's call rows back (a worker that cannot open the driver's log)
    prompts: Any = None    # the user's template files in force at the driver (run/prompting.py)


class TaskWorker:
    """One worker process: its own sandbox, model client and memory; tasks on threads."""

    def __init__(self, spec: WorkerSpec):
        from arcmemo.llm.client import LLM
        from arcmemo.memory.store import Memory
        from arcmemo.run.loop import Runner
        from arcmemo.run.prompting import put_in_force
        from arcmemo.run.records.rundir import RunDir
        from arcmemo.run.session import shared_sandbox
        from arcmemo.solverkit import load_solver

        settings = spec.settings
        models = dataclasses.replace(spec.models)      # registers the key as a secret in this process
        sandbox = shared_sandbox(settings)
        sandbox.add_secrets([models.api_key])
        rundir = RunDir(spec.run_path)
        self.ship_calls = spec.ship_calls
        self.prompts = put_in_force(spec.prompts or {}, spec.config.grid_text)   # for the worker's life
        self.runner = Runner(config=spec.config, tasks=[], answers={}, memory=Memory(spec.memory_url),
                             llm=LLM(models, run_id=rundir.run_id), sandbox=sandbox,
                             solver=load_solver(spec.config.solver), rundir=rundir, settings=settings)

    def solve(self, task, answers, pass_index: int) -> TaskResult:
        from arcmemo.run.records.submission_metadata import newest_call_id, task_calls

        if answers is not None:
            self.runner.answers[task.id] = answers
        first = newest_call_id(self.runner.llm) if self.ship_calls else 0
        result = self.runner.solve_task(task, pass_index)
        if self.ship_calls:
            result.calls = [c.to_dict() for c in task_calls(self.runner.llm, task.id, first)]
        return result

    def pid(self) -> int:
        return os.getpid()


class RayExecutor(Executor):
    """Tasks as calls to a few Ray actors: `slots` tasks at once, spread over `workers` actors
    (default: one per node of the cluster, at most one per slot: within a machine, threads
    serve latency-bound tasks as well as processes, and each process pays its start-up)."""

    def __init__(self, slots: int, *, address: str | None = None, memory_url: str, workers: int | None = None):
        if slots < 1:
            raise ValueError(f"tasks in flight must be at least 1, got {slots}")
        self.slots = slots
        self.remote, self.connected_here = connect(address, memory_url)
        self.ray = import_ray()
        nodes = len([n for n in self.ray.nodes() if n.get("Alive")]) or 1
        self.workers_wanted = max(1, min(slots, workers or nodes))
        self.actors: list[Any] = []
        self.load: list[int] = []
        self.lock = threading.Lock()

    def prepare(self, runner) -> None:
        """Start the workers and wait until each is ready (a worker that cannot start fails here)."""
        with self.lock:
            if not self.actors:
                self._start(runner)
        self.ray.get([actor.pid.remote() for actor in self.actors])

    def _start(self, runner) -> None:
        from arcmemo.llm.log import log_path
        from arcmemo.run.prompting import in_force

        models = runner.llm.settings
        url = runner.memory.url
        spec = WorkerSpec(config=runner.config, run_path=str(runner.rundir.path),
                          memory_url=url if "://" in url else os.path.abspath(url),
                          models=dataclasses.replace(models, log_path=None if self.remote else
                                                     str(models.log_path or log_path())),
                          settings=runner.settings, ship_calls=self.remote, prompts=in_force())
        per_actor = math.ceil(self.slots / self.workers_wanted)
        actor = self.ray.remote(TaskWorker).options(num_cpus=0, max_concurrency=per_actor, max_restarts=-1,
                                                    max_task_retries=MAX_TASK_RETRIES, scheduling_strategy="SPREAD")
        self.load = [0] * self.workers_wanted
        self.actors = [actor.remote(spec) for _ in range(self.workers_wanted)]

    def submit(self, runner, task, pass_index):
        with self.lock:
            if not self.actors:
                self._start(runner)
            i = min(range(len(self.actors)), key=self.load.__getitem__)   # the least busy worker
            self.load[i] += 1
        ref = self.actors[i].solve.remote(task, runner.answers.get(task.id), pass_index)
        future: Future = Future()
        ray_future = ref.future()

        def settle(done: Future) -> None:
            with self.lock:
                if i < len(self.load):          # (not after close)
                    self.load[i] -= 1
            try:
                result = done.result()
            except (self.ray.exceptions.RayActorError, self.ray.exceptions.WorkerCrashedError,
                    self.ray.exceptions.ObjectLostError) as exc:
                result = _lost_to_ray(runner, task, pass_index, exc)
            except BaseException as exc:      # the task's own exception (a bug): the driver raises it
                future.set_exception(exc)
                return
            if result.calls:
                _log_shipped_calls(runner.llm, result.calls)
            future.set_result(result)

        ray_future.add_done_callback(settle)
        return future

    def close(self) -> None:
        for actor in self.actors:
            try:
                self.ray.kill(actor)
            except Exception:       # already gone
                pass
        self.actors, self.load = [], []
        if self.connected_here:          # a local instance this run started goes with it
            self.ray.shutdown()
            self.connected_here = False


def _lost_to_ray(runner, task, pass_index: int, exc: BaseException) -> TaskResult:
    """A task whose worker died more often than it was retried: not attempted, so --resume retries it."""
    error = f"the Ray worker died {MAX_TASK_RETRIES + 1} times under it ({type(exc).__name__})"
    event = {"type": "task_lost", "pass_index": pass_index, "task_id": task.id, "error": error, "usage": {}}
    records = TaskRecords(runner.rundir.run_id)
    records.append(event)
    return TaskResult(task_id=task.id, pass_index=pass_index, outcome=None, records=records,
                      lost=records.events[-1])


def _log_shipped_calls(llm, calls: list[dict[str, Any]]) -> None:
    """A remote worker's calls, appended to this machine's call log as it recorded them."""
    log = llm.call_log
    for call in calls:
        log.record(run_id=call["run_id"], task_id=call["task_id"], role=call["role"], step=call["step"],
                   sample=call["sample"], model=call["model"], endpoint=call["endpoint"], key=call["cache_key"],
                   request=call["request"], response_text=call["response_text"], reasoning=call.get("reasoning"),
                   choices=call.get("choices"), prompt_tokens=call["prompt_tokens"],
                   completion_tokens=call["completion_tokens"], reasoning_tokens=call["reasoning_tokens"],
                   latency_s=call["latency_s"], cost_usd=call["cost_usd"], cached=call["cached"],
                   attempts=call["attempts"], error=call["error"], error_kind=call["error_kind"],
                   finish_reason=call.get("finish_reason"))

__all__ = ["RayExecutor", "RayUnavailable", "TaskWorker", "WorkerSpec", "check_cluster_memory", "connect",
           "import_ray", "is_remote_address"]
