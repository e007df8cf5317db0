"""Every setting arcmemo reads, declared once; the one way a setting's value is found and checked;
the config file and the user directory.

A row of `SETTINGS` says everything about one setting: its name, the check its value passes
(which also says its type), its default, the environment variables that set it (in
precedence order), its key in the config file, the command-line flag that sets it, and one
line of help. A value is looked for in this order, the first found wins, and its source is
kept with it:

    flag (--db)  >  env vars, in the row's order (ARCMEMO_DB)  >  config file key (db)  >  default

and checked by the row's check there, so a bad value fails at a command's start naming the
setting and where its value came from:

    setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got 'x'

The objects the code reads (`arcmemo.core.settings.Settings`: the memory, runs, sandbox and
prompts; `arcmemo.llm.settings.LLMSettings`: the endpoint, the model per role, the embedded
model, the call log) are made from these rows (`resolve_all`) and keep each value's source,
which a run records in its config.json and `arcmemo settings` prints. The endpoint takes
arcmemo's own variable first and then the one the OpenAI tools share (ARCMEMO_BASE_URL, then
OPENAI_BASE_URL; ARCMEMO_API_KEY, then OPENAI_API_KEY), so arcmemo can be pointed elsewhere
than the other tools of the same shell.

The user directory holds the config file (`config.yaml`), the model aliases/prices file
(`models.yaml`), the call log/cache (`calls.db`) and the installed entry points as last read
(`entry_points.json`, core/plugins.py). It is `~/.arcmemo` unless
`ARCMEMO_HOME` says otherwise (tests point it at a temporary directory). The config file
is read once per change of the file (cached on its size and modification time), not on
every lookup, and a key no setting has is refused with the nearest one.

Kept cheap to import (a tuple of named tuples, no dataclasses): the read-only commands that
need one setting (`--db`, the call log) load it; settings.py builds the `Settings` object.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from arcmemo.core.errors import ArcmemoError


class ConfigError(ArcmemoError, ValueError):
    """The config file is malformed or a setting has an invalid value."""


def user_dir() -> Path:
    path = setting_value("home") or Path.home() / ".arcmemo"
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
    """Every key a config file may hold (the settings' keys)."""
    return tuple(s.key for s in SETTINGS if s.key)


def _check_keys(path: Path, data: dict[str, Any]) -> None:
    """A misspelt key would be ignored without a word: refuse it, naming the file, the line and the nearest key."""
    known = known_keys()
    for key in data:
        if key in known:
            continue
        hint = did_you_mean(key, known) or "; `arcmemo settings` lists every setting and its key"
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


MODEL_ROLES = ("solver", "aux", "select")
REASONING_EFFORTS = ("minimal", "low", "medium", "high")
GRID_TEXTS = ("digits", "numpy")          # the styles core/gridtext.py writes grids in
MAX_TEMPERATURE = 2.0
DEFAULT = "default"                       # the source of a value no flag, env var or config file gave


# -- checks: raw value (flag, env text, YAML value) -> checked value, or ValueError; `.expected` says what they take

Check = Callable[[Any], Any]


def _expects(expected: str) -> Callable[[Check], Check]:
    def mark(check: Check) -> Check:
        check.expected = expected
        return check
    return mark


def integer(minimum: int) -> Check:
    @_expects(f"an integer >= {minimum}")
    def check(value: Any) -> int:
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
    return check


def number(minimum: float, maximum: float | None = None) -> Check:
    @_expects(f"a number >= {minimum:g}" + ("" if maximum is None else f" and <= {maximum:g}"))
    def check(value: Any) -> float:
        if isinstance(value, bool):
            raise ValueError
        try:
            result = float(value)
        except (TypeError, ValueError):
            raise ValueError from None
        if not result >= minimum or result == float("inf") or (maximum is not None and result > maximum):
            raise ValueError
        return result
    return check


@_expects("a non-empty text")
def text(value: Any) -> str:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool) or not str(value).strip():
        raise ValueError
    return str(value)


@_expects("an existing directory")
def directory(value: Any) -> Path:
    path = Path(text(value)).expanduser()
    if not path.is_dir():
        raise ValueError
    return path


@_expects("a file path")
def file_path(value: Any) -> Path:
    return Path(text(value)).expanduser()


@_expects("true or false (also 1/0, yes/no, on/off)")
def boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    answer = {"1": True, "true": True, "yes": True, "on": True,
              "0": False, "false": False, "no": False, "off": False}.get(str(value).strip().lower())
    if answer is None:
        raise ValueError
    return answer


def one_of(*values: str) -> Check:
    @_expects("one of " + ", ".join(values))
    def check(value: Any) -> str:
        if value not in values:
            raise ValueError
        return value
    return check


# -- the table

class Setting(NamedTuple):
    name: str
    check: Check
    default: Any
    help: str
    env: tuple[str, ...]          # the environment variables that set it, the first found wins
    key: str | None               # its key in the config file (None: it cannot be set there)
    flag: str | None              # the command-line flag that sets it, as a source names it
    group: str                    # run | model | embedded | files: what reads it (`arcmemo settings` lists by it)

    @property
    def type(self) -> str:
        return getattr(self.check, "expected", "a value")


def _row(name: str, check: Check, default: Any, help: str, *, group: str, env: tuple[str, ...] | None = None,
         key: str | None | bool = True, flag: str | None | bool = True) -> Setting:
    """A setting whose env var is ARCMEMO_<NAME>, config key <name> and flag --<name> unless given."""
    return Setting(name, check, default, help, env=(f"ARCMEMO_{name.upper()}",) if env is None else env,
                   key=name if key is True else key or None,
                   flag="--" + name.replace("_", "-") if flag is True else flag or None, group=group)


def _role_rows() -> list[Setting]:
    rows = []
    for role in MODEL_ROLES:
        rows += [
            _row(f"{role}_model", text, None, f"the {role} model: a name or alias (models.yaml); default `local`, "
                 "or models.yaml's default for the role once an endpoint is configured", group="model"),
            _row(f"{role}_temperature", number(0, MAX_TEMPERATURE), None,
                 f"temperature of a {role} call that sets none (none: the model's own)", group="model"),
            _row(f"{role}_max_tokens", integer(1), None,
                 f"completion token limit of a {role} call that sets none (none: not sent)", group="model"),
            _row(f"{role}_reasoning_effort", one_of(*REASONING_EFFORTS), None,
                 f"reasoning effort of a {role} call that sets none; a reasoning model only", group="model"),
        ]
    return rows


SETTINGS: tuple[Setting, ...] = (
    # what a command opens: the memory, the runs, the sandbox, the prompts (core/settings.py: Settings)
    _row("db", text, "memory.db", "the memory: a SQLite path or a SQLAlchemy URL", group="run"),
    _row("runs_dir", text, "runs", "where run directories are made", group="run", flag="--run-dir"),
    _row("sandbox_workers", integer(1), None, "sandbox worker processes (default: one per core)", group="run",
         flag=False),
    _row("sandbox_timeout_s", number(0.01), 2.0, "wall-clock seconds per program and grid", group="run", flag=False),
    _row("sandbox_memory_mb", integer(16), 1024, "memory a sandboxed program may use, in MB", group="run",
         flag=False),
    _row("abstraction_memory_tokens", integer(500), 3000, "estimated tokens of memory shown in the PS write prompt",
         group="run", flag=False),
    _row("seeds_dir", directory, None, "annotated seeds the write prompts take worked examples from", group="run",
         flag=False),
    _row("prompts_dir", directory, None,
         "prompt templates that replace the shipped ones, file by file (`arcmemo prompts export`)", group="run",
         flag="--prompts"),
    _row("grid_text", one_of(*GRID_TEXTS), "digits",
         "how prompts write grids: digits (one digit per cell) or numpy (arrays, as the authors' released code)",
         group="run"),
    # the endpoint and the models (llm/settings.py: LLMSettings)
    _row("base_url", text, None, "an OpenAI-compatible endpoint (none: OpenAI's with an API key, else the "
         "embedded model)", group="model", env=("ARCMEMO_BASE_URL", "OPENAI_BASE_URL")),
    _row("api_key", text, None, "the endpoint's API key (never recorded or shown)", group="model",
         env=("ARCMEMO_API_KEY", "OPENAI_API_KEY"), flag=False),
    *_role_rows(),
    _row("concurrency", integer(1), 8, "model calls in flight at once", group="model"),
    _row("cache", boolean, True, "answer a request already answered from the call log", group="model",
         flag="--no-cache"),
    _row("timeout_s", number(0.001), 300.0, "seconds of one HTTP attempt (cut to what is left of the call's budget)",
         group="model", flag=False),
    _row("call_budget_s", number(0.001), 600.0, "seconds of one call, all attempts and waits (embedded models: 1 h)",
         group="model", flag=False),
    _row("max_attempts", integer(1), 6, "attempts per call, the first included", group="model", flag=False),
    _row("backoff_base_s", number(0), 1.0, "delay before retry i is this * 2**(i-1), jittered", group="model",
         flag=False),
    _row("backoff_max_s", number(0), 60.0, "the longest delay between retries", group="model", flag=False),
    _row("max_retry_after_s", number(0), 300.0, "a longer Retry-After fails the call instead of waiting",
         group="model", flag=False),
    # the embedded model (llm/local.py), part of LLMSettings
    _row("local_n_ctx", integer(256), 8192, "context of one request to the embedded model, in tokens",
         group="embedded", flag="--ctx"),
    _row("local_threads", integer(1), 2, "CPU threads of the embedded model", group="embedded", flag="--threads"),
    _row("local_slots", integer(1), 2, "requests the embedded model serves at once", group="embedded",
         flag="--slots"),
    _row("local_max_tokens", integer(16), 2048, "completion limit of an embedded model call that sets none",
         group="embedded", flag=False),
    # where arcmemo keeps its files
    _row("home", file_path, None, "the user directory: config.yaml, models.yaml, calls.db (default ~/.arcmemo)",
         group="files", key=False, flag=False),
    _row("log_path", file_path, None, "the call log and response cache (default: calls.db in the user directory)",
         group="files", env=("ARCMEMO_LOG_DB",), flag="--log"),
    _row("models_dir", file_path, None, "where the embedded models' weights are assembled (default "
         "$XDG_CACHE_HOME/arcmemo/models)", group="files", flag=False),
    _row("serve_host", text, "127.0.0.1", "the address `arcmemo serve` listens on (loopback only; another needs "
         "--host)", group="files", flag=False),
)
BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}


def declared(name: str) -> Setting:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"no setting {name!r} is declared (arcmemo/core/config.py)") from None


def default_of(name: str) -> Any:
    return declared(name).default


# -- finding a value

def raw_value(name: str, flag: Any = None, *, config: dict | None = None) -> tuple[Any, str]:
    """(raw value, where it came from) of one setting: flag > env vars > config file; (None, "default")
    when none of them sets it."""
    setting = declared(name)
    if flag is not None:
        return flag, "flag " + (setting.flag or "--" + name.replace("_", "-"))
    for env in setting.env:
        if os.environ.get(env) not in (None, ""):
            return os.environ[env], "env " + env
    if setting.key:
        cfg = load_config_file() if config is None else config
        if cfg.get(setting.key) is not None:
            return cfg[setting.key], f"config {config_file()}"
    return None, DEFAULT


def resolve(name: str, flag: Any = None, *, config: dict | None = None) -> tuple[Any, str]:
    """(checked value, source) of one setting; ConfigError naming the setting and its source when
    the value fails its check."""
    raw, source = raw_value(name, flag, config=config)
    if raw is None:
        return declared(name).default, source
    check = declared(name).check
    try:
        return check(raw), source
    except ValueError:
        raise ConfigError(f"setting {name} (from {source}): expected {check.expected}, got {raw!r}") from None


def setting_value(name: str, flag: Any = None) -> Any:
    """One setting's checked value (a command that needs just this one)."""
    return resolve(name, flag)[0]


class Resolved(NamedTuple):
    values: dict[str, Any]
    sources: dict[str, str]


def resolve_all(names: Iterable[str], flags: dict[str, Any] | None = None) -> Resolved:
    """The settings `names`, each from its flag (a keyword of `flags`, None = not given), env vars,
    the config file (read once here) or its default; ConfigError naming the first bad one."""
    flags = dict(flags or {})
    names = list(names)
    unknown = set(flags) - set(names)
    if unknown:
        raise TypeError(f"unknown settings {sorted(unknown)}")
    config = load_config_file()
    values, sources = {}, {}
    for name in names:
        values[name], sources[name] = resolve(name, flags.get(name), config=config)
    return Resolved(values, sources)


def did_you_mean(name: Any, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` for the known name nearest a misspelt one, or '' when none is near."""
    import difflib

    nearest = difflib.get_close_matches(str(name), list(known), n=1)
    return f"; did you mean {nearest[0]!r}?" if nearest else ""


def db_url(flag: str | None = None) -> str:
    """The memory database: --db > ARCMEMO_DB > config `db` > ./memory.db."""
    return str(setting_value("db", flag))


REDACTED = "***"


def memory_url_for_record(url: str) -> str:
    """A memory URL as the run directory keeps it: a SQLite path made absolute (so a resume from
    another directory finds it), a password replaced by ***. (Here, not in run/config.py, so the
    lean read commands can match a run to its memory without loading the model client.)"""
    if "://" not in url:
        return os.path.abspath(url)
    if "@" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        if ":" in creds:
            return f"{scheme}://{creds.split(':', 1)[0]}:{REDACTED}@{host}"
    return url


__all__ = ["REDACTED", "memory_url_for_record", "ConfigError", "user_dir", "config_file", "load_config_file", "known_keys",
           "Setting", "SETTINGS", "BY_NAME", "Resolved", "MODEL_ROLES", "REASONING_EFFORTS", "GRID_TEXTS",
           "MAX_TEMPERATURE", "DEFAULT", "declared", "default_of", "raw_value", "resolve", "setting_value",
           "resolve_all", "db_url", "did_you_mean", "integer", "number", "text", "directory", "file_path", "boolean", "one_of"]
