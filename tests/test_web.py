"""The local web app (Starlette) over a fixture memory and two real runs, through its HTTP interface."""

from __future__ import annotations

import contextlib
import html
import json
import re
import shutil
import time
from pathlib import Path

import pytest
from web_support import LEARNED, copy_fixture, helper_concept

from arcmemo.memory.store import Memory
from arcmemo.run.records.rundir import RunDir
from arcmemo.web.app import create_app
from arcmemo.web.serve import allowed_hosts, check_host, is_loopback

starlette_testclient = pytest.importorskip("starlette.testclient")


@contextlib.contextmanager
def _client(fixture, root):
    """A client over a copy of the fixture at `root` (edits must not leak into other tests)."""
    memory = Memory(str(copy_fixture(fixture, root)))
    app = create_app(memory, root / "runs", actor="user:tester", allowed_hosts=["testserver"])
    with starlette_testclient.TestClient(app) as client:
        client.memory, client.root, client.fx = memory, root, fixture
        yield client
    memory.close()


@pytest.fixture(scope="module")
def site(web_fixture, tmp_path_factory):
    """One client for the tests that only read (they share its chart cache)."""
    with _client(web_fixture, tmp_path_factory.mktemp("site") / "copy") as client:
        yield client


@pytest.fixture
def fresh_site(web_fixture, tmp_path):
    """A client of its own, for tests that change the memory or the runs."""
    with _client(web_fixture, tmp_path / "copy") as client:
        yield client


def _get(client, path, status=200):
    response = client.get(path)
    assert response.status_code == status, (path, response.status_code, response.text[:500])
    return response.text


def _assert_escaped(html: str) -> None:
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    assert "<script" not in html.replace('<script src="/static/live.js"></script>', "")


def test_runs_list_and_run_page(site):
    fx = site.fx
    listing = _get(site, "/runs")
    assert fx.continual in listing and fx.baseline in listing and "finished" in listing
    page = _get(site, f"/runs/{fx.continual}")
    assert "oracle@1 over one thread, retry depth 0" in page and "66.67" in page     # the summary table
    assert page.count("<svg") >= 3                                       # charts
    for task in fx.tasks:
        assert f'href="/runs/{fx.continual}/tasks/{task}"' in page
    assert 'data-poll' not in page                                       # finished: nothing to poll
    started = json.loads((site.root / "runs" / fx.continual / "config.json").read_text())["started_at"]
    setting = (f"solve · selection <b>ps</b> · program-synthesis on <b>fake</b> · continual (k=1) · started "
               f"{started[:10]} {started[11:16]}")
    assert f'<p class="subtitle"><span class="setting">{setting}</span></p>' in page   # beside the id
    assert f'<h2 id="run-{fx.continual}">Summary</h2>' in page
    assert f"<td>{started[:10]} {started[11:16]}</td><td>solve</td>" in listing
    _assert_escaped(page)


def test_run_task_page_shows_puzzle_selection_attempts_and_writes(site):
    fx = site.fx
    page = _get(site, f"/runs/{fx.continual}/tasks/{fx.unsolved}")
    assert 'class="cells"' in page and 'class="wrong-shape"' in page         # attempts against the truth, marked
    assert "The selection's reasoning" in page and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    assert 'href="/concepts/1"' in page                                  # the offered concept links to its page
    _assert_escaped(page)
    written = _get(site, f"/runs/{fx.continual}/tasks/{fx.tasks[1]}")
    assert f"added {LEARNED}" in written and "<td>add</td>" in written
    _get(site, f"/runs/{fx.continual}/tasks/nope", 404)
    _get(site, "/runs/nope", 404)


def test_compare_and_report_download(site):
    fx = site.fx
    page = _get(site, f"/runs/compare?run={fx.continual}&run={fx.baseline}")
    assert f"only {fx.baseline} solves with its submitted attempts (1): {fx.unsolved}" in page
    response = site.get(f"/runs/{fx.continual}/report.html")
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    assert all(f'id="task-{fx.continual}-{t}"' in response.text for t in fx.tasks)


def test_tasks_browse_and_puzzle_with_answers_on_request(site):
    listing = _get(site, "/tasks?dataset=training&q=0d3d")
    assert "0d3d703e" in listing and "1 task" in listing
    assert '<img src="data:image/png;base64,' in listing                 # a picture of its first example
    page = _get(site, "/tasks/0d3d703e?dataset=training")
    cells = page.split('<g class="cells">', 1)[1]                      # past the background rect
    assert set(re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="(\d+)"', cells)) == {"32"}   # 3x3 grids: 32 px
    assert "Test 1 input" in page and "Test 1 answer" not in page
    assert "Test 1 answer" in _get(site, "/tasks/0d3d703e?dataset=training&answers=1")
    _get(site, "/tasks/nope?dataset=training", 404)
    assert "no dataset &#39;/no/such/place&#39;: the datasets here are training, evaluation" in _get(
        site, "/tasks?dataset=/no/such/place", 404)


def test_concepts_search_and_filters(site):
    page = _get(site, "/concepts")
    assert "hostile concept" in page and LEARNED in page
    _assert_escaped(page)
    assert LEARNED in _get(site, "/concepts?q=recolour") and "hostile concept" not in _get(site, "/concepts?q=recolour")
    self_written = _get(site, "/concepts?source=self")
    assert LEARNED in self_written and "hostile concept" not in self_written
    assert "0 concepts" in _get(site, "/concepts?kind=structure")
    assert "hostile concept" in _get(site, "/concepts?model=fake&format=ps")
    _get(site, "/concepts?format=banana", 400)


def test_concept_page_fields_history_origin_and_runs(site):
    fx = site.fx
    learned = site.memory.get(LEARNED)
    page = _get(site, f"/concepts/{learned.id}")
    assert "map every cell&#39;s colour through a lookup table" in page     # a field
    assert page.count('class="revision"') == 2                              # added, then extended
    assert f'href="/runs/{fx.continual}/tasks/{fx.tasks[1]}"' in page       # the task it came from
    assert re.search(rf'href="/runs/{fx.continual}">{fx.continual}</a>: <a href="/runs/{fx.continual}/tasks/'
                     rf'{fx.tasks[2]}">', page)                             # the run that offered it
    hostile = _get(site, "/concepts/1")
    _assert_escaped(hostile)
    assert "&lt;b&gt;bold&lt;/b&gt;" in hostile
    _get(site, "/concepts/999", 404)


def _token(page: str) -> str:
    return re.search(r'name="token" value="([^"]+)"', page).group(1)


def test_edit_makes_one_revision_like_concepts_edit(fresh_site):
    learned = fresh_site.memory.get(LEARNED)
    page = _get(fresh_site, f"/concepts/{learned.id}")
    text = re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    text = html.unescape(text).replace("map every cell's colour", "map each cell's colour")
    before = fresh_site.memory.revision()
    response = fresh_site.post(f"/concepts/{learned.id}/edit", data={"token": _token(page), "text": text, "reason": "clearer"},
                         follow_redirects=False)
    assert response.status_code == 303
    revision = fresh_site.memory.revision()
    assert revision == before + 1
    last = fresh_site.memory.history(learned.id)[-1]
    assert (last.op, last.actor, last.reason) == ("edit", "user:tester", "clearer")
    assert fresh_site.memory.get(learned.id).description.startswith("map each cell's colour")
    shown = _get(fresh_site, response.headers["location"])
    assert f"Saved as revision {revision}" in shown
    assert '<span class="del">-description: map every cell' in shown.replace("&#39;", "'")
    assert '<span class="add">+description: map each cell' in shown.replace("&#39;", "'")


def test_bad_edits_change_nothing_and_say_why(fresh_site):
    learned = fresh_site.memory.get(LEARNED)
    page = _get(fresh_site, f"/concepts/{learned.id}")
    token, before, data = _token(page), fresh_site.memory.revision(), learned.to_data()
    broken = fresh_site.post(f"/concepts/{learned.id}/edit", data={"token": token, "text": "name: [broken\n"})
    assert broken.status_code == 400 and 'id="edit-error"' in broken.text and "edited YAML line" in broken.text
    assert "name: [broken" in broken.text                                     # the text stays in the form
    invalid = fresh_site.post(f"/concepts/{learned.id}/edit", data={"token": token, "text": "kind: banana\n"})
    assert invalid.status_code == 400 and "kind" in re.search(r'id="edit-error">([^<]*)', invalid.text).group(1)
    stale = fresh_site.post(f"/concepts/{learned.id}/edit", data={"token": "forged", "text": "description: x\n"})
    assert stale.status_code == 403
    assert fresh_site.memory.revision() == before and fresh_site.memory.get(learned.id).to_data() == data


def test_no_secret_and_strict_headers(fresh_site, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SENTINEL")
    run_dir = next((fresh_site.root / "runs").iterdir())
    config = json.loads((run_dir / "config.json").read_text())
    config["settings"]["api_key"] = "sk-config-SENTINEL"
    (run_dir / "config.json").write_text(json.dumps(config))
    for path in ("/runs", f"/runs/{run_dir.name}", f"/runs/{run_dir.name}/report.html", "/concepts", "/concepts/1"):
        response = fresh_site.get(path)
        assert "SENTINEL" not in response.text
        assert "script-src 'self'" in response.headers["content-security-policy"]
    assert "\"api_key\": \"***\"" in fresh_site.get(f"/runs/{run_dir.name}").text
    assert fresh_site.get("/runs", headers={"host": "evil.example"}).status_code == 400   # DNS rebinding


def test_live_progress_reads_the_run_as_it_grows(fresh_site):
    fx = fresh_site.fx
    source = fresh_site.root / "runs" / fx.baseline
    live = fresh_site.root / "runs" / "live-run"
    live.mkdir()
    (live / "submissions").mkdir()
    shutil.copy(source / "config.json", live / "config.json")
    events = [json.loads(line) for line in (source / "events.jsonl").read_text().splitlines()]
    tasks = [e for e in events if e["type"] == "task"]
    rundir = RunDir(live)
    with rundir.hold():                              # the process running it holds its lock
        rundir.append({"type": "session_start", "resumed": False})
        rundir.append({k: v for k, v in tasks[0].items() if k != "time"})
        page = _get(fresh_site, "/runs/live-run")
        assert 'data-poll="/runs/live-run/progress"' in page and "1 of 3" in page and "running" in page
        rundir.append({k: v for k, v in tasks[1].items() if k != "time"})
        fragment = _get(fresh_site, "/runs/live-run/progress")
        assert "2 of 3" in fragment and 'data-state="running"' in fragment
        assert "live.js" in page and "setTimeout(poll" in _get(fresh_site, "/static/live.js")
        stale = time.time() + 3600
        from arcmemo.run.records.reader import read_run

        assert "no event for a while" in read_run(rundir).progress(now=stale)["state"]
    rundir.set_status("running", pid=999999)         # killed: its status says running, nobody holds the lock
    assert 'data-state="interrupted"' in _get(fresh_site, "/runs/live-run/progress")


def test_host_rules():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("[::1]") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.com")
    check_host("127.0.0.1", explicit=False)
    check_host("0.0.0.0", explicit=True)
    with pytest.raises(ValueError, match="needs --host given explicitly"):
        check_host("0.0.0.0", explicit=False)
    assert "10.0.0.2" in allowed_hosts("10.0.0.2") and "[fe80::1]" in allowed_hosts("fe80::1")


def test_a_run_without_test_outputs_shows_unknown_scores(fresh_site):
    """Runs on tasks without answers (or --no-score) record no scores: pages say so, nothing breaks."""
    source = fresh_site.root / "runs" / fresh_site.fx.baseline
    unscored = fresh_site.root / "runs" / "unscored-run"
    shutil.copytree(source, unscored)
    events = [json.loads(line) for line in (unscored / "events.jsonl").read_text().splitlines()]
    for event in events:
        if event["type"] == "task":
            event["scores"] = {}
    (unscored / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    summary = json.loads((unscored / "summary.json").read_text())
    summary.update(oracle1=None, oracle2=None, strict=None, scored=False, solved=[], table4=None)
    summary.pop("headline"), summary.pop("submitted")
    (unscored / "summary.json").write_text(json.dumps(summary))
    page = _get(fresh_site, "/runs/unscored-run")
    assert "unknown" in page and "Score by retry depth" not in page
    task = _get(fresh_site, f"/runs/unscored-run/tasks/{fresh_site.fx.tasks[0]}")
    assert "not scored" in task
    from click.testing import CliRunner

    from arcmemo.cli import cli

    shown = CliRunner().invoke(cli, ["runs", "show", "unscored-run", "--run-dir", str(fresh_site.root / "runs"),
                                     "--task", fresh_site.fx.tasks[0]])
    assert shown.exit_code == 0 and "not scored (no test outputs)" in shown.output


def test_serve_refuses_a_non_loopback_address_from_a_setting(web_fixture, monkeypatch):
    from click.testing import CliRunner

    from arcmemo.cli import cli

    monkeypatch.setenv("ARCMEMO_SERVE_HOST", "0.0.0.0")
    result = CliRunner().invoke(cli, ["serve", "--db", str(web_fixture.memory), "--runs", str(web_fixture.runs)])
    assert result.exit_code == 1 and "needs --host given explicitly" in result.output
    monkeypatch.delenv("ARCMEMO_SERVE_HOST")
    missing = CliRunner().invoke(cli, ["serve", "--db", str(web_fixture.root / "gone.db")])
    assert missing.exit_code == 1 and "no memory database" in missing.output
    assert not (web_fixture.root / "gone.db").exists()


def test_serve_checks_its_datasets_before_listening(web_fixture, tmp_path):
    """--tasks-from is loaded at start (a bad folder is refused naming it); --dataset names a dataset, not a path."""
    from click.testing import CliRunner

    from arcmemo.cli import cli

    empty = tmp_path / "empty"
    empty.mkdir()
    base = ["serve", "--db", str(web_fixture.memory), "--runs", str(web_fixture.runs)]
    result = CliRunner().invoke(cli, [*base, "--tasks-from", str(empty)])
    assert result.exit_code == 1 and f"--tasks-from: {empty}: no *.json task files" in result.output
    result = CliRunner().invoke(cli, [*base, "--dataset", str(empty)])
    assert result.exit_code == 1 and "--dataset: no dataset" in result.output
    assert f"name it with --tasks-from {empty}" in result.output


def test_task_sources_name_each_folder_once(tmp_path):
    from arcmemo.web.lookup import TaskSources

    for folder in ("a/training", "b/mine", "c/mine"):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copy(Path(__file__).parent / "data" / "mirror_rows.json", tmp_path / folder / "mirrorrows.json")
    sources = TaskSources([tmp_path / "a/training", tmp_path / "b/mine", tmp_path / "c/mine"])
    assert list(sources.paths) == ["training-2", "mine", "mine-2"]           # a bundled name is not shadowed
    assert sources.get("mine-2").tasks[0].id == "mirrorrows"
    assert sources.name_of(str(tmp_path / "c/mine")) == "mine-2" and sources.name_of("evaluation") == "evaluation"
    assert sources.name_of(str(tmp_path)) is None
    with pytest.raises(LookupError, match="no dataset '/etc'"):
        sources.get("/etc")


def test_concept_page_shows_the_helper_highlighted_and_its_verification(fresh_site):
    memory = fresh_site.memory
    concept = memory.add(helper_concept(fresh_site.fx.continual), actor="test")
    page = _get(fresh_site, f"/concepts/{concept.id}")
    _assert_escaped(page)
    assert "&lt;script&gt;alert(&#39;helper&#39;)&lt;/script&gt;" in page            # the helper's text, as text
    assert '<span class="k">def</span><span class="w"> </span><span class="nf">rotate_grid</span>' in page
    assert '<span class="n">rotate_grid</span><span class="p">(</span><span class="n">grid</span>' in page  # the program
    assert '<a href="/tasks/6150a2bd?dataset=training">6150a2bd</a>' in page and "2026-01-02T03:04:05" in page
    assert f'<a href="/runs/{fresh_site.fx.continual}">' in page and "offered to 0 tasks" in page
    rows = re.findall(r"<tr><th>([^<]+)</th>", page.split('<table class="fields">')[1].split("</table>")[0])
    assert rows == ["kind", "routine subtype", "output typing", "description", "parameters", "cues",
                    "implementation", "used in tasks", "source"]                # no situation, suggestion, helper
    text = html.unescape(re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', page, re.S).group(1))
    assert "situation" not in text and "helper:\n  name: rotate_grid" in text
    plain = _get(fresh_site, f"/concepts/{memory.get(LEARNED).id}")
    assert "None: this concept is text only" in plain and 'class="code"' not in plain.split("<h2>Edit")[0]


def test_an_oe_lesson_shows_only_its_own_fields(fresh_site):
    lesson = fresh_site.memory.add({"format": "oe", "situation": "when shapes repeat", "suggestion": "count them"},
                                   actor="test")
    page = _get(fresh_site, f"/concepts/{lesson.id}")
    rows = re.findall(r"<tr><th>([^<]+)</th>", page.split('<table class="fields">')[1].split("</table>")[0])
    assert rows == ["situation", "suggestion", "used in tasks", "source"]
    assert "<h2>Helper</h2>" not in page and "parameters" not in page
    text = html.unescape(re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', page, re.S).group(1))
    assert text.splitlines()[0] == "format: oe" and "kind" not in text and "helper" not in text
    before = fresh_site.memory.revision()        # the shorter text saves as the same concept: no revision
    response = fresh_site.post(f"/concepts/{lesson.id}/edit", data={"token": _token(page), "text": text},
                               follow_redirects=False)
    assert response.headers["location"].endswith("edited=none") and fresh_site.memory.revision() == before
