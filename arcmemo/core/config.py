"""The config file and one setting's raw value: a command-line flag beats an env var
(ARCMEMO_*) beats the config file beats the default.

The user directory holds the config file (`config.yaml`), the model aliases/prices file
(`models.yaml`), the call log/cache (`calls.db`) and the installed entry points as last read
(`entry_points.json`, core/plugins.py). It is `~/.arcmemo` unless
`ARCMEMO_HOME` says otherwise (tests point it at a temporary directory). The config file
is read once per change of the file (cached on its size and modification time), not on
every lookup.

settings.py builds the checked `Settings` of a command from these lookups; this module is
apart so that a command needing one setting (`--db` of a read-only command, the model
catalog's user directory) does not build the `Settings` class at start-up.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arcmemo.core.errors import ArcmemoError

DEFAULT_DB = "memory.db"

# The config file's keys besides `Settings`' own: the model settings (read by arcmemo/llm/settings.py and
# arcmemo/llm/local.py) and the page's address (cli/serve.py). Written out here, not imported, so that checking a
# config file loads no model code; tests/test_settings.py checks the list against the readers.
MODEL_ROLES = ("solver", "aux", "select")
MODEL_KEYS = (
    "base_url", "api_key", "concurrency", "cache",
    *(f"{role}_{name}" for role in MODEL_ROLES for name in ("model", "temperature", "max_tokens", "reasoning_effort")),
    "timeout_s", "call_budget_s", "max_attempts", "backoff_base_s", "backoff_max_s", "max_retry_after_s",
    "local_n_ctx", "local_threads", "local_slots", "local_max_tokens",
)
OTHER_KEYS = ("serve_host",)


class ConfigError(ArcmemoError, ValueError):
    """The config file is malformed or a setting has an invalid value."""


def user_dir() -> Path:
    path = Path(os.environ.get("ARCMEMO_HOME") or Path.home() / ".arcmemo")
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_file() -> Path:
    return user_dir() / "config.yaml"


_config_cache: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}


def load_config_file(path: Path | None = None) -> dict[str, Any]:
    """The config file as a mapping ({} when there is none); read again only when it changes."""
    path = path or config_file()
    try:
        stat = path.stat()
    except OSError:
        return {}
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _config_cache.get(path)
    if cached is not None and cached[0] == stamp:
        return dict(cached[1])
    if path.is_dir():
        raise ConfigError(f"{path}: is a directory, expected a YAML file of settings")
    from arcmemo.core import safeyaml

    try:
        data = safeyaml.load(path.read_text(encoding="utf-8")) or {}
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except safeyaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {safeyaml.describe(exc)}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of setting names to values")
    _check_keys(path, data)
    _config_cache[path] = (stamp, data)
    return dict(data)


def known_keys() -> tuple[str, ...]:
    """Every key a config file may hold."""
    from arcmemo.core.settings import Settings

    return (*Settings.names(), *MODEL_KEYS, *OTHER_KEYS)


def _check_keys(path: Path, data: dict[str, Any]) -> None:
    """A misspelt key would be ignored without a word: refuse it, naming the file, the line and the nearest key."""
    import difflib

    known = known_keys()
    for key in data:
        if key in known:
            continue
        nearest = difflib.get_close_matches(str(key), known, n=1)
        hint = f"; did you mean {nearest[0]!r}?" if nearest else f"; known: {', '.join(sorted(known))}"
        raise ConfigError(f"{path}{_line_of_key(path, key)}: unknown setting {key!r}{hint}")


def _line_of_key(path: Path, key: Any) -> str:
    """', line N' for a top-level key of the YAML file, or '' when it cannot be found."""
    from arcmemo.core import safeyaml

    try:
        root = safeyaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, safeyaml.YAMLError):
        return ""
    for node, _ in getattr(root, "value", None) or []:
        if getattr(node, "value", None) == str(key):
            return f", line {node.start_mark.line + 1}"
    return ""


def lookup(name: str, flag: Any = None, *, config: dict | None = None) -> tuple[Any, str]:
    """(raw value, where it came from) for one setting: flag > env ARCMEMO_<NAME> > config file;
    (None, "default") when none of them sets it."""
    if flag is not None:
        return flag, "flag --" + name.replace("_", "-")
    env = "ARCMEMO_" + name.upper()
    if os.environ.get(env) not in (None, ""):
        return os.environ[env], "env " + env
    cfg = load_config_file() if config is None else config
    if cfg.get(name) is not None:
        return cfg[name], f"config {config_file()}"
    return None, "default"


def setting(name: str, flag: Any = None, default: Any = None, *, config: dict | None = None) -> Any:
    """One setting's raw value: flag > env ARCMEMO_<NAME> > config file key <name> > default.

    `name` is lower_snake (e.g. `solver_model`); the env var is its upper-case form with
    the ARCMEMO_ prefix (`ARCMEMO_SOLVER_MODEL`). For the model settings
    (`LLMSettings.resolve`); everything else is read through `Settings.load`.
    """
    value, _ = lookup(name, flag, config=config)
    return default if value is None else value


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


__all__ = ["DEFAULT_DB", "MODEL_ROLES", "MODEL_KEYS", "OTHER_KEYS", "ConfigError", "user_dir", "config_file",
           "load_config_file", "known_keys", "lookup", "setting", "as_number", "db_url"]
