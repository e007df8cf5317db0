"""Qwen2.5's own token count, from the embedded llama.cpp server's /tokenize.

The real thing the selection budgets are checked against (benchmarks/selection.py, the
estimate's accuracy test). None when the [local] extra is not installed.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable

MODEL = "local-small"       # Qwen2.5-Coder-0.5B: the same tokenizer as the 1.5B `local`


def qwen_token_count(model: str = MODEL) -> tuple[Callable[[str], int] | None, str]:
    """(count, note): a function counting Qwen2.5 tokens (None if unavailable) and why not."""
    from arcmemo.llm import local

    problem = local.runtime_available() or local.weights_available(model)
    if problem:
        return None, problem
    address = local.ensure_server(model).address

    def count(text: str) -> int:
        request = urllib.request.Request(address + "/tokenize", data=json.dumps({"content": text}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return len(json.loads(response.read())["tokens"])

    return count, f"Qwen2.5 tokenizer ({model}, llama.cpp /tokenize)"
