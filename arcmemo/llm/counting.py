"""Counting a prompt's tokens for its budget: the client's count (`LLM.count_tokens(text,
role)`) when it is the model's own tokenizer, else the digit-aware estimate (with the model's
digit grouping: arcmemo.llm.tokens).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from arcmemo.core.estimate import estimate_tokens
from arcmemo.llm.tokens import DIGIT_GROUP, tokenizer_for

MESSAGE_TOKENS = 4          # a chat message's own framing (role, separators)
# A tokenizer may count a prompt at down to about half its estimate (an OpenAI tokenizer,
# which groups digits, on grids): a prompt estimated within this multiple of its budget is
# counted before it is passed over.
OVERESTIMATE = 2


@dataclass(frozen=True)
class TokenCounter:
    """How one model's prompt tokens are counted (`name`: the model, for the records).

    Prompts are planned in the estimate, summed from kept sizes of their parts
    (arcmemo.memory.views.library); `estimate` says this count is that estimate, so a plan's size
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
    when that is the model's own tokenizer (tokens.tokenizer_for), else the estimate with
    the model's digit grouping; ESTIMATE itself for a model counted one token per digit."""
    if llm is None:
        return ESTIMATE
    model, traits = llm.model_for(role), llm.traits(role)
    if tokenizer_for(model, traits).exact:
        return TokenCounter(model, lambda text: llm.count_tokens(text, role))
    digit_group = DIGIT_GROUP.get(traits.tokenizer or "", 1)
    if digit_group == 1:
        return ESTIMATE
    return TokenCounter(f"{model} (estimate)", partial(estimate_tokens, digit_group=digit_group))


__all__ = ["estimate_tokens", "TokenCounter", "ESTIMATE", "counter_for", "MESSAGE_TOKENS", "OVERESTIMATE"]
