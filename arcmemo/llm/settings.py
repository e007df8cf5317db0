"""The model client's settings (`LLMSettings.resolve`): the endpoint, the model per role and what
its calls are sent, retries and time budgets, the embedded model's server, the call log.

Every one is a row of the one declaration of settings (arcmemo/core/config.py: its
check, default, env vars, config key and help), found and checked there: flag (argument) >
env var > config.yaml > default. A bad value fails here, at start-up, naming the setting and
where it came from. The endpoint takes ARCMEMO_BASE_URL, then OPENAI_BASE_URL (the API key
ARCMEMO_API_KEY, then OPENAI_API_KEY); each value's source is kept (`origin`, `record`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from arcmemo.core.config import DEFAULT, default_of, resolve_all
from arcmemo.core.secrets import register_secret
from arcmemo.llm.catalog import ROLES, load_catalog

OPENAI_URL = "https://api.openai.com/v1"     # the endpoint when only an API key is given
# The per-role settings a call gets when it sets the parameter itself to nothing.
CALL_DEFAULTS = ("temperature", "max_tokens", "reasoning_effort")
# LLMSettings' fields that are not settings: what resolve found out, not what it was given
DERIVED = ("defaulted", "origins")


@dataclass
class LLMSettings:
    """The model settings, each a declared setting (config.py) of the same name; its
    default is the declared one. Build it with `LLMSettings.resolve()` (tests make one directly)."""

    base_url: str | None = default_of("base_url")
    api_key: str | None = field(default=default_of("api_key"), repr=False)
    # resolve() defaults a role to `local`, or to models.yaml's default once an endpoint is configured
    solver_model: str = "local"
    aux_model: str = "local"
    select_model: str = "local"
    # What a role's call is sent when it sets none (None: the model's default; not sent). The paper:
    # o4-mini at 32,000 tokens and medium effort; GPT-4.1 for the aux steps at 0.3 and 1,000 tokens.
    solver_temperature: float | None = default_of("solver_temperature")
    aux_temperature: float | None = default_of("aux_temperature")
    select_temperature: float | None = default_of("select_temperature")
    solver_max_tokens: int | None = default_of("solver_max_tokens")
    aux_max_tokens: int | None = default_of("aux_max_tokens")
    select_max_tokens: int | None = default_of("select_max_tokens")
    solver_reasoning_effort: str | None = default_of("solver_reasoning_effort")
    aux_reasoning_effort: str | None = default_of("aux_reasoning_effort")
    select_reasoning_effort: str | None = default_of("select_reasoning_effort")
    concurrency: int = default_of("concurrency")
    cache: bool = default_of("cache")
    timeout_s: float = default_of("timeout_s")
    call_budget_s: float = default_of("call_budget_s")
    max_attempts: int = default_of("max_attempts")
    backoff_base_s: float = default_of("backoff_base_s")
    backoff_max_s: float = default_of("backoff_max_s")
    max_retry_after_s: float = default_of("max_retry_after_s")
    # the embedded model's server (llm/local.py) and its calls
    local_n_ctx: int = default_of("local_n_ctx")
    local_threads: int = default_of("local_threads")
    local_slots: int = default_of("local_slots")
    local_max_tokens: int = default_of("local_max_tokens")
    log_path: str | None = default_of("log_path")   # None: calls.db in the user directory (log.py)
    defaulted: tuple[str, ...] = ()  # roles whose model no flag, env var or config file named (run/progress/longrun.py)
    origins: dict[str, str] = field(default_factory=dict, compare=False, repr=False)   # setting -> its source

    def __post_init__(self) -> None:
        register_secret(self.api_key)   # never to be logged, stored or sent in a prompt
        if self.base_url:
            register_secret(urlsplit(self.base_url).password)

    @classmethod
    def names(cls) -> list[str]:
        """The settings it holds (each a declared setting)."""
        return [f.name for f in fields(cls) if f.name not in DERIVED]

    @classmethod
    def resolve(cls, **flags: Any) -> LLMSettings:
        """Each setting from its flag (a keyword here, None = not given), env vars, config.yaml or its
        default (config.py); ConfigError naming the first bad one and where it came from.
        A role's model defaults to `local` unless an endpoint is configured, then to the role's
        default in models.yaml."""
        unknown = set(flags) - set(cls.names())
        if unknown:
            raise TypeError(f"LLMSettings.resolve: unknown settings {sorted(unknown)}")
        values, sources = resolve_all(cls.names(), flags)
        endpoint = values["base_url"] or values["api_key"]
        defaults = load_catalog().defaults if endpoint else {}
        defaulted = []
        for role in ROLES:
            if values[f"{role}_model"] is None:
                values[f"{role}_model"] = defaults.get(role, "local")
                defaulted.append(role)
        if values["log_path"] is not None:
            values["log_path"] = str(values["log_path"])
        return cls(**values, defaulted=tuple(defaulted), origins=sources)

    def origin(self, name: str) -> str:
        """Where setting `name`'s value came from: a flag, an env var, the config file, the default
        (`given` for settings made directly, not resolved)."""
        return self.origins.get(name, DEFAULT if self.origins else "given")

    def record(self) -> dict[str, dict[str, Any]]:
        """For a run's config.json: each setting's value (the API key as set or not, a password in the
        base URL as ***) and where it came from."""
        data = self.to_dict()
        return {name: {"value": data[name], "from": self.origin(name)} for name in self.names()}

    def model(self, role: str) -> str:
        if role not in ROLES:
            raise ValueError(f"unknown model role {role!r}; roles are {', '.join(ROLES)}")
        return getattr(self, f"{role}_model")

    def temperature(self, role: str) -> float | None:
        """The temperature a call for `role` gets when it sets none."""
        self.model(role)
        return getattr(self, f"{role}_temperature")

    def call_defaults(self, role: str) -> dict[str, Any]:
        """What a call for `role` is sent when it sets none of these: temperature, max_tokens,
        reasoning_effort (the unset ones left out)."""
        self.model(role)
        values = {name: getattr(self, f"{role}_{name}") for name in CALL_DEFAULTS}
        return {name: value for name, value in values.items() if value is not None}

    def to_dict(self) -> dict[str, Any]:
        """For run configs: everything but the API key (and any password in the base URL)."""
        data = {k: v for k, v in asdict(self).items() if k != "origins"}
        data["api_key"] = "set" if self.api_key else None
        data["base_url"] = url_for_record(self.base_url)
        return data


def url_for_record(url: str | None) -> str | None:
    """`url` with the password of any user:password@ part replaced by ***."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


__all__ = ["LLMSettings", "CALL_DEFAULTS", "OPENAI_URL", "url_for_record"]
