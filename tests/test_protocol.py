"""Protocols as values (arcmemo/run/protocol.py): resolution from a profile and flags, the
record in config.json, test-informed derived, bad input refused before a run directory
exists, and the default protocol's results unchanged."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner
from protocol_support import GOLDEN, fingerprint

from arcmemo.cli import cli
from arcmemo.methods import load_method
from arcmemo.run.protocol import (
    CHOICES,
    PROFILES,
    TEST_DECIDES,
    Protocol,
    ProtocolError,
    check,
    from_record,
    resolve,
)
from arcmemo.run.protocol import test_informed as is_test_informed
from arcmemo.run.protocol import test_informed_by as informed_by


def test_the_profiles_differ_in_every_choice_and_only_the_released_one_is_test_informed():
    clean, released = PROFILES["arcmemo"], PROFILES["released-code"]
    for choice, (ours, theirs) in CHOICES.items():
        assert (getattr(clean, choice), getattr(released, choice)) == (ours, theirs), choice
    assert not clean.test_informed_by(continual=True)
    assert released.test_informed_by(continual=True) == ["retry_when=test-fails", "write_when=strict"]
    assert resolve() == clean and resolve("released-code") == released
    assert (released.cheatsheet_max_tokens, released.cheatsheet_temperature) == (4096, 0.3)
    assert released.curation_params() == {"max_tokens": 4096, "temperature": 0.3} and clean.curation_params() == {}


def test_a_flag_overrides_its_choice_and_names_the_protocol_after_both():
    protocol = resolve("released-code", {"retry_when": "train-fails", "select_once": None, "feedback": "last-attempt"})
    assert protocol.name == "released-code+retry_when=train-fails"      # last-attempt is the profile's already
    assert protocol.retry_when == "train-fails" and protocol.select_once is True
    clean = resolve(None, {"select_once": True, "retry_when": "test-fails"})
    assert clean.name == "arcmemo+retry_when=test-fails,select_once=true"
    assert clean.overridden() == ["retry_when", "select_once"]


# every choice by which a test output can decide something, and the run it decides in: (protocol, continual)
TEST_DECIDING = [
    ({"retry_when": "test-fails"}, False, ["retry_when=test-fails"]),        # test results trigger retries
    ({"retry_when": "test-fails"}, True, ["retry_when=test-fails"]),
    ({"write_when": "strict"}, True, ["write_when=strict"]),                  # test correctness filters writes
    ({"retry_when": "test-fails", "write_when": "strict"}, True, ["retry_when=test-fails", "write_when=strict"]),
]


@pytest.mark.parametrize(("choices", "continual", "reasons"), TEST_DECIDING)
def test_a_run_is_test_informed_by_each_choice_that_lets_a_test_output_decide(choices, continual, reasons):
    for profile in ("arcmemo", "released-code"):
        protocol = resolve(profile, {**{"retry_when": "train-fails", "write_when": "train"}, **choices})
        record = protocol.record(continual=continual)
        assert record["test_informed"] is True and record["test_informed_by"] == reasons, profile
        assert is_test_informed({"protocol": record}) and informed_by({"protocol": record}) == reasons
        assert all(reason in TEST_DECIDES for reason in reasons)


@pytest.mark.parametrize("profile", ["arcmemo", "released-code"])
def test_no_test_output_decides_anything_with_train_retries_and_no_writes(profile):
    """The released profile with train-triggered retries and no --continual: its write filter never
    runs, so nothing in the run is decided by a test output; with --continual the filter counts."""
    protocol = resolve(profile, {"retry_when": "train-fails"})
    record = protocol.record(continual=False)
    assert record["test_informed"] is False and record["test_informed_by"] == []
    assert not is_test_informed({"protocol": record})
    continual = protocol.record(continual=True)["test_informed_by"]
    assert continual == (["write_when=strict"] if profile == "released-code" else [])
    for choice, values in CHOICES.items():                      # no other choice decides anything by a test
        if choice not in ("retry_when", "write_when"):
            other = dataclasses.replace(protocol, **{choice: values[1]})
            assert other.test_informed_by(continual=True) == continual, choice


def test_test_informed_is_derived_from_the_record_and_absent_means_clean():
    assert is_test_informed({}) is False                              # a run from before protocols
    assert is_test_informed({"protocol": resolve("released-code").record(continual=True)}) is True
    assert is_test_informed({"protocol": resolve(None, {"write_when": "strict"}).record(continual=True)}) is True
    assert is_test_informed({"protocol": {"name": "arcmemo+retry_when=test-fails", "retry_when": "test-fails"}})
    assert is_test_informed({"protocol": "garbage"}) is False


def test_a_record_from_before_the_reasons_is_derived_again_with_its_settings():
    """Such a released-code run without --continual was marked test-informed for a write filter
    that never ran: read again, it is marked by its test-triggered retries only, or not at all."""
    old = {k: v for k, v in resolve("released-code").record(continual=True).items() if k != "test_informed_by"}
    assert informed_by({"protocol": old, "settings": {"continual": False}}) == ["retry_when=test-fails"]
    assert informed_by({"protocol": old, "settings": {"continual": True}}) == ["retry_when=test-fails",
                                                                              "write_when=strict"]
    train = {**old, "name": "released-code+retry_when=train-fails", "retry_when": "train-fails"}
    assert not is_test_informed({"protocol": train, "settings": {"continual": False}})


def test_a_recorded_protocol_reads_back_as_it_was():
    protocol = resolve("released-code", {"hint_form": "arcmemo"})
    assert from_record(protocol.record(continual=False)) == protocol
    assert from_record(json.loads(json.dumps(protocol.record(continual=True)))) == protocol
    # a record made before answer_reading existed ran arcmemo's reading, whatever its profile says now
    before = {k: v for k, v in PROFILES["released-code"].record(continual=False).items() if k != "answer_reading"}
    assert from_record(before).answer_reading == "arcmemo"
    assert from_record(None) == Protocol() and from_record("released-code") == PROFILES["released-code"]
    assert from_record({"name": "released-code", "retry_when": "train-fails"}).name == \
        "released-code+retry_when=train-fails"                      # a sweep's mapping is resolved


@pytest.mark.parametrize(("name", "overrides", "says"), [
    ("mine", {}, "unknown protocol 'mine' (known: arcmemo, released-code)"),
    (None, {"retry_when": "sometimes"}, "retry_when: 'sometimes' is not one of train-fails, test-fails"),
    (None, {"retry_on": "test-fails"}, "unknown protocol choice 'retry_on'"),
])
def test_a_bad_name_or_value_is_refused_naming_it(name, overrides, says):
    with pytest.raises(ProtocolError, match=says.replace("(", r"\(").replace(")", r"\)")):
        resolve(name, overrides)


@pytest.mark.parametrize(("protocol", "run", "says"), [
    (resolve(None, {"write_when": "strict"}), {}, "--write-when strict applies only to a run with --continual"),
    (resolve(None, {"continual_order": "pass"}), {}, "--continual-order pass applies only to a run with"),
    (resolve(None, {"hint_form": "released"}), {"method": "oe"}, "--hint-form released is not followed by "
                                                                 "--method oe (it is by --method ps)"),
    (resolve(None, {"oe_caption": "per-puzzle"}), {}, "--oe-caption per-puzzle is not followed by --method ps (it "
                                                      "is by --method oe)"),
    (resolve("released-code"), {"continual": True, "passes": 2}, "leave out --passes 2"),
    (resolve("released-code"), {"scored": False}, "decides retries from test outputs"),
])
def test_a_choice_the_run_cannot_apply_is_refused(protocol, run, says):
    """A read choice is refused for a method that does not declare it (`protocol_choices`), by name."""
    run = {"continual": False, "passes": 1, "method": "ps", "scored": True, **run}
    with pytest.raises(ProtocolError, match=says.replace("(", r"\(").replace(")", r"\)")):
        check(protocol, **{**run, "method": load_method(run["method"])})


def test_a_profile_setting_a_choice_the_run_does_not_use_is_fine():
    check(resolve("released-code"), continual=False, passes=3, method=load_method("none"), scored=True)


@pytest.mark.parametrize("args", [
    ["--protocol", "mine"],
    ["--retry-when", "sometimes"],
    ["--write-when", "strict"],
    ["--protocol", "released-code", "--continual", "--passes", "2"],
    ["--protocol", "released-code", "--no-score"],
    ["--selection", "none", "--selector-view", "collapsed"],
])
def test_bad_protocol_input_fails_before_a_run_directory_exists(tmp_path, args):
    runs = tmp_path / "runs"
    result = CliRunner().invoke(cli, ["solve", "--tasks", "0d3d703e", "--run-dir", str(runs),
                                      "--db", str(tmp_path / "memory.db"), *args])
    assert result.exit_code == 2, result.output
    said = [line for line in result.output.splitlines() if line and not line.startswith(("Usage:", "Try "))]
    assert len(said) == 1 and said[0].startswith("Error: "), result.output      # one line, naming what
    assert not runs.exists() and not (tmp_path / "memory.db").exists()


def test_a_config_files_unknown_protocol_names_the_file_line_and_key(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("selection: ps\nprotocol: released\n")
    result = CliRunner().invoke(cli, ["solve", "--config", str(path), "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2 and f"{path}:2: key 'protocol'" in result.output, result.output
    assert not (tmp_path / "runs").exists()


def test_a_task_file_without_solutions_refuses_test_triggered_retries_before_a_run_directory(tmp_path):
    challenges = tmp_path / "challenges.json"
    challenges.write_text(json.dumps({"t1": {"train": [{"input": [[1]], "output": [[2]]}],
                                             "test": [{"input": [[1]]}]}}))
    runs = tmp_path / "runs"
    result = CliRunner().invoke(cli, ["solve", "--tasks-from", str(challenges), "--protocol", "released-code",
                                      "--selection", "none", "--run-dir", str(runs)])
    assert result.exit_code == 1 and "decides retries from test outputs" in result.output, result.output
    assert not runs.exists()


def test_resume_keeps_the_recorded_protocol():
    result = CliRunner().invoke(cli, ["solve", "--resume", "somerun", "--retry-when", "test-fails"])
    assert result.exit_code == 2 and "keeps the run's recorded protocol" in result.output


def test_the_default_protocol_leaves_a_runs_results_as_they_were(tmp_path):
    """The same scripted runs as before protocols existed give the same submissions, Table 4,
    memory writes and prompts (tests/protocol_support.py made the fingerprint from that code)."""
    assert json.loads(json.dumps(fingerprint(tmp_path))) == json.loads(GOLDEN.read_text())


def test_the_last_step_strict_score_keeps_a_threads_last_step_per_sample():
    from arcmemo.scoring.strict import Step, last_step_table

    right, wrong = (True,), (False,)
    early = [Step(0, 0, True, right)]                                          # stopped at depth 0, right
    undone = [Step(0, 0, True, right), Step(1, 0, False, right)]               # its last step fails train
    two_samples = [Step(0, 0, False, right), Step(0, 1, True, right)]          # one sample right on everything
    never = [Step(d, 0, True, wrong) for d in range(3)]
    table = last_step_table([[early, never], [undone, never], [two_samples, never]], threads=2, retries=2)
    # depth 0: puzzles 1, 2, 3 each solved by one of two threads: k=1 50%, k=2 100%;
    # from depth 1 puzzle 2's thread ends on a step that fails train: 2 of 3 puzzles
    assert table.strict == ((50.0, 100.0), (100 / 3, 200 / 3), (100 / 3, 200 / 3))


def test_a_sweep_takes_protocols_as_a_setting_by_name_or_with_choices(tmp_path):
    from arcmemo.cli.sweep import load_plan as load_sweep
    from arcmemo.run.jobs.sweep import SweepError

    path = tmp_path / "sweep.yaml"
    path.write_text("name: both\nsolve: {source: training, selection: ps}\n"
                    "grid:\n  protocol: [arcmemo, released-code, {name: released-code, retry_when: train-fails}]\n")
    names = [m.config.protocol.name for m in load_sweep(path).members]
    assert names == ["arcmemo", "released-code", "released-code+retry_when=train-fails"]
    path.write_text("name: bad\nsolve: {source: training}\ngrid:\n  protocol: [released]\n")
    with pytest.raises(SweepError, match="grid: key 'protocol': 'released' is not one of 'arcmemo', 'released-code'"):
        load_sweep(path)


def test_pass_order_refuses_an_executor_outside_this_process():
    from arcmemo.run.config import RunConfig
    from arcmemo.run.executors.local import Executor, InProcess
    from arcmemo.run.loop import check_protocol_fits

    config = RunConfig(source="training", continual=True, protocol="released-code")
    check_protocol_fits(config, {"t": object()}, InProcess(4))
    with pytest.raises(ProtocolError, match="without --executor ray"):
        check_protocol_fits(config, {"t": object()}, Executor())            # as a Ray executor is
    check_protocol_fits(RunConfig(source="training", protocol="released-code"), {"t": object()}, Executor())
