"""The model client's settings, resolved and validated in one place (`LLMSettings.resolve`).

Each setting: flag (argument) > env var > config.yaml > default. A bad value fails here,
at start-up, naming the setting.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from arcmemo.core.config import ConfigError, as_number, load_config_file, lookup, setting
from arcmemo.core.secrets import register_secret
from arcmemo.llm.catalog import ROLES, load_catalog
from arcmemo.llm.params import REASONING_EFFORTS

OPENAI_URL = "https://api.openai.com/v1"     # the endpoint when only an API key is given
# The per-role settings a call gets when it sets the parameter itself to nothing.
CALL_DEFAULTS = ("temperature", "max_tokens", "reasoning_effort")

MAX_TEMPERATURE = 2.0

# name -> (type, minimum): the numeric settings `resolve` takes from `more`.
NUMBERS = {
    "timeout_s": (float, 0.001),
    "call_budget_s": (float, 0.001),
    "max_attempts": (int, 1),
    "backoff_base_s": (float, 0.0),
    "backoff_max_s": (float, 0.0),
    "max_retry_after_s": (float, 0.0),
}


def as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"setting {name}: expected true/false, got {value!r}")


def as_temperature(value: Any, name: str) -> float | None:
    if value is None or value == "":
        return None
    number = as_number(value, name, float, 0.0)
    if number > MAX_TEMPERATURE:
        raise ConfigError(f"setting {name}: must be <= {MAX_TEMPERATURE:g}, got {value!r}")
    return number


def as_effort(value: Any, name: str) -> str | None:
    if value is None or value == "":
        return None
    if value not in REASONING_EFFORTS:
        raise ConfigError(f"setting {name}: expected one of {', '.join(REASONING_EFFORTS)}, got {value!r}")
    return value


@dataclass
class LLMSettings:
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    solver_model: str = "local"
    aux_model: str = "local"
    select_model: str = "local"
    solver_temperature: float | None = None   # used when a call sets none (None: the model's default)
    aux_temperature: float | None = None      # the paper: GPT-4.1 at 0.3 for the aux steps
    select_temperature: float | None = None
    # A role's completion limit and reasoning effort, sent when a call sets none (None: not sent).
    # The paper: o4-mini at 32,000 tokens and medium effort; GPT-4.1 for the aux steps at 1,000.
    solver_max_tokens: int | None = None
    aux_max_tokens: int | None = None
    select_max_tokens: int | None = None
    solver_reasoning_effort: str | None = None
    aux_reasoning_effort: str | None = None
    select_reasoning_effort: str | None = None
    concurrency: int = 8
    cache: bool = True
    timeout_s: float = 300.0         # one HTTP attempt (cut to what is left of the call's budget)
    call_budget_s: float = 600.0     # one call, all attempts and waits (the embedded models: 1 h)
    max_attempts: int = 6            # per call, first try included
    backoff_base_s: float = 1.0      # delay before retry i is base * 2**(i-1), jittered, capped
    backoff_max_s: float = 60.0
    max_retry_after_s: float = 300.0  # a longer Retry-After fails the call instead of stalling
    log_path: str | None = None      # None: $ARCMEMO_LOG_DB or $ARCMEMO_HOME/calls.db
    defaulted: tuple[str, ...] = ()  # roles whose model no flag, env var or config file named (run/progress/longrun.py)

    def __post_init__(self) -> None:
        register_secret(self.api_key)   # never to be logged, stored or sent in a prompt
        if self.base_url:
            register_secret(urlsplit(self.base_url).password)

    @classmethod
    def resolve(cls, base_url=None, api_key=None, solver_model=None, aux_model=None,
                select_model=None, concurrency=None, cache=None, **more) -> LLMSettings:
        """Each setting: flag (argument) > env var > config.yaml > default.

        Endpoint: OPENAI_BASE_URL / OPENAI_API_KEY (also ARCMEMO_BASE_URL, config `base_url`).
        Models: ARCMEMO_<ROLE>_MODEL / config `<role>_model`; the default is `local` unless
        an endpoint is configured, then the role's default in models.yaml.
        `more` takes the other fields (timeout_s, call_budget_s, max_attempts, backoff_base_s,
        <role>_temperature, ...). The embedded model's `local_*` settings are checked here too.
        """
        config = load_config_file()
        base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("ARCMEMO_BASE_URL")
                    or config.get("base_url") or None)
        api_key = api_key or os.environ.get("OPENAI_API_KEY") or config.get("api_key") or None
        catalog = load_catalog()
        flags = {"solver": solver_model, "aux": aux_model, "select": select_model}
        values: dict[str, Any] = {}
        defaulted = []
        for role in ROLES:
            default = catalog.defaults.get(role, "local") if (base_url or api_key) else "local"
            named, origin = lookup(f"{role}_model", flags[role], config=config)
            values[f"{role}_model"] = str(default if named is None else named)
            if origin == "default":
                defaulted.append(role)
            name = f"{role}_temperature"
            values[name] = as_temperature(setting(name, more.pop(name, None), None, config=config), name)
            name = f"{role}_max_tokens"
            value = setting(name, more.pop(name, None), None, config=config)
            values[name] = None if value in (None, "") else as_number(value, name, int, 1)
            name = f"{role}_reasoning_effort"
            values[name] = as_effort(setting(name, more.pop(name, None), None, config=config), name)
        values["concurrency"] = as_number(setting("concurrency", concurrency, 8, config=config),
                                          "concurrency", int, 1)
        values["cache"] = as_bool(setting("cache", cache, True, config=config), "cache")
        for name, (kind, minimum) in NUMBERS.items():
            value = setting(name, more.pop(name, None), None, config=config)
            if value is not None:
                values[name] = as_number(value, name, kind, minimum)
        log_path = more.pop("log_path", None)
        if more:
            raise TypeError(f"LLMSettings.resolve: unknown settings {sorted(more)}")
        from arcmemo.llm.local import check_settings

        check_settings()
        return cls(base_url=base_url, api_key=api_key, log_path=log_path, defaulted=tuple(defaulted), **values)

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
        data = asdict(self)
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


__all__ = ["LLMSettings", "CALL_DEFAULTS", "as_bool", "as_effort", "url_for_record"]
