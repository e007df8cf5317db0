"""Finding a concept by what a person types: an id, a name, or a name typed loosely.

A name matches exactly first, then by the store's name key (case, spaces, `_` and `-`
ignored: `"Extract Objects"` finds `extract objects`), across every format unless one is
given. Several matches are an error that lists them; no match is an error that names the
format searched, the other format when the name is there, and the closest names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from arcmemo.memory.errors import UnknownConcept
from arcmemo.memory.schema.concept import FORMATS, name_key

MAX_SUGGESTIONS = 5


class Entry(NamedTuple):
    id: int
    format: str
    name: str


def _listed(entries: Iterable[Entry]) -> str:
    return ", ".join(f"{e.format} {e.name!r} (id {e.id})" for e in sorted(entries, key=lambda e: e.id))


def resolve(ref: str | int, entries: list[Entry], format: str | None = None) -> int:
    """The id of the one concept `ref` means among `entries`; UnknownConcept (with suggestions) otherwise.

    `ref` is an id (ids are global: any format) or a name; text of digits is tried as an id
    first, then as a name (a concept named "42")."""
    text = str(ref).strip()
    if text.isdigit() and any(e.id == int(text) for e in entries):
        return int(text)
    scope = [e for e in entries if format is None or e.format == format]
    key = name_key(text)
    for matches in ([e for e in scope if e.name == text], [e for e in scope if name_key(e.name) == key]):
        if len(matches) == 1:
            return matches[0].id
        if matches:
            raise UnknownConcept(f"{text!r} could be {_listed(matches)}; give the exact name, its id, or --format")
    raise UnknownConcept(_not_found(text, key, entries, format))


def _not_found(text: str, key: str, entries: list[Entry], format: str | None) -> str:
    searched = format or "ps"
    message = f"no {searched} concept {text!r}"
    if format is None:
        message += f" (nor {' or '.join(f for f in FORMATS if f != 'ps')}: every format was searched, by id and name)"
    elsewhere = [e for e in entries if e.format != format and name_key(e.name) == key]
    if format is not None and elsewhere:
        formats = sorted({e.format for e in elsewhere})
        return f"{message}; {_listed(elsewhere)} has that name: use --format {' or --format '.join(formats)}"
    # imported here: a lookup that finds its concept (`concepts show`) needs no suggestions
    import difflib

    keys: dict[str, list[Entry]] = {}
    for e in entries:
        keys.setdefault(name_key(e.name), []).append(e)
    close = [e for k in difflib.get_close_matches(key, list(keys), n=MAX_SUGGESTIONS, cutoff=0.6) for e in keys[k]]
    if close:
        message += "; close names: " + ", ".join(
            f"{e.name!r}" + ("" if e.format == format else f" ({e.format})") for e in close[:MAX_SUGGESTIONS])
    return message + "; or try `arcmemo concepts search WORDS`"


__all__ = ["Entry", "resolve", "MAX_SUGGESTIONS"]
