"""Settings: a command-line flag beats an env var (ARCMEMO_*) beats the config file beats the default.

`Settings.load(**flags)` builds the one settings object of a command at its start: every
setting below is looked up once, parsed and checked, and a bad value fails there, naming
the setting and where it came from:

    setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got 'x'

The object is then passed down (run session -> runner -> steps); no module deeper in
arcmemo reads a setting itself. The model settings (endpoint, model per role, the embedded
model's) are resolved in one place too, `arcmemo.llm.LLMSettings.resolve`, which the run
layer calls once beside this.

The config file, the user directory and the lookup of one setting are in config.py (and
importable from here too).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core.config import (
    DEFAULT_DB,
    MODEL_KEYS,
    MODEL_ROLES,
    OTHER_KEYS,
    ConfigError,
    as_number,
    config_file,
    db_url,
    known_keys,
    load_config_file,
    lookup,
    setting,
    user_dir,
)
from arcmemo.core.gridtext import DEFAULT_GRID_TEXT, GRID_TEXTS

DEFAULT_RUNS_DIR = "runs"

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


__all__ = ["Settings", "DEFAULT_RUNS_DIR", "integer", "number", "text", "directory", "one_of",
           # config.py's, for the modules that read both
           "DEFAULT_DB", "MODEL_ROLES", "MODEL_KEYS", "OTHER_KEYS", "ConfigError", "user_dir", "config_file",
           "load_config_file", "known_keys", "lookup", "setting", "as_number", "db_url"]
