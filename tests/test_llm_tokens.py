"""Token counts: the digit-aware estimate, the embedded server's /tokenize, OpenAI's BPE
encodings (bpe-openai, offline), and honest fall-backs when a tokenizer cannot be had."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
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


@pytest.mark.parametrize("text, o200k", [          # o200k_base's real counts
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


@pytest.mark.parametrize("text, o200k", [          # o200k_base's counts, checked against tiktoken
    ("Hello world", 2), ("def transform(grid):\n    return grid", 7), ("snake_case_name", 3),
    ("Fill every enclosed region with the colour of its border.", 11),
])
def test_openai_models_are_counted_exactly_offline(text, o200k):
    assert count_tokens(text, "o4-mini") == o200k
    assert tokenizer_for("gpt-4.1").name == "bpe-openai o200k_base" and tokenizer_for("o3").exact


def test_a_grid_costs_what_the_real_encoding_says():
    text = format_grid(GRID)                                 # 10 rows of 12 digits: 4 digit tokens a row
    assert count_tokens(text, "gpt-4o") == 10 * 4 + 9


def test_an_encoding_that_cannot_load_falls_back_to_the_estimate_once(monkeypatch):
    calls = []

    class Broken:
        def tokenizer_for_encoding(self, name):
            calls.append(name)
            raise OSError("damaged data file")

    monkeypatch.setattr(tokens, "_bpe_bindings", Broken)
    monkeypatch.setattr(tokens, "_encodings", {})
    text = format_grid(GRID)
    assert count_tokens(text, "o4-mini") == count_tokens(text, "gpt-4o") == estimate_tokens(text, 3)
    assert calls == ["o200k_base"]                          # tried once per process
    choice = tokenizer_for("gpt-5")
    assert not choice.exact and "could not load o200k_base" in choice.why


@pytest.mark.parametrize("text", [
    "plain words, and marks!", "<|endoftext|> is text here, not a special token <|fim_prefix|>",
    "a lone surrogate \ud800 in the middle", "x" * 5000 + " 0123456789" * 300])
def test_the_rust_tokenizer_counts_what_the_package_encodes(text):
    import bpe_openai  # the package's public, tiktoken-like API

    encoding = bpe_openai.get_encoding("o200k_base")
    try:
        expected = len(encoding.encode(text, disallowed_special=()))
    except UnicodeEncodeError:
        expected = len(encoding.encode(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"),
                                       disallowed_special=()))
    assert count_tokens(text, "o4-mini") == expected


COUNTED = ["plain words, and marks!", "<|endoftext|> is text here, not a special token <|fim_prefix|>",
           "a lone surrogate \ud800 in the middle", "x" * 5000 + " 0123456789" * 300, "é, 漢字 and 🙂\n\n  indented"]


@pytest.mark.parametrize("name", tokens.BPE_ENCODINGS)
def test_the_private_fast_route_is_where_arcmemo_loads_it_and_counts_as_the_public_api(name):
    """The guard on a private name: bpe-openai's compiled module is at bpe_openai._bindings
    and its count is the public API's, token for token, for both encodings. When an upgrade
    moves it, this fails (and counting goes through the public API, slower: next test)."""
    import bpe_openai

    bindings = tokens._bpe_bindings()
    assert bindings.__name__ == "bpe_openai._bindings" and bindings.__file__.startswith(
        os.path.dirname(bpe_openai.__file__))
    fast = bindings.tokenizer_for_encoding(name)
    public = bpe_openai.get_encoding(name)
    for text in COUNTED:
        safe = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        assert tokens._bpe_count(fast, text) == len(public.encode(safe, disallowed_special=())), text


def test_a_moved_fast_route_counts_through_the_public_api_and_says_so(monkeypatch, caplog):
    monkeypatch.setattr(tokens, "_BINDINGS", "bpe_openai._moved_away")
    monkeypatch.setattr(tokens, "_encodings", {})
    with caplog.at_level("WARNING", logger="arcmemo.llm.tokens"):
        counted = [count_tokens(text, "o4-mini") for text in COUNTED]
    monkeypatch.undo()
    assert counted == [count_tokens(text, "o4-mini") for text in COUNTED]       # the fast route's counts
    (warning,) = caplog.records
    assert "public API" in warning.getMessage() and "bpe_openai._moved_away" in warning.getMessage()


def test_a_missing_package_says_so(monkeypatch):
    real = tokens.importlib.util.find_spec
    monkeypatch.setattr(tokens.importlib.util, "find_spec", lambda name, *a: None if name == "bpe_openai"
                        else real(name, *a))
    monkeypatch.setattr(tokens, "_encodings", {})
    choice = tokenizer_for("gpt-4o")
    assert not choice.exact and "not installed" in choice.why
    assert count_tokens(format_grid(GRID), "gpt-4o") == estimate_tokens(format_grid(GRID), 3)


def test_counting_does_not_import_the_package_tables(tmp_path):
    code = ("import sys; from arcmemo.llm.tokens import count_tokens; count_tokens('hi there', 'o4-mini'); "
            "print(sorted(m for m in sys.modules if m.startswith('bpe_openai')))")
    env = {**os.environ, "ARCMEMO_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == "['bpe_openai._bindings']", done.stderr


def test_llm_count_tokens_follows_the_role_model(fake_llm, isolated_home):
    assert fake_llm.count_tokens(format_grid(GRID), "solver") == 129   # a double that declares no tokenizer
    assert fake_llm.traits("solver") == ModelTraits(context=None)
