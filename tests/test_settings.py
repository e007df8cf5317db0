"""The one settings system: every setting declared once (core/config.py), flag > env >
config file > default, every value checked at start-up by its declared check, errors naming the
setting and where its value came from, the config file read once, each value's source recorded."""

from __future__ import annotations

import pytest

from arcmemo.core import config as cfg
from arcmemo.core import settings as settings_module
from arcmemo.core.settings import ConfigError, Settings


def write_config(home, text: str):
    path = home / "config.yaml"
    path.write_text(text)
    return path


def test_defaults_and_precedence(isolated_home, monkeypatch, tmp_path):
    s = Settings.load()
    assert (s.db, s.sandbox_timeout_s, s.sandbox_workers, s.abstraction_memory_tokens) == ("memory.db", 2.0, None, 3000)
    assert s.origin("db") == "default"
    write_config(isolated_home, "db: from-config.db\nsandbox_workers: 3\nsandbox_timeout_s: 1.5\n")
    s = Settings.load()
    assert (s.db, s.sandbox_workers, s.sandbox_timeout_s) == ("from-config.db", 3, 1.5)
    assert s.origin("db").startswith("config ") and s.origin("db").endswith("config.yaml")
    monkeypatch.setenv("ARCMEMO_DB", "from-env.db")
    monkeypatch.setenv("ARCMEMO_SANDBOX_WORKERS", "2")
    s = Settings.load()
    assert (s.db, s.sandbox_workers, s.origin("db")) == ("from-env.db", 2, "env ARCMEMO_DB")
    s = Settings.load(db="from-flag.db")
    assert (s.db, s.origin("db")) == ("from-flag.db", "flag --db")


@pytest.mark.parametrize("where, value, expected", [
    ("env", "x", "setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got 'x'"),
    ("env", "0", "setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got '0'"),
    ("env", "2.5", "setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got '2.5'"),
    ("config", "[1, 2]", "expected an integer >= 1, got [1, 2]"),
    ("config", "true", "expected an integer >= 1, got True"),
])
def test_a_bad_value_names_the_setting_and_its_source(isolated_home, monkeypatch, where, value, expected):
    if where == "env":
        monkeypatch.setenv("ARCMEMO_SANDBOX_WORKERS", value)
    else:
        path = write_config(isolated_home, f"sandbox_workers: {value}\n")
        expected = f"setting sandbox_workers (from config {path}): {expected}"
    with pytest.raises(ConfigError) as info:
        Settings.load()
    assert str(info.value) == expected


def test_every_setting_is_checked(monkeypatch, tmp_path):
    for name, bad in (("sandbox_timeout_s", "-1"), ("sandbox_memory_mb", "8"), ("abstraction_memory_tokens", "lots"),
                      ("seeds_dir", str(tmp_path / "missing")), ("db", " ")):
        monkeypatch.setenv("ARCMEMO_" + name.upper(), bad)
        with pytest.raises(ConfigError, match=f"setting {name} \\(from env ARCMEMO_{name.upper()}\\): expected"):
            Settings.load()
        monkeypatch.delenv("ARCMEMO_" + name.upper())
    assert Settings.load(seeds_dir=str(tmp_path)).seeds_dir == tmp_path


def test_the_config_file_is_read_once(isolated_home, monkeypatch):
    path = write_config(isolated_home, "sandbox_workers: 2\n")
    reads = []
    original = type(path).read_text

    def counting(self, *args, **kwargs):
        if self == path:
            reads.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(path), "read_text", counting)
    for _ in range(3):
        Settings.load()
        cfg.setting_value("solver_model")
    assert len(reads) == 1
    write_config(isolated_home, "sandbox_workers: 5\nconcurrency: 3\n")      # a changed file is read again
    assert Settings.load().sandbox_workers == 5


@pytest.mark.parametrize("text, message", [
    ("a: [unclosed\n", "invalid YAML: line 1: "),            # where the `[` is, not the line after the file
    ("a: 1\nb: 'unclosed\n\n\n", "invalid YAML: line 2: "),    # trailing blank lines are not the problem
    ("- just\n- a list\n", "expected a mapping"),
    (b"\xff\xfe", "not UTF-8 text"),
])
def test_a_broken_config_file_is_a_clean_error(isolated_home, text, message):
    path = isolated_home / "config.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError, match=message) as info:
        Settings.load()
    assert str(path) in str(info.value)


def test_a_bad_setting_fails_a_command_before_anything_exists(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from arcmemo.cli import cli

    monkeypatch.setenv("ARCMEMO_SANDBOX_WORKERS", "many")
    result = CliRunner().invoke(cli, ["solve", "--tasks", "0d3d703e", "--db", str(tmp_path / "m.db"),
                                      "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got 'many'" \
        in result.output
    assert not (tmp_path / "m.db").exists() and not (tmp_path / "runs").exists()


def test_a_misspelt_key_is_refused_naming_file_line_and_nearest_key(isolated_home):
    path = write_config(isolated_home, "db: x.db\n# the model\nsolver_modle: gpt-4.1\n")
    with pytest.raises(ConfigError) as err:
        Settings.load()
    assert str(err.value) == f"{path}, line 3: unknown setting 'solver_modle'; did you mean 'solver_model'?"


def test_a_key_like_nothing_points_at_the_settings_list_not_every_key(isolated_home):
    path = write_config(isolated_home, "zzzzzz: 1\n")
    with pytest.raises(ConfigError) as err:
        Settings.load()
    assert str(err.value) == (f"{path}, line 1: unknown setting 'zzzzzz'; "
                              "`arcmemo settings` lists every setting and its key")


def test_every_setting_the_objects_hold_is_declared_once_with_its_default(isolated_home):
    """Settings and LLMSettings hold declared settings only, with the declared defaults (a role's
    model aside: resolve picks `local` or models.yaml's default), and together with the files
    and the page's address they are the whole table: no setting is read outside it."""
    from arcmemo.llm.catalog import ROLES
    from arcmemo.llm.settings import LLMSettings

    assert cfg.MODEL_ROLES == tuple(ROLES)
    plain_settings, plain_models = Settings(), LLMSettings()
    for obj in (plain_settings, plain_models):
        for name in type(obj).names():
            if not name.endswith("_model"):
                assert getattr(obj, name) == cfg.default_of(name), name
    held = {*Settings.names(), *LLMSettings.names()}
    assert held | {"home", "models_dir", "serve_host"} == set(cfg.BY_NAME)
    assert len(held) == len(Settings.names()) + len(LLMSettings.names())       # none held twice


def test_every_config_key_is_accepted(isolated_home):
    every = "".join(f"{key}: {'local' if key.endswith('_model') else 1}\n" for key in settings_module.known_keys())
    write_config(isolated_home, every)
    settings_module.load_config_file()      # no key refused
    assert "home" not in settings_module.known_keys()     # it says where the config file is


def test_the_suites_own_environment_variables_name_no_setting():
    """tests/conftest.py keeps these through its removal of every ARCMEMO_* variable: none may be a setting's."""
    from conftest import TEST_KNOBS

    assert not set(TEST_KNOBS) & {env for s in cfg.SETTINGS for env in s.env}


def test_the_endpoint_takes_arcmemos_variable_first_and_says_which(isolated_home, monkeypatch):
    from arcmemo.llm.settings import LLMSettings

    write_config(isolated_home, "base_url: http://config/v1\n")
    assert LLMSettings.resolve().origin("base_url").startswith("config ")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai-var/v1")
    s = LLMSettings.resolve()
    assert (s.base_url, s.origin("base_url")) == ("http://openai-var/v1", "env OPENAI_BASE_URL")
    monkeypatch.setenv("ARCMEMO_BASE_URL", "http://arcmemo-var/v1")
    s = LLMSettings.resolve()
    assert (s.base_url, s.origin("base_url")) == ("http://arcmemo-var/v1", "env ARCMEMO_BASE_URL")
    s = LLMSettings.resolve(base_url="http://flag/v1")
    assert (s.base_url, s.origin("base_url")) == ("http://flag/v1", "flag --base-url")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    record = LLMSettings.resolve().record()
    assert record["api_key"] == {"value": "set", "from": "env OPENAI_API_KEY"}


def test_the_call_log_and_the_embedded_model_are_settings_like_the_others(isolated_home, monkeypatch, tmp_path):
    from arcmemo.llm import local
    from arcmemo.llm.log import log_path
    from arcmemo.llm.settings import LLMSettings

    assert log_path() == isolated_home / "calls.db"
    write_config(isolated_home, f"log_path: {tmp_path / 'from-config.db'}\nlocal_n_ctx: 4096\n")
    assert log_path() == tmp_path / "from-config.db"
    monkeypatch.setenv("ARCMEMO_LOG_DB", str(tmp_path / "from-env.db"))
    s = LLMSettings.resolve()
    assert (s.log_path, s.origin("log_path")) == (str(tmp_path / "from-env.db"), "env ARCMEMO_LOG_DB")
    assert (s.local_n_ctx, local.server_settings(s)["n_ctx"]) == (4096, 4096)
    assert s.origin("local_n_ctx").startswith("config ")
    monkeypatch.setenv("ARCMEMO_LOCAL_N_CTX", "100")
    with pytest.raises(ConfigError, match=r"setting local_n_ctx \(from env ARCMEMO_LOCAL_N_CTX\): expected an "
                                          r"integer >= 256, got '100'"):
        LLMSettings.resolve()


def test_a_run_records_every_setting_it_used_and_where_it_came_from(tmp_path, monkeypatch, fake_model):
    import json

    from click.testing import CliRunner
    from runner_support import TASK_IDS, script_run

    from arcmemo.cli import cli

    script_run(fake_model)
    monkeypatch.setenv("ARCMEMO_SANDBOX_TIMEOUT_S", "3")
    result = CliRunner().invoke(cli, ["solve", "--tasks", TASK_IDS[0], "--retries", "0", "--method", "none", "-q",
                                      "--db", str(tmp_path / "m.db"), "--run-dir", str(tmp_path / "runs"),
                                      "--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"])
    assert result.exit_code == 0, result.output
    config = json.loads(next((tmp_path / "runs").glob("*/config.json")).read_text())
    recorded = config["resolved_settings"]
    assert recorded["sandbox_timeout_s"] == {"value": 3.0, "from": "env ARCMEMO_SANDBOX_TIMEOUT_S"}
    assert recorded["solver_model"] == {"value": "fake", "from": "flag --solver-model"}
    assert recorded["concurrency"] == {"value": 8, "from": "default"}
    assert recorded["db"]["from"] == "flag --db" and recorded["api_key"]["value"] is None


def test_arcmemo_settings_lists_every_setting_with_its_source(isolated_home, monkeypatch):
    import json

    from click.testing import CliRunner

    from arcmemo.cli import cli

    monkeypatch.setenv("ARCMEMO_CONCURRENCY", "3")
    result = CliRunner().invoke(cli, ["settings", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.output)["settings"]}
    assert set(rows) == set(cfg.BY_NAME)
    assert (rows["concurrency"]["value"], rows["concurrency"]["from"]) == (3, "env ARCMEMO_CONCURRENCY")
    assert rows["base_url"]["env"] == ["ARCMEMO_BASE_URL", "OPENAI_BASE_URL"]
    text = CliRunner().invoke(cli, ["settings"]).output
    assert "concurrency" in text and "from env ARCMEMO_CONCURRENCY" in text
    monkeypatch.setenv("ARCMEMO_SANDBOX_WORKERS", "many")
    bad = CliRunner().invoke(cli, ["settings"])
    assert bad.exit_code == 1 and "expected an integer >= 1, got 'many'" in bad.output
    write_config(isolated_home, "solver_modle: x\n")
    broken = CliRunner().invoke(cli, ["settings"])
    assert broken.exit_code == 1 and broken.output.count("did you mean 'solver_model'?") == 1


def test_the_grid_text_setting_takes_exactly_the_styles_grids_are_written_in():
    from arcmemo.core import gridtext

    assert set(gridtext._NOTES) == set(gridtext._LAYOUTS) == set(cfg.GRID_TEXTS)
    assert gridtext.DEFAULT_GRID_TEXT in cfg.GRID_TEXTS
