"""arcmemo: concept-level memory for LLM reasoning (ArcMemo), with ARC-AGI as first domain."""

__version__ = "0.1.0"
