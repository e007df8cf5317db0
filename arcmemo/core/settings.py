"""Settings: what a command opens (the memory, the runs, the sandbox, the prompts), checked once.

`Settings.load(**flags)` builds the one settings object of a command at its start: each
setting below is found and checked by the one declaration of every setting
(config.py: flag > env var > config file > default), and a bad value fails there,
naming the setting and where it came from:

    setting sandbox_workers (from env ARCMEMO_SANDBOX_WORKERS): expected an integer >= 1, got 'x'

The object is then passed down (run session -> runner -> steps); no module deeper in
arcmemo reads a setting itself. The model settings (endpoint, model per role, the embedded
model's, the call log) come from the same table through `arcmemo.llm.LLMSettings.resolve`,
which the run layer calls once beside this. Each object keeps where every value came from
(`origin`, `record`): a run writes it into its config.json.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core.config import (
    DEFAULT,
    MODEL_ROLES,
    ConfigError,
    config_file,
    default_of,
    known_keys,
    load_config_file,
    resolve_all,
    user_dir,
)

DEFAULT_DB = default_of("db")
DEFAULT_RUNS_DIR = default_of("runs_dir")


@dataclass(frozen=True)
class Settings:
    """Every setting a command opens something with, checked (config.py declares each: its
    check, default, env var, config key and help). Build it with `Settings.load()`."""

    db: str = default_of("db")
    runs_dir: str = default_of("runs_dir")
    sandbox_workers: int | None = default_of("sandbox_workers")
    sandbox_timeout_s: float = default_of("sandbox_timeout_s")
    sandbox_memory_mb: int = default_of("sandbox_memory_mb")
    abstraction_memory_tokens: int = default_of("abstraction_memory_tokens")
    seeds_dir: Path | None = default_of("seeds_dir")
    prompts_dir: Path | None = default_of("prompts_dir")
    grid_text: str = default_of("grid_text")
    origins: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, **flags: Any) -> Settings:
        """Each setting from its flag (a keyword here, None = not given), env var, the config file
        or its default; ConfigError naming the first bad one and where it came from."""
        unknown = set(flags) - set(cls.names())
        if unknown:
            raise TypeError(f"Settings.load: unknown settings {sorted(unknown)}")
        resolved = resolve_all(cls.names(), flags)
        return cls(**resolved.values, origins=resolved.sources)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls) if f.name != "origins"]

    def origin(self, name: str) -> str:
        return self.origins.get(name, DEFAULT)

    def record(self) -> dict[str, dict[str, Any]]:
        """For a run's config.json: each setting's value and where it came from."""
        return {name: {"value": _plain(getattr(self, name)), "from": self.origin(name)} for name in self.names()}


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value


__all__ = ["Settings", "DEFAULT_RUNS_DIR", "DEFAULT_DB", "MODEL_ROLES", "ConfigError", "user_dir", "config_file",
           "load_config_file", "known_keys"]
