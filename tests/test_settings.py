"""The one settings object: flag > env > config file > default, every value checked at start-up,
errors naming the setting and where its value came from, the config file read once."""

from __future__ import annotations

import pytest

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
        settings_module.setting("solver_model")
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


def test_a_key_like_nothing_lists_the_known_ones(isolated_home):
    write_config(isolated_home, "zzzzzz: 1\n")
    with pytest.raises(ConfigError, match=r"unknown setting 'zzzzzz'; known: .*sandbox_workers.*solver_model"):
        Settings.load()


def test_every_key_a_reader_takes_is_known(isolated_home):
    """The config keys written out in core/config.py are exactly those the model settings and the page read."""
    from arcmemo.llm import local
    from arcmemo.llm.catalog import ROLES
    from arcmemo.llm.settings import CALL_DEFAULTS, NUMBERS

    assert settings_module.MODEL_ROLES == tuple(ROLES)
    read = {"base_url", "api_key", "concurrency", "cache", *NUMBERS, *local.SETTINGS,
            *(f"{role}_{name}" for role in ROLES for name in ("model", *CALL_DEFAULTS))}
    assert read == set(settings_module.MODEL_KEYS)
    every = "".join(f"{key}: {'local' if key.endswith('_model') else 1}\n" for key in settings_module.known_keys())
    write_config(isolated_home, every)
    settings_module.load_config_file()      # no key refused
