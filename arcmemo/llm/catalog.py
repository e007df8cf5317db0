"""The model catalog: role defaults, aliases and prices from models.yaml.

The packaged file (arcmemo/data/models.yaml) is read first, then $ARCMEMO_HOME/models.yaml
if present; the user's entries override the packaged ones key by key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from arcmemo.core.settings import ConfigError, user_dir

ROLES = ("solver", "aux", "select")


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cached_input: float | None = None


@dataclass(frozen=True)
class Target:
    """What a model name resolves to: the model to request and, optionally, its own endpoint."""

    model: str
    base_url: str | None = None


@dataclass
class Catalog:
    defaults: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, Target] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def resolve(self, name: str) -> Target:
        """Follow aliases (chains allowed) to the model actually requested."""
        seen: list[str] = []
        base_url = None
        current = name
        while current in self.aliases:
            if current in seen:
                raise ConfigError(f"models.yaml: alias cycle {' -> '.join(seen + [current])}")
            seen.append(current)
            target = self.aliases[current]
            base_url = base_url or target.base_url
            current = target.model
        return Target(current, base_url)

    def price(self, model: str) -> Price | None:
        """Exact price, else the longest priced prefix (dated snapshots), else None."""
        if model in self.prices:
            return self.prices[model]
        best = None
        for name in self.prices:
            if model.startswith(name + "-") and (best is None or len(name) > len(best)):
                best = name
        return self.prices[best] if best else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int,
             cached_prompt_tokens: int = 0) -> float:
        price = self.price(model)
        if price is None:
            return 0.0
        cached = min(cached_prompt_tokens, prompt_tokens) if price.cached_input is not None else 0
        total = ((prompt_tokens - cached) * price.input + completion_tokens * price.output
                 + cached * (price.cached_input or 0.0))
        return total / 1_000_000


def _read(text: str, where: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping with defaults/aliases/prices")
    unknown = set(data) - {"defaults", "aliases", "prices"}
    if unknown:
        raise ConfigError(f"{where}: unknown section(s) {sorted(unknown)}; "
                          "expected defaults, aliases, prices")
    return data


def _merge_into(catalog: Catalog, data: dict[str, Any], where: str) -> None:
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise ConfigError(f"{where}: defaults must map a role to a model name")
    for role, model in defaults.items():
        if role not in ROLES:
            raise ConfigError(f"{where}: defaults: unknown role {role!r} (roles: {', '.join(ROLES)})")
        catalog.defaults[role] = str(model)
    aliases = data.get("aliases") or {}
    if not isinstance(aliases, dict):
        raise ConfigError(f"{where}: aliases must map a name to a model")
    for name, value in aliases.items():
        if isinstance(value, str):
            catalog.aliases[str(name)] = Target(value)
        elif isinstance(value, dict) and isinstance(value.get("model"), str):
            catalog.aliases[str(name)] = Target(value["model"], value.get("base_url"))
        else:
            raise ConfigError(f"{where}: alias {name!r}: expected a model name or "
                              "{model: NAME, base_url: URL}")
    prices = data.get("prices") or {}
    if not isinstance(prices, dict):
        raise ConfigError(f"{where}: prices must map a model to {{input, output}}")
    for name, value in prices.items():
        try:
            catalog.prices[str(name)] = Price(
                float(value["input"]), float(value["output"]),
                None if value.get("cached_input") is None else float(value["cached_input"]))
        except (TypeError, KeyError, ValueError):
            raise ConfigError(f"{where}: price for {name!r}: expected {{input: USD/M, output: USD/M}}"
                              ) from None
    catalog.sources.append(where)


def load_catalog() -> Catalog:
    catalog = Catalog()
    packaged = resources.files("arcmemo").joinpath("data/models.yaml")
    _merge_into(catalog, _read(packaged.read_text(), "arcmemo/data/models.yaml"), "arcmemo/data/models.yaml")
    user_file = Path(user_dir()) / "models.yaml"
    if user_file.exists():
        _merge_into(catalog, _read(user_file.read_text(), str(user_file)), str(user_file))
    return catalog
