"""`arcmemo seed DIR`: verification with the failing pair, annotation ingest with no model,
the model pipeline through the fake model, idempotence, --check, --format, BARC --lib/--transpose."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.memory.helpers.seedlibrary import LIBRARY
from arcmemo.memory.io.imports import export_yaml
from arcmemo.memory.store import Memory

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"
BARC = ROOT / "tests" / "data" / "barc"
ANNOTATED = ["05f2a901", "0d3d703e"]      # seeds with a hand annotation
PLAIN = "0520fde7"                         # a seed without one

PSEUDO = ("<pseudocode>\noutput = overlay_panels(split_grid(grid), combine=both_set)\n</pseudocode>\n"
          "<summary>Mark cells set in both halves.</summary>")
CONCEPTS = """```yaml
- name: overlay panels
  kind: routine
  routine_subtype: grid manipulation
  output_typing: grid
  parameters:
    - {name: panels, typing: "list[grid]", description: equal-size parts}
    - {name: combine, typing: "cell rule := Callable[[list[color]], color]", description: how cells combine}
  cues: [output is the size of one panel]
- name: split grid
  kind: routine
  routine_subtype: intermediate
  output_typing: "list[grid]"
```"""
DERIVATION = "<derivation>\n1. Observation: a divider column.\n2. Thought: two panels overlaid.\n</derivation>"
LESSONS = ("```yaml\n- situation: A full line splits the grid into equal parts.\n"
           "  suggestion: Overlay the parts cell by cell.\n```")


def seed_dir(tmp_path, ids, *, annotations=True, name="seeds"):
    directory = tmp_path / name
    directory.mkdir()
    for task_id in ids:
        shutil.copy(SEEDS / f"{task_id}.py", directory)
        if annotations and (SEEDS / f"{task_id}.yaml").exists():
            shutil.copy(SEEDS / f"{task_id}.yaml", directory)
            shutil.copy(SEEDS / LIBRARY, directory)     # the annotated seeds' helpers
    return directory


def invoke(*args):
    result = CliRunner().invoke(cli, ["seed", *map(str, args), "--no-progress"])
    return result


def table(output: str) -> dict[str, str]:
    rows = {}
    for line in output.splitlines():
        match = re.match(r"^(\S.*?)\s{2,}(\S+)$", line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def script(fake_model):
    fake_model.on("pseudocode", lambda messages: PSEUDO)
    fake_model.on("ps_abstract", lambda messages: CONCEPTS)
    fake_model.on("oe_derive", lambda messages: DERIVATION)
    fake_model.on("oe_lessons", lambda messages: LESSONS)


def test_check_reports_failing_pairs_and_writes_nothing(tmp_path):
    directory = seed_dir(tmp_path, ["05f2a901"])
    broken = (SEEDS / "0d3d703e.py").read_text().replace("(8, 9)", "(8, 8)")
    assert broken != (SEEDS / "0d3d703e.py").read_text()
    (directory / "0d3d703e.py").write_text(broken)
    shutil.copy(SEEDS / "0d3d703e.yaml", directory)
    (directory / "3c9b0459.py").write_text("def transform(grid):\n    raise ValueError('boom')\n")
    (directory / "ffffffff.py").write_text("def transform(grid):\n    return grid\n")
    (directory / "helpers.py").write_text("X = 1\n")
    db = tmp_path / "memory.db"
    result = invoke(directory, "--check", "--db", db)
    assert result.exit_code == 1, result.output                # a failing seed fails the check (CI)
    rows = table(result.stdout)
    assert (rows["files"], rows["verified"], rows["failed"]) == ("4", "1", "3")
    assert "concepts added" not in rows and "nothing written" in result.stdout
    errors = result.stderr
    assert re.search(r"0d3d703e\.py: (train|test)\[\d\] wrong output \(\d+ of \d+ cells differ\)", errors), errors
    assert re.search(r"3c9b0459\.py: train\[0\] exception: .*boom", errors), errors
    assert "ffffffff.py: no ARC task ffffffff" in errors
    assert "skipped 1 .py file whose name is not an ARC task id: helpers.py" in errors
    assert "3 seeds failed verification" in errors
    for line in errors.splitlines():                          # every problem on a line of its own
        assert line.count(".py: ") <= 1, line
    assert not db.exists() and not (tmp_path / "runs").exists()
    ok = invoke(seed_dir(tmp_path, ["05f2a901"], name="good"), "--check")
    assert ok.exit_code == 0, ok.output


def test_check_verifies_seeds_with_their_concepts_helpers(tmp_path):
    directory = seed_dir(tmp_path, ["0d3d703e", "3428a4f5"])
    # a helper the program stops calling is named with its concept
    code = (directory / "3428a4f5.py").read_text()
    (directory / "3428a4f5.py").write_text(code.replace(
        'top, bottom = split_grid(grid, scheme="dividers")   # at the yellow row',
        "top, bottom = grid[:6], grid[7:]").replace("import overlay_panels, split_grid", "import overlay_panels"))
    # a helper the library lacks
    library = (directory / LIBRARY).read_text()
    start = library.index("def color_mapping")
    (directory / LIBRARY).write_text(library[:start] + library[library.index("def rotate_grid"):])
    result = invoke(directory, "--check")
    assert result.exit_code == 1, result.output                # failing seeds fail the check
    assert table(result.stdout)["failed"] == "2"
    assert ("3428a4f5.py: the program never calls split_grid, the helper of its concept 'split grid'"
            in result.stderr), result.stderr
    assert ("0d3d703e.py: imports memory_helpers, but its annotation names no concept whose helper is in "
            "memory_helpers.py") in result.stderr, result.stderr
    # a library function that is not a helper (it imports what a helper may not) stops everything
    (directory / LIBRARY).write_text(library.replace("import numpy as np\n", "import numpy as np\nimport os\n", 1)
                                     .replace("    lookup = np.arange(10)", "    lookup = np.arange(10 + 0 * len(os.sep))"))
    result = invoke(directory, "--check")
    assert result.exit_code != 0
    assert re.search(rf"{LIBRARY}:\d+: color_mapping: imports 'os'; a helper may import only numpy, scipy",
                     result.output), result.output


def test_annotated_seeds_ingest_without_model_and_twice_adds_nothing(tmp_path):
    directory = seed_dir(tmp_path, ANNOTATED + [PLAIN])
    db = tmp_path / "memory.db"
    result = invoke(directory, "--db", db)
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    assert rows["verified"] == "3" and rows["from annotations"] == "2" and rows["skipped (no model)"] == "1"
    assert int(rows["concepts added"]) > 2 and rows["model calls"] == "0" and rows["write failures"] == "0"
    assert "skipped 1 seed" in result.stderr and "no model is configured" in result.stderr
    assert PLAIN in result.stderr

    with Memory(db) as memory:
        first = export_yaml(memory)
        revision = memory.revision()
        assert {s.task_id for s in memory.solutions()} == set(ANNOTATED)
        assert memory.list("oe") and memory.list("ps")
        history = memory.history()
        assert {r.actor for r in history} == {"human"} and {r.model for r in history} == {None}
        assert {r.task_id for r in history} == set(ANNOTATED)
        [run] = memory.runs()
        assert run.kind == "seed" and run.status == "done" and {r.run_id for r in history} == {run.id}

    again = invoke(directory, "--db", db)
    assert again.exit_code == 0, again.output
    rows = table(again.stdout)
    assert rows["already ingested"] == "2" and rows["concepts added"] == "0" and rows["concepts extended"] == "0"
    with Memory(db) as memory:
        assert export_yaml(memory) == first and memory.revision() == revision
        assert len(memory.solutions()) == 2
        assert len(memory.runs()) == 1      # a no-op run leaves no record


def test_format_ps_writes_no_lessons_then_oe_adds_them(tmp_path):
    directory = seed_dir(tmp_path, ANNOTATED)
    db = tmp_path / "memory.db"
    assert invoke(directory, "--db", db, "--format", "ps").exit_code == 0
    with Memory(db) as memory:
        assert memory.list("ps") and memory.list("oe") == []
    result = invoke(directory, "--db", db, "--format", "oe")
    assert result.exit_code == 0 and table(result.stdout)["from annotations"] == "2"
    with Memory(db) as memory:
        assert memory.list("oe")
    assert table(invoke(directory, "--db", db).stdout)["already ingested"] == "2"


def test_model_pipeline_for_unannotated_seed(tmp_path, fake_model):
    script(fake_model)
    directory = seed_dir(tmp_path, [PLAIN])
    db = tmp_path / "memory.db"
    result = invoke(directory, "--db", db, "--model", "fake")
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    assert rows["abstracted by model"] == "1" and rows["model calls"] == "4"
    assert rows["concepts added"] == "3" and int(rows["tokens"]) > 0
    assert [c.step for c in fake_model.calls] == ["pseudocode", "ps_abstract", "oe_derive", "oe_lessons"]
    assert "def transform" in fake_model.calls[0].prompt
    with Memory(db) as memory:
        [run] = memory.runs()
        concept = memory.get("overlay panels")
        assert concept.created_by_model == "fake" and concept.used_in == [PLAIN]
        [rev] = memory.history("overlay panels")
        assert (rev.actor, rev.model, rev.run_id, rev.task_id) == ("fake", "fake", run.id, PLAIN)
        assert memory.custom_types() == {"cell rule": "Callable[[list[color]], color]"}
        [solution] = memory.solutions(PLAIN)
        assert solution.origin == "human" and "overlay_panels" in solution.pseudocode

    calls = len(fake_model.calls)
    again = invoke(directory, "--db", db, "--model", "fake")
    assert table(again.stdout)["already ingested"] == "1" and len(fake_model.calls) == calls


def test_malformed_answers_are_counted_and_retried_next_run(tmp_path, fake_model):
    fake_model.on("pseudocode", lambda messages: PSEUDO)
    fake_model.on("ps_abstract", lambda messages: "I think the concept is overlay. (no block)")
    directory = seed_dir(tmp_path, [PLAIN])
    db = tmp_path / "memory.db"
    result = invoke(directory, "--db", db, "--model", "fake", "--format", "ps")
    assert result.exit_code == 1, result.output                # a seed that could not be written fails the run
    rows = table(result.stdout)
    assert rows["write failures"] == "1" and rows["concepts added"] == "0" and rows["model calls"] == "3"
    assert "ps write failed" in result.stderr
    with Memory(db) as memory:
        assert memory.list() == [] and memory.solutions() == []
        [failure] = memory.write_failures()
        assert failure.step == "ps_abstract" and "no block" in failure.raw and failure.task_id == PLAIN
        [run] = memory.runs()
        assert failure.run_id == run.id and run.config["done"] == [] and run.status == "done"
    fake_model.on("ps_abstract", lambda messages: CONCEPTS)
    result = invoke(directory, "--db", db, "--model", "fake", "--format", "ps")
    assert table(result.stdout)["concepts added"] == "2"


def test_barc_seeds_with_lib_and_transpose(tmp_path, fake_model):
    script(fake_model)
    db = tmp_path / "memory.db"
    lib = BARC / "common.py"
    plain = invoke(BARC, "--lib", lib, "--check")
    assert table(plain.stdout)["failed"] == "1" and "wrong output size" in plain.stderr
    no_lib = invoke(BARC, "--transpose", "--check")
    assert table(no_lib.stdout)["verified"] == "0" and "--lib" in no_lib.stderr

    result = invoke(BARC, "--lib", lib, "--transpose", "--db", db, "--model", "fake", "--format", "ps")
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    assert (rows["verified"], rows["abstracted by model"], rows["write failures"]) == ("2", "2", "0")
    prompts = [c.prompt for c in fake_model.calls_for("pseudocode")]
    assert len(prompts) == 2 and all("def main(input_grid)" in p for p in prompts)
    assert not any("generate_input" in p or "visualize" in p for p in prompts)
    with Memory(db) as memory:
        assert sorted(memory.get("overlay panels").used_in) == ["28bf18c6", "dc1df850"]
        assert {s.task_id for s in memory.solutions()} == {"28bf18c6", "dc1df850"}


def test_usage_errors(tmp_path):
    result = invoke(tmp_path / "missing")
    assert result.exit_code != 0
    (tmp_path / "empty").mkdir()
    result = invoke(tmp_path / "empty", "--check")
    assert result.exit_code == 1 and "no seed files" in result.output


def test_barc_prompts_borrow_worked_examples_from_the_default_seeds(tmp_path, fake_model):
    script(fake_model)
    result = invoke(BARC, "--lib", BARC / "common.py", "--transpose", "--db", tmp_path / "m.db",
                    "--model", "fake", "--format", "ps")
    assert result.exit_code == 0, result.output
    prompt = fake_model.calls_for("ps_abstract")[0].prompt
    assert "no worked examples" not in prompt and prompt.count("```yaml") >= 2


BANK_ITEM = ("It worked because the table is fixed.\n```yaml\n- title: colour by table\n"
             "  description: When colours change cell by cell.\n  content: Build the table from the examples.\n```")


def test_seeds_become_any_methods_items_through_its_own_write(tmp_path, fake_model):
    """`seed DIR --method reasoningbank` learns from each verified seed through ReasoningBank's own
    extraction, into its items marked as from human-written solutions, its calls counted in the
    seed run's usage (summary and each seed's event); running it again adds
    nothing; `--limit` takes the first seeds; `none` learns nothing and is refused."""
    from arcmemo.memory.schema.concept import owner_of

    fake_model.on("reasoningbank_success", lambda messages: BANK_ITEM)
    directory = seed_dir(tmp_path, [*ANNOTATED, PLAIN])
    db = tmp_path / "memory.db"
    args = (directory, "--db", db, "--run-dir", tmp_path / "runs", "--method", "reasoningbank", "--model", "fake")
    result = invoke(*args, "--limit", "2")
    assert result.exit_code == 0, result.output
    assert len(fake_model.calls_for("reasoningbank_success")) == 2
    assert re.search(r"model calls +2\n", result.output)      # the method's calls count in the run's cost
    (run,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["usage"]["calls"] == 2 and summary["usage"]["prompt_tokens"] > 0
    ingests = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert [e["usage"]["calls"] for e in ingests if e["type"] == "ingest"] == [1, 1]
    prompts = [c.prompt for c in fake_model.calls_for("reasoningbank_success")]
    assert all("def transform" in p for p in prompts)            # the seed's program is what it learns from
    with Memory(str(db)) as memory:
        bank = memory.list("bank")
        assert bank and all(c.source == "human" and owner_of(c) == "reasoningbank" for c in bank)
        assert memory.list("ps") == [] and memory.list("oe") == []
    again = invoke(*args)
    assert again.exit_code == 0 and len(fake_model.calls_for("reasoningbank_success")) == 3   # only the third
    refused = invoke(directory, "--db", db, "--run-dir", tmp_path / "runs", "--method", "none")
    assert refused.exit_code != 0 and "--method none learns nothing" in refused.output
