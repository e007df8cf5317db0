"""What a run records about itself beyond its event log: what memory selection offered each
task (a line of the run directory's selections.jsonl).

A selection record keeps the names of the concepts offered as they were then, so
`arcmemo runs selections` reads the run directory alone, also after the memory changed.
Names the select model wrote that are not concepts but type names of the memory (a custom
type, or a word of a concept's typing such as "object" or "direction") are kept apart from
the names that match nothing at all: they are in memory, as types.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from arcmemo.core.text import utf8_safe
from arcmemo.run.stages.prepared import prepared
from arcmemo.selection import Selection


def selection_record(task_id: str, pass_index: int, selection: Selection, names: Mapping[int, str], *,
                     thread: int = 0, retry: int = 0) -> dict[str, Any]:
    """One line of `selections.jsonl`: what selection offered a task in a pass (in one thread,
    before its first answer or, re-selected, before retry `retry`), and why, and how the
    memory was shown (`level`: full, collapsed, compressed, prefiltered). Text from a model is
    kept with lone surrogates replaced (they cannot be written as UTF-8)."""
    def text(value: str | None) -> str | None:
        return None if value is None else utf8_safe(value)

    written = [utf8_safe(str(name)) for name in selection.unmatched]
    types = getattr(names, "types", frozenset()) if written else frozenset()      # lowercase (prepared.py)
    return {
        "task_id": task_id, "pass_index": pass_index, "thread": thread, "retry": retry, "mode": selection.mode,
        "level": selection.stats.get("form"),
        "concept_ids": list(selection.concept_ids),
        "concepts": [names.get(i, f"#{i}") for i in selection.concept_ids],
        "unmatched": [n for n in written if _type_key(n) not in types],
        "named_types": [n for n in written if _type_key(n) in types], "fallback": selection.fallback,
        "error": text(selection.error), "reasoning": text(selection.reasoning), "caption": text(selection.caption),
        "hint": text(selection.hint), "asked_again": selection.stats.get("asked_again"),
        "probe_fits": selection.stats.get("probe_fits"), "usage": selection.usage_dict(),
    }


def concept_names(memory) -> Mapping[int, str]:
    """id -> name of every concept in memory (what selection records name concepts by), with
    `types`: the memory's type names (custom types and the words of concepts' typings); as
    prepared for its current revision (prepared.py: read once per revision, not per record)."""
    return prepared(memory).names


def _type_key(name: str) -> str:
    """A written name as compared with type names: without quotes, backticks or a `:= ...` tail."""
    return name.split(":=")[0].strip().strip("`'\"").strip().lower()


FENCED = re.compile(r"```[^\n]*\n(.*?)(?:```|$)", re.DOTALL)


def reasoning_parts(text: str | None) -> tuple[str, str]:
    """(the select model's reasoning, its answer) from a record's `reasoning` text, which keeps
    the model's reasoning (a reasoning model's own, then any text it wrote) and its answer
    whole: the answer is what its fenced blocks hold, the reasoning everything else."""
    text = text or ""
    answer = "\n".join(block.strip() for block in FENCED.findall(text)).strip()
    prose = FENCED.sub("", text).strip()
    lines = [line.strip() for line in prose.splitlines() if line.strip()]
    if not answer and lines and all(line.startswith("- ") or line == "[]" for line in lines):
        return "", prose            # a bare list, as small models answer without the fence
    return prose, answer
