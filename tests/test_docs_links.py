"""The README is a front page and every relative link in it and in docs/ leads somewhere.

Each relative link (`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`) and picture
(`![alt](path)`) in README.md and docs/*.md must name a file or folder of the checkout, and
its #anchor a heading of the Markdown file it names, slugged as GitHub slugs headings. Links
in code are not links.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 300
PARSER = MarkdownIt("commonmark").enable("table")


def _text(inline) -> str:
    """A heading's text as GitHub reads it for its slug: code spans without their backticks."""
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor in `page` (a repeated heading gets -1, -2, ... as on GitHub)."""
    tokens = PARSER.parse(page.read_text(encoding="utf-8"))
    found: set[str] = set()
    seen: dict[str, int] = {}
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type != "heading_open":
            continue
        base = slug(_text(inline))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The targets of every link and picture in `page`, outside code."""
    targets = []
    for token in PARSER.parse(page.read_text(encoding="utf-8")):
        for child in token.children or ():
            if child.type == "link_open":
                targets.append(str(child.attrs["href"]))
            elif child.type == "image":
                targets.append(str(child.attrs["src"]))
    return targets


def broken_links(page: Path) -> list[str]:
    """Each relative link of `page` that leads nowhere, with why."""
    problems = []
    for target in links(page):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue                                  # an address on the web, not checked here
        path = unquote(parts.path)
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            problems.append(f"{target}: no file {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked}")
        elif parts.fragment and linked.suffix == ".md" and unquote(parts.fragment) not in anchors(linked):
            problems.append(f"{target}: no heading with the anchor #{parts.fragment} in {linked.name}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(page):
    assert broken_links(page) == []


def test_the_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; the reference belongs in docs/"


def test_a_broken_link_or_anchor_is_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## A `code` heading: yes\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n[ok](other.md#a-code-heading-yes) [self](#page) [web](https://example.org/x)\n"
                    "[gone](missing.md) [bad anchor](other.md#nope) [bad self](#nope) ![pic](gone.png)\n\n"
                    "`[in code](missing.md)`\n", encoding="utf-8")
    assert [p.split(":")[0] for p in broken_links(page)] == ["missing.md", "other.md#nope", "#nope", "gone.png"]


def test_repeated_headings_get_numbered_anchors(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A\n\n## Measured\n\n## Measured\n", encoding="utf-8")
    assert anchors(page) == {"a", "measured", "measured-1"}
