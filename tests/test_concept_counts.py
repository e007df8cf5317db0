"""A concept's counts agree everywhere (issue 39 point 5): `concepts stats`, `concepts show`, the web concept page's
"offered to N tasks" and its list of the runs that offered it count the same way
(run/records/concept_use.py): the memory's rows of the runs that wrote it, and the task events
of the read-only runs of it (which the memory does not record)."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from click.testing import CliRunner
from test_helper_runs import CALLS, OWN, memory, run  # noqa: F401  (memory: the helper runs' fixture)

from arcmemo.cli import cli
from arcmemo.run.records.concept_use import TaskUse, offered_by, outcome_use

starlette_testclient = pytest.importorskip("starlette.testclient")


def _stats(store, runs) -> dict[str, int]:
    shown = CliRunner().invoke(cli, ["concepts", "stats", "--db", str(store.url), "--run-dir", str(runs), "--json"])
    assert shown.exit_code == 0, shown.output
    return {r["name"]: r["offered"] for r in json.loads(shown.output)}


def _show(store, runs, concept_id: int) -> int:
    """`concepts show`'s "offered" count, as JSON and as its "# in solves" line."""
    shown = [CliRunner().invoke(cli, ["concepts", "show", str(concept_id), "--db", str(store.url),
                                      "--run-dir", str(runs), *extra]) for extra in (["--json"], [])]
    assert all(s.exit_code == 0 for s in shown), [s.output for s in shown]
    offered = json.loads(shown[0].output)["usage"]["offered"]
    assert f"# in solves: offered {offered}," in shown[1].output
    return offered


def _page(store, runs, concept_id: int) -> tuple[int, int]:
    """The concept page's "offered to N tasks", and how many tasks its runs list names."""
    from arcmemo.web.app import create_app

    app = create_app(store, runs, actor="user:tester", allowed_hosts=["testserver"])
    with starlette_testclient.TestClient(app) as client:
        page = client.get(f"/concepts/{concept_id}").text
    said = int(re.search(r"offered to (\d+) tasks?\b", page).group(1))
    listed = page.split("<h2>Runs that offered it</h2>")[1]
    return said, len(re.findall(r'<a href="/runs/[^/"]+/tasks/', listed))


def test_stats_the_concept_page_and_its_runs_agree_after_a_read_only_run_then_a_continual_one(
        tmp_path, fake_model, fake_llm, memory):  # noqa: F811
    fake_model.on("select_ps", lambda messages: "```yaml\n- rotate grid\n```")
    replies = itertools.cycle([CALLS, OWN])
    fake_model.on("solve", lambda messages: next(replies))
    rotate = memory.get("rotate grid").id
    runs = tmp_path / "runs"
    run(tmp_path, fake_llm, memory)                         # read-only: its use is in its events alone
    assert memory.usage() == {}
    assert _stats(memory, runs) == {"rotate grid": 2}
    assert _page(memory, runs, rotate) == (2, 2)
    assert _show(memory, runs, rotate) == 2
    run(tmp_path, fake_llm, memory, continual=True, k=1)   # this one writes its use into memory
    assert memory.usage()[rotate].offered == 2
    assert _stats(memory, runs) == {"rotate grid": 4}        # counted once each: the memory's rows and the events
    assert _page(memory, runs, rotate) == (4, 4)
    assert _show(memory, runs, rotate) == 4


def test_a_task_counts_once_per_pass_and_a_merged_concept_for_its_survivor():
    uses = [TaskUse("t1", 1, ({"id": 1, "offered": 1}, {"id": 2, "offered": 1, "called": 1})),
            TaskUse("t1", 2, ({"id": 2, "offered": 1},)), TaskUse("t2", 1, ({"id": 3, "offered": 0, "called": 1},))]
    counts = outcome_use(uses, {2: 1})
    assert (counts[1].offered, counts[1].called) == (2, 1) and counts[3].offered == 0
    assert offered_by([("r", uses)], 1, {2: 1}) == [("r", [("t1", "t1"), ("t1", "t1 (pass 2)")])]
    assert offered_by([("r", uses)], 3) == []
