"""Token counts: the digit-aware estimate, the embedded server's /tokenize, tiktoken, and
honest fall-backs when a tokenizer cannot be had (offline, no server running)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from arcmemo.core.gridtext import format_grid
from arcmemo.llm import ModelTraits, local, tokens
from arcmemo.llm.tokens import count_tokens, estimate_tokens, tokenizer_for

GRID = [[(r * 7 + c * 3) % 10 for c in range(12)] for r in range(10)]     # 120 cells, 10 rows


def test_grids_cost_a_token_per_digit_or_a_third_of_one():
    text = format_grid(GRID)
    assert estimate_tokens(text, 1) == 120 + 9              # one per cell, one per line break
    assert estimate_tokens(text, 3) == 10 * 4 + 9           # runs of 12 digits: 4 tokens each
    assert estimate_tokens("") == 0


@pytest.mark.parametrize("text, o200k", [          # o200k_base's real counts (tiktoken)
    ("Hello world", 2), ("def transform(grid):\n    return grid", 7), ("snake_case_name", 3),
    ("Fill every enclosed region with the colour of its border.", 11),
])
def test_words_marks_and_spaces_are_counted_like_a_real_tokenizer_a_little_high(text, o200k):
    assert o200k <= estimate_tokens(text, 3) <= o200k * 1.1 + 1


def test_unknown_model_uses_the_estimate_and_says_why():
    assert count_tokens(format_grid(GRID), "qwen2.5-coder:7b") == 129
    choice = tokenizer_for("qwen2.5-coder:7b")
    assert not choice.exact and "no tokenizer known" in choice.why


def test_embedded_model_without_a_running_server_is_estimated_not_started(monkeypatch):
    monkeypatch.setattr(local, "ensure_server", lambda name: pytest.fail("the server was started to count"))
    assert count_tokens(format_grid(GRID), "local") == 129
    assert tokenizer_for("local").why == "the embedded server is not running"


class _Tokenizer(BaseHTTPRequestHandler):
    """llama.cpp's /tokenize, answering one token per character."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        payload = json.dumps({"tokens": list(range(len(body["content"])))}).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def test_a_running_embedded_server_counts_exactly(monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Tokenizer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        running = type("Running", (), {"name": "local", "address": f"http://127.0.0.1:{server.server_port}"})
        monkeypatch.setattr(local, "running_server", lambda name: running if name == "local" else None)
        assert count_tokens("hello", "local") == 5 and count_tokens("hello", "local-small") == 5
        assert tokenizer_for("local-small").exact
    finally:
        server.shutdown()
        server.server_close()


def test_tiktoken_counts_openai_models_when_its_encoding_loads(monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    # a real tiktoken Encoding (a tiny byte-level vocabulary: one token per byte)
    encoding = tiktoken.Encoding("bytes", pat_str=r"\S+|\s+", mergeable_ranks={bytes([i]): i for i in range(256)},
                                 special_tokens={})
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: encoding)
    monkeypatch.setattr(tokens, "_encodings", {})
    assert count_tokens("four", "gpt-4.1") == 4
    assert tokenizer_for("o4-mini").name == "tiktoken o200k_base"


def test_offline_tiktoken_falls_back_to_the_estimate_once(monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    calls = []

    def offline(name):
        calls.append(name)
        raise ConnectionError("Failed to resolve 'openaipublic.blob.core.windows.net'")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    monkeypatch.setattr(tokens, "_encodings", {})
    text = format_grid(GRID)
    assert count_tokens(text, "o4-mini") == count_tokens(text, "gpt-4o") == estimate_tokens(text, 3)
    assert calls == ["o200k_base"]                          # tried once per process
    choice = tokenizer_for("gpt-5")
    assert not choice.exact and "could not load o200k_base" in choice.why and "TIKTOKEN_CACHE_DIR" in choice.why


def test_a_hanging_download_is_not_waited_for(monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: time.sleep(30))
    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "LOAD_TIMEOUT_S", 0.2)
    started = time.monotonic()
    assert count_tokens("0123456789", "o3") == 4
    assert time.monotonic() - started < 2
    assert "still loading after 0.2s" in tokenizer_for("o3").why


def test_llm_count_tokens_follows_the_role_model(fake_llm, isolated_home):
    assert fake_llm.count_tokens(format_grid(GRID), "solver") == 129   # a double that declares no tokenizer
    assert fake_llm.traits("solver") == ModelTraits(context=None)
