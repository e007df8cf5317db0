"""The memory method contract (arcmemo/methods): every shipped method's read and write against the
loopback stub endpoint, what any installed method must do with answers it cannot use, the
train-only Experience (no field can carry a test output), and discovery: pyproject's entry
points, a third-party method arcmemo knows nothing about, a broken one, one claiming a
name of arcmemo's."""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import textwrap
from pathlib import Path

import pytest
import tomllib
from click.testing import CliRunner
from llm_stub import StubServer, completion_body, stub_llm
from method_support import FAILED, SOLVED, block_tasks, experiences
from plugin_support import install_fake_distribution as install_distribution
from runner_support import seed_code

import arcmemo
from arcmemo.cli import cli
from arcmemo.core.tasks import Task, load_tasks
from arcmemo.memory.store import Memory
from arcmemo.methods import (
    AttemptView,
    Experience,
    MemoryMethod,
    MethodError,
    WriteContext,
    WriteEvent,
    describe_methods,
    experience_of,
    load_method,
    method_names,
    select,
)
from arcmemo.methods.discovery import LISTING_ORDER, shipped_methods
from arcmemo.selection import Selection, SelectionSettings

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = shipped_methods()         # arcmemo's own, from its installed metadata
PS_CONCEPT = {"format": "ps", "name": "recolour by a table", "kind": "routine", "output_typing": "grid",
              "description": "map every colour through a fixed table"}
LESSON = {"format": "oe", "situation": "Every cell of one colour turns into another.",
          "suggestion": "Learn the colour table from the examples."}
SHEET = {"format": "sheet", "name": "cheatsheet", "description": "- look for a colour table first"}
BANK_ITEM = {"format": "bank", "name": "Learn the colour table", "description": "When colours change cell by cell.",
             "suggestion": "Read the table off the examples.",
             "meta": {"origin": "success", "task_profiles": ["change: manychanges colourmap"]}}
CASE = {"format": "case", "name": "c8f0f002", "description": "size: samesize\nchange: colourmap",
        "implementation": ["def transform(grid):\n    return grid\n"]}
DC_RS_SHEET = {"format": "sheet", "name": "dc-rs", "description": "- a colour table first"}
BULLET = {"format": "playbook", "name": "ace-00001", "description": "Look for a colour table first.",
          "meta": {"section": "strategies"}}
ITEMS = "```yaml\n- title: {}\n  description: When colours swap.\n  content: Build the table.\n```"
CAPTION = "<observations>\n- colours change\n</observations>\n<speculation>\n- a table\n</speculation>"


@pytest.fixture
def tasks():
    return block_tasks()


def answers(*texts: str) -> list[dict]:
    return [{"body": completion_body(text)} for text in texts]


# What each shipped method's read and write ask the model, in order, and what the test expects of them:
# (memory to start from, replies to the read, replies to the write, items the read shows, item names written)
HAPPY = {
    "ps": ([PS_CONCEPT], answers(f"```yaml\n- {PS_CONCEPT['name']}\n```"),
           answers("<pseudocode>\nrecolour\n</pseudocode>\n<summary>recolour</summary>",
                   "```yaml\n- name: colour table\n  kind: routine\n  output_typing: grid\n"
                   "  description: a table of colours\n```"),
           [PS_CONCEPT["name"]], ["colour table"]),
    "oe": ([LESSON], answers(CAPTION, "```yaml\n- 1\n```"),
           answers("<derivation>\n1. Observation: colours map.\n</derivation>",
                   "```yaml\n- situation: Colours swap.\n  suggestion: Build the table.\n```"),
           ["lesson"], ["lesson"]),
    "none": ([PS_CONCEPT], [], [], [], {}),        # it shows nothing and learns nothing
    "all": ([PS_CONCEPT], [], answers("<pseudocode>\nrecolour\n</pseudocode>\n<summary>recolour</summary>",
                                      "```yaml\n- name: colour table\n  kind: routine\n```"),
            [PS_CONCEPT["name"]], ["colour table"]),
    # DC-Cu's curator rewrites the sheet after every task (it judges the answer itself)
    "cheatsheet": ([SHEET], [], answers("<cheatsheet>\n- a table first, then shapes\n</cheatsheet>",
                                        "<cheatsheet>\n- a table first; check every example\n</cheatsheet>"),
                   ["cheatsheet"], {SOLVED: ["cheatsheet"], FAILED: ["cheatsheet"]}),
    # ReasoningBank learns from the failure too; DC-RS keeps every task's case and the sheet of the block's
    # newest task (here the failed one: its sheet is synthesised again, its read not having run in this test)
    "reasoningbank": ([BANK_ITEM], [], answers(ITEMS.format("Table first"), ITEMS.format("Check every example")),
                      [BANK_ITEM["name"]], {SOLVED: ["Table first"], FAILED: ["Check every example"]}),
    "dc-rs": ([CASE, DC_RS_SHEET], answers("<cheatsheet>\n- the table of c8f0f002\n</cheatsheet>"),
              answers("<cheatsheet>\n- check the table\n</cheatsheet>"),
              [CASE["name"], "dc-rs"], {SOLVED: [SOLVED], FAILED: [FAILED, "dc-rs"]}),
    # ACE reflects on the failure too (here it draws no lesson from it, so nothing is curated)
    "ace": ([BULLET], [], answers("```yaml\ndiagnosis: a table\ntags: {}\ninsights:\n  - map colours by a table\n```",
                                  "```yaml\n- op: add\n  section: strategies\n  content: Map colours by a table.\n```",
                                  "```yaml\ndiagnosis: it copied\ntags: {}\ninsights: []\n```"),
            [BULLET["name"]], {SOLVED: ["ace-00002"], FAILED: []}),
}


def test_every_shipped_method_has_its_scripted_read_and_write():
    assert set(HAPPY) == set(SHIPPED)


@pytest.mark.parametrize("name", list(SHIPPED))
def test_shipped_method_reads_and_writes_against_the_stub_endpoint(name, tasks, tmp_path):
    start, read_replies, write_replies, shown, written = HAPPY[name]
    method = load_method(name)
    assert isinstance(method, MemoryMethod) and method.name == name and method.description
    assert method.formats or not method.writes_memory
    memory = Memory(str(tmp_path / "memory.db"))
    for item in start:
        memory.add(item, actor="test")
    with StubServer() as stub:
        stub.script(*read_replies)
        with stub_llm(stub.base_url) as llm:
            selection = select(tasks[SOLVED], memory, SelectionSettings(mode=name, top_k=1), llm)
        assert len(stub.requests) == len(read_replies)
        assert isinstance(selection, Selection) and selection.mode == name and not selection.fallback
        names = [c.name for c in memory.list() if c.id in selection.concept_ids]
        assert [short(n) for n in names] == shown
        if shown:
            assert selection.hint.strip()
        before = memory.revision()
        stub.script(*write_replies)
        with stub_llm(stub.base_url) as llm:
            events = method.write(experiences(tasks), memory, llm, WriteContext(run_id="r1"))
        assert len(stub.requests) == len(read_replies) + len(write_replies)
    # ArcMemo's methods and the cheatsheet learn from the solved task only
    expected = written if isinstance(written, dict) else {SOLVED: written}
    assert all(type(e) is WriteEvent for e in events) and [e.task_id for e in events] == list(expected)
    for event in events:
        assert not event.failed, event.error
        assert [short(n) for n in event.added + event.extended] == expected[event.task_id]
        assert all(event.task_id in c.used_in for c in memory.list() if c.name in event.added + event.extended)
    assert memory.revision() > before if expected else memory.revision() == before
    assert {c.format for c in memory.list()} <= set(method.formats) | {i["format"] for i in start}


def short(name: str) -> str:
    """An OE lesson's name is lesson-<hash>."""
    return "lesson" if name.startswith("lesson-") else name


KEPT_WITHOUT_A_MODEL = {"dc-rs": {"case"}}      # DC-RS's cases are the verified programs, no model's answer


@pytest.mark.parametrize("name", method_names())
def test_any_method_survives_answers_it_cannot_use(name, tasks, tmp_path):
    """Whatever a method asks, an endpoint answering nonsense (or failing) makes its read fall back
    and its write fail on record: nothing raised, nothing malformed stored (nothing but what a method
    keeps without asking a model), the run goes on."""
    method = load_method(name)
    memory = Memory(str(tmp_path / "memory.db"))
    for item in (PS_CONCEPT, LESSON, SHEET, BANK_ITEM, CASE, DC_RS_SHEET, BULLET):
        memory.add(item, actor="test")
    model_free = KEPT_WITHOUT_A_MODEL.get(name, set())
    stored = {(c.format, c.name, c.content_hash) for c in memory.list() if c.format not in model_free}
    with StubServer(answer=lambda body: "I am not sure what you mean.") as stub, stub_llm(stub.base_url) as llm:
        selection = select(tasks[SOLVED], memory, SelectionSettings(mode=name), llm)
        events = method.write(experiences(tasks), memory, llm, WriteContext(run_id="r1"))
    assert isinstance(selection, Selection) and set(selection.concept_ids) <= {c.id for c in memory.list()}
    assert all(isinstance(e, WriteEvent) for e in events)
    assert [e.task_id for e in events] == [t for t in (SOLVED, FAILED) if t in {e.task_id for e in events}]
    assert {(c.format, c.name, c.content_hash) for c in memory.list() if c.format not in model_free} == stored
    failures = {f.task_id for f in memory.write_failures(run_id="r1")}
    assert {e.task_id for e in events if e.failed} <= failures


# -- the train-only experience ------------------------------------------------------------------------

SENTINEL_GRID = [[7, 3, 7], [3, 7, 3]]        # planted where test outputs and their verdicts are kept
SENTINEL_TEXT = "TEST-ANSWER-SENTINEL"


def _values(value):
    """Every leaf and every list/tuple in `value`, walking dataclasses, mappings and sequences."""
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from _values(getattr(value, f.name))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _values(v)
    elif isinstance(value, (list, tuple)):
        yield value
        for v in value:
            yield from _values(v)
    else:
        yield value


def test_no_field_of_an_experience_can_carry_test_data(tasks):
    """A task event holds test verdicts, scores, predictions and each step's test outputs; the
    Experience built from it holds none of them, whatever they are."""
    task = tasks[SOLVED]
    event = {
        "task_id": SOLVED, "pass_index": 1, "code": seed_code(SOLVED), "reasoning": "a colour table",
        "passed_train": True, "selected": [3], "concept_use": [{"id": 4, "offered": 1, "solved": 1}],
        "scores": {"oracle1": 1.0, "oracle2": 1.0, "strict": 1.0, SENTINEL_TEXT: 1},
        "predictions": [[SENTINEL_GRID]], "solved": True, SENTINEL_TEXT: SENTINEL_GRID,
        "threads": [{"thread": 0, "passed_train": True, "steps": [{
            "sample": 0, "round": 0, "label": "", "code": seed_code(SOLVED), "error": None, "passed_train": True,
            "train_correct": [True] * 4, "train_cell_accuracy": 1.0, "test_outputs": [SENTINEL_GRID],
            "test_correct": [True], SENTINEL_TEXT: SENTINEL_GRID}]}],
        "feedback": [{"thread": 0, "sample": 0, "round": 0, "text": "Example 2: wrong output"}],
    }
    experience = experience_of(task, event)
    assert experience.passed_train and experience.shown == (3, 4)
    assert experience.attempts[0].feedback == "Example 2: wrong output"
    leaves = list(_values(experience))
    assert not any(v == SENTINEL_GRID or v == SENTINEL_TEXT or v == tuple(map(tuple, SENTINEL_GRID)) for v in leaves)
    # the test outputs of the task itself appear nowhere either
    answer = load_tasks("training", ids=[SOLVED]).answers[SOLVED].test_outputs[0]
    assert not any(v == answer or v == [list(r) for r in answer] for v in leaves)
    # and what could carry them is pinned: a new field is a decision, made here
    assert [f.name for f in dataclasses.fields(Experience)] == [
        "task", "pass_index", "program", "reasoning", "passed_train", "attempts", "shown"]
    assert [f.name for f in dataclasses.fields(AttemptView)] == [
        "thread", "sample", "round", "program", "train_correct", "train_cell_accuracy", "error", "feedback", "label"]
    assert [f.name for f in dataclasses.fields(Task)] == ["id", "train", "test_inputs"]


# -- discovery -----------------------------------------------------------------------------------------

def test_the_shipped_methods_are_pyprojects_listed_first_in_their_order():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["arcmemo.methods"] == SHIPPED, \
        "arcmemo's installed metadata predates pyproject.toml: reinstall it (pip install -e .)"
    assert method_names()[:len(SHIPPED)] == tuple(SHIPPED)
    assert tuple(SHIPPED)[:len(LISTING_ORDER)] == LISTING_ORDER      # every name it orders is shipped


METHOD_SOURCE = textwrap.dedent('''
    """A throwaway third-party memory method: one OE lesson per finished task, passed or failed."""
    from dataclasses import dataclass

    from arcmemo.methods import MethodBase, WriteEvent, each_experience
    from arcmemo.selection import Selection


    @dataclass(frozen=True)
    class DiaryOptions:
        tone: str = ""


    class Diary(MethodBase):
        name = "diary"
        description = "one lesson per task, from successes and failures"
        formats = ("oe",)
        write_roles = ("aux",)
        Options = DiaryOptions

        def read(self, task, memory, settings, llm):
            lessons = memory.list("oe")
            return Selection(mode=self.name, concept_ids=[c.id for c in lessons],
                             hint="\\n".join(f"- {c.situation}: {c.suggestion}" for c in lessons))

        def write(self, experiences, memory, llm, ctx):
            events = []
            for e in each_experience(experiences, ctx):
                verdicts = [a.train_correct for a in e.attempts]
                outcome = ctx.options.get("tone", "") + ("passed" if e.passed_train else "failed")
                result = memory.merge({"format": "oe", "situation": f"diary of {e.task_id}",
                                       "suggestion": f"{outcome} its train pairs after {len(verdicts)} answers"},
                                      actor=self.name, run_id=ctx.run_id, task_id=e.task_id)
                ctx.judge(e.task_id, {i: "helpful" if e.passed_train else "harmful" for i in e.shown})
                events.append(WriteEvent(e.task_id, added=[result.concept.name]))
            return events
''')


def install_fake_distribution(root: Path, dist: str, package: str | None, entry_points: dict[str, str]) -> None:
    install_distribution(root, dist, package, entry_points, group="arcmemo.methods", source=METHOD_SOURCE)


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    install_fake_distribution(plugins, "diary_method", "diary_method", {"diary": "diary_method:Diary"})
    install_fake_distribution(plugins, "broken_method", None, {"broken": "no_such_module_for_arcmemo_tests:M",
                                                               "ps": "no_such_module_for_arcmemo_tests:PS"})
    monkeypatch.syspath_prepend(str(plugins))
    importlib.invalidate_caches()
    yield plugins
    sys.modules.pop("diary_method", None)


def test_a_third_party_method_is_found_listed_and_a_broken_one_breaks_nothing(third_party):
    assert "diary" in method_names() and "broken" in method_names()
    assert load_method("ps").__class__.__name__ == "ArcMemoPS"        # arcmemo's name stays arcmemo's
    with pytest.raises(MethodError, match=r"memory method 'broken' .*failed to import: ModuleNotFoundError"):
        load_method("broken")
    rows = {(r["name"], r["entry_point"]): r for r in describe_methods()}
    diary = rows[("diary", "diary_method:Diary")]
    assert diary["status"] == "ok" and diary["formats"] == ["oe"] and diary["origin"] == "diary_method 0.1"
    assert rows[("broken", "no_such_module_for_arcmemo_tests:M")]["status"] == "error"
    claimed = rows[("ps", "no_such_module_for_arcmemo_tests:PS")]
    assert claimed["status"] == "error" and "arcmemo's own memory method" in claimed["error"]

    listed = CliRunner().invoke(cli, ["methods", "list"])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert any(line.startswith("diary ") and "diary_method 0.1" in line and "not loadable" not in line
               for line in lines)
    assert any(line.startswith("broken ") and "not loadable" in line and "ModuleNotFoundError" in line
               for line in lines)
    # arcmemo's own: from its install metadata
    assert any(line.startswith("ps ") and f"(arcmemo {arcmemo.__version__})" in line for line in lines)
    as_json = {r["name"] + r["entry_point"]: r for r in json.loads(
        CliRunner().invoke(cli, ["methods", "list", "--json"]).output)}
    assert as_json["diarydiary_method:Diary"]["description"] == "one lesson per task, from successes and failures"
    # other commands go on as before, and offer the new method
    helped = CliRunner().invoke(cli, ["solve", "--help"])
    assert helped.exit_code == 0 and "diary" in helped.output and "--method" in helped.output


def test_a_third_party_method_runs_a_continual_solve_without_a_change_to_the_runner(third_party, tmp_path,
                                                                                    fake_model, fake_llm):
    """Its write gets every task of the block (successes and failures), with train verdicts only; what it
    wrote after the first block is what its read shows the next."""
    from runner_support import TASK_IDS, script_run

    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    ids = TASK_IDS[:4]
    script_run(fake_model, unsolved={ids[1], ids[3]})
    memory = Memory(str(tmp_path / "memory.db"))
    config = RunConfig(source="training", task_ids=ids, selection="diary", continual=True, k=2, retries=0,
                       method_options={"tone": "plainly "})
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    summary = runner.run()
    lessons = {c.situation: c.suggestion for c in memory.list("oe")}
    assert lessons == {f"diary of {ids[0]}": "plainly passed its train pairs after 1 answers",
                       f"diary of {ids[1]}": "plainly failed its train pairs after 1 answers",
                       f"diary of {ids[2]}": "plainly passed its train pairs after 1 answers",
                       f"diary of {ids[3]}": "plainly failed its train pairs after 1 answers"}
    assert summary["writes"] == 4 and summary["write_failures"] == 0
    first, second, third, fourth = fake_model.calls_for("solve")
    assert "diary of" not in first.prompt and "diary of" not in second.prompt     # block 1: memory empty
    assert f"diary of {ids[1]}" in third.prompt                                   # block 2 reads what block 1 wrote
    selections = [json.loads(line) for line in (runner.rundir.path / "selections.jsonl").read_text().splitlines()]
    assert [s["mode"] for s in selections] == ["diary"] * 4
    # both lessons of block 1 were shown to both tasks of block 2: one passed its train pairs, one did not,
    # as the run counts (offered_passing) and as the method judged (helpful, harmful)
    block_one = [c.id for c in memory.list("oe") if c.situation in (f"diary of {ids[0]}", f"diary of {ids[1]}")]
    usage = memory.usage(run_id=runner.rundir.run_id)
    assert [usage[i].as_dict() for i in block_one] == [
        {"offered": 2, "called": 0, "called_passing": 0, "solved": 0, "offered_passing": 1, "helpful": 1,
         "harmful": 1}] * 2


def test_method_options_reach_the_method_and_unknown_ones_are_refused(third_party, tmp_path):
    from arcmemo.cli.runplan import method_options as _method_options
    from arcmemo.cli.runplan.configfile import load_config
    from arcmemo.cli.solve import solve
    from arcmemo.methods import MethodOptionError
    from arcmemo.run.config import RunConfig

    assert _method_options(("tone=dry", "rounds=3", "strict=true", "empty=")) == {
        "tone": "dry", "rounds": 3, "strict": True, "empty": None}
    config = RunConfig(selection="diary", method_options={"tone": "dry"})
    assert config.selection_settings(1).options == {"tone": "dry", "reads_from": []}
    with pytest.raises(MethodOptionError,
                       match=r"memory method 'diary' takes no option 'mood' \(its options: tone, reads_from\)"):
        RunConfig(selection="diary", method_options={"mood": "x"})
    with pytest.raises(MethodOptionError, match=r"'none' takes no option 'tone' \(its options: reads_from\)"):
        RunConfig(selection="none", method_options={"tone": "x"})
    import click

    path = tmp_path / "run.yaml"
    for key in ("method", "selection"):                         # the option's names, as on the command line
        path.write_text(f"{key}: diary\nmethod_options: [tone=dry]\n")
        assert load_config(path, solve, click.Context(solve)) == {"method": "diary",
                                                                 "method_options": ["tone=dry"]}
    path.write_text("method: diary\nselection: ps\n")
    with pytest.raises(click.BadParameter, match="run.yaml:2: 'method' and 'selection' both set method; give it once"):
        load_config(path, solve, click.Context(solve))
    path.write_text("method_options: tone=dry\n")          # one value of an option given any number of times
    assert load_config(path, solve, click.Context(solve)) == {"method_options": ["tone=dry"]}
    path.write_text("method_options: [{tone: dry}]\n")
    with pytest.raises(click.BadParameter, match="key 'method_options': expected a single value"):
        load_config(path, solve, click.Context(solve))
    listed = CliRunner().invoke(cli, ["methods", "list"])
    diary = listed.output.split("\ndiary  (")[1]
    assert "options: tone=" in diary.split("\n\n")[0]


def test_a_sweep_names_methods_as_solve_does(third_party, tmp_path):
    from arcmemo.cli.sweep import load_plan as load_sweep
    from arcmemo.run.jobs.sweep import SweepError

    path = tmp_path / "sweep.yaml"
    path.write_text("solve: {source: training, limit: 1, continual: true}\ngrid:\n  method: [ps, diary, cheatsheet]\n")
    sweep = load_sweep(path)
    assert [m.config.selection for m in sweep.members] == ["ps", "diary", "cheatsheet"]
    path.write_text("solve: {method: diary, selection: ps}\n")
    with pytest.raises(SweepError, match="sweep.yaml: solve: 'method' and 'selection' both set method; give it once"):
        load_sweep(path)
    path.write_text("grid:\n  method: [ps, nothing-installed]\n")
    with pytest.raises(SweepError, match="sweep.yaml: grid: key 'method': 'nothing-installed' is not one of"):
        load_sweep(path)


BROKEN_SOURCE = textwrap.dedent('''
    """Methods that break the contract in their write: one stores a malformed item, one raises."""
    from arcmemo.methods import MethodBase, WriteEvent, each_experience, guarded


    class Malformed(MethodBase):
        name = "malformed"
        description = "stores an item without a name"
        formats = ("bank",)

        def write(self, experiences, memory, llm, ctx):
            def write_one(e):
                memory.add({"format": "bank", "description": f"from {e.task_id}", "meta": {"bad": {1, 2}}},
                           actor=self.name)
                return WriteEvent(e.task_id, added=["?"])

            return [guarded(write_one, e, memory, step=self.name, run_id=ctx.run_id)
                    for e in each_experience(experiences, ctx)]


    class Crashing(MethodBase):
        name = "crashing"
        description = "raises in its write"
        formats = ("bank",)

        def write(self, experiences, memory, llm, ctx):
            raise RuntimeError("the curator fell over")
''')


@pytest.mark.parametrize("name, error", [
    ("malformed", "malformed: ConceptDataError: meta.bad: expected text, a number"),
    ("crashing", "memory method 'crashing': its write raised RuntimeError: the curator fell over")])
def test_a_write_that_breaks_the_contract_is_recorded_and_stores_nothing(name, error, tmp_path, monkeypatch,
                                                                         fake_model, fake_llm):
    from runner_support import TASK_IDS, script_run

    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    plugins = tmp_path / "plugins"
    plugins.mkdir()
    install_distribution(plugins, "broken_writes", "broken_writes",
                         {"malformed": "broken_writes:Malformed", "crashing": "broken_writes:Crashing"},
                         group="arcmemo.methods", source=BROKEN_SOURCE)
    monkeypatch.syspath_prepend(str(plugins))
    importlib.invalidate_caches()
    script_run(fake_model)
    memory = Memory(str(tmp_path / "memory.db"))
    config = RunConfig(source="training", task_ids=TASK_IDS[:2], selection=name, continual=True, k=2, retries=0)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    summary = runner.run()
    sys.modules.pop("broken_writes", None)
    assert summary["tasks"] == 2 and summary["writes"] == 2 and summary["write_failures"] == 2
    writes = [e for e in runner.rundir.events() if e["type"] == "write"]
    assert [(w["task_id"], w["failed"]) for w in writes] == [(TASK_IDS[0], True), (TASK_IDS[1], True)]
    assert all(w["error"].startswith(error) for w in writes), writes[0]["error"]
    assert memory.list() == [] and memory.revision() == 0
    if name == "malformed":         # the store refused it; the write failure is on record with the task
        assert [f.task_id for f in memory.write_failures(run_id=runner.rundir.run_id)] == TASK_IDS[:2]


def test_a_task_written_in_an_earlier_pass_is_written_again_in_the_next(third_party, tmp_path, fake_model, fake_llm):
    """A method that learns from failures writes a task each pass it is solved in; the earlier pass's
    revisions are not taken for this pass's write (the store cannot tell passes apart)."""
    from runner_support import TASK_IDS, script_run

    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    ids = TASK_IDS[:2]
    script_run(fake_model, unsolved={ids[1]})
    memory = Memory(str(tmp_path / "memory.db"))
    config = RunConfig(source="training", task_ids=ids, selection="diary", continual=True, k=2, retries=0, passes=2)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    runner.run()
    writes = [(e["pass_index"], e["task_id"], e.get("recovered", False)) for e in runner.rundir.events()
              if e["type"] == "write"]
    assert writes == [(1, ids[0], False), (1, ids[1], False), (2, ids[1], False)]


def test_naming_the_methods_imports_none_of_them():
    """The command line offers the methods' names (solve --help, --method NAME) from entry points alone."""
    import subprocess

    script = ("import sys\nfrom arcmemo.methods.discovery import method_names\nfrom arcmemo.cli import cli\n"
              "names = method_names()\n"
              "cli.main(['solve', '--help'], standalone_mode=False)\n"
              "loaded = [m for m in sys.modules if m.startswith(('arcmemo.methods.arcmemo.', 'arcmemo.methods.baselines',"
              " 'arcmemo.methods.dynamic_cheatsheet.', 'arcmemo.methods.reasoningbank.',"
              " 'arcmemo.methods.ace.', 'arcmemo.selection.ps', 'arcmemo.abstraction', 'sqlalchemy'))]\n"
              "print(','.join(names), loaded)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"{','.join(SHIPPED)} []"


def test_a_new_method_gets_the_probe_its_own_items_a_seeded_start_and_its_record_from_the_run_layer(
        third_party, tmp_path, fake_model, fake_llm):
    """A plugin that only implements read and write: memory's probe answers a puzzle for it as for ps,
    its read never sees another method's items, its options are recorded with their defaults, and it
    can start from the seeds through its own write: none of it needed a change to the run layer."""
    from test_concept_helpers import rotate_concept

    from arcmemo.memory.schema.concept import owner_of
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    memory = Memory(str(tmp_path / "memory.db"))
    memory.merge(rotate_concept(), actor="test", task_id="6150a2bd")         # memory's verified helper
    memory.add({"format": "oe", "situation": "ArcMemo-OE's lesson.", "suggestion": "Not the diary's."}, actor="t")
    fake_model.on("solve", lambda messages: "```python\ndef transform(grid):\n    return grid\n```")    # wrong
    config = RunConfig(source="training", task_ids=["6150a2bd"], selection="diary", continual=True, k=1, retries=0,
                       probe_helpers=True)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    summary = runner.run()
    assert summary["oracle2"] == 100.0 and summary["fit_answer_tasks"] == ["6150a2bd"]      # memory's fit answered
    assert "Not the diary's" not in fake_model.calls_for("solve")[0].prompt               # its own items only
    assert runner.rundir.config()["settings"]["method_options"] == {"tone": "", "reads_from": []}
    assert [owner_of(c) for c in memory.list("oe")] == ["oe", "diary"]                   # what it wrote is its own
    memory.close()
    seeded = CliRunner().invoke(cli, ["seed", str(Path(__file__).resolve().parents[1] / "seeds"), "--method", "diary",
                                      "--limit", "1", "--model", "fake", "--db", str(tmp_path / "seeded.db"), "--run-dir",
                                      str(tmp_path / "runs"), "-q"])
    assert seeded.exit_code == 0, seeded.output
    with Memory(str(tmp_path / "seeded.db")) as seeded_memory:
        (item,) = seeded_memory.list("oe")
        assert owner_of(item) == "diary" and item.source == "human" and "passed its train pairs" in item.suggestion
