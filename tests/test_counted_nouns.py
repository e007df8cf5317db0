"""A count says its noun in agreement ("1 task", "2 tasks"), through core/table.counted, not as
"1 task(s)": a message that puts a number before "noun(s)" is refused. The sandbox, which
imports nothing of arcmemo, is left out."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COUNT_THEN_NOUNS = re.compile(r"\{[^{}]+\}[\"f ]*[\w .]*?[a-z]\(s\)")

from arcmemo.core.table import counted  # noqa: E402


def test_counted_agrees_with_its_number():
    assert (counted(1, "task"), counted(2, "task"), counted(0, "concept")) == ("1 task", "2 tasks", "0 concepts")
    assert counted(3, "index", "indices") == "3 indices"


def test_no_message_counts_into_a_noun_with_s_in_brackets():
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in (ROOT / "arcmemo").rglob("*.py") if "sandbox" not in path.parts
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if COUNT_THEN_NOUNS.search(line)]
    assert not found, "say the count with core/table.counted:\n" + "\n".join(found)
