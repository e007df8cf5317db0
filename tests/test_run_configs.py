"""Run configuration files (`arcmemo solve --config FILE`): the shipped paper settings load
as solve's options, flags win over a file, and a bad file fails before anything runs,
naming the file, the line and the key."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from llm_stub import StubServer
from runner_support import TASK_IDS

from arcmemo.cli import cli
from arcmemo.cli.runplan.configfile import shipped_configs
from arcmemo.cli.solve import solve

CLEAN_SETTINGS = {"baseline", "cheatsheet", "arcmemo-oe", "arcmemo-ps", "arcmemo-oe-continual"}
PAPER_SETTINGS = CLEAN_SETTINGS | {f"{name}-released" for name in CLEAN_SETTINGS}
METHOD_SETTINGS = {"reasoningbank", "dc-rs", "ace"}     # the other memory methods on the paper's (clean) protocol


def options(*args) -> dict:
    """solve's parameters as the command line and any --config make them (nothing is run)."""
    with solve.make_context("solve", list(args)) as ctx:
        return ctx.params


def test_the_paper_settings_ship_and_load():
    assert set(shipped_configs()) == PAPER_SETTINGS | METHOD_SETTINGS
    for name in PAPER_SETTINGS:
        params = options("--config", name)
        assert params["split"] == "val100" and params["retries"] == 2 and params["threads"] == 3
        assert (params["solver_model"], params["reasoning_effort"], params["max_tokens"]) == ("o4-mini", "medium",
                                                                                              32000)
        assert params["helpers"] == "off"          # the paper's concepts are prose: no helpers, no probe
        assert params["protocol"] == ("released-code" if name.endswith("-released") else "arcmemo")
        if name.endswith("-released"):            # the same settings as the clean file, but for the protocol
            clean = options("--config", name.removesuffix("-released"))
            apart = ("protocol", "db", "config_file", "method_options")
            assert {k: v for k, v in params.items() if k not in apart} == \
                {k: v for k, v in clean.items() if k not in apart}
            # the cheatsheet's released setting reads the released build's sheet (cheatsheet build --released)
            assert params["method_options"] == (("sheet=cheatsheet-released",) if name == "cheatsheet-released"
                                                else clean["method_options"])
    assert options("--config", "baseline")["method"] == "none"
    assert options("--config", "cheatsheet")["method"] == "cheatsheet"
    ps = options("--config", "arcmemo-ps")
    assert (ps["method"], ps["select_model"], ps["select_reasoning_effort"]) == ("ps", "o4-mini", "medium")
    oe = options("--config", "arcmemo-oe")
    assert (oe["method"], oe["aux_model"], oe["aux_temperature"], oe["continual"]) == ("oe", "gpt-4.1", 0.3,
                                                                                          False)
    continual = options("--config", "arcmemo-oe-continual")
    assert (continual["method"], continual["continual"], continual["k"]) == ("oe", True, 10)


def test_the_other_memory_methods_ship_on_the_paper_protocol_and_sweep_together(tmp_path):
    from arcmemo.cli.runplan import method_options as _method_options
    from arcmemo.cli.sweep import load_plan as load_sweep
    from arcmemo.run.config import RunConfig

    for name in METHOD_SETTINGS:
        params = options("--config", name)
        assert (params["method"], params["continual"], params["k"], params["split"]) == (name, True, 10, "val100")
        assert (params["retries"], params["threads"], params["solver_model"], params["aux_model"]) == (
            2, 3, "o4-mini", "gpt-4.1")
        assert params["protocol"] == "arcmemo"
        assert RunConfig(selection=name, method_options=_method_options(params["method_options"])).method_options
    path = tmp_path / "sweep.yaml"
    path.write_text("solve: {source: training, limit: 2, continual: true, method_options: {top_k: 2}}\n"
                    "grid:\n  method: [reasoningbank, dc-rs, cheatsheet]\n")
    with pytest.raises(Exception, match="'cheatsheet' takes no option 'top_k'"):
        load_sweep(path)
    path.write_text(path.read_text().replace(", cheatsheet", ""))
    assert [(m.config.selection, m.config.method_options) for m in load_sweep(path).members] == [
        ("reasoningbank", {"top_k": 2, "include_failures": True, "reads_from": []}),
        ("dc-rs", {"top_k": 2, "max_words": 600, "case_tokens": 3000, "train_gate": False, "reads_from": []})]


def test_flags_win_over_the_file():
    params = options("--config", "arcmemo-ps", "--selection", "none", "--retries", "0", "--solver-model", "gpt-4.1")
    assert (params["method"], params["retries"], params["solver_model"]) == ("none", 0, "gpt-4.1")
    assert params["select_model"] == "o4-mini" and params["split"] == "val100"     # the rest from the file
    params = options("--retries", "1", "--config", "baseline")                        # wherever the flag stands
    assert params["retries"] == 1


def test_any_solve_option_is_a_key(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("tasks: 0d3d703e,1e0a9b12\nexpand: true\ntoken-budget: 9000\nbudget_usd: 2.5\n")
    params = options("--config", str(path))
    assert (params["tasks"], params["expand"], params["token_budget"], params["budget_usd"]) == (
        ("0d3d703e,1e0a9b12",), True, 9000, 2.5)
    assert params["config_file"] == str(path)


@pytest.mark.parametrize("text, says", [
    ("method: ps\ntreads: 3\n", r":2: unknown key 'treads'; did you mean 'threads'\?"),
    ("top_kk: 3\n", r":1: unknown key 'top_kk'; did you mean 'top_k'\?"),
    ("zzzzzzzz: 3\n", r":1: unknown key 'zzzzzzzz' \(the keys are the options of `arcmemo solve`: `arcmemo solve --help`\)"),
    ("top_k: 2.5\n", ":1: key 'top_k': expected a whole number, got 2.5"),
    ("retries: '2'\n", ":1: key 'retries': expected a whole number, got '2'"),
    ("split: val100\ncontinual: 'yes'\n", ":2: key 'continual': expected true or false, got 'yes'"),
    ("top_k: 0\n", ":1: key 'top_k': --top-k must be at least 1, got 0"),
    ("threads: 0\n", ":1: key 'threads': --threads must be at least 1, got 0"),
    ("\n\nbudget_usd: -1\n", ":3: key 'budget_usd': --budget-usd must be above 0"),
    ("token_budget: -5\n", ":1: key 'token_budget': --token-budget must be at least 500 \\(tokens\\), got -5"),
    ("selection: fancy\n", ":1: key 'selection': 'fancy' is not one of"),
    ("reasoning_effort: [low]\n", ":1: key 'reasoning_effort': expected a single value"),
    ("resume: RUN\n", ":1: unknown key 'resume'"),
    ("- selection\n", ":1: expected a mapping of option names to values"),
    ("selection: [ps\n", r":1: invalid YAML"),       # the file's one line, not the one after it
])
def test_a_bad_file_fails_before_anything_runs_naming_file_line_and_key(tmp_path, text, says):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    db, runs = tmp_path / "memory.db", tmp_path / "runs"
    result = CliRunner().invoke(cli, ["solve", "--config", str(path), "--db", str(db), "--run-dir", str(runs)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert re.search(f"{path}{says}", " ".join(result.output.split())), result.output
    assert not db.exists() and not runs.exists()


def test_an_unknown_config_name_lists_the_shipped_ones(tmp_path):
    result = CliRunner().invoke(cli, ["solve", "--config", "arcmemo-xx"])
    assert result.exit_code == 2
    assert ("arcmemo-xx: no such file, nor a shipped configuration (ace, arcmemo-oe, arcmemo-oe-continual, "
            "arcmemo-oe-continual-released, arcmemo-oe-released, arcmemo-ps, ") in result.output


def test_resume_takes_no_config():
    result = CliRunner().invoke(cli, ["solve", "--resume", "RUN", "--config", "baseline"])
    assert result.exit_code == 2 and "leave out --config" in result.output


def test_a_run_from_a_config_file_sends_its_parameters_and_records_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    path = tmp_path / "paper.yaml"
    path.write_text(f"tasks: {TASK_IDS[0]}\nselection: none\nretries: 0\nsolver_model: o4-mini\n"
                    "reasoning_effort: medium\nmax_tokens: 32000\n")
    with StubServer() as stub:
        result = CliRunner().invoke(cli, ["solve", "--config", str(path), "-q", "--base-url", stub.base_url,
                                          "--db", str(tmp_path / "memory.db"), "--run-dir", str(tmp_path / "runs")])
        assert result.exit_code == 0, result.output
        (sent,) = stub.requests
    assert (sent["model"], sent["reasoning_effort"], sent["max_completion_tokens"]) == ("o4-mini", "medium", 32000)
    (run,) = (tmp_path / "runs").iterdir()
    settings = json.loads((run / "config.json").read_text())["settings"]
    assert settings["config_file"] == str(path) and settings["retries"] == 0


def test_a_task_file_flag_wins_over_the_files_split(tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    params = options("--config", "baseline", "--tasks-from", str(folder))
    assert params["split"] == "val100"                     # as the file says; solve drops it for --tasks-from
    result = CliRunner().invoke(cli, ["solve", "--config", "baseline", "--tasks-from", str(folder),
                                      "--run-dir", str(tmp_path / "runs"), "--db", str(tmp_path / "m.db")])
    assert "leave out --split" not in result.output
    assert f"{folder}" in result.output and not (tmp_path / "runs").exists()   # the empty folder is the problem


@pytest.mark.parametrize("name", sorted(PAPER_SETTINGS))
def test_each_paper_setting_runs_a_puzzle_with_the_papers_parameters(tmp_path, monkeypatch, name):
    """The shipped file as it is (only the memory, endpoint and puzzle overridden) passes solve's
    start-up checks and sends each role's parameters in its model's form."""
    from runner_support import paper_memory

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db = paper_memory(tmp_path / "paper.db", {"cheatsheet": "- look for a colour table",
                                              "cheatsheet-released": "- the released build's tip"})
    with StubServer() as stub:
        result = CliRunner().invoke(cli, ["solve", "--config", name, "--tasks", "97239e3d", "--retries", "0",
                                          "-k", "1", "-q", "--base-url", stub.base_url, "--db", str(db),
                                          "--run-dir", str(tmp_path / "runs")])
        assert result.exit_code == 0, result.output
        requests = list(stub.requests)
    solver = [r for r in requests if r["model"] == "o4-mini" and "transform" in json.dumps(r["messages"])]
    assert solver and all((r["reasoning_effort"], r["max_completion_tokens"]) == ("medium", 32000)
                          and "max_tokens" not in r for r in solver)
    gpt = [r for r in requests if r["model"] == "gpt-4.1"]
    assert all((r["temperature"], r["max_tokens"]) == (0.3, 1000) and "reasoning_effort" not in r for r in gpt)
    released = name.endswith("-released")
    if name.startswith("arcmemo-oe"):
        captions = [r["messages"][0]["content"] for r in gpt if isinstance(r["messages"][0]["content"], list)]
        pictures = [sum(part["type"] == "image_url" for part in caption) for caption in captions]
        # released: one picture of the whole puzzle, once; else 3 train pairs and 1 test input, per thread
        assert pictures == ([1] if released else [4, 4, 4])
    if name.startswith("arcmemo-ps"):
        selects = [r for r in requests if r["model"] == "o4-mini" and r not in solver
                   and "by concept names only" not in r["messages"][0]["content"]]    # not the ask-again
        assert len(selects) == (1 if released else 3)                           # once per puzzle, or per thread
        assert selects[0]["reasoning_effort"] == "medium" and "recolour" in selects[0]["messages"][0]["content"]
    if name.startswith(("baseline", "cheatsheet")):
        assert gpt == [] and len(requests) == 3                                 # one answer per thread
    if name.startswith("cheatsheet"):                   # each reads its own sheet of the two the memory holds
        prompts = [json.dumps(r["messages"]) for r in solver]
        tips = ("- the released build's tip", "- look for a colour table")
        assert all((tips[0] in p, tips[1] in p) == (released, not released) for p in prompts), prompts[0][:2000]
