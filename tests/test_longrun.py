"""Hours on the embedded model only when asked for by name (run/progress/longrun.py): the estimate, the
refusal before anything exists, and no refusal for short jobs, named models or endpoints."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.llm import LLM, LLMSettings
from arcmemo.run.progress.longrun import LONG_S, Job, LongRunError, check_named, duration, solve_job, write_job


@pytest.fixture
def llm_for():
    made = []

    def make(**settings) -> LLM:
        made.append(LLM(LLMSettings(**settings)))
        return made[-1]

    yield make
    for llm in made:
        llm.close()


def test_the_estimate_counts_reading_and_writing_at_the_embedded_models_rates():
    job = Job("x", "aux", calls=10, prompt_tokens=600, answer_tokens=400)
    assert job.seconds() == (10 * (600 / 60 + 400 / 4), 10 * (600 / 15 + 400 / 1.5))
    assert solve_job(tasks=5, threads=3, attempts=2, retries=2, passes=2).calls == 5 * 3 * 2 * 3 * 2
    assert write_job(116, ["ps", "oe"]).calls == 116 * 5 and write_job(116, ["oe"]).calls == 116 * 2
    assert [duration(s) for s in (30, 20 * 60, 3 * 3600, 5 * 86400)] == ["1 min", "20 min", "3.0 h", "5.0 days"]


def test_a_long_job_on_the_default_embedded_model_is_refused_and_a_named_one_says_its_estimate(llm_for):
    long_job = solve_job(tasks=100, threads=1, attempts=1, retries=2)
    assert long_job.seconds()[0] > LONG_S
    defaulted = llm_for(solver_model="local", defaulted=("solver", "aux", "select"))
    with pytest.raises(LongRunError, match=r"solving 100 tasks: 300 calls of the embedded model, about .* "
                                           r"name it \(--solver-model local\)"):
        check_named(defaulted, long_job, "--solver-model")
    named = llm_for(solver_model="local", defaulted=("aux", "select"))
    assert check_named(named, long_job, "--solver-model").startswith("solving 100 tasks: 300 calls")
    quick_start = solve_job(tasks=1, threads=1, attempts=1, retries=2)      # README's first solve: it just runs
    assert check_named(defaulted, quick_start, "--solver-model").startswith("solving 1 task")
    endpoint = llm_for(base_url="http://127.0.0.1:9/v1", solver_model="gpt-4.1", defaulted=("solver",))
    assert check_named(endpoint, long_job, "--solver-model") is None


def test_settings_say_which_roles_models_were_defaulted(monkeypatch):
    assert LLMSettings.resolve().defaulted == ("solver", "aux", "select")
    monkeypatch.setenv("ARCMEMO_AUX_MODEL", "local")
    assert LLMSettings.resolve(select_model="local").defaulted == ("solver",)


def test_solve_over_a_split_with_no_endpoint_stops_before_a_run_directory(tmp_path, monkeypatch):
    import arcmemo.run.session as session

    def never(*args, **kwargs):
        raise AssertionError("the embedded model was about to be checked or started")

    monkeypatch.setattr(session, "check_models", never)
    result = CliRunner().invoke(cli, ["solve", "--split", "training", "--limit", "20", "--selection", "none",
                                      "--run-dir", str(tmp_path / "runs"), "--db", str(tmp_path / "memory.db")])
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert re.fullmatch(r"Error: solving 20 tasks: 60 calls of the embedded model, about \S+ \S+ to \S+ \S+ "
                        r"on a 2-core CPU, as no endpoint is configured\. To go ahead on it, name it "
                        r"\(--solver-model local\); or give an endpoint \(--base-url or OPENAI_BASE_URL\) and a model",
                        line), line
    assert not (tmp_path / "runs").exists()
