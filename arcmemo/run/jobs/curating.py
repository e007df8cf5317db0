"""`arcmemo cheatsheet build DIR`: the paper's cheatsheet baseline, curated once from seed solutions.

The paper's memory baseline is Dynamic Cheatsheet in its cumulative mode (DC-Cu), built
from the seed solutions and then used frozen. Here:

1. every `<task_id>.py` of DIR is verified in the sandbox against all pairs of its task,
   as `arcmemo seed` does (seeding.verify_seeds); a failing one is reported and skipped;
2. in file order, the curator (role aux) rewrites the sheet after each verified seed,
   reading the puzzle, the program and, when the seed has a hand annotation, its summary
   and pseudocode (methods.cheatsheet.update_cheatsheet). Each rewrite is a revision of
   the memory's sheet of that name, with run, task and model; a rewrite the curator
   botches is recorded as a write failure and the sheet stays as it was.

`solve --selection cheatsheet` then shows the sheet as it is (frozen unless --continual).
A memory holds any number of sheets, each under its name (`name`; default "cheatsheet",
the released build's "cheatsheet-released"); a run reads the one its method option `sheet`
names. A sheet of that name already there is left alone unless `again` (curate it further).
The build is a run like the others: a run directory of kind "cheatsheet" with its config
(the curator's call settings, the grid text and each template's hash and source among
it), one event per seed, status and summary; an endpoint that refuses (bad key, unknown
model) stops it, and every rewrite made before stays.

A curator rewrite writes the whole sheet, so on the embedded model it takes tens of
minutes: a build there by default (no endpoint, the model not named) is refused with its
estimate before anything exists (run/progress/longrun.py), a named one says its estimate.

The released code's build (`arcmemo cheatsheet build --released`): all of BARC's seeds,
answers of up to 4,096 tokens at temperature 0.3, a sheet of about 2,000 words, grids as
numpy arrays, kept under the name "cheatsheet-released" (RELEASED).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arcmemo import __version__
from arcmemo.abstraction.seedfile import SeedError, find_seed_files
from arcmemo.core.errors import ArcmemoError
from arcmemo.core.table import counted
from arcmemo.core.tasks import load_tasks
from arcmemo.llm import LLMSettings, Usage
from arcmemo.methods.dynamic_cheatsheet.cumulative import SHEET_NAME, current_sheet, update_cheatsheet
from arcmemo.prompts import keep_tail
from arcmemo.run.config import memory_url_for_record
from arcmemo.run.jobs.seeding import SeedOptions, SeedSummary, read_lib, verify_seeds
from arcmemo.run.progress.longrun import Job, check_named
from arcmemo.run.prompting import prompts_record
from arcmemo.run.records.rundir import RunDir, new_run_id
from arcmemo.run.session import RunSession, check_models, start_models
from arcmemo.run.stages.metered import MeteredLLM

RUN_KIND = "cheatsheet"
DEFAULT_MAX_WORDS = 1500
# The authors' released build (concept_mem/memory/cheatsheet: its generation config and prompt):
RELEASED = {"aux_max_tokens": 4096, "aux_temperature": 0.3, "max_words": 2000, "grid_text": "numpy",
            "name": "cheatsheet-released"}      # its own name, beside a sheet of arcmemo's build
TOKENS_PER_WORD = 1.35              # English prose with some code, for the estimate of a rewrite's length
PROMPT_TOKENS = 1900                # a rewrite's prompt besides the sheet: instructions, puzzle, program


class CheatsheetError(ArcmemoError, ValueError):
    """The build cannot start as asked (the memory already holds a sheet, no seeds)."""


@dataclass
class CheatsheetOptions:
    directory: Path
    tasks: str = "training"           # where the seeds' ARC tasks are looked up (load_tasks source)
    solutions: str | None = None
    lib: Path | None = None           # BARC's common.py
    transpose: bool = False           # BARC's [x, y] grids
    again: bool = False               # curate an existing sheet further instead of refusing
    max_words: int = DEFAULT_MAX_WORDS  # the sheet's length the curator is asked to keep to
    name: str = SHEET_NAME            # the sheet built (a run reads it with --method-option sheet=NAME)


@dataclass
class CheatsheetSummary:
    files: int = 0
    verified: int = 0
    failed: int = 0                   # failed verification (or unreadable)
    rewritten: int = 0                # seeds after which the curator changed the sheet
    unchanged: int = 0                # seeds after which it kept the sheet as it was
    write_failures: int = 0           # answers that could not be used (recorded in the memory)
    sheet_words: int = 0
    usage: Usage = field(default_factory=Usage)
    problems: list[str] = field(default_factory=list)
    run_id: str | None = None

    @property
    def ok(self) -> bool:
        return not self.failed and not self.write_failures

    def rows(self) -> list[tuple[str, str]]:
        u = self.usage
        rows = [("seed files", self.files), ("verified", self.verified), ("failed", self.failed),
                ("sheet rewritten", self.rewritten), ("sheet kept", self.unchanged),
                ("write failures", self.write_failures), ("sheet words", self.sheet_words),
                ("model calls", u.calls), ("tokens", u.prompt_tokens + u.completion_tokens + u.reasoning_tokens),
                ("cost", f"${u.cost_usd:.4f}")]
        return [(k, str(v)) for k, v in rows]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "usage": self.usage.to_dict()}


def seed_trace(seed, annotation, helpers=()) -> str:
    """What the curator reads about a seed: the program whole, the helpers it imports, the
    annotation's summary and pseudocode."""
    parts = [f"Task {seed.task_id} is solved by this program (a verified, human-written solution):\n{seed.code}"]
    if helpers:
        parts.append("The helper functions it imports from memory_helpers:\n"
                     + "\n\n".join(helper.source.strip() for helper in helpers))
    if annotation is not None and annotation.summary:
        parts.append(f"Summary:\n{annotation.summary}")
    if annotation is not None and annotation.pseudocode:
        parts.append(f"Pseudocode:\n{keep_tail(annotation.pseudocode)}")
    elif seed.description:
        parts.append(f"Description:\n{seed.description}")
    return "\n\n".join(parts)


def build_cheatsheet(options: CheatsheetOptions, session: RunSession, models: LLMSettings) -> CheatsheetSummary:
    """Verify the seeds, then curate the sheet seed by seed; see the module docstring. Everything
    that can be checked (seeds found, tasks, the memory's sheet, the curator model) is checked
    before the run directory is made."""
    directory = Path(options.directory)
    paths = find_seed_files(directory)
    if not paths:
        raise SeedError(f"{directory}: no seed files (<task_id>.py) found")
    seed_options = SeedOptions(directory=directory, lib=options.lib, transpose=options.transpose,
                               tasks=options.tasks, solutions=options.solutions)
    lib = read_lib(seed_options)
    taskset = load_tasks(options.tasks, solutions=options.solutions)
    run_id = new_run_id()
    llm = session.llm(run_id, models)
    estimate = check_named(llm, curation_job(len(paths), options, llm), "--aux-model")
    check_models(llm, {"aux"})
    llm.check_params("aux")
    memory = session.memory()
    sheet = current_sheet(memory, options.name)
    if sheet is not None and not options.again:
        raise CheatsheetError(f"{memory.url}: already holds a cheatsheet named {options.name!r} "
                              f"({len(sheet.description.split())} words); it is used as it is. Pass --again to "
                              "curate it further with these seeds, --name to build another beside it, or --db to "
                              "build one in another memory")
    rundir = RunDir.create(session.settings.runs_dir, run_id)
    summary = CheatsheetSummary(files=len(paths), run_id=run_id)
    rundir.write_config({"kind": RUN_KIND, "run_id": run_id, "arcmemo_version": __version__,
                         "directory": str(directory), "tasks": options.tasks, "again": options.again,
                         "max_words": options.max_words, "sheet": options.name, "models": {"aux": llm.model_for("aux")},
                         "call_defaults": {"aux": llm.settings.call_defaults("aux")},
                         "memory_url": memory_url_for_record(str(memory.url)),
                         "memory_revision_start": memory.revision(), **prompts_record(),
                         "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    reporter = session.reporter

    def problem(message: str) -> None:
        summary.problems.append(message)
        reporter.note(message)

    with rundir.hold():
        reporter.started(run_id, rundir.path, kind=RUN_KIND)
        if estimate:
            reporter.note(estimate)
        try:
            start_models(llm, {"aux"}, reporter)
            checked = SeedSummary()
            verified = verify_seeds(session, paths, lib, seed_options, taskset, checked, problem, rundir)
            summary.verified, summary.failed = checked.verified, checked.failed
            _curate(memory, llm, verified, taskset, options, summary, problem, rundir, reporter)
        finally:
            reporter.close()
            sheet = current_sheet(memory, options.name)
            summary.sheet_words = len((sheet.description or "").split()) if sheet is not None else 0
            rundir.write_summary({"run_id": run_id, **summary.to_dict(),
                                  "memory_revision_end": memory.revision()})
    return summary


def curation_job(seeds: int, options: CheatsheetOptions, llm) -> Job:
    """What curating `seeds` seeds asks of the aux model: one rewrite each, of the whole sheet."""
    limit = llm.settings.call_defaults("aux").get("max_tokens")
    sheet = round(TOKENS_PER_WORD * options.max_words)
    answer = min(sheet, limit) if limit else sheet
    return Job(f"curating {counted(seeds, 'seed')}", "aux", seeds, PROMPT_TOKENS + answer // 2, answer)


def _curate(memory, llm, verified, taskset, options: CheatsheetOptions, summary: CheatsheetSummary, problem,
            rundir: RunDir, reporter) -> None:
    """Step 2: one curator rewrite per verified seed, in order."""
    reporter.begin(len(verified), "curating")
    for item in verified:
        reporter.item(item.seed.task_id)
        reporter.step("the curator rewrites the sheet")
        meter = MeteredLLM(llm)
        task = taskset.by_id(item.seed.task_id)
        update = update_cheatsheet(memory, meter, task, seed_trace(item.seed, item.annotation, list(item.helpers.values())),
                                   run_id=rundir.run_id, max_words=options.max_words, source="human",
                                   name=options.name)
        summary.usage = summary.usage + meter.usage
        rundir.append({"type": "curate", "task_id": task.id, "rewritten": update.updated, "error": update.error,
                       "usage": meter.usage.to_dict()})
        if meter.fatal is not None:
            raise meter.fatal
        if update.error is not None:
            summary.write_failures += 1
            problem(f"{item.seed.path}: the curator's rewrite could not be used ({update.error})")
        elif update.updated:
            summary.rewritten += 1
        else:
            summary.unchanged += 1
        reporter.item_done("rewritten" if update.updated else "kept" if update.error is None else "failed")


__all__ = ["build_cheatsheet", "CheatsheetOptions", "CheatsheetSummary", "CheatsheetError", "seed_trace", "RELEASED",
           "DEFAULT_MAX_WORDS", "curation_job"]
