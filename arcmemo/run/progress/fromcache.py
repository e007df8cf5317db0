"""Whether the call log already answers a solve about to start: an earlier run asked the same.

The call cache keys every answer on the full request and its sample (llm/log.py), so a run
of the same configuration as a finished earlier run (the same tasks, models, settings,
protocol and repeat: records/likeness.py `differences`, as `runs compare --mean` judges it;
the same prompt templates; the same memory at the same revision when the method reads it)
makes the same requests and is answered from the log, in seconds. Its estimate
(progress/longrun.py) then counts only the calls the log does not hold.

Cheap, as it is on the solve's start-up path: the runs folder's listing, the config.json of
at most CANDIDATES of its newest runs until one matches, that run's status, and one query of
the call log. Where it cannot judge (the cache off, no such run, its calls not in this log)
it says nothing, and the estimate is as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

CANDIDATES = 50     # the newest runs of the runs folder looked at for one of the same configuration


def asked_before(llm: Any, config: Any, task_ids: list[str], solver: Any, runs_dir: str | Path,
                 memory_url: str, revision: Callable[[], int]) -> str | None:
    """The newest finished run in `runs_dir` whose configuration is this run's (module docstring),
    or None. `revision` gives the memory's revision now; it is asked only of a run that
    matches in everything else."""
    from arcmemo.core.config import memory_url_for_record
    from arcmemo.methods import load_method
    from arcmemo.prompts import template_hashes
    from arcmemo.run.config import answers_record, fit_budgets
    from arcmemo.run.prompting import changed_templates
    from arcmemo.run.records.likeness import differences
    from arcmemo.run.records.rundir import FINISHED, RunDirError, list_runs

    config = fit_budgets(config, llm)          # as the run will record it (loop.new_runner)
    wanted = json.loads(json.dumps(answers_record(config, llm), default=str))      # as config.json holds it (tuples as lists)
    memory = memory_url_for_record(str(memory_url))
    uses_memory = config.continual or load_method(config.selection).reads_memory
    templates = template_hashes()
    solver_templates = solver.template_hashes() if hasattr(solver, "template_hashes") else {}
    now: list[int] = []
    for rundir in reversed(list_runs(runs_dir)[-CANDIDATES:]):
        try:
            recorded = rundir.config()
            if (recorded.get("kind", "solve") != "solve" or recorded.get("task_ids") != task_ids
                    or int(recorded.get("settings", {}).get("repeat") or 0) != config.repeat
                    or differences(recorded, wanted)
                    or changed_templates(recorded.get("prompt_templates") or {}, templates)
                    or changed_templates(recorded.get("solver_templates") or {}, solver_templates)):
                continue
            if uses_memory:
                if recorded.get("memory_url") != memory:
                    continue
                now = now or [revision()]
                if recorded.get("memory_revision_start") != now[0]:
                    continue
            if rundir.status().get("status") == FINISHED:
                return rundir.run_id
        except (RunDirError, ValueError, TypeError, AttributeError):
            continue        # a run recorded otherwise (older, damaged) is not this configuration
    return None


def from_cache(job: Any, llm: Any, run_id: str | None) -> Any:
    """`job` with the calls the call log answers for it counted as covered (longrun.Job), when run
    `run_id` asked the same; `job` itself when the log holds none of that run's calls. Every
    request of the run answered: the new run asks nothing (the same requests, the same answers,
    the same follow-ups); some not: those and what follows them are asked afresh, at most the
    job's calls less those answered."""
    import dataclasses

    if run_id is None:
        return job
    requests, answered = llm.call_log.answerable(run_id, job.role)
    if not requests:
        return job
    covered = job.calls if answered == requests else min(answered, job.calls)
    return dataclasses.replace(job, covered=covered, covered_by=run_id)


__all__ = ["CANDIDATES", "asked_before", "from_cache"]
