"""Counting a prompt's tokens for its budget: the model's own count when the client offers
one (`LLM.count_tokens(text, role)`: the model's tokenizer where arcmemo can reach it), else
the digit-aware estimate (arcmemo.core.estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arcmemo.core.estimate import estimate_tokens

MESSAGE_TOKENS = 4          # a chat message's own framing (role, separators)
# A tokenizer may count a prompt at down to about half its estimate (an OpenAI tokenizer,
# which groups digits, on grids): a prompt estimated within this multiple of its budget is
# counted before it is passed over.
OVERESTIMATE = 2


@dataclass(frozen=True)
class TokenCounter:
    """How one model's prompt tokens are counted (`name`: the model, for the records).

    Prompts are planned in the estimate, summed from kept sizes of their parts
    (arcmemo.memory.library); `estimate` says this count is that estimate, so a plan's size
    is the prompt's count and nothing needs recounting.
    """

    name: str
    count: Callable[[str], int]
    estimate: bool = False

    def __call__(self, text: str) -> int:
        return self.count(text) if text else 0

    def messages(self, messages: Sequence[dict]) -> int:
        """Tokens of a chat request: every message's content and its framing."""
        return sum(self(m.get("content") or "") + MESSAGE_TOKENS for m in messages)


ESTIMATE = TokenCounter("estimate", estimate_tokens, estimate=True)


def counter_for(llm, role: str) -> TokenCounter:
    """The count of the model `llm` uses for `role`: the client's `count_tokens(text, role)`
    (the model's tokenizer where arcmemo can reach it), else the estimate."""
    count = getattr(llm, "count_tokens", None)
    if count is None:
        return ESTIMATE
    return TokenCounter(f"{llm.model_for(role)}", lambda text: count(text, role))


__all__ = ["estimate_tokens", "TokenCounter", "ESTIMATE", "counter_for", "MESSAGE_TOKENS", "OVERESTIMATE"]
