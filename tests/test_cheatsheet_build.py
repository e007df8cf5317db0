"""The paper's cheatsheet baseline: `arcmemo cheatsheet build DIR` verifies the seeds and has the
curator rewrite one sheet after each (cumulative), every rewrite a revision of the memory's
`cheatsheet` item; `solve --selection cheatsheet` then shows it frozen (unless --continual)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from runner_support import empty_memory, script_run

from arcmemo.cli import cli
from arcmemo.memory.store import Memory

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
BUILD_SEEDS = ["0d3d703e", "1e0a9b12", "25d8a9c8"]     # 0d3d703e has a hand annotation


@pytest.fixture
def seeds_dir(tmp_path):
    folder = tmp_path / "seeds"
    folder.mkdir()
    for task_id in BUILD_SEEDS:
        for path in SEEDS.glob(f"{task_id}.*"):
            shutil.copy(path, folder / path.name)
    shutil.copy(SEEDS / "memory_helpers.py", folder)       # the helpers the annotated seeds import
    return folder


def curator(messages) -> str:
    """A curator that keeps every tip it was shown and adds one for the puzzle at hand."""
    prompt = messages[-1]["content"]
    old = re.findall(r"^- tip .*$", prompt, flags=re.M)
    task = re.search(r"Task (\w{8}) is solved by this program", prompt).group(1)
    return "<cheatsheet>\n" + "\n".join(old + [f"- tip from {task}"]) + "\n</cheatsheet>"


def build(tmp_path, seeds_dir, *args):
    return CliRunner().invoke(cli, ["cheatsheet", "build", str(seeds_dir), "--aux-model", "fake", "-q",
                                    "--db", str(tmp_path / "memory.db"), "--run-dir", str(tmp_path / "runs"), *args])


def test_build_curates_one_sheet_cumulatively_from_the_verified_seeds(tmp_path, seeds_dir, fake_model):
    fake_model.on("cheatsheet", curator)
    result = build(tmp_path, seeds_dir)
    assert result.exit_code == 0, result.output
    calls = fake_model.calls_for("cheatsheet")
    assert len(calls) == 3 and all(c.role == "aux" for c in calls)
    assert "def transform" in calls[0].prompt                             # the seed's program
    assert "The helper functions it imports from memory_helpers:" in calls[0].prompt
    assert "- tip from 0d3d703e" in calls[1].prompt                       # the sheet so far, cumulative
    with Memory(str(tmp_path / "memory.db")) as memory:
        sheet = memory.get("cheatsheet", format="sheet")
        assert sheet.description.splitlines() == [f"- tip from {t}" for t in BUILD_SEEDS]
        revisions = memory.history("cheatsheet", format="sheet")
    (run,) = (tmp_path / "runs").iterdir()
    assert [(r.op, r.task_id, r.run_id) for r in revisions] == [("add", "0d3d703e", run.name),
                                                               ("edit", "1e0a9b12", run.name),
                                                               ("edit", "25d8a9c8", run.name)]
    assert revisions[-1].snapshot["source"] == "human" and revisions[-1].model == "fake"
    assert json.loads((run / "config.json").read_text())["kind"] == "cheatsheet"
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert [e["task_id"] for e in events if e["type"] == "curate"] == BUILD_SEEDS
    summary = json.loads((run / "summary.json").read_text())
    assert (summary["verified"], summary["rewritten"], summary["sheet_words"]) == (3, 3, 12)


def test_a_second_build_refuses_unless_again_and_a_bad_seed_is_skipped(tmp_path, seeds_dir, fake_model):
    fake_model.on("cheatsheet", curator)
    assert build(tmp_path, seeds_dir).exit_code == 0
    again = build(tmp_path, seeds_dir)
    assert again.exit_code == 1 and "already holds a cheatsheet named 'cheatsheet' (12 words)" in again.output
    assert len(list((tmp_path / "runs").iterdir())) == 1                 # refused before a run directory
    (seeds_dir / "1e0a9b12.py").write_text("def transform(grid):\n    return grid\n")
    more = build(tmp_path, seeds_dir, "--again")
    assert more.exit_code == 1 and "1e0a9b12.py: train[0] wrong output" in more.output
    with Memory(str(tmp_path / "memory.db")) as memory:
        assert memory.get("cheatsheet", format="sheet").description.count("- tip from 0d3d703e") == 2


def test_solve_shows_the_built_sheet_frozen(tmp_path, seeds_dir, fake_model):
    fake_model.on("cheatsheet", curator)
    assert build(tmp_path, seeds_dir).exit_code == 0
    script_run(fake_model)
    db = str(tmp_path / "memory.db")
    with Memory(db) as memory:
        revision = memory.revision()
    result = CliRunner().invoke(cli, ["solve", "--tasks", "3428a4f5", "--selection", "cheatsheet", "--retries", "0",
                                      "-q", "--solver-model", "fake", "--db", db,
                                      "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    (solve_call,) = fake_model.calls_for("solve")
    assert "- tip from 25d8a9c8" in solve_call.prompt
    assert len(fake_model.calls_for("cheatsheet")) == 3                  # no rewrite during the solve
    with Memory(db) as memory:
        assert memory.revision() == revision


def test_solve_refuses_a_frozen_cheatsheet_that_was_never_built(tmp_path, fake_model):
    runs = tmp_path / "runs"
    args = ["solve", "--tasks", "3428a4f5", "--selection", "cheatsheet", "--solver-model", "fake",
            "--db", empty_memory(tmp_path / "memory.db"), "--run-dir", str(runs)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert "holds no cheatsheet named 'cheatsheet' for --selection cheatsheet to show; build it with `arcmemo " \
        "cheatsheet build seeds/`" in result.output
    assert not runs.exists()


BARC = Path(__file__).resolve().parent / "data" / "barc"


def barc_build(tmp_path, *args):
    return CliRunner().invoke(cli, ["cheatsheet", "build", str(BARC), "--lib", str(BARC / "common.py"), "--transpose",
                                    "--aux-model", "fake", "-q", "--db", str(tmp_path / "memory.db"),
                                    "--run-dir", str(tmp_path / "runs"), *args])


def test_released_build_from_barc_seeds_asks_as_the_authors_code_did(tmp_path, fake_model):
    fake_model.on("cheatsheet", curator)
    result = barc_build(tmp_path, "--released")
    assert result.exit_code == 0, result.output
    calls = fake_model.calls_for("cheatsheet")
    assert len(calls) == 2
    assert all(c.params["temperature"] == 0.3 and c.params["max_tokens"] == 4096 for c in calls)
    assert "Keep it under about 2000 words" in calls[0].prompt
    assert re.search(r"Example 1 input \(\d+x\d+\):\n\[\[\d, ", calls[0].prompt)       # numpy grids
    (run,) = (tmp_path / "runs").iterdir()
    config = json.loads((run / "config.json").read_text())
    assert config["call_defaults"]["aux"] == {"temperature": 0.3, "max_tokens": 4096}
    assert (config["max_words"], config["grid_text"], config["prompt_templates"]["cheatsheet"]["source"]) == \
        (2000, "numpy", "shipped")


def test_flags_given_win_over_released_and_the_default_build_is_arcmemos(tmp_path, fake_model):
    fake_model.on("cheatsheet", curator)
    result = barc_build(tmp_path, "--released", "--aux-temperature", "0.7", "--max-words", "800",
                        "--grid-text", "digits")
    assert result.exit_code == 0, result.output
    first = fake_model.calls_for("cheatsheet")[0]
    assert first.params == {"temperature": 0.7, "max_tokens": 4096}
    assert "about 800 words" in first.prompt and "[[" not in first.prompt
    (tmp_path / "plain").mkdir()
    default = barc_build(tmp_path / "plain")
    assert default.exit_code == 0, default.output
    plain = fake_model.calls_for("cheatsheet")[-1]
    assert "temperature" not in plain.params and "about 1500 words" in plain.prompt


def test_without_an_endpoint_a_build_says_its_time_and_wants_the_embedded_model_named(tmp_path, monkeypatch):
    import arcmemo.run.jobs.curating as curating

    def never(*args, **kwargs):
        raise AssertionError("the embedded model was about to be checked or started")

    monkeypatch.setattr(curating, "check_models", never)
    result = CliRunner().invoke(cli, ["cheatsheet", "build", str(SEEDS), "--db", str(tmp_path / "memory.db"),
                                      "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert re.fullmatch(r"Error: curating 44 seeds: 44 calls of the embedded model, about [\d.]+ h to "
                        r"[\d.]+ h on a 2-core CPU, as no endpoint is configured\. To go ahead on it, name it "
                        r"\(--aux-model local\); or give an endpoint \(--base-url or OPENAI_BASE_URL\) and a model", line)
    assert not (tmp_path / "runs").exists() and not (tmp_path / "memory.db").exists()


def test_the_released_recipe_end_to_end_reads_the_released_sheet_beside_the_default_one(
        tmp_path, seeds_dir, fake_model, monkeypatch):
    from llm_stub import StubServer

    fake_model.on("cheatsheet", curator)
    assert build(tmp_path, seeds_dir).exit_code == 0                      # arcmemo's build: the sheet "cheatsheet"
    released = barc_build(tmp_path, "--released")                         # then the released one, beside it
    assert released.exit_code == 0, released.output
    with Memory(str(tmp_path / "memory.db")) as memory:
        sheets = {c.name: c.description for c in memory.list("sheet")}
    assert set(sheets) == {"cheatsheet", "cheatsheet-released"}
    assert sheets["cheatsheet"].splitlines() == [f"- tip from {t}" for t in BUILD_SEEDS]    # left as it was
    barc_tips = sheets["cheatsheet-released"].splitlines()
    assert barc_tips and not set(barc_tips) & set(sheets["cheatsheet"].splitlines())
    configs = [json.loads((run / "config.json").read_text()) for run in sorted((tmp_path / "runs").iterdir())]
    assert sorted(c["sheet"] for c in configs) == ["cheatsheet", "cheatsheet-released"]

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with StubServer() as stub:
        result = CliRunner().invoke(cli, ["solve", "--config", "cheatsheet-released", "--tasks", "97239e3d",
                                          "--retries", "0", "-q", "--base-url", stub.base_url,
                                          "--db", str(tmp_path / "memory.db"), "--run-dir", str(tmp_path / "solve")])
        assert result.exit_code == 0, result.output
        prompts = [json.dumps(r["messages"]) for r in stub.requests]
    assert len(prompts) == 3                                               # one answer per thread
    assert all(tip in p for p in prompts for tip in barc_tips)             # the hint is the released sheet
    assert not any("- tip from 0d3d703e" in p for p in prompts)


def test_a_build_names_its_sheet_and_a_run_reads_the_one_it_names(tmp_path, seeds_dir, fake_model):
    fake_model.on("cheatsheet", curator)
    assert build(tmp_path, seeds_dir, "--name", "mine").exit_code == 0
    blank = build(tmp_path, seeds_dir, "--name", " ")
    assert blank.exit_code == 2 and "a sheet's name cannot be blank" in blank.output
    script_run(fake_model)
    args = ["solve", "--tasks", "3428a4f5", "--selection", "cheatsheet", "--retries", "0", "-q",
            "--solver-model", "fake", "--db", str(tmp_path / "memory.db"), "--run-dir", str(tmp_path / "solve")]
    refused = CliRunner().invoke(cli, args)                               # the default sheet was never built
    assert refused.exit_code == 1 and "holds no cheatsheet named 'cheatsheet'" in refused.output
    assert "(it holds 'mine': --method-option sheet=NAME reads one)" in refused.output
    result = CliRunner().invoke(cli, [*args, "--method-option", "sheet=mine"])
    assert result.exit_code == 0, result.output
    (solve_call,) = fake_model.calls_for("solve")
    assert "- tip from 25d8a9c8" in solve_call.prompt
