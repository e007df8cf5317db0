"""What a run derives from memory is prepared once per revision (run/stages/prepared.py): a solve of
several tasks, in several threads and tasks in flight, lists and decodes a 5,000-concept
memory at most once per revision, counted in calls (not timed); what is prepared is shared
until a write, and a write's new revision keeps what it did not change."""

from __future__ import annotations

import collections

import pytest
from test_concept_helpers import half_turn_concept, rotate_concept
from test_helper_runs import CALLS

from arcmemo.memory.store import Memory, reads
from arcmemo.memory.store import memory as store
from arcmemo.run.config import RunConfig
from arcmemo.run.executors.local import InProcess
from arcmemo.run.loop import new_runner
from arcmemo.run.stages.prepared import prepared
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver
from benchmarks.synthetic import synthetic_concepts

SIZE = 5000
TASKS = ["6150a2bd", "3c9b0459", "0d3d703e", "68b16354"]     # two half turns, a recolouring, a flip
CONCEPT = """```yaml
- name: turn the grid half way
  kind: routine
  routine_subtype: grid manipulation
  output_typing: grid
  parameters: [{name: grid, typing: grid, description: the grid}]
  cues: [the output is the input upside down and mirrored]
  implementation: [rotate by 180 degrees]
```"""


@pytest.fixture(scope="module")
def large_memory_file(tmp_path_factory):
    """A memory of 5,000 synthetic concepts and one with a helper, built once for the module."""
    path = tmp_path_factory.mktemp("large") / "memory.db"
    with Memory(path) as m:
        m.merge_many([(d, None) for d in synthetic_concepts(SIZE)], actor="test")
        m.merge(rotate_concept(), actor="test", task_id="6150a2bd")
    return path


@pytest.fixture
def large_memory(large_memory_file, tmp_path):
    with Memory(large_memory_file) as original:
        original.copy_to(tmp_path / "memory.db")
    with Memory(tmp_path / "memory.db") as m:
        yield m


@pytest.fixture
def reads_counted(monkeypatch):
    """Counts of `Memory.list` calls (per format) and of concepts decoded from rows."""
    counts: collections.Counter = collections.Counter()
    listing, decode = reads.ConceptReads.list, reads.concept_of

    def counted_list(self, format=None, **kwargs):
        counts[("list", format)] += 1
        return listing(self, format, **kwargs)

    def counted_decode(*args, **kwargs):
        counts["decoded"] += 1
        return decode(*args, **kwargs)

    monkeypatch.setattr(reads.ConceptReads, "list", counted_list)
    monkeypatch.setattr(reads, "concept_of", counted_decode)
    monkeypatch.setattr(store, "concept_of", counted_decode)
    return counts


def solve(tmp_path, llm, memory, **settings):
    config = RunConfig(source="training", task_ids=TASKS, **{"retries": 0, "threads": 2, **settings})
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"),
                        executor=InProcess(2))
    return runner, runner.run()


def test_a_solve_lists_and_decodes_a_large_memory_once(tmp_path, fake_model, fake_llm, large_memory, reads_counted):
    fake_model.on("select_ps", lambda messages: "```yaml\n- rotate grid\n```")
    fake_model.on("solve", lambda messages: "```python\ndef transform(grid):\n    return grid\n```")
    runner, summary = solve(tmp_path, fake_llm, large_memory)
    assert summary["tasks"] == len(TASKS) and summary["memory_revision_end"] == runner.rundir.config()[
        "memory_revision_start"]                                   # one revision throughout
    assert summary["probe_fit_tasks"] == ["3c9b0459", "6150a2bd"]  # the probe read the prepared memory
    assert reads_counted[("list", "ps")] == 1, reads_counted
    assert reads_counted["decoded"] <= SIZE + 1                     # every concept once, no more


def test_a_growing_memory_is_read_whole_once_and_then_by_what_was_written(tmp_path, fake_model, fake_llm,
                                                                         large_memory, reads_counted):
    fake_model.on("select_ps", lambda messages: "```yaml\n- rotate grid\n```")
    fake_model.on("solve", lambda messages: CALLS)                 # passes the half turns: written back
    fake_model.on("pseudocode", lambda messages: "<pseudocode>turn</pseudocode><summary>turn</summary>")
    fake_model.on("ps_abstract", lambda messages: CONCEPT)
    fake_model.on("ps_helpers", lambda messages: "NONE")
    runner, summary = solve(tmp_path, fake_llm, large_memory, continual=True, k=1)
    start, end = runner.rundir.config()["memory_revision_start"], summary["memory_revision_end"]
    assert summary["writes"] == 2 and end > start                   # the memory changed during the run
    assert reads_counted[("list", "ps")] == 1
    assert reads_counted["decoded"] <= SIZE + 1 + 2 * (end - start)  # then only the concepts written


def test_prepared_is_shared_until_a_write_and_keeps_what_the_write_left(large_memory):
    first = prepared(large_memory)
    assert prepared(large_memory) is first and first.revision == large_memory.revision()
    spec = next(s for s in first.probeable if s.helper == "rotate_grid")
    large_memory.merge(half_turn_concept(), actor="test")
    second = prepared(large_memory)
    assert second is not first and second.revision == large_memory.revision()
    assert next(s for s in second.probeable if s.helper == "rotate_grid") is spec    # carried over, not redone
    half = large_memory.get("half turn")
    assert second.names[half.id] == "half turn" and half.id not in first.names
    assert second.helper_owner["half_turn"] == half.id and second.by_name["half turn"] == half.id
    module = second.module(["half_turn"])                           # with the helper it calls
    assert "def half_turn" in module and "def rotate_grid" in module and "memory_helpers import" not in module
    assert len(second.names) == SIZE + 2 and set(second.names) == {c.id for c in large_memory.list()}


def test_inside_a_write_transaction_nothing_is_kept(large_memory):
    with large_memory.transaction():
        inside = prepared(large_memory)
    assert prepared(large_memory) is not inside


def test_names_cover_every_format_and_a_ps_lookup_reads_no_other(tmp_path, reads_counted):
    with Memory(tmp_path / "memory.db") as memory:
        memory.merge(rotate_concept(), actor="test")
        lesson = memory.add({"format": "oe", "name": "look for symmetry", "situation": "a mirrored grid",
                             "suggestion": "compare the halves"}, actor="test")
        names = prepared(memory).names
        rotate = memory.get("rotate grid").id
        assert names[rotate] == "rotate grid" and ("list", "oe") not in reads_counted
        assert names[lesson.id] == "look for symmetry" and names.get(10_000) is None
        assert dict(names) == {rotate: "rotate grid", lesson.id: "look for symmetry"}
