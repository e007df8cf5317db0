"""Settings: a command-line flag beats an env var (ARCMEMO_*) beats the config file beats the default.

The user directory holds the config file (`config.yaml`), the model aliases/prices file
(`models.yaml`) and the call log/cache (`calls.db`). It is `~/.arcmemo` unless
`ARCMEMO_HOME` says otherwise (tests point it at a temporary directory).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

DEFAULT_DB = "memory.db"
SELECTION_MODES = ("ps", "oe", "none", "all", "cheatsheet")


class ConfigError(ValueError):
    """The config file is malformed or a setting has an invalid value."""


def user_dir() -> Path:
    path = Path(os.environ.get("ARCMEMO_HOME") or Path.home() / ".arcmemo")
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_file() -> Path:
    return user_dir() / "config.yaml"


def load_config_file(path: Path | None = None) -> dict[str, Any]:
    path = path or config_file()
    if not path.exists():
        return {}
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of setting names to values")
    return data


def setting(name: str, flag: Any = None, default: Any = None, *, config: dict | None = None) -> Any:
    """Resolve one setting: flag > env ARCMEMO_<NAME> > config file key <name> > default.

    `name` is lower_snake (e.g. `solver_model`); the env var is its upper-case form with
    the ARCMEMO_ prefix (`ARCMEMO_SOLVER_MODEL`).
    """
    if flag is not None:
        return flag
    env = os.environ.get("ARCMEMO_" + name.upper())
    if env not in (None, ""):
        return env
    cfg = load_config_file() if config is None else config
    if cfg.get(name) is not None:
        return cfg[name]
    return default


def as_number(value: Any, name: str, kind: type, minimum: float) -> Any:
    """A setting's value as `kind` (int, float), at least `minimum`; ConfigError naming the setting if not."""
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"setting {name}: expected a number, got {value!r}") from None
    if number < minimum:
        raise ConfigError(f"setting {name}: must be >= {minimum}, got {value!r}")
    return number


def db_url(flag: str | None = None) -> str:
    """The memory database: --db > ARCMEMO_DB > config `db` > ./memory.db."""
    return str(setting("db", flag, DEFAULT_DB))
