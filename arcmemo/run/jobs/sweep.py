"""A sweep: a grid of solve runs (settings x models x repeats), as the paper's tables need.

    name: table4                       # the sweep's record: <runs_dir>/sweeps/table4.json
    solve: {split: val100, continual: true, k: 10, retries: 2}   # shared by every member
    grid:                              # every combination of these lists
      method: [none, oe, ps]
      solver_model: [gpt-4.1-mini, o4-mini]
    repeats: 3
    memory: seeded.db                  # the memory every member starts from (default: the db setting)
    executor: local                    # or ray; tasks_in_flight, ray_address as for solve

Keys of `solve` and `grid` are a run configuration's (`arcmemo solve --config FILE`): solve's
options, checked by the same check (cli/runplan/configfile.py), each grid point planned as solve
plans its run (cli/runplan: the `plan_point` given here). Instead of a grid, a sweep
may list `rows`: each a run configuration (`arcmemo solve --config NAME`: a shipped name or
a file), run as `solve` would run it, with the solve options the sweep command is given;
under another protocol (`--protocol released-code`) each row runs its configuration's
NAME-released twin. A sweep whose file names `paper:` (the published numbers, a file
beside it) ends with its table beside the paper's (run/jobs/table4.py):

    name: table4
    rows: {baseline: baseline, cheatsheet: cheatsheet, ArcMemo-OE: arcmemo-oe, ArcMemo-PS: arcmemo-ps}
    repeats: 3
    paper: ../paper_table4.yaml

Each member is an ordinary
run directory, resumable on its own; running the sweep again skips finished members and
resumes stopped ones (the record maps each member to its run). A member that writes
memory (`continual`) starts from its own copy of the starting memory, so members never
see each other's writes. Repeat r of a grid point is its run with `repeat` r - 1 (run/
repeats.py): it asks the model afresh, so repeats are independent samples, not replays,
while resuming a member replays its own answers.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from arcmemo.core.config import did_you_mean
from arcmemo.core.errors import ArcmemoError
from arcmemo.core.files import atomic_write
from arcmemo.run.config import RunConfig
from arcmemo.run.records.rundir import RunDirError, read_object
from arcmemo.run.session import Scale

TOP_KEYS = ("name", "solve", "grid", "rows", "repeats", "memory", "executor", "tasks_in_flight", "ray_address",
            "paper")
DATA = Path(__file__).resolve().parents[2] / "data"
RELEASED_TWIN = "-released"     # a shipped run configuration's twin under the released code's protocol


class SweepError(ArcmemoError):
    """A sweep file that cannot be run as written (the message names the file and the key)."""


@dataclass
class Member:
    """One run of the grid: its settings, models, repeat number and a stable key; a row's
    member also the row's label and the memory its configuration names."""

    key: str
    config: RunConfig
    models: dict[str, Any]
    repeat: int
    row: str | None = None
    memory: str | None = None


@dataclass
class Sweep:
    name: str
    path: Path
    members: list[Member]
    memory: str | None
    scale: Scale
    record: dict[str, str] = field(default_factory=dict)    # member key -> run id
    paper: Path | None = None        # the published numbers its table is set beside


@dataclass(frozen=True)
class PlannedRow:
    """What a row's run configuration or a grid point makes (cli/runplan planned_run)."""

    config: RunConfig
    models: dict[str, Any]
    db: str | None


def load_sweep(path: str | Path, *, protocol: str | None = None,
               plan: Callable[[str], PlannedRow] | None = None,
               plan_point: Callable[[dict, Callable[[Any], str]], PlannedRow] | None = None) -> Sweep:
    """Read and check a sweep file: every member's settings are checked here, before any run.
    `plan(configuration)` makes a row's run (`rows` sweeps), `plan_point(options, where)` a grid
    point's (options keyed as a run configuration's; `where(key)` names the key's place in the
    file); `protocol` picks each row's twin under that protocol."""
    from arcmemo.core import safeyaml

    path = Path(path)
    try:
        data = safeyaml.load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SweepError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise SweepError(f"{path}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        raise SweepError(f"{path}: not YAML ({safeyaml.describe(exc)})") from None
    if not isinstance(data, dict):
        raise SweepError(f"{path}: expected a mapping with solve, grid and repeats")
    for key in data:
        if key not in TOP_KEYS:
            raise SweepError(f"{path}: unknown key {key!r}{did_you_mean(key, TOP_KEYS)} (a sweep's keys: "
                             f"{', '.join(TOP_KEYS)})")
    repeats = data.get("repeats", 1)
    if not isinstance(repeats, int) or repeats < 1:
        raise SweepError(f"{path}: repeats must be a whole number of at least 1, got {repeats!r}")
    name = str(data.get("name") or path.stem)
    scale = Scale(tasks_in_flight=data.get("tasks_in_flight"), executor=data.get("executor", "local"),
                  ray_address=data.get("ray_address"))
    if scale.executor not in ("local", "ray"):
        raise SweepError(f"{path}: executor must be local or ray, not {scale.executor!r}")
    paper = _paper(path, data.get("paper"))
    if "rows" in data:
        members = _row_members(path, data, repeats, protocol, plan)
        return Sweep(name=name + (f"-{protocol}" if protocol not in (None, "arcmemo") else ""), path=path,
                     members=members, memory=data.get("memory"), scale=scale, paper=paper)
    if protocol is not None:
        raise SweepError(f"{path}: --protocol picks each row's configuration; this sweep has no rows (give the "
                         "protocol in its solve: or grid:)")
    shared, grid = data.get("solve") or {}, data.get("grid") or {}
    if not isinstance(shared, dict) or not isinstance(grid, dict):
        raise SweepError(f"{path}: solve and grid must be mappings")
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise SweepError(f"{path}: grid.{key} must be a non-empty list")
    for key in [*shared, *grid]:
        if key == "repeat":
            raise SweepError(f"{path}: {key!r} is set per member from `repeats` (repeat r is its run with "
                             "repeat r - 1); give `repeats: N` instead")
    if plan_point is None:
        raise SweepError(f"{path}: a sweep's grid needs its points planned (arcmemo sweep does)")
    members = []
    for values in itertools.product(*grid.values()):
        chosen = dict(zip(grid, values))
        try:
            planned = plan_point({**shared, **chosen},
                                 lambda key, chosen=chosen: f"{path}: {'grid' if key in chosen else 'solve'}")
        except (TypeError, ValueError) as exc:
            raise SweepError(f"{path}: grid point {chosen}: {exc}") from None
        for repeat in range(1, repeats + 1):
            label = ",".join(f"{k}={v}" for k, v in chosen.items()) or "all"
            members.append(Member(key=f"{label}#{repeat}", config=dataclasses.replace(planned.config, repeat=repeat - 1),
                                  models=planned.models, repeat=repeat, memory=planned.db))
    return Sweep(name=name, path=path, members=members, memory=data.get("memory"), scale=scale, paper=paper)


def _paper(path: Path, value: Any) -> Path | None:
    """The file of published numbers a sweep names (relative to the sweep file)."""
    if value is None:
        return None
    found = (path.parent / str(value)).resolve()
    if not found.is_file():
        raise SweepError(f"{path}: paper: {value} is not a file (looked for {found})")
    return found


def _row_members(path: Path, data: dict, repeats: int, protocol: str | None,
                 plan: Callable[[str], PlannedRow] | None) -> list[Member]:
    """The members of a `rows` sweep: each row's run configuration (its protocol's twin) planned
    as solve plans it, once per repeat."""
    rows = data["rows"]
    if not isinstance(rows, dict) or not rows or not all(isinstance(v, str) for v in rows.values()):
        raise SweepError(f"{path}: rows must map each row's label to a run configuration (a shipped name or a file)")
    if data.get("solve") or data.get("grid"):
        raise SweepError(f"{path}: a sweep of rows takes no solve: or grid: (each row is a run configuration; "
                         "give the sweep command solve options after --)")
    if plan is None:
        raise SweepError(f"{path}: a sweep of rows needs its runs planned (arcmemo sweep does)")
    members = []
    for label, configuration in rows.items():
        chosen = _twin(path, str(label), configuration, protocol)
        try:
            planned = plan(chosen)
        except (ValueError, TypeError) as exc:
            raise SweepError(f"{path}: row {label} ({chosen}): {exc}") from None
        for repeat in range(1, repeats + 1):
            members.append(Member(key=f"{label}#{repeat}", config=dataclasses.replace(planned.config, repeat=repeat - 1),
                                  models=planned.models, repeat=repeat, row=str(label), memory=planned.db))
    return members


def _twin(path: Path, label: str, configuration: str, protocol: str | None) -> str:
    """The run configuration of a row under `protocol`: its own (arcmemo), or its shipped twin
    NAME-released (released-code)."""
    if protocol in (None, "arcmemo"):
        return configuration
    twin = configuration + RELEASED_TWIN
    if protocol != "released-code" or not (DATA / "configs" / f"{twin}.yaml").is_file():
        raise SweepError(f"{path}: row {label}: no run configuration {twin!r} for --protocol {protocol} (the shipped "
                         f"configurations have a {RELEASED_TWIN} twin for released-code)")
    return twin


def shipped_sweeps() -> dict[str, Path]:
    """The shipped sweeps by name (arcmemo/data/sweeps)."""
    folder = DATA / "sweeps"
    return dict(sorted((p.stem, p) for p in folder.glob("*.yaml")))


def sweep_file(value: str) -> Path:
    """`value` as a sweep file, else as the name of a shipped sweep."""
    path = Path(value).expanduser()
    if path.is_file():
        return path
    shipped = shipped_sweeps()
    if value.removesuffix(".yaml") in shipped and not path.exists():
        return shipped[value.removesuffix(".yaml")]
    raise SweepError(f"{value}: no such file, nor a shipped sweep ({', '.join(shipped) or 'none'})")


def record_path(runs_dir: str | Path, name: str) -> Path:
    return Path(runs_dir) / "sweeps" / f"{name}.json"


def read_record(runs_dir: str | Path, name: str) -> dict[str, str]:
    """The sweep's record (member key -> run id; none yet: {}), read as a run's files are (a
    regular JSON object file within RUN_JSON_MAX); SweepError when it cannot be read."""
    path = record_path(runs_dir, name)
    if not path.exists():
        return {}
    try:
        return read_object(path)
    except RunDirError as exc:
        raise SweepError(str(exc)) from None


def write_record(runs_dir: str | Path, name: str, record: dict[str, str]) -> None:
    atomic_write(record_path(runs_dir, name), json.dumps(record, indent=2, sort_keys=True) + "\n", make_parents=True)


def sweep_table(rundirs: list) -> str:
    """The sweep's closing table: its members side by side, as `runs compare` shows them (a
    member that did not finish shows the tasks it did, scored so far)."""
    from arcmemo.run.records.reader import read_run
    from arcmemo.run.records.report import compare_table

    records = [read_run(rundir) for rundir in rundirs]
    return compare_table([(r.recorded, r.summary) for r in records if r.summary is not None])


def member_memory(start: str, runs_dir: str | Path, sweep: str, member: Member) -> str:
    """The memory a member reads (and, with continual, writes): the starting memory itself for a
    read-only member; its own copy of it for one that writes."""
    if not member.config.continual:
        return start
    if "://" in start and not start.startswith("sqlite"):
        raise SweepError(f"members that write memory (continual) start from a copy of the starting memory; "
                         f"{start} is not a SQLite file: give the sweep a SQLite `memory:`")
    source = Path(start.removeprefix("sqlite:///"))
    safe = "".join(c if c.isalnum() or c in "-_=.," else "_" for c in member.key)
    copy = Path(runs_dir) / "sweeps" / sweep / f"{safe}.db"
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.exists():
            from arcmemo.memory.store import Memory

            with Memory(str(source)) as memory:
                memory.copy_to(copy)
    return str(copy)


__all__ = ["Member", "PlannedRow", "Sweep", "SweepError", "load_sweep", "member_memory", "read_record", "record_path",
           "shipped_sweeps", "sweep_file", "sweep_table", "write_record"]
