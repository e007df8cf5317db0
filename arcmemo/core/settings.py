"""Settings: a command-line flag beats an env var (ARCMEMO_*) beats the config file beats the default.

`Settings.load(**flags)` builds the one settings object of a command at its start: every
setting below is looked up once, parsed and checked, and a bad value fails there, naming
the setting and where it came from:

    setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got 'x'

The object is then passed down (run session -> runner -> steps); no module deeper in
arcmemo reads a setting itself. The model settings (endpoint, model per role, the embedded
model's) are resolved in one place too, `arcmemo.llm.LLMSettings.resolve`, which the run
layer calls once beside this.

The user directory holds the config file (`config.yaml`), the model aliases/prices file
(`models.yaml`) and the call log/cache (`calls.db`). It is `~/.arcmemo` unless
`ARCMEMO_HOME` says otherwise (tests point it at a temporary directory). The config file
is read once per change of the file (cached on its size and modification time), not on
every lookup.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core.gridtext import DEFAULT_GRID_TEXT, GRID_TEXTS

DEFAULT_DB = "memory.db"
DEFAULT_RUNS_DIR = "runs"

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


class ConfigError(ValueError):
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


# -- parsers: raw value (flag, env text, YAML value) -> checked value, ValueError saying what was expected

def integer(minimum: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError
        if isinstance(value, str):
            value = value.strip()
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ValueError from None
        if isinstance(value, float) and value != number or number < minimum:
            raise ValueError
        return number

    parse.expected = f"an integer >= {minimum}"
    return parse


def number(minimum: float) -> Callable[[Any], float]:
    def parse(value: Any) -> float:
        if isinstance(value, bool):
            raise ValueError
        try:
            result = float(value)
        except (TypeError, ValueError):
            raise ValueError from None
        if not result >= minimum or result == float("inf"):
            raise ValueError
        return result

    parse.expected = f"a number >= {minimum}"
    return parse


def text(value: Any) -> str:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool) or not str(value).strip():
        raise ValueError
    return str(value)


text.expected = "a non-empty text"


def directory(value: Any) -> Path:
    path = Path(text(value)).expanduser()
    if not path.is_dir():
        raise ValueError
    return path


directory.expected = "an existing directory"


def one_of(*values: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if value not in values:
            raise ValueError
        return value

    parse.expected = "one of " + ", ".join(values)
    return parse


def _setting(default: Any, parse: Callable[[Any], Any], help: str) -> Any:
    return field(default=default, metadata={"parse": parse, "help": help})


@dataclass(frozen=True)
class Settings:
    """Every non-model setting of arcmemo, checked. Build it with `Settings.load()`."""

    db: str = _setting(DEFAULT_DB, text, "the memory: a SQLite path or a SQLAlchemy URL")
    runs_dir: str = _setting(DEFAULT_RUNS_DIR, text, "where run directories are made")
    sandbox_workers: int | None = _setting(None, integer(1), "sandbox worker processes (default: one per core)")
    sandbox_timeout_s: float = _setting(2.0, number(0.01), "wall-clock seconds per program and grid")
    sandbox_memory_mb: int = _setting(1024, integer(16), "memory a sandboxed program may use, in MB")
    abstraction_memory_tokens: int = _setting(
        3000, integer(500), "estimated tokens of memory shown in the PS write prompt")
    seeds_dir: Path | None = _setting(
        None, directory, "annotated seeds the write prompts take worked examples from")
    prompts_dir: Path | None = _setting(
        None, directory, "prompt templates that replace the shipped ones, file by file (`arcmemo prompts export`)")
    grid_text: str = _setting(DEFAULT_GRID_TEXT, one_of(*GRID_TEXTS),
                              "how prompts write grids: digits (one digit per cell) or numpy (arrays, as the "
                              "authors' released code)")
    origins: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, **flags: Any) -> Settings:
        """Each setting from its flag (a keyword here, None = not given), env var, the config file
        or its default; ConfigError naming the first bad one and where it came from."""
        unknown = set(flags) - set(cls.names())
        if unknown:
            raise TypeError(f"Settings.load: unknown settings {sorted(unknown)}")
        config = load_config_file()
        values: dict[str, Any] = {}
        origins: dict[str, str] = {}
        for spec in cls.specs():
            raw, origin = lookup(spec.name, flags.get(spec.name), config=config)
            origins[spec.name] = origin
            if raw is None:
                continue
            parse = spec.metadata["parse"]
            try:
                values[spec.name] = parse(raw)
            except ValueError:
                raise ConfigError(f"setting {spec.name} (from {origin}): expected {parse.expected}, "
                                  f"got {raw!r}") from None
        return cls(**values, origins=origins)

    @classmethod
    def specs(cls) -> list[dataclasses.Field]:
        return [f for f in dataclasses.fields(cls) if "parse" in f.metadata]

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in cls.specs()]

    def origin(self, name: str) -> str:
        return self.origins.get(name, "default")


def db_url(flag: str | None = None) -> str:
    """The memory database: --db > ARCMEMO_DB > config `db` > ./memory.db."""
    return str(setting("db", flag, DEFAULT_DB))
