"""The paper's released data is found from the checkout, never by one machine's absolute path."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import shared_data

ROOT = Path(__file__).resolve().parents[1]


def test_the_override_names_the_one_folder_looked_in(tmp_path, monkeypatch):
    monkeypatch.setenv(shared_data.ENV, str(tmp_path))
    assert shared_data.shared_dirs() == [tmp_path]
    assert shared_data.reference(shared_data.PS_MEMORY) is None
    assert str(tmp_path / "reference" / "arcmemo" / "compressed_v1.json") in shared_data.missing(shared_data.PS_MEMORY)
    released = tmp_path / "reference" / "arcmemo" / "compressed_v1.json"
    released.parent.mkdir(parents=True)
    released.write_text("{}")
    assert shared_data.reference(shared_data.PS_MEMORY) == released


def test_the_shared_folder_is_beside_the_checkout_or_beside_its_main_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv(shared_data.ENV, raising=False)
    checkout = tmp_path / "wt" / "one"
    checkout.mkdir(parents=True)
    (checkout / ".git").write_text(f"gitdir: {tmp_path / 'main' / '.git' / 'worktrees' / 'one'}\n")
    monkeypatch.setattr(shared_data, "ROOT", checkout)
    assert shared_data.shared_dirs() == [tmp_path / "wt" / "shared", tmp_path / "shared"]
    (checkout / ".git").unlink()
    assert shared_data.shared_dirs() == [tmp_path / "wt" / "shared"]


def test_no_test_or_benchmark_finds_shared_data_by_an_absolute_path():
    found = [f"{path.relative_to(ROOT)}:{number}" for folder in ("tests", "benchmarks") for path in (ROOT / folder).rglob("*.py")
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"[\"']/\w+/shared\b", line)]
    assert found == [], "find the shared data with benchmarks/shared_data.py (tests: tests/shared_data.py)"
