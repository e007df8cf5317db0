"""One model client for any OpenAI-compatible endpoint and the embedded offline model.

- client.py: `LLM`, a call's path (checks, cache, retries, log, accounts, endpoint trouble);
- settings.py: `LLMSettings`, resolved and validated once;
- catalog.py: models.yaml (role defaults, aliases, prices, model traits);
- routing.py, backend.py, openai_backend.py, local.py: where calls go;
- params.py: parameters and messages in the form each model takes;
- retry.py, loop.py, usage.py, errors.py, tokens.py, log.py + logdb.py (the call log);
- fake.py: the scripted test double (tests only).
"""

from arcmemo.llm.backend import register_model, unregister_model
from arcmemo.llm.catalog import ROLES, ModelTraits
from arcmemo.llm.client import LLM
from arcmemo.llm.errors import EndpointFatal, EndpointUnavailable, LLMError, UnsupportedParameter
from arcmemo.llm.settings import LLMSettings
from arcmemo.llm.usage import Completion, Usage

__all__ = ["LLM", "LLMSettings", "Completion", "Usage", "LLMError", "EndpointFatal", "EndpointUnavailable",
           "UnsupportedParameter", "ModelTraits", "ROLES", "register_model", "unregister_model"]
