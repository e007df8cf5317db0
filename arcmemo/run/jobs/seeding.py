"""`arcmemo seed DIR`: verify every seed, ingest hand annotations as is, abstract the rest with a model.

Starting knowledge is a choice every memory method makes the same way (`--method NAME`):
ArcMemo's methods (ps, oe, and all, which reads ps's) take the path below; any other method
learns from the verified seeds through its own write, as from a run's solved tasks (an
`Experience` per seed: the puzzle's train pairs, the seed's program, its description as the
reasoning, every train pair passed), into its own items marked as from human-written
solutions (`_ingest_by_method`; `arcmemo seed seeds/ --method ace` builds ACE's playbook with
its reflector and curator). `--limit N` seeds from the first N verified seeds.

Order of work:
1. every `<task_id>.py` is read (`seedfile.read_seed`) and run in the sandbox against ALL
   train and test pairs of its ARC task; a failing file is reported with its first
   failing pair and skipped. `.py` files whose name is not a task id are named as
   skipped. `check=True` stops here: it writes nothing, not even a run directory.
2. per verified file and per format (ps, oe): a hand annotation (`<task_id>.yaml`)
   providing that format is written as is, with no model; otherwise the model pipeline
   (`write_ps` / `write_oe`) runs, if a model is configured (`--model`, ARCMEMO_AUX_MODEL
   or config `aux_model`); otherwise the file is skipped with the reason.
3. Idempotence: each (task, content hash, format) written is recorded in the memory's
   ledger of seed runs; a later run skips what any earlier seed run did. The hash covers
   the seed file, its annotation, the --lib source and --transpose, so an edited seed is
   ingested again (merging into what is there).

A seed run is a run like a solve: it opens its parts through the RunSession, gets a run
directory (config, events, summary, status) and reports progress through the session's
reporter. Its memory ledger entry exists only once it wrote something.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arcmemo import __version__
from arcmemo.abstraction.annotations import (
    Annotation,
    AnnotationError,
    annotation_path,
    ingest_annotation,
    load_annotation,
)
from arcmemo.abstraction.fewshot import load_examples
from arcmemo.abstraction.records import SolutionInput, WriteResult
from arcmemo.abstraction.seedfile import SeedError, SeedFile, find_seed_files, read_seed
from arcmemo.core.config import resolve
from arcmemo.core.helpermodule import MODULE
from arcmemo.core.table import counted
from arcmemo.core.tasks import Pair, TaskError, load_tasks
from arcmemo.llm import Usage
from arcmemo.memory.helpers.seedlibrary import (
    LIBRARY,
    SeedHelper,
    check_against_concept,
    concept_helpers,
    module_for,
    read_library,
    uncalled,
)
from arcmemo.memory.helpers.source import HelperError
from arcmemo.memory.helpers.value import Helper, Verified
from arcmemo.memory.store.scoped import method_memory
from arcmemo.methods.contract import AttemptView, Experience, WriteContext
from arcmemo.methods.discovery import load_method
from arcmemo.run.config import memory_url_for_record
from arcmemo.run.progress.longrun import check_named, write_job
from arcmemo.run.prompting import prompts_record
from arcmemo.run.records.rundir import RunDir
from arcmemo.run.session import RunSession, resolve_models
from arcmemo.run.stages.metered import MeteredLLM
from arcmemo.solverkit.programs import run_on_pairs

FORMATS = {"ps": ("ps",), "oe": ("oe",), "both": ("ps", "oe")}
ARCMEMO_METHODS = {"ps": ("ps",), "oe": ("oe",), "all": ("ps",)}   # seeded by ArcMemo's own path (its formats)
RUN_KIND = "seed"        # the run directory's kind (the memory's ledger names it the same)


@dataclass
class SeedOptions:
    directory: Path
    format: str = "both"
    model: str | None = None          # aux model for unannotated seeds; None: ARCMEMO_AUX_MODEL / config
    lib: Path | None = None           # BARC's common.py
    transpose: bool = False           # BARC's [x, y] grids
    check: bool = False               # verify and report only
    tasks: str = "training"           # where the seeds' ARC tasks are looked up (load_tasks source)
    solutions: str | None = None      # test outputs for a challenges-file source
    annotations_only: bool = False    # never use a model, even if one is configured (memory.db build)
    method: str | None = None         # the memory method whose items the seeds become (None: ArcMemo's, by format)
    limit: int | None = None          # seed from the first N verified seeds only


@dataclass
class SeedSummary:
    files: int = 0
    verified: int = 0
    failed: int = 0                   # failed verification (or unreadable seed/annotation)
    already: int = 0                  # everything asked for was ingested by an earlier run
    annotated: int = 0                # written from hand annotations
    abstracted: int = 0               # written by the model pipeline
    skipped: int = 0                  # not written: no annotation and no model
    write_failures: int = 0
    concepts_added: int = 0
    concepts_extended: int = 0
    usage: Usage = field(default_factory=Usage)
    problems: list[str] = field(default_factory=list)
    not_task_ids: list[str] = field(default_factory=list)   # .py files skipped: their name is no task id
    run_id: str | None = None

    @property
    def ok(self) -> bool:
        """Every seed verified and everything asked for written (or deliberately skipped)."""
        return not self.failed and not self.write_failures

    def add_write(self, result: WriteResult) -> None:
        if result.failed:
            self.write_failures += 1
        self.concepts_added += len(result.added)
        self.concepts_extended += len(result.extended)
        if result.usage is not None:
            self.usage = self.usage + result.usage

    def rows(self, check: bool = False) -> list[tuple[str, str]]:
        rows = [("files", self.files), ("verified", self.verified), ("failed", self.failed)]
        if not check:
            u = self.usage
            rows += [
                ("already ingested", self.already), ("from annotations", self.annotated),
                ("abstracted by model", self.abstracted), ("skipped (no model)", self.skipped),
                ("write failures", self.write_failures),
                ("concepts added", self.concepts_added), ("concepts extended", self.concepts_extended),
                ("model calls", u.calls),
                ("tokens", u.prompt_tokens + u.completion_tokens + u.reasoning_tokens),
                ("cost", f"${u.cost_usd:.4f}"),
            ]
        return [(k, str(v)) for k, v in rows]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "usage": self.usage.to_dict()}


@dataclass
class _Verified:
    seed: SeedFile
    annotation: Annotation | None
    key: str
    helpers: dict[str, SeedHelper] = field(default_factory=dict)   # concept name -> its helper


# -- verification ------------------------------------------------------------------------

def _dims(grid) -> str:
    return f"{len(grid)}x{len(grid[0]) if grid else 0}"


def describe_mismatch(output, expected) -> str:
    if output is None:
        return "no output"
    if len(output) != len(expected) or any(len(r) != len(expected[0]) for r in output):
        return f"wrong output size {_dims(output)}, expected {_dims(expected)}"
    total = len(expected) * len(expected[0])
    diff = sum(a != b for row_o, row_e in zip(output, expected) for a, b in zip(row_o, row_e))
    return f"wrong output ({diff} of {total} cells differ)"


def one_line(message: str) -> str:
    """A sandbox message (maybe a whole traceback) as one line: the last line, plus where."""
    lines = [line.strip() for line in (message or "").strip().splitlines() if line.strip()]
    if not lines:
        return ""
    where = re.findall(r"program line (\d+)", message)
    return lines[-1] + (f" (line {where[-1]})" if where and len(lines) > 1 else "")


def verify(sandbox, seed: SeedFile, pairs: list[tuple[str, Pair]], helpers: Mapping[str, SeedHelper] | None = None,
           library: Mapping[str, SeedHelper] | None = None) -> str | None:
    """None if the seed reproduces every pair, else '<pair>: <what went wrong>' for the first failure.

    `helpers` (concept name -> helper of the seed directory's library) are served as the
    module memory_helpers, as memory serves a task's helpers; the program must call each of
    them, directly or through another helper it calls.
    """
    modules = dict(seed.modules)
    if helpers:
        modules[MODULE] = module_for(helpers.values(), library or {})
    elif MODULE in seed.code:
        return (f"imports {MODULE}, but its annotation names no concept whose helper is in {LIBRARY} "
                "(a helper is named after its concept: 'crop to bounding box' -> crop_to_bounding_box)")
    check = run_on_pairs(sandbox, seed.program, [p for _, p in pairs], entry=seed.entry,
                         modules=modules or None, helpers=MODULE if helpers else None)
    failures = [i for i, ok in enumerate(check.correct) if not ok]
    if not failures:
        called = [name for outcome in check.outcomes for name in outcome.called]
        missing = uncalled(list((helpers or {}).values()), called, library or {})
        if missing:
            owners = {h.name: concept for concept, h in (helpers or {}).items()}
            return "; ".join(f"the program never calls {name}, the helper of its concept {owners[name]!r}"
                             for name in missing)
        return None
    first = failures[0]
    label, pair = pairs[first]
    outcome = check.outcomes[first]
    if not outcome.ok:
        text = f"{label} {outcome.error}: {one_line(outcome.message)}".rstrip(": ")
    else:
        text = f"{label} {describe_mismatch(outcome.output, pair.output)}"
    more = len(failures) - 1
    return text + (f" (and {more} more pair{'s' if more > 1 else ''} fail)" if more else "")


def task_pairs(taskset, task_id: str) -> list[tuple[str, Pair]]:
    task = taskset.by_id(task_id)
    answers = taskset.answers[task_id].test_outputs
    pairs = [(f"train[{i}]", p) for i, p in enumerate(task.train)]
    pairs += [(f"test[{i}]", Pair(g, answers[i])) for i, g in enumerate(task.test_inputs) if i < len(answers)]
    return pairs


def seed_helpers(annotation: Annotation | None, library: Mapping[str, SeedHelper]) -> dict[str, SeedHelper]:
    """The library helpers of the annotation's concepts, checked against the concepts' parameters."""
    if annotation is None:
        return {}
    helpers = concept_helpers(annotation.concepts, library)
    for concept in annotation.concepts:
        if concept["name"] in helpers:
            try:
                check_against_concept(helpers[concept["name"]], concept, library)
            except HelperError as exc:
                raise AnnotationError(f"{annotation.path}: concept {concept['name']!r}: helper "
                                      f"{helpers[concept['name']].name} in {LIBRARY}: {exc}") from None
    return helpers


# -- the ledger of what earlier seed runs wrote --------------------------------------------

class _Ledger:
    """The seed run's entry in the memory's ledger of seed runs: created just before its first
    write (a run that writes nothing leaves no record), updated after each file with what was
    written."""

    def __init__(self, memory, run_id: str, config: dict):
        self.memory, self.run_id, self.config = memory, run_id, dict(config)
        self.done: list[tuple[str, str, str]] = []
        self.created = False
        self.start = memory.revision()

    def _save(self, status: str = "running", end: int | None = None) -> None:
        self.memory.save_seed_run(self.run_id, config=self.config, done=self.done, status=status,
                                  revision_start=self.start, revision_end=end)
        self.created = True

    def ensure(self) -> None:
        if not self.created:
            self._save()

    def record(self, task_id: str, key: str, formats: list[str]) -> None:
        self.done += [(task_id, key, f) for f in formats]
        self._save()

    def finish(self, status: str) -> None:
        if self.created:
            self._save(status, self.memory.revision())


def configured_model(flag: str | None) -> str | None:
    """The aux model named explicitly (flag, ARCMEMO_AUX_MODEL, config `aux_model`), or None.

    Seeding never falls back to the default model: without one, unannotated seeds are
    skipped with a message rather than starting the embedded local model unasked.
    """
    value, _ = resolve("aux_model", flag)
    return str(value) if value else None


# -- writing one seed ----------------------------------------------------------------------

class _Writer:
    """Writes one verified seed: from its annotation (no model), or through the model pipeline."""

    def __init__(self, session: RunSession, memory, model, run_id, summary: SeedSummary, problem, *, examples,
                 llm=None, tasks: str, pending: int = 0):
        self.session, self.memory, self.model, self.run_id, self.tasks = session, memory, model, run_id, tasks
        self.summary, self.problem, self.examples = summary, problem, examples
        self.llm = llm
        self.pending = pending             # seeds without a hand annotation for every format asked

    def _record(self, result: WriteResult) -> None:
        """Count a write; custom types it could not create (over the cap per write) are a problem said at once."""
        self.summary.add_write(result)
        if result.types_dropped:
            self.problem(f"{result.task_id}: {counted(len(result.types_dropped), 'custom type')} not created, over the cap "
                         f"per write: {', '.join(result.types_dropped)}")

    def by_hand(self, item: _Verified, formats: list[str]) -> list[str]:
        verified = Verified.now(item.seed.task_id, self.tasks, item.seed.code, self.run_id)
        helpers = {concept: Helper(h.name, h.source, h.depends, verified).to_data() for concept, h in item.helpers.items()}
        try:
            result = ingest_annotation(self.memory, item.annotation, item.seed.code, formats=tuple(formats),
                                       run_id=self.run_id, task_id=item.seed.task_id, helpers=helpers)
        except AnnotationError as exc:
            self.summary.write_failures += 1
            self.problem(str(exc))
            return []
        self._record(result)
        self.summary.annotated += 1
        return list(formats)

    def by_model(self, item: _Verified, formats: list[str], task) -> list[str]:
        from arcmemo.abstraction.oe import write_oe
        from arcmemo.abstraction.ps import write_ps
        from arcmemo.run.session import start_models

        if self.llm is None:               # the first seed that needs the model starts it, saying how long
            self.llm = self.session.llm(self.run_id, resolve_models({"aux_model": self.model}))
            estimate = check_named(self.llm, write_job(self.pending, formats), "--model")
            if estimate:
                self.session.reporter.note(estimate)
            start_models(self.llm, {"aux"}, self.session.reporter)
        annotation = item.annotation
        solution = SolutionInput(
            task=task, code=item.seed.code, origin="human",
            pseudocode=annotation.pseudocode if annotation else None,
            summary=annotation.summary if annotation else (item.seed.description or None),
        )
        written = []
        for fmt in formats:
            self.session.reporter.step(f"writing {fmt} memory with {self.model}")
            if fmt == "ps":
                result = write_ps(self.memory, self.llm, solution, run_id=self.run_id, examples=self.examples,
                                  memory_tokens=self.session.settings.abstraction_memory_tokens)
            else:
                result = write_oe(self.memory, self.llm, solution, run_id=self.run_id, examples=self.examples)
            self._record(result)
            if result.failed:
                self.problem(f"{item.seed.path}: {fmt} write failed ({result.error})")
            else:
                written.append(fmt)
        if written:
            self.summary.abstracted += 1
        return written


def seed_experience(item: _Verified, task) -> Experience:
    """A verified seed as a memory method learns from it: the puzzle's train pairs, the seed's program
    (it passed every train and test pair), its description as the reasoning."""
    n = len(task.train)
    reasoning = (item.annotation.summary if item.annotation and item.annotation.summary else
                 item.seed.description) or ""
    attempt = AttemptView(thread=0, sample=0, round=0, program=item.seed.code, train_correct=(True,) * n,
                          train_cell_accuracy=1.0)
    return Experience(task=task, pass_index=1, program=item.seed.code, reasoning=reasoning, passed_train=True,
                      attempts=(attempt,))


def _ingest_by_method(session, memory, llm, model, method, verified, taskset, summary, problem, rundir,
                      config) -> None:
    """Each verified seed not seeded into this method before, through the method's own write (one
    seed at a time, so progress and the ledger follow each one), into its items as human-written."""
    if not verified:
        return
    reporter = session.reporter
    ledger = _Ledger(memory, rundir.run_id, config)
    key = f"method:{method.name}"
    done = memory.seeded()
    todo = [item for item in verified if (item.seed.task_id, item.key, key) not in done]
    summary.already += len(verified) - len(todo)
    if todo and method.write_roles and llm is None:
        if model is None:
            problem(f"skipped {counted(len(todo), 'seed')}: --method {method.name} learns through a model "
                    "(pass --model M or set ARCMEMO_AUX_MODEL)")
            summary.skipped += len(todo)
            return
        llm = session.llm(rundir.run_id, resolve_models({"aux_model": model}))
        from arcmemo.run.session import start_models

        start_models(llm, set(method.write_roles), reporter)
    items = method_memory(memory, method.owner(), source="human")
    context = WriteContext(run_id=rundir.run_id, examples=lambda: load_examples(session.settings.seeds_dir),
                           memory_tokens=session.settings.abstraction_memory_tokens,
                           options=method.option_values({}), progress=reporter.step)
    try:
        reporter.begin(len(todo), f"seeding {method.name}")
        for item in todo:
            reporter.item(item.seed.task_id)
            ledger.ensure()
            meter = MeteredLLM(llm) if llm is not None else None       # its calls count in the seed run's usage
            events = method.write([seed_experience(item, taskset.by_id(item.seed.task_id))], items, meter, context)
            usage = meter.usage if meter is not None else Usage()
            summary.usage = summary.usage + usage
            added = sum(len(e.added) for e in events or [])
            extended = sum(len(e.extended) for e in events or [])
            failed = [e.error for e in events or [] if e.failed]
            summary.concepts_added += added
            summary.concepts_extended += extended
            for error in failed:
                summary.write_failures += 1
                problem(f"{item.seed.path}: {method.name} write failed ({error})")
            if not failed:
                ledger.record(item.seed.task_id, item.key, [key])
            rundir.append({"type": "ingest", "task_id": item.seed.task_id, "method": method.name,
                           "added": added, "extended": extended, "failed": failed, "usage": usage.to_dict()})
            reporter.item_done(f"{added} added, {extended} extended" + (" (failed)" if failed else ""))
        ledger.finish("done")
    except BaseException:
        ledger.finish("failed")
        raise


# -- the command ---------------------------------------------------------------------------

def read_lib(options: SeedOptions) -> str | None:
    if options.lib is None:
        return None
    try:
        return Path(options.lib).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SeedError(f"--lib {options.lib}: not UTF-8 text") from None
    except OSError as exc:
        raise SeedError(f"--lib {options.lib}: cannot read ({exc.strerror})") from None


def not_task_ids(directory: Path, found: list[Path], lib: Path | None) -> list[str]:
    """The .py files of `directory` that are not seeds because their name is not a task id (nor
    the seeds' helper library, nor the --lib module)."""
    known = {p.name for p in found} | {LIBRARY}
    if lib is not None and Path(lib).parent.resolve() == directory.resolve():
        known.add(Path(lib).name)
    return sorted(p.name for p in directory.glob("*.py") if p.name not in known)


def run_seed(options: SeedOptions, session: RunSession | None = None, *, memory=None, llm=None) -> SeedSummary:
    """Verify and ingest a seed directory; see the module docstring. The parts come from
    `session` (its settings name the memory and the runs directory); `memory`/`llm` may be
    given instead (tests)."""
    session = session or RunSession()
    reporter = session.reporter
    if options.format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {options.format!r}")
    method = load_method(options.method) if options.method else None
    if method is not None and not method.writes_memory:
        raise SeedError(f"--method {method.name} learns nothing: there is nothing to seed it with")
    arcmemo_method = method is None or method.name in ARCMEMO_METHODS
    formats = FORMATS[options.format] if method is None else ARCMEMO_METHODS.get(method.name, ())
    summary = SeedSummary()
    directory = Path(options.directory)
    paths = find_seed_files(directory)
    summary.files = len(paths)
    summary.not_task_ids = not_task_ids(directory, paths, options.lib)
    if not paths:
        raise SeedError(f"{directory}: no seed files (<task_id>.py) found"
                        + (f"; skipped {', '.join(summary.not_task_ids)}: not ARC task ids"
                           if summary.not_task_ids else ""))
    lib = read_lib(options)
    taskset = load_tasks(options.tasks, solutions=options.solutions)
    model = None if options.annotations_only else (configured_model(options.model) if llm is None
                                                   else llm.model_for("aux"))

    def problem(message: str) -> None:
        summary.problems.append(message)
        reporter.note(message)

    if options.check:
        verify_seeds(session, paths, lib, options, taskset, summary, problem)
        return summary
    memory = memory if memory is not None else session.memory()
    rundir = RunDir.create(session.settings.runs_dir)
    summary.run_id = rundir.run_id
    config = {"directory": str(directory), "format": options.format, "model": model,
              "lib": str(options.lib) if options.lib else None, "transpose": options.transpose,
              "method": options.method, "limit": options.limit}
    rundir.write_config({"kind": RUN_KIND, "run_id": rundir.run_id, "arcmemo_version": __version__, **config,
                         "tasks": options.tasks, "annotations_only": options.annotations_only,
                         "memory_url": memory_url_for_record(str(memory.url)),
                         "memory_revision_start": memory.revision(), **prompts_record(),
                         "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    with rundir.hold():
        reporter.started(rundir.run_id, rundir.path, kind=RUN_KIND)
        try:
            verified = verify_seeds(session, paths, lib, options, taskset, summary, problem, rundir)
            verified = verified[:options.limit] if options.limit is not None else verified
            if arcmemo_method:
                _ingest(session, memory, llm, model, verified, formats, options, taskset, summary, problem, rundir,
                        config)
            else:
                _ingest_by_method(session, memory, llm, model, method, verified, taskset, summary, problem,
                                  rundir, config)
        finally:
            reporter.close()
            rundir.write_summary({"run_id": rundir.run_id, **summary.to_dict()})
    return summary


def verify_seeds(session, paths, lib, options, taskset, summary, problem, rundir=None) -> list[_Verified]:
    """Step 1: every seed run against all pairs of its task in the sandbox (the cheatsheet build
    verifies the same way: run/jobs/curating.py)."""
    reporter = session.reporter
    if summary.not_task_ids:
        reporter.note(f"skipped {counted(len(summary.not_task_ids), '.py file')} whose name is not an ARC task id: "
                      f"{', '.join(summary.not_task_ids)}")
    library = read_library(options.directory)      # HelperLibraryError: the whole directory's problem
    verified: list[_Verified] = []
    reporter.begin(len(paths), "verifying")
    for path in paths:
        reporter.item(path.name)
        reporter.step("running against every pair")
        failure = None
        try:
            seed = read_seed(path, lib=lib, transpose=options.transpose)
            yaml_path = annotation_path(path)
            annotation = load_annotation(yaml_path) if yaml_path.exists() else None
            helpers = seed_helpers(annotation, library)
            pairs = task_pairs(taskset, seed.task_id)
        except (SeedError, AnnotationError) as exc:
            failure = str(exc)
        except (KeyError, TaskError):
            failure = f"{path}: no ARC task {path.stem} in {options.tasks!r}"
        else:
            mismatch = verify(session.sandbox, seed, pairs, helpers, library)
            if mismatch is not None:
                failure = f"{path}: {mismatch}"
        if rundir is not None:
            rundir.append({"type": "verify", "file": path.name, "ok": failure is None, "error": failure})
        reporter.item_done(None)
        if failure is not None:
            summary.failed += 1
            problem(failure)
            continue
        summary.verified += 1
        key = seed.content_hash + (":" + annotation.content_hash if annotation else "")
        if helpers:
            key += ":" + hashlib.sha256(module_for(helpers.values(), library).encode()).hexdigest()
        verified.append(_Verified(seed, annotation, key, helpers))
    return verified


def _ingest(session, memory, llm, model, verified, formats, options, taskset, summary, problem, rundir,
            config) -> None:
    """Step 2 and 3: write what earlier seed runs did not, by hand or by model."""
    if not verified:
        return
    reporter = session.reporter
    ledger = _Ledger(memory, rundir.run_id, config)
    writer = _Writer(session, memory, model, rundir.run_id, summary, problem,
                     examples=load_examples(options.directory) or load_examples(session.settings.seeds_dir),
                     llm=llm, tasks=options.tasks,
                     pending=sum(1 for item in verified if not (item.annotation and all(map(item.annotation.has, formats)))))
    try:
        done = memory.seeded()
        skipped: list[str] = []
        reporter.begin(len(verified), "ingesting")
        for item in verified:
            reporter.item(item.seed.task_id)
            todo = [f for f in formats if (item.seed.task_id, item.key, f) not in done]
            if not todo:
                summary.already += 1
                reporter.item_done(None)
                continue
            by_hand = [f for f in todo if item.annotation is not None and item.annotation.has(f)]
            by_model = [f for f in todo if f not in by_hand]
            if by_model and model is None:
                summary.skipped += 1
                skipped.append(f"{item.seed.task_id} ({'+'.join(by_model)})")
                by_model = []
            if not (by_hand or by_model):
                reporter.item_done(None)
                continue
            ledger.ensure()
            before = (summary.concepts_added, summary.concepts_extended)
            reporter.step("from its annotation" if by_hand else "abstracting")
            written = writer.by_hand(item, by_hand) if by_hand else []
            if by_model:
                written += writer.by_model(item, by_model, taskset.by_id(item.seed.task_id))
            if written:
                ledger.record(item.seed.task_id, item.key, written)
            rundir.append({"type": "ingest", "task_id": item.seed.task_id, "formats": written,
                           "added": summary.concepts_added - before[0],
                           "extended": summary.concepts_extended - before[1]})
            reporter.item_done(f"{'+'.join(written) or 'nothing'} written: {summary.concepts_added - before[0]} "
                               f"added, {summary.concepts_extended - before[1]} extended" if written else None)
        if skipped:
            why = ("of --annotations-only" if options.annotations_only else
                   "no model is configured (pass --model M or set ARCMEMO_AUX_MODEL)")
            problem(f"skipped {counted(len(skipped), 'seed')} with no hand annotation for the format asked, because "
                    f"{why}: {', '.join(skipped)}")
        ledger.finish("done")
    except BaseException:
        ledger.finish("failed")
        raise
