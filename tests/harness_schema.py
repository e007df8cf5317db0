"""The ARC Prize benchmarking harness's submission schema, restated for the tests.

Written from arcprize/arc-agi-benchmarking `src/arc_agi_benchmarking/schemas.py` (the
models its scorer validates a submission file with: BenchmarkedTaskResults ->
TestPairAttempts -> Optional[Attempt] -> AttemptMetadata -> Usage/Cost/Choice), with the
same field types and the same `attempt_N` -> list conversion; plus what its scorer
relies on beyond the types: `pair_index` an int within the task's test inputs, and start
and end timestamps it can subtract (both time-zone aware here, end not before start).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, field_validator, model_validator


class Message(BaseModel):
    role: str
    content: str


class Choice(BaseModel):
    index: int
    message: Message


class PromptTokensDetails(BaseModel):
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0


class CompletionTokensDetails(BaseModel):
    reasoning_tokens: int
    accepted_prediction_tokens: int
    rejected_prediction_tokens: int


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: PromptTokensDetails | None = None
    completion_tokens_details: CompletionTokensDetails


class Cost(BaseModel):
    prompt_cost: float
    completion_cost: float
    reasoning_cost: float | None = None
    total_cost: float


class AttemptMetadata(BaseModel):
    model: str
    provider: str
    start_timestamp: datetime
    end_timestamp: datetime
    choices: list[Choice]
    reasoning_summary: str | None = None
    reasoning_content: str | None = None
    kwargs: dict[str, Any]
    usage: Usage
    cost: Cost
    task_id: str | None = None
    pair_index: int | None = 0
    test_id: str | None = None

    @model_validator(mode="after")
    def scorer_can_use_it(self):
        for stamp in (self.start_timestamp, self.end_timestamp):
            if stamp.tzinfo is None:
                raise ValueError(f"timestamp {stamp} has no time zone")
        if self.end_timestamp < self.start_timestamp:
            raise ValueError("end_timestamp is before start_timestamp")
        if not isinstance(self.pair_index, int):
            raise ValueError("pair_index must be an int (the scorer compares it with the test count)")
        if self.usage.total_tokens != self.usage.prompt_tokens + self.usage.completion_tokens:
            raise ValueError("total_tokens is not prompt_tokens + completion_tokens")
        parts = self.cost.prompt_cost + self.cost.completion_cost + (self.cost.reasoning_cost or 0.0)
        if abs(self.cost.total_cost - parts) > 1e-12:
            raise ValueError("total_cost is not the sum of its parts")
        return self


class Attempt(BaseModel):
    answer: str | list[list[int]]
    metadata: AttemptMetadata
    correct: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def check_answer_present(cls, values):
        if isinstance(values, dict) and "answer" not in values:
            raise KeyError("answer")
        return values

    @field_validator("answer")
    @classmethod
    def a_grid_not_text(cls, value):
        if isinstance(value, str):
            raise ValueError("arcmemo writes grids, never text to be parsed")
        return value


class TestPairAttempts(BaseModel):
    attempts: list[Attempt | None]

    @model_validator(mode="before")
    @classmethod
    def validate_attempts(cls, values):
        if isinstance(values, list):
            return values
        if isinstance(values, dict):
            values["attempts"] = [values[key] for key in sorted(values) if key.startswith("attempt_")]
        return values


class BenchmarkedTaskResults(BaseModel):
    test_pairs: list[TestPairAttempts]


def validate_file(data: Any, n_tests: int) -> BenchmarkedTaskResults:
    """Validate one submission file's JSON as the harness's scorer does, for a task with
    `n_tests` test inputs."""
    results = BenchmarkedTaskResults(test_pairs=data)
    assert len(results.test_pairs) == n_tests
    for j, pair in enumerate(results.test_pairs):
        for attempt in pair.attempts:
            if attempt is not None:
                assert attempt.metadata.pair_index == j
                assert (attempt.metadata.end_timestamp - attempt.metadata.start_timestamp).total_seconds() >= 0
    return results
