"""The backend for any OpenAI-compatible chat endpoint, over the official `openai` package.

One `AsyncOpenAI` client per (base URL, key), built on the LLM client's event loop. Its own
retries are off (`max_retries=0`): the LLM client retries every backend the same way
(retry.py), so each attempt is visible and the whole call stays within its time budget; each
attempt is sent with the time limit the retry loop gives it. The package brings the JSON
body (`extra_body` merged into it), the bearer key, HTTPS, proxies from the environment
(HTTP(S)_PROXY, NO_PROXY) and the typed answer. Importing it takes about half a second of
CPU: a solve imports this module on a background thread from its first moment
(run/warmup.py), beside the run layer's own imports, so that its first request waits only
for what is left of it.

The package's errors are sorted here into arcmemo's (errors.py), with the server's own message:
- transient (retried): 429 (RateLimitError), 409 (ConflictError), 5xx (InternalServerError),
  408 and 425, timeouts (APITimeoutError), connection errors (APIConnectionError), malformed
  bodies (the answer does not parse as a chat completion);
- fatal for the run (EndpointFatal): 401 (AuthenticationError), 403 (PermissionDeniedError),
  404 (NotFoundError: unknown model, wrong base URL), and any error whose code says the quota
  is spent, the model does not exist or a parameter is not supported (FATAL_CODES);
- anything else (400, BadRequestError: this request is bad) fails the one call (LLMError),
  as does llama.cpp's 500 "Context size has been exceeded": the request outgrew the
  server's context, and sent again it outgrows it again.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any
from urllib.parse import urlsplit

import openai

from arcmemo.core.secrets import redact
from arcmemo.llm.backend import CallRequest, EndpointFatal, LLMError, Reply, TransientError

FATAL_ERRORS = (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)
TRANSIENT_ERRORS = (openai.RateLimitError, openai.ConflictError, openai.InternalServerError)
TRANSIENT_STATUS = {408, 425}       # no error class of their own in the package
# error codes no retry can fix; unsupported_*: a parameter every call of the role carries
# (e.g. a temperature sent to an OpenAI reasoning model), so every call would fail alike
FATAL_CODES = {"insufficient_quota", "model_not_found", "invalid_api_key", "unsupported_parameter",
               "unsupported_value"}
NO_KEY = "sk-no-key-needed"   # many local servers want no key; the package insists on one


class OpenAIBackend:
    def __init__(self, base_url: str | None, api_key: str | None, *, timeout_s: float,
                 endpoint: str | None = None):
        if not base_url and not api_key:
            raise LLMError("no endpoint configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
                           "non-OpenAI server), pass --base-url, or use the offline model 'local'")
        if not base_url:
            from arcmemo.llm.settings import OPENAI_URL  # settings loads the catalog (yaml): not at import

            base_url = OPENAI_URL
        self.base_url = base_url.rstrip("/")
        url = urlsplit(self.base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            # the package would send it all the same and fail with a connection error, retried as transient
            raise LLMError(f"base URL {self.base_url!r} is not an http:// or https:// URL")
        self.endpoint = endpoint or self.base_url
        self.timeout_s = timeout_s
        self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=api_key or NO_KEY, max_retries=0,
                                          timeout=timeout_s)

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(self, request: CallRequest) -> Reply:
        params = dict(request.params)
        extra_body = params.pop("extra_body", None)
        try:
            raw = await self._client.chat.completions.with_raw_response.create(
                model=request.model, messages=request.messages, timeout=request.timeout_s or self.timeout_s,
                **({"extra_body": extra_body} if extra_body else {}), **params)
        except openai.APIStatusError as exc:
            raise _status_error(exc, self.base_url, request) from None
        except openai.APITimeoutError:
            raise TransientError(f"request to {self.base_url} timed out") from None
        except openai.APIConnectionError as exc:
            raise TransientError(f"connection to {self.base_url} failed: {exc.__cause__ or exc}") from None
        except UnicodeEncodeError as exc:     # the request's text, not the endpoint's answer: not retried
            raise LLMError(f"the request's text cannot be encoded as UTF-8 ({exc.reason}): the caller's bug (text "
                           "from outside goes through core.text.clean_text first), not the endpoint's",
                           model=request.model, step=request.step) from None
        except (TypeError, ValueError) as exc:  # the body is built before anything is sent
            raise LLMError(f"the request cannot be sent as JSON: {exc}", model=request.model,
                           step=request.step) from None
        try:
            completion = raw.parse()
        except (ValueError, TypeError, AttributeError) as exc:  # not JSON, though its content type says so
            raise TransientError(f"malformed response from {self.base_url}: {exc}: {raw.text[:200]!r}") from None
        return parse_completion(completion, self.base_url)


def parse_completion(response: Any, where: str) -> Reply:
    """Read text, reasoning and token counts from the package's ChatCompletion (built without
    validation, so any field may be missing or of another type); anything unexpected is a
    malformed body (TransientError), never a crash. A body that is not JSON at all (an HTML
    error page with a 200) reaches here as its text."""
    try:
        return _completion(response, where)
    except (TypeError, ValueError, AttributeError) as exc:
        raise TransientError(f"malformed response from {where}: {type(exc).__name__}: {exc}") from None


def _completion(response: Any, where: str) -> Reply:
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise TransientError(f"malformed response from {where}: no choices in {str(response)[:200]!r}")
    texts, reasoning = [], None
    for choice in choices:
        message = getattr(choice, "message", None)
        if not isinstance(message, openai.BaseModel):     # null, text, a number: not a message object
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
    finish = getattr(choices[0], "finish_reason", None)
    return Reply(
        text=texts[0], reasoning=reasoning, finish_reason=finish if isinstance(finish, str) and finish else None,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        reasoning_tokens=int(getattr(details, "reasoning_tokens", 0) or 0),
        cached_prompt_tokens=int(getattr(prompt_details, "cached_tokens", 0) or 0),
        choices=texts,
    )


def _reasoning_text(message: Any) -> str | None:
    """Reasoning text as servers send it: `reasoning_content` (vLLM, llama.cpp, DeepSeek) or
    `reasoning`, fields the package's message type keeps as extras."""
    extra = getattr(message, "model_extra", None) or {}
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None) or extra.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _status_error(exc: openai.APIStatusError, where: str, request: CallRequest) -> LLMError | TransientError:
    """The error a non-2xx answer is (module docstring), with the server's message."""
    status = exc.status_code
    raw = _raw_server_message(exc)
    message = f"HTTP {status} from {where}: {redact(raw)}"
    if isinstance(exc, FATAL_ERRORS) or _error_code(exc) in FATAL_CODES:
        return EndpointFatal(message, status=status, model=request.model, step=request.step)
    if ((isinstance(exc, TRANSIENT_ERRORS) or status in TRANSIENT_STATUS)
            and "context size has been exceeded" not in raw.lower()):
        return TransientError(message, status=status, retry_after=_retry_after(exc.response.headers))
    return LLMError(message, status=status, model=request.model, step=request.step)


def _raw_server_message(exc: openai.APIStatusError) -> str:
    """The server's own words: the error's `message` (the package keeps the body's `error`
    object as `exc.body`), else the body's text, else the package's "Error code: N"."""
    inner = exc.body
    if isinstance(inner, dict) and inner.get("message"):
        return str(inner["message"])
    if isinstance(inner, str) and inner.strip():
        return inner.strip()[:500]
    try:
        text = exc.response.text.strip()
    except Exception:  # an unreadable body: the status still says enough
        text = ""
    return text[:500] or exc.message


def _error_code(exc: openai.APIStatusError) -> str | None:
    """The error's `code` (OpenAI: insufficient_quota, model_not_found, ...), if it has one."""
    return exc.code if isinstance(exc.code, str) else None


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
