"""A call's parameters and messages, checked and put in the form the model takes.

- Reasoning models (`reasoning: true` in models.yaml) take `max_completion_tokens` and
  `reasoning_effort`, never `max_tokens`: a `max_tokens` becomes `max_completion_tokens`.
  Other models take `max_tokens` (a `max_completion_tokens` becomes `max_tokens`) and
  asking them for `reasoning_effort` is an `UnsupportedParameter` error, raised before
  any call. Image parts need a model with `vision: true`. A test double that declares
  no traits gets the parameters as the caller wrote them.
- A call that sets no temperature, max_tokens (or max_completion_tokens) or reasoning_effort
  gets its role's setting of it, if any (`defaults`: LLMSettings.call_defaults).
- Messages are `{'role', 'content'}` dicts; content is text or a list of parts
  (`{"type": "text", "text": ...}`, `{"type": "image_url", "image_url": {"url": ...}}`).
  Known secrets are redacted from every text part before anything is sent or logged.
"""

from __future__ import annotations

from typing import Any

from arcmemo.core.config import REASONING_EFFORTS
from arcmemo.core.secrets import redact
from arcmemo.llm.catalog import ModelTraits
from arcmemo.llm.errors import UnsupportedParameter

PARAMS = ("temperature", "top_p", "max_tokens", "max_completion_tokens", "reasoning_effort",
          "seed", "n", "stop", "response_format", "extra_body")


def model_params(params: dict[str, Any], traits: ModelTraits, *, model: str,
                 defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """`params` without unset values, its role's `defaults` added, in the form `model` takes
    (see the module docstring)."""
    unknown = set(params) - set(PARAMS)
    if unknown:
        raise TypeError(f"achat: unknown parameter(s) {sorted(unknown)}; known: {', '.join(PARAMS)}")
    out = {k: v for k, v in params.items() if v is not None}
    for name, value in (defaults or {}).items():
        given = ("max_tokens", "max_completion_tokens") if name == "max_tokens" else (name,)
        if value is not None and not set(given) & set(out):
            out[name] = value
    if "max_tokens" in out and "max_completion_tokens" in out:
        raise TypeError("achat: give max_tokens or max_completion_tokens, not both")
    if traits.reasoning is None:        # undeclared (a test double): as the caller wrote them
        return out
    if traits.reasoning:
        if "max_tokens" in out:
            out["max_completion_tokens"] = out.pop("max_tokens")
        effort = out.get("reasoning_effort")
        if effort is not None and effort not in REASONING_EFFORTS:
            raise UnsupportedParameter(f"reasoning_effort {effort!r} is not one of "
                                       f"{', '.join(REASONING_EFFORTS)}", model=model)
    else:
        if "reasoning_effort" in out:
            raise UnsupportedParameter(
                f"model {model!r} does not take reasoning_effort: it is not a reasoning model "
                "(models.yaml traits: reasoning: false; mark it `reasoning: true` in "
                "$ARCMEMO_HOME/models.yaml if it is one)", model=model)
        if "max_completion_tokens" in out:
            out["max_tokens"] = out.pop("max_completion_tokens")
    return out


def check_messages(messages: Any, traits: ModelTraits, *, model: str) -> list[dict[str, Any]]:
    """`messages` checked, with known secrets redacted from their text (a new list)."""
    if not isinstance(messages, list) or not messages:
        raise TypeError("achat: messages must be a non-empty list of {'role', 'content'} dicts")
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message or "content" not in message:
            raise TypeError(f"achat: messages[{i}] must be a dict with 'role' and 'content'")
        content = message["content"]
        if isinstance(content, str):
            content = redact(content)
        elif isinstance(content, list):
            content = [_part(part, i, j, traits, model) for j, part in enumerate(content)]
        elif content is not None:
            raise TypeError(f"achat: messages[{i}]['content'] must be text or a list of parts, "
                            f"not {type(content).__name__}")
        out.append({**message, "content": content})
    return out


def _part(part: Any, i: int, j: int, traits: ModelTraits, model: str) -> dict[str, Any]:
    where = f"messages[{i}]['content'][{j}]"
    if not isinstance(part, dict) or not isinstance(part.get("type"), str):
        raise TypeError(f"achat: {where} must be a dict with a 'type' (text, image_url)")
    if part["type"] == "text":
        if not isinstance(part.get("text"), str):
            raise TypeError(f"achat: {where} is a text part without 'text'")
        return {**part, "text": redact(part["text"])}
    if part["type"] == "image_url":
        image = part.get("image_url")
        if not isinstance(image, dict) or not isinstance(image.get("url"), str):
            raise TypeError(f"achat: {where} is an image part without image_url.url")
        if traits.vision is False:
            raise UnsupportedParameter(
                f"model {model!r} does not take images (models.yaml traits: vision: false)", model=model)
    return part


def message_text(messages: list[dict[str, Any]]) -> str:
    """The text of `messages`, parts joined (images left out)."""
    texts = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "\n".join(texts)


__all__ = ["PARAMS", "REASONING_EFFORTS", "model_params", "check_messages", "message_text"]
