"""The backend for any OpenAI-compatible chat endpoint: one POST to {base_url}/chat/completions
per call, over the standard library (http.client, ssl, json).

Why not the `openai` package: arcmemo uses one endpoint of it, and importing it took about
0.95 s of CPU on this machine, most of a solve's start-up before its first request (issue
27 wants that request within a second). What the package did for us is here: the JSON body
(`extra_body` merged into it), the bearer key, HTTPS checked against the system's and
certifi's roots, proxies from the environment (HTTP(S)_PROXY, NO_PROXY), timeouts.

Each request runs on its own daemon thread over its own connection, handed back to the
event loop when it ends. A thread, not a thread pool: a pool's threads are joined at
interpreter exit, so a Ctrl-C during a 10-minute call would hang the exit. A cancelled call
(the client's time limit, a run stopping) shuts its socket down, so its thread ends at
once. One connection per request, no pooling: a model call takes seconds, a connect on
loopback microseconds and a TLS handshake tens of milliseconds.

The client retries every backend the same way (retry.py), so each attempt is visible and
the whole call stays within its time budget. Errors are sorted here, with the server's own
message:
- transient (retried): 429, 408, 409, 425, 5xx, timeouts, connection errors, malformed bodies;
- fatal for the run (EndpointFatal): 401, 403, 404 (unknown model, wrong base URL), and
  a 429 or 400 whose error code says the quota is spent, the model does not exist or a
  parameter is not supported (FATAL_CODES);
- anything else (400: this request is bad) fails the one call (LLMError), as does
  llama.cpp's 500 "Context size has been exceeded": the request outgrew the server's
  context, and sent again it outgrows it again.
"""

from __future__ import annotations

import base64
import email.utils
import http.client
import json
import socket
import threading
import time
from typing import Any
from urllib.parse import unquote, urlsplit

from arcmemo import __version__
from arcmemo.core.secrets import redact
from arcmemo.llm.backend import CallRequest, EndpointFatal, LLMError, Reply, TransientError

TRANSIENT_STATUS = {408, 409, 425, 429}
FATAL_STATUS = {401, 403, 404}
# error codes no retry can fix; unsupported_*: a parameter every call of the role carries
# (e.g. a temperature sent to an OpenAI reasoning model), so every call would fail alike
FATAL_CODES = {"insufficient_quota", "model_not_found", "invalid_api_key", "unsupported_parameter",
               "unsupported_value"}
NO_KEY = "sk-no-key-needed"   # many local servers want no key; a bearer header is sent all the same


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
        self.endpoint = endpoint or self.base_url
        self.timeout_s = timeout_s
        self._url = urlsplit(self.base_url + "/chat/completions")
        if self._url.scheme not in ("http", "https") or not self._url.hostname:
            raise LLMError(f"base URL {self.base_url!r} is not an http:// or https:// URL")
        self._headers = {"Authorization": f"Bearer {api_key or NO_KEY}", "Content-Type": "application/json",
                         "Accept": "application/json", "User-Agent": f"arcmemo/{__version__}"}
        self._proxy = _proxy_for(self._url)
        if self._proxy is not None and self._url.scheme == "http":   # a plain proxy reads its credentials here
            self._headers.update(self._proxy[2])
        self._tls = None
        self._open: set[_Exchange] = set()

    async def aclose(self) -> None:
        for exchange in list(self._open):
            exchange.abort()

    async def complete(self, request: CallRequest) -> Reply:
        params = dict(request.params)
        extra_body = params.pop("extra_body", None) or {}
        try:
            body = json.dumps({"model": request.model, "messages": request.messages, **params, **extra_body},
                              ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:       # the request's text, not the endpoint's answer: not retried
            raise LLMError(f"the request's text cannot be encoded as UTF-8 ({exc.reason}): the caller's bug (text "
                           "from outside goes through core.text.clean_text first), not the endpoint's",
                           model=request.model, step=request.step) from None
        except (TypeError, ValueError) as exc:
            raise LLMError(f"the request cannot be sent as JSON: {exc}", model=request.model,
                           step=request.step) from None
        try:
            status, headers, data = await self._post(body, request.timeout_s or self.timeout_s)
        except TimeoutError:
            raise TransientError(f"request to {self.base_url} timed out") from None
        except (OSError, http.client.HTTPException) as exc:
            raise TransientError(f"connection to {self.base_url} failed: {exc or type(exc).__name__}") from None
        if not 200 <= status < 300:
            raise _status_error(status, headers, data, self.base_url, request)
        try:
            answer = json.loads(data)
        except ValueError as exc:                 # an HTML error page with a 200, a cut-off body
            raise TransientError(f"malformed response from {self.base_url}: {exc}: {data[:200]!r}") from None
        return parse_completion(answer, self.base_url)

    async def _post(self, body: bytes, timeout_s: float) -> tuple[int, http.client.HTTPMessage, bytes]:
        """The exchange on its own thread (module docstring); its socket shut down if cancelled."""
        import asyncio  # loaded by the caller already; not at import, where it would be ~40 ms

        loop = asyncio.get_running_loop()
        done: asyncio.Future = loop.create_future()
        exchange = _Exchange(self._connection(timeout_s), self._target(), body, self._headers)
        self._open.add(exchange)

        def finish(result: Any, error: BaseException | None) -> None:
            if done.done():                 # cancelled meanwhile
                return
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)

        def run() -> None:
            result, error = None, None
            try:
                result = exchange.run()
            except BaseException as exc:  # handed to the awaiting coroutine, whatever it is
                error = exc
            try:
                loop.call_soon_threadsafe(finish, result, error)
            except RuntimeError:            # the loop closed meanwhile: nobody waits for this answer
                pass

        threading.Thread(target=run, name="llm-http", daemon=True).start()
        try:
            return await done
        finally:
            exchange.abort()              # nothing left to do when it ended; its thread ends when cancelled
            self._open.discard(exchange)

    def _connection(self, timeout_s: float) -> http.client.HTTPConnection:
        url, proxy = self._url, self._proxy
        port = url.port or (443 if url.scheme == "https" else 80)
        if proxy is None:
            if url.scheme == "https":
                return http.client.HTTPSConnection(url.hostname, port, timeout=timeout_s, context=self._context())
            return http.client.HTTPConnection(url.hostname, port, timeout=timeout_s)
        host, proxy_port, authorization = proxy
        if url.scheme == "http":         # the proxy is sent the whole URL (_target)
            return http.client.HTTPConnection(host, proxy_port, timeout=timeout_s)
        connection = http.client.HTTPSConnection(host, proxy_port, timeout=timeout_s, context=self._context())
        connection.set_tunnel(url.hostname, port, headers=authorization)
        return connection

    def _target(self) -> str:
        """The request target: the path, or the whole URL for a plain-HTTP proxy."""
        url = self._url
        path = url.path + (f"?{url.query}" if url.query else "")
        return url.geturl() if self._proxy is not None and url.scheme == "http" else path

    def _context(self):
        """The TLS context, made once: the system's roots and certifi's (the openai client trusted certifi's)."""
        if self._tls is None:
            import ssl

            context = ssl.create_default_context()
            try:
                import certifi

                context.load_verify_locations(certifi.where())
            except (ImportError, OSError):
                pass
            self._tls = context
        return self._tls


class _Exchange:
    """One request on one connection (run on a thread); `abort` ends it from another."""

    def __init__(self, connection: http.client.HTTPConnection, target: str, body: bytes, headers: dict):
        self.connection, self.target, self.body, self.headers = connection, target, body, headers
        self._lock = threading.Lock()
        self._aborted = False

    def run(self) -> tuple[int, http.client.HTTPMessage, bytes]:
        """Connect, send, read the whole answer, close. An abort before the socket exists is
        seen after the connect (a connect in progress cannot be interrupted: it ends at its
        timeout, on this daemon thread, unawaited)."""
        connection = self.connection
        try:
            self._check()                      # aborted before this thread even ran
            connection.connect()
            self._check()
            connection.request("POST", self.target, body=self.body, headers=self.headers)
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def _check(self) -> None:
        with self._lock:
            if self._aborted:
                raise ConnectionAbortedError("the call was cancelled")

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            sock = self.connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _proxy_for(url) -> tuple[str, int, dict[str, str]] | None:
    """(host, port, Proxy-Authorization header) of the proxy the environment names for `url`, if
    any. The proxy is spoken to in plain HTTP, as httpx did for an http:// proxy URL (an https://
    proxy URL gets no TLS to the proxy: not supported)."""
    from urllib.request import getproxies, proxy_bypass

    proxy = getproxies().get(url.scheme)
    if not proxy or proxy_bypass(url.hostname):
        return None
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    headers = {}
    if parts.username is not None:
        secret = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(secret).decode()
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80), headers


def parse_completion(body: Any, where: str) -> Reply:
    """Read text, reasoning and token counts from a decoded chat completion; anything
    unexpected is a malformed body (TransientError), never a crash."""
    try:
        return _completion(body, where)
    except (TypeError, ValueError, AttributeError) as exc:
        raise TransientError(f"malformed response from {where}: {type(exc).__name__}: {exc}") from None


def _completion(body: Any, where: str) -> Reply:
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices:
        raise TransientError(f"malformed response from {where}: no choices in {str(body)[:200]!r}")
    texts, reasoning = [], None
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise TransientError(f"malformed response from {where}: a choice has no message")
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            raise TransientError(f"malformed response from {where}: content is {type(content).__name__}")
        texts.append(content or "")
        if reasoning is None:
            reasoning = _reasoning_text(message)
    usage = _mapping(body.get("usage"))
    return Reply(
        text=texts[0], reasoning=reasoning,
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        reasoning_tokens=int(_mapping(usage.get("completion_tokens_details")).get("reasoning_tokens") or 0),
        cached_prompt_tokens=int(_mapping(usage.get("prompt_tokens_details")).get("cached_tokens") or 0),
        choices=texts,
    )


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _reasoning_text(message: dict) -> str | None:
    """Reasoning text as servers send it: `reasoning_content` (vLLM, llama.cpp, DeepSeek) or `reasoning`."""
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _status_error(status: int, headers: Any, data: bytes, where: str, request: CallRequest) -> LLMError:
    """The error a non-2xx answer is (module docstring), with the server's message."""
    raw = _raw_server_message(status, data)
    message = f"HTTP {status} from {where}: {redact(raw)}"
    if status in FATAL_STATUS or _error_code(data) in FATAL_CODES:
        return EndpointFatal(message, status=status, model=request.model, step=request.step)
    if (status in TRANSIENT_STATUS or status >= 500) and "context size has been exceeded" not in raw.lower():
        return TransientError(message, status=status, retry_after=_retry_after(headers))
    return LLMError(message, status=status, model=request.model, step=request.step)


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _raw_server_message(status: int, data: bytes) -> str:
    body = _json(data)
    inner = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(inner, dict) and inner.get("message"):
        return str(inner["message"])
    if isinstance(inner, str):
        return inner
    text = data.decode("utf-8", "replace").strip()
    return text[:500] or http.client.responses.get(status, "no message")


def _error_code(data: bytes) -> str | None:
    """The error's `code` (OpenAI: insufficient_quota, model_not_found, ...), if the body has one."""
    body = _json(data)
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
