"""A stub OpenAI-compatible HTTP server on 127.0.0.1 for the LLM tests and benchmark.

Responses are scripted FIFO (`server.script(...)`); when the script is empty the server
answers with `answer(body)` if given, else a chat completion whose text echoes the last message. Every
request body is recorded in `server.requests`. An action can delay (a hang, when longer
than the client waits), drop the connection without an answer, or send its body slowly
(`trickle`: seconds between each tenth of it). A client that hangs up during a delay is
noticed at once (`server.hung_up` counts them).
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion_body(text: str, *, prompt_tokens: int = 10, completion_tokens: int = 5,
                    reasoning_tokens: int = 0, model: str = "stub", reasoning: str | None = None,
                    n: int = 1, finish_reason: str = "stop") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": i, "message": message if i == 0 else {"role": "assistant", "content": f"{text}#{i}"},
                     "finish_reason": finish_reason} for i in range(n)],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens,
                  "completion_tokens_details": {"reasoning_tokens": reasoning_tokens}},
    }


class StubServer:
    def __init__(self, delay_s: float = 0.0, answer: Callable[[dict[str, Any]], str | dict[str, Any]] | None = None):
        self.delay_s = delay_s
        self.answer = answer      # the default answer's text (or body) from the request body (None: an echo)
        self.requests: list[dict[str, Any]] = []
        self.request_lines: list[tuple[str, dict[str, str]]] = []   # (request target, headers) of each
        # (header names lower-cased: HTTP's are case-insensitive, and clients differ in how they write them)
        self.hung_up = 0              # requests whose client closed the connection during their delay
        self.request_times: list[float] = []
        self._script: deque = deque()
        self._lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output quiet
                pass

            def setup(self):
                super().setup()
                # headers and body go out in two writes: without NODELAY, Nagle + delayed ACK
                # add ~40 ms per response, which is the stub's cost, not the client's
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(body)
                    stub.request_lines.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                    stub.request_times.append(time.monotonic())
                    action = stub._script.popleft() if stub._script else {}
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                try:
                    if self._client_hung_up(action.get("delay", stub.delay_s)):
                        with stub._lock:
                            stub.hung_up += 1
                        return
                    if action.get("drop"):          # hang up without answering
                        self.close_connection = True
                        self.request.shutdown(socket.SHUT_RDWR)
                        return
                    status = action.get("status", 200)
                    if "raw" in action:
                        payload = action["raw"].encode()
                    else:
                        data = action.get("body")
                        if data is None and stub.answer is not None:
                            data = stub.answer(body)      # the answer's text, or a whole body (completion_body)
                            if isinstance(data, str):
                                data = completion_body(data, n=int(body.get("n") or 1))
                        elif data is None:
                            last = body.get("messages", [{}])[-1].get("content", "")
                            data = completion_body(f"echo: {last}", n=int(body.get("n") or 1))
                        payload = json.dumps(data).encode()
                    self.send_response(status)
                    self.send_header("content-type", action.get("content_type", "application/json"))
                    self.send_header("content-length", str(len(payload)))
                    for name, value in action.get("headers", {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    if action.get("trickle"):         # a slow body: a tenth at a time
                        step = max(1, -(-len(payload) // 10))
                        for start in range(0, len(payload), step):
                            self.wfile.write(payload[start:start + step])
                            self.wfile.flush()
                            time.sleep(action["trickle"])
                    else:
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with stub._lock:
                        stub.in_flight -= 1

            def _client_hung_up(self, delay: float) -> bool:
                """Wait `delay` seconds, or less if the client closes the connection meanwhile
                (it sends nothing else while it waits for this answer: readable means closed)."""
                deadline = time.monotonic() + delay
                while (left := deadline - time.monotonic()) > 0:
                    if select.select([self.request], [], [], left)[0]:
                        try:
                            if not self.request.recv(1, socket.MSG_PEEK):
                                self.close_connection = True
                                return True
                        except OSError:
                            self.close_connection = True
                            return True
                        time.sleep(min(left, 0.01))
                return False

        class Server(ThreadingHTTPServer):
            request_queue_size = 128     # the default listen backlog (5) drops bursts of connects
            daemon_threads = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *actions: dict[str, Any]) -> None:
        """Queue responses: {status, body | raw, headers, delay, content_type, drop, trickle}."""
        with self._lock:
            self._script.extend(actions)

    def error(self, status: int, message: str, **extra) -> dict[str, Any]:
        return {"status": status, "body": {"error": {"message": message, "type": "stub_error"}}, **extra}

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def stub_llm(base_url: str, **over):
    """An LLM whose three roles are `stub-model` at `base_url`: short timeouts, tiny backoff."""
    from arcmemo.llm.client import LLM, LLMSettings

    values = dict(base_url=base_url, api_key="sk-test", solver_model="stub-model", aux_model="stub-model",
                  select_model="stub-model", concurrency=4, timeout_s=2.0, max_attempts=4,
                  backoff_base_s=0.001, backoff_max_s=0.01)
    values.update(over)
    return LLM(LLMSettings(**values))


def solve_against_stub(tmp_path, task_id: str, answer: str | dict[str, Any], *args: str):
    """`arcmemo solve` of one task (one thread, no retries, --selection none, an empty memory) where
    the model, the stub, always gives `answer` (a text, or a whole body: completion_body): the
    run's directory. Needs OPENAI_API_KEY set (any value)."""
    from click.testing import CliRunner

    from arcmemo.cli import cli
    from arcmemo.memory.store import Memory

    tmp_path.mkdir(parents=True, exist_ok=True)
    Memory(str(tmp_path / "memory.db")).close()
    with StubServer(answer=lambda body: answer) as stub:
        result = CliRunner().invoke(cli, ["solve", "--tasks", task_id, "--selection", "none", "--retries", "0", "-q",
                                          "--base-url", stub.base_url, "--solver-model", "stub-model",
                                          "--db", str(tmp_path / "memory.db"), "--run-dir", str(tmp_path / "runs"),
                                          *args])
    assert result.exit_code == 0, result.output
    (run,) = (tmp_path / "runs").iterdir()
    return run
