"""The model catalog: role defaults, aliases, prices and traits from models.yaml.

The packaged file (arcmemo/data/models.yaml) is read first, then $ARCMEMO_HOME/models.yaml
if present; the user's entries override the packaged ones key by key (a trait entry field
by field). The packaged file is read from its JSON copy, models.json (written by
scripts/generate_models_json.py; a test keeps the two the same): a command that reads the
catalog (`models list`, a solve's start) loads no YAML parser unless the user has a file.

Traits say what a model takes: its context window in tokens, whether it reads images
(`vision`), whether it is a reasoning model (`reasoning`: takes `max_completion_tokens`
and `reasoning_effort`, never `max_tokens`), and which tokenizer counts its tokens. A
dated snapshot (`gpt-4.1-mini-2025-04-14`) takes the traits of its longest listed prefix,
as prices do; a model not listed takes the `"*"` entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core.config import ConfigError, user_dir

ROLES = ("solver", "aux", "select")
PACKAGED = "arcmemo/data/models.yaml"
PACKAGED_JSON = Path(__file__).resolve().parents[1] / "data" / "models.json"


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


@dataclass(frozen=True)
class ModelTraits:
    """What a model takes. models.yaml always gives every field; a test double may leave
    some undeclared (None): no known context, and parameters and image parts passed on as
    the caller wrote them, neither translated nor refused."""

    context: int | None
    vision: bool | None = None
    reasoning: bool | None = None
    tokenizer: str | None = None    # tokens.py: o200k_base, cl100k_base, qwen2; None: estimate

    def to_dict(self) -> dict[str, Any]:
        return {"context": self.context, "vision": self.vision, "reasoning": self.reasoning,
                "tokenizer": self.tokenizer}


TRAIT_FIELDS = ("context", "vision", "reasoning", "tokenizer")
DEFAULT_TRAITS = "*"


@dataclass
class Catalog:
    defaults: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, Target] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)
    traits_table: dict[str, dict[str, Any]] = field(default_factory=dict)
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
        best = _listed(model, self.prices)
        return self.prices[best] if best else None

    def traits(self, model: str) -> ModelTraits:
        """The model's traits: its entry (or its longest listed prefix), fields it leaves out
        from the `"*"` entry."""
        entry = dict(self.traits_table.get(DEFAULT_TRAITS, {}))
        best = _listed(model, {k: v for k, v in self.traits_table.items() if k != DEFAULT_TRAITS})
        if best:
            entry.update(self.traits_table[best])
        return ModelTraits(context=entry.get("context"), vision=bool(entry.get("vision", False)),
                           reasoning=bool(entry.get("reasoning", False)), tokenizer=entry.get("tokenizer"))

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int,
             cached_prompt_tokens: int = 0) -> float:
        price = self.price(model)
        if price is None:
            return 0.0
        cached = min(cached_prompt_tokens, prompt_tokens) if price.cached_input is not None else 0
        total = ((prompt_tokens - cached) * price.input + completion_tokens * price.output
                 + cached * (price.cached_input or 0.0))
        return total / 1_000_000


def _listed(model: str, table: dict[str, Any]) -> str | None:
    """`model` if it is a key of `table`, else its longest listed prefix followed by '-'."""
    if model in table:
        return model
    best = None
    for name in table:
        if model.startswith(name + "-") and (best is None or len(name) > len(best)):
            best = name
    return best


SECTIONS = ("defaults", "aliases", "prices", "traits")


def _read(text: str, where: str) -> dict[str, Any]:
    # imported here: only a user's models.yaml is YAML to parse (the packaged one is read as JSON)
    from arcmemo.core import safeyaml

    try:
        data = safeyaml.load(text) or {}
    except safeyaml.YAMLError as exc:
        raise ConfigError(f"{where}: invalid YAML: {safeyaml.describe(exc)}") from None
    return _sections(data, where)


def _sections(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping with {'/'.join(SECTIONS)}")
    unknown = set(data) - set(SECTIONS)
    if unknown:
        raise ConfigError(f"{where}: unknown section(s) {sorted(unknown)}; "
                          f"expected {', '.join(SECTIONS)}")
    return data


def _trait_entry(name: str, value: Any, where: str) -> dict[str, Any]:
    """One `traits:` entry, checked field by field."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: traits for {name!r}: expected a mapping of "
                          f"{', '.join(TRAIT_FIELDS)}")
    unknown = set(value) - set(TRAIT_FIELDS)
    if unknown:
        raise ConfigError(f"{where}: traits for {name!r}: unknown field(s) {sorted(unknown)}; "
                          f"expected {', '.join(TRAIT_FIELDS)}")
    context = value.get("context")
    if "context" in value and (isinstance(context, bool) or not isinstance(context, int) or context < 256):
        raise ConfigError(f"{where}: traits for {name!r}: context must be a whole number of tokens "
                          f"(at least 256), got {context!r}")
    for flag in ("vision", "reasoning"):
        if flag in value and not isinstance(value[flag], bool):
            raise ConfigError(f"{where}: traits for {name!r}: {flag} must be true or false, "
                              f"got {value[flag]!r}")
    if value.get("tokenizer") is not None and not isinstance(value["tokenizer"], str):
        raise ConfigError(f"{where}: traits for {name!r}: tokenizer must be a name, "
                          f"got {value['tokenizer']!r}")
    return dict(value)


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
    traits = data.get("traits") or {}
    if not isinstance(traits, dict):
        raise ConfigError(f"{where}: traits must map a model to {{context, vision, reasoning}}")
    for name, value in traits.items():
        entry = catalog.traits_table.setdefault(str(name), {})
        entry.update(_trait_entry(str(name), value, where))
    catalog.sources.append(where)


def load_catalog() -> Catalog:
    catalog = Catalog()
    _merge_into(catalog, _sections(json.loads(PACKAGED_JSON.read_text(encoding="utf-8")), PACKAGED), PACKAGED)
    user_file = Path(user_dir()) / "models.yaml"
    if user_file.exists():
        _merge_into(catalog, _read(user_file.read_text(), str(user_file)), str(user_file))
    return catalog
