"""One model client for any OpenAI-compatible endpoint (client.py), every call logged and
cached (log.py), and the embedded offline model (local.py). Tests use fake.FakeModel."""

from arcmemo.llm.backend import LLMError, register_model, unregister_model
from arcmemo.llm.client import LLM, ROLES, Completion, LLMSettings, Usage

__all__ = ["LLM", "LLMSettings", "Completion", "Usage", "LLMError", "ROLES",
           "register_model", "unregister_model"]
