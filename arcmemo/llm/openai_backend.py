"""The backend for any OpenAI-compatible chat endpoint, over the `openai` package.

The openai client's own retries are off (max_retries=0): the client retries every backend
the same way (retry.py), so each attempt is visible and the whole call stays within its
time budget. Errors are sorted here, with the server's own message:
- transient (retried): 429, 408, 409, 425, 5xx, timeouts, connection errors, malformed bodies;
- fatal for the run (EndpointFatal): 401, 403, 404 (unknown model, wrong base URL), and
  a 429 or 400 whose error code says the quota is spent, the model does not exist or a
  parameter is not supported (FATAL_CODES);
- anything else (400: this request is bad) fails the one call (LLMError), as does
  llama.cpp's 500 "Context size has been exceeded": the request outgrew the server's
  context, and sent again it outgrows it again.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any

import openai
from openai import AsyncOpenAI

from arcmemo.core.secrets import redact
from arcmemo.llm.backend import CallRequest, EndpointFatal, LLMError, Reply, TransientError
from arcmemo.llm.settings import OPENAI_URL

TRANSIENT_STATUS = {408, 409, 425, 429}
FATAL_STATUS = {401, 403, 404}
# error codes no retry can fix; unsupported_*: a parameter every call of the role carries
# (e.g. a temperature sent to an OpenAI reasoning model), so every call would fail alike
FATAL_CODES = {"insufficient_quota", "model_not_found", "invalid_api_key", "unsupported_parameter",
               "unsupported_value"}
NO_KEY = "sk-no-key-needed"   # many local servers want no key, but the client insists on one


class OpenAIBackend:
    def __init__(self, base_url: str | None, api_key: str | None, *, timeout_s: float,
                 endpoint: str | None = None):
        if not base_url and not api_key:
            raise LLMError("no endpoint configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
                           "non-OpenAI server), pass --base-url, or use the offline model 'local'")
        self.base_url = (base_url or OPENAI_URL).rstrip("/")
        self.endpoint = endpoint or self.base_url
        self.timeout_s = timeout_s
        self._client = AsyncOpenAI(base_url=self.base_url, api_key=api_key or NO_KEY,
                                   max_retries=0, timeout=timeout_s)

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(self, request: CallRequest) -> Reply:
        params = dict(request.params)
        extra_body = params.pop("extra_body", None)
        timeout = {"timeout": request.timeout_s} if request.timeout_s else {}
        try:
            response = await self._client.chat.completions.create(
                model=request.model, messages=request.messages,
                **({"extra_body": extra_body} if extra_body else {}), **timeout, **params)
        except openai.APIStatusError as exc:
            status = exc.status_code
            message = f"HTTP {status} from {self.base_url}: {_server_message(exc)}"
            if status in FATAL_STATUS or _error_code(exc) in FATAL_CODES:
                raise EndpointFatal(message, status=status, model=request.model, step=request.step) from None
            if (status in TRANSIENT_STATUS or status >= 500) and not _context_full(exc):
                raise TransientError(message, status=status,
                                     retry_after=_retry_after(exc.response.headers)) from None
            raise LLMError(message, status=status, model=request.model, step=request.step) from None
        except openai.APITimeoutError:
            raise TransientError(f"request to {self.base_url} timed out") from None
        except openai.APIConnectionError as exc:
            raise TransientError(f"connection to {self.base_url} failed: {exc.__cause__ or exc}") from None
        except openai.APIResponseValidationError as exc:
            raise TransientError(f"malformed response from {self.base_url}: {exc}") from None
        except UnicodeEncodeError as exc:           # the request's text, not the endpoint's answer: not retried
            raise LLMError(f"the request's text cannot be encoded as UTF-8 ({exc.reason}): the caller's bug (text "
                           "from outside goes through core.text.clean_text first), not the endpoint's",
                           model=request.model, step=request.step) from None
        except (ValueError, TypeError) as exc:      # undecodable body
            raise TransientError(f"malformed response from {self.base_url}: {exc}") from None
        return parse_completion(response, self.base_url)


def parse_completion(response: Any, where: str) -> Reply:
    """Read text, reasoning and token counts; anything unexpected is a malformed body."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise TransientError(f"malformed response from {where}: no choices in {str(response)[:200]!r}")
    texts, reasoning = [], None
    for choice in choices:
        message = getattr(choice, "message", None)
        if message is None:
            raise TransientError(f"malformed response from {where}: a choice has no message")
        content = getattr(message, "content", None)
        if content is not None and not isinstance(content, str):
            raise TransientError(f"malformed response from {where}: content is {type(content).__name__}")
        texts.append(content or "")
        if reasoning is None:
            reasoning = _reasoning_text(message)
    usage = getattr(response, "usage", None)
    details = getattr(usage, "completion_tokens_details", None)
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    return Reply(
        text=texts[0], reasoning=reasoning,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        reasoning_tokens=int(getattr(details, "reasoning_tokens", 0) or 0),
        cached_prompt_tokens=int(getattr(prompt_details, "cached_tokens", 0) or 0),
        choices=texts,
    )


def _reasoning_text(message: Any) -> str | None:
    """Reasoning text as servers send it: `reasoning_content` (vLLM, llama.cpp, DeepSeek) or `reasoning`."""
    extra = getattr(message, "model_extra", None) or {}
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None) or extra.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _server_message(exc: openai.APIStatusError) -> str:
    return redact(_raw_server_message(exc))


def _raw_server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    try:
        text = exc.response.text.strip()
    except Exception:  # the body may be unreadable; the status still says enough
        text = ""
    return text[:500] or str(exc.message)


def _context_full(exc: openai.APIStatusError) -> bool:
    return "context size has been exceeded" in _raw_server_message(exc).lower()


def _error_code(exc: openai.APIStatusError) -> str | None:
    """The error's `code` (OpenAI: insufficient_quota, model_not_found, ...), if the body has one."""
    body = exc.body
    inner = body.get("error", body) if isinstance(body, dict) else None
    code = inner.get("code") if isinstance(inner, dict) else None
    return code if isinstance(code, str) else None


def _retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        return max(0.0, email.utils.mktime_tz(parsed) - time.time())
