"""One model client for any OpenAI-compatible endpoint and the embedded offline model.

- client.py: `LLM`, a call's path (checks, cache, retries, log, accounts, endpoint trouble);
- settings.py: `LLMSettings`, resolved and validated once;
- catalog.py: models.yaml (role defaults, aliases, prices, model traits);
- routing.py, backend.py, openai_backend.py (the `openai` package), local.py: where calls go;
- params.py: parameters and messages in the form each model takes;
- retry.py, loop.py, usage.py, errors.py, tokens.py, log.py + logdb.py (the call log);
- fake.py: the scripted test double (tests only).

The names below load on first use, so a command that only reads the catalog (`models
list`) or the settings does not pay for the client and its dependencies at start-up.
"""

from importlib import import_module

_HOMES = {"register_model": "backend", "unregister_model": "backend", "ROLES": "catalog", "ModelTraits": "catalog",
          "LLM": "client", "EndpointFatal": "errors", "EndpointUnavailable": "errors", "LLMError": "errors",
          "UnsupportedParameter": "errors", "LLMSettings": "settings", "Completion": "usage", "Usage": "usage"}
__all__ = list(_HOMES)


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(import_module(f"arcmemo.llm.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'arcmemo.llm' has no attribute {name!r}")
