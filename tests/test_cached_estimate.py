"""A solve the call log already answers estimates from it (run/progress/fromcache.py): a second run of
the same configuration counts no calls of the embedded model and is not refused as long; a changed
setting, another task or --no-cache estimates as before. The scripted fake model stands in for the
embedded one (on_embedded_model)."""

from __future__ import annotations

import dataclasses
import re
import sqlite3

import pytest
from runner_support import TASK_IDS, script_run

from arcmemo.cli.common import model_flags
from arcmemo.core.settings import Settings
from arcmemo.llm.log import log_path
from arcmemo.run.config import RunConfig
from arcmemo.run.progress import longrun
from arcmemo.run.progress.reporter import Reporter
from arcmemo.run.session import RunSession, resolve_models

FAKE = {"solver_model": "fake", "aux_model": "fake", "select_model": "fake"}
AS_TODAY = r"solving 2 tasks: 2 calls of the embedded model, about \d+ min to \d+ min on a 2-core CPU"


class Notes(Reporter):
    def __init__(self):
        super().__init__()
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)


@pytest.fixture(autouse=True)
def fake_is_embedded(fake_model, monkeypatch):
    """The fake model is estimated as the embedded one; it answers every task right the first time."""
    monkeypatch.setattr(longrun, "on_embedded_model", lambda llm, role: llm.model_for(role) == "fake")
    script_run(fake_model)


def solve(tmp_path, config: RunConfig, models=None) -> tuple[str | None, str]:
    """Run `config` to its end: (the estimate said before it, its run id)."""
    notes = Notes()
    session = RunSession(Settings.load(db=str(tmp_path / "m.db"), runs_dir=str(tmp_path / "runs")), reporter=notes)
    try:
        runner = session.new_solve(config, models or resolve_models(FAKE))
        session.run(runner)
    finally:
        session.close()
    estimates = [n for n in notes.notes if n.startswith("solving ")]
    return (estimates[0] if estimates else None), runner.rundir.run_id


def config(**changed) -> RunConfig:
    return RunConfig(**{"source": "training", "task_ids": TASK_IDS[:2], "selection": "none", "retries": 0,
                        **changed})


def test_a_second_run_of_the_same_configuration_estimates_from_the_call_log(tmp_path, fake_model):
    first, run_id = solve(tmp_path, config())
    assert re.fullmatch(AS_TODAY, first), first
    asked = len(fake_model.calls_for("solve"))
    again, _ = solve(tmp_path, config())
    assert again == (f"solving 2 tasks: answered from the call log (run {run_id} asked the same); "
                     "0 calls left for the embedded model")
    assert len(fake_model.calls_for("solve")) == asked          # and so it was


@pytest.mark.parametrize("changed", [{"top_k": 3}, {"task_ids": [TASK_IDS[0], TASK_IDS[2]]}, {"repeat": 1}])
def test_a_changed_setting_or_task_estimates_as_before(tmp_path, changed):
    solve(tmp_path, config())
    estimate, _ = solve(tmp_path, config(**changed))
    assert re.fullmatch(AS_TODAY, estimate), estimate


def test_with_the_cache_off_it_estimates_as_before(tmp_path):
    solve(tmp_path, config())
    estimate, _ = solve(tmp_path, config(), resolve_models(model_flags({**FAKE, "no_cache": True})))
    assert re.fullmatch(AS_TODAY, estimate), estimate


def test_calls_the_log_no_longer_answers_are_counted(tmp_path, fake_model):
    """The earlier run's answers for one task gone from the log: at most the job's calls less the one
    still answered are asked."""
    _, run_id = solve(tmp_path, config(retries=1))
    with sqlite3.connect(log_path()) as conn:
        (first,) = conn.execute("SELECT MIN(id) FROM calls WHERE run_id = ? AND role = 'solver'", (run_id,)).fetchone()
        conn.execute("UPDATE calls SET error = 'gone', response_text = NULL WHERE id = ?", (first,))
    estimate, _ = solve(tmp_path, config(retries=1))
    assert re.fullmatch(rf"solving 2 tasks: answered from the call log \(run {run_id} asked the same\); 3 calls left "
                        r"for the embedded model, about \d+ min to \d+ min on a 2-core CPU", estimate), estimate


def test_a_long_job_the_call_log_answers_is_not_refused(tmp_path):
    long_job = config(task_ids=TASK_IDS[:1], retries=15)      # 16 calls at most: over LONG_S at the fast end
    assert longrun.solve_job(1, 1, 1, 15).seconds()[0] > longrun.LONG_S
    defaulted = dataclasses.replace(resolve_models(FAKE), defaulted=("solver", "aux", "select"))
    with pytest.raises(longrun.LongRunError, match="solving 1 task: 16 calls of the embedded model"):
        solve(tmp_path, long_job, defaulted)
    _, run_id = solve(tmp_path, long_job)                    # named: it runs (and answers at once)
    estimate, _ = solve(tmp_path, long_job, defaulted)
    assert estimate == (f"solving 1 task: answered from the call log (run {run_id} asked the same); "
                        "0 calls left for the embedded model")


def test_a_second_quick_start_estimates_both_runs_from_the_call_log(tmp_path, fake_model):
    """Its with-memory side reads memory: the same memory at the same revision is answered the same."""
    from test_quickstart import quickstart

    first = quickstart(tmp_path)
    assert first.exit_code == 0, first.output
    assert len(re.findall(r"solving 2 tasks: 2 calls of the embedded model", first.output)) == 2, first.output
    again = quickstart(tmp_path)
    assert again.exit_code == 0, again.output
    assert len(re.findall(r"solving 2 tasks: answered from the call log \(run \S+ asked the same\); 0 calls left "
                          r"for the embedded model\n", again.output)) == 2, again.output


def test_memory_written_since_estimates_as_before(tmp_path):
    """A method that reads memory: a revision since the earlier run offers other concepts."""
    from runner_support import paper_memory

    from arcmemo.memory.store import Memory

    db = paper_memory(tmp_path / "m.db")
    solve(tmp_path, config(selection="ps"))
    with Memory(str(db)) as memory:
        memory.merge({"format": "ps", "name": "flip", "kind": "routine", "description": "mirror the grid"},
                     source="import", actor="test")
    estimate, _ = solve(tmp_path, config(selection="ps"))
    assert re.fullmatch(AS_TODAY, estimate), estimate
