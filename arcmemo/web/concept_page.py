"""What the concept page shows of one concept: the fields of its format (a PS concept has no
situation, an OE lesson no parameters), its helper's source and verification record, and the
YAML its edit form and revision diffs are written in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from arcmemo.core import safeyaml
from arcmemo.memory.schema.concept import DATA_FIELDS, Concept
from arcmemo.memory.store.reads import ConceptUse
from arcmemo.web.highlight import python_html

# The fields each format's concepts are written with (besides format and name; a PS helper apart).
FORMAT_FIELDS = {
    "ps": ("kind", "routine_subtype", "output_typing", "description", "parameters", "cues", "implementation"),
    "oe": ("situation", "suggestion"),
    "sheet": ("description",),
}
COMMON_FIELDS = ("used_in", "source")
LABELS = {"routine_subtype": "routine subtype", "output_typing": "output typing", "used_in": "used in tasks"}


def _empty(value: Any) -> bool:
    return value is None or value == []


def _own_fields(fmt: str) -> tuple[str, ...]:
    return (*FORMAT_FIELDS.get(fmt, ()), *COMMON_FIELDS)


def shown_fields(concept: Concept) -> list[tuple[str, str, Any]]:
    """(label, field, value) of the fields of the concept's format, then any other field that
    holds something (nothing is hidden that the concept has)."""
    data = concept.to_data()
    own = _own_fields(concept.format)
    others = [f for f in DATA_FIELDS if f not in (*own, "format", "name", "helper") and not _empty(data[f])]
    return [(LABELS.get(f, f), f, data[f]) for f in (*own, *others)]


def concept_yaml(data: dict[str, Any]) -> str:
    """A concept's data as the edit form's YAML: its format's fields, and any other that is set.

    An edit reads back the whole text and a field left out becomes empty, so leaving out only
    empty fields changes nothing."""
    fmt = data.get("format") or "ps"
    keep = {"format", "name", *_own_fields(fmt), *(("helper",) if fmt == "ps" else ())}
    return safeyaml.dump({f: data.get(f) for f in DATA_FIELDS if f in keep or not _empty(data.get(f))})


@dataclass(frozen=True)
class HelperView:
    """A PS concept's helper as the page shows it."""

    name: str
    source: Markup
    depends: list[tuple[str, int | None]]     # (helper name, id of the concept holding it)
    task_id: str | None
    tasks: str | None                         # the task source it was verified on
    dataset: str | None                       # that source's name on this server, to link the task
    at: str | None
    run_id: str | None
    program: Markup | None                    # the program that called it and passed every train pair
    usage: ConceptUse


def helper_view(concept: Concept, holders: dict[str, Concept], usage: ConceptUse | None,
                dataset_of) -> HelperView | None:
    """The concept's helper (None without one). `holders`: helper name -> its concept;
    `dataset_of(source)`: the name a task source goes by here, or None."""
    helper = concept.helper
    if not helper:
        return None
    verified = helper.verified
    program = verified.program if verified else None
    return HelperView(
        name=helper.name, source=python_html(helper.source),
        depends=[(name, holders[name].id if name in holders else None) for name in helper.depends],
        task_id=verified.task_id if verified else None, tasks=verified.tasks if verified else None,
        dataset=dataset_of(verified.tasks) if verified else None, at=verified.at if verified else None,
        run_id=verified.run_id if verified else None,
        program=python_html(program) if program else None, usage=usage or ConceptUse())
