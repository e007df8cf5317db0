"""The helper step of the PS write: a verified solution's routines as helpers, verified.

After the concepts of a solution are written, the aux model is asked to implement the
routine concepts that have no helper yet as helper functions (named after the concept,
its parameters first) and to rewrite the solution to call them. The sandbox decides what
stays: the rewrite must pass every train pair of the task with those helpers (and the
library's) importable, and must call each helper kept. The model's word is never enough.
A helper that does not qualify is dropped and reported with the reason (the write records
it as a failure of this step); the prose concepts are written either way.

Verification needs the sandbox, which this layer does not reach: the run layer passes
`verify(program, helpers)`, which returns the verification record (`Verified`) and the helpers the
program reached (called, or called by a helper it called), or raises ValueError saying why
the program failed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from arcmemo.core.parsing import ParseError, definitions_only
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.helpers.source import HelperError, check_helper, check_helper_of, describe, helper_name
from arcmemo.memory.helpers.value import Helper, Verified
from arcmemo.prompts import render_prompt

STEP = "ps_helpers"
MAX_HELPERS = 3          # helpers asked for per solution (a small model writes a few well, not many)
Verify = Callable[[str, Mapping[str, Helper]], tuple[Verified, set[str]]]
_SECTION = re.compile(r"^#{2,4}\s*(helper\s*:\s*(?P<name>[A-Za-z_]\w*)|program)\s*$", re.IGNORECASE | re.MULTILINE)
_FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)```", re.S)


@dataclass
class Proposal:
    """What the model answered: helper sources by function name, and the rewritten program."""

    helpers: dict[str, str]
    program: str


@dataclass
class HelperOutcome:
    """The concepts (with the helpers that verified attached) and what was dropped, and why."""

    concepts: list[dict]
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def wanted(concepts: Sequence[dict], stored: Sequence) -> list[tuple[dict, str, list[str]]]:
    """(concept, helper name, parameter names) of the written routines that have no helper yet,
    at most MAX_HELPERS; a bare reference takes its kind and parameters from memory."""
    by_name = {c.name: c for c in stored}
    found = []
    for concept in concepts:
        old = by_name.get(concept["name"])
        if (old is not None and old.helper) or (concept.get("kind") or (old.kind if old else None)) != "routine":
            continue
        params = [p["name"] for p in (old.parameters if old else [])]
        params += [p["name"] for p in concept.get("parameters") or [] if p["name"] not in params]
        try:
            found.append((concept, helper_name(concept["name"]), params))
        except HelperError:
            continue
    return found[:MAX_HELPERS]


def helpers_prompt(code: str, todo: Sequence[tuple[dict, str, list[str]]], library: Mapping[str, Helper]) -> str:
    lines = [f"- {name}({', '.join(params)}): {concept['name']}"
             + (f" - {concept['description'].splitlines()[0]}" if concept.get("description") else "")
             for concept, name, params in todo]
    listed = [f"- {info.signature}: {info.summary}" for info in (describe(h.source) for h in library.values())]
    return render_prompt("ps_helpers", code=code.strip(), wanted="\n".join(lines),
                         library="\n".join(listed) or "(none yet)", max=len(todo))


def parse_helpers(text: str, names: Sequence[str]) -> Proposal:
    """The `### helper: name` and `### program` sections, each with one fenced block, or no helpers
    for an answer that is just NONE; ParseError otherwise."""
    if (text or "").strip().strip(".").upper() == "NONE":
        return Proposal({}, "")
    sections = list(_SECTION.finditer(text or ""))
    helpers, program = {}, None
    for i, header in enumerate(sections):
        body = text[header.end():sections[i + 1].start() if i + 1 < len(sections) else len(text)]
        block = _FENCE.search(body)
        if block is None:
            raise ParseError(f"the section {header.group(0).strip()!r} has no fenced ```python block")
        if header.group("name"):
            if header.group("name") not in names:
                raise ParseError(f"helper {header.group('name')!r} was not asked for (asked: {', '.join(names)})")
            helpers[header.group("name")] = block.group(1)
        else:
            program = definitions_only(block.group(1))
    if program is None:
        raise ParseError("the answer has no '### program' section with the rewritten program")
    if not helpers:
        raise ParseError("the answer has no '### helper: <name>' section")
    return Proposal(helpers, program)


def attach_helpers(proposal: Proposal, concepts: Sequence[dict], todo: Sequence[tuple[dict, str, list[str]]],
                   library: Mapping[str, Helper], verify: Verify) -> HelperOutcome:
    """`concepts` with the proposed helpers that pass the checks attached (see the module docstring)."""
    by_helper = {name: (concept, params) for concept, name, params in todo}
    outcome = HelperOutcome(concepts=list(concepts))
    if not proposal.helpers:           # the model found none worth a helper
        return outcome
    candidates: dict[str, Helper] = {}
    known = [*library, *proposal.helpers]
    for name, source in proposal.helpers.items():
        concept, params = by_helper[name]
        try:
            depends = list(check_helper(source, name, params, helpers=known).depends)
            depends = check_helper_of(concept["name"], params, name, source, depends)
        except (HelperError, ConceptDataError) as exc:
            outcome.dropped.append(f"helper {name} of concept {concept['name']!r}: {exc}")
            continue
        candidates[name] = Helper(name, source, tuple(depends))
    if not candidates:
        return outcome
    # a candidate whose dependencies were dropped cannot be kept either
    for name in list(candidates):
        missing = [d for d in candidates[name].depends if d not in candidates and d not in library]
        if missing:
            outcome.dropped.append(f"helper {name}: it calls {', '.join(missing)}, which was dropped")
            del candidates[name]
    try:
        record, reached = verify(proposal.program, candidates)
    except ValueError as exc:
        outcome.dropped += [f"helper {name} of concept {by_helper[name][0]['name']!r}: the program rewritten to "
                            f"call it fails: {exc}" for name in candidates]
        return outcome
    for name in [n for n in candidates if n not in reached]:
        outcome.dropped.append(f"helper {name} of concept {by_helper[name][0]['name']!r}: the rewritten program "
                               "never calls it")
        del candidates[name]
    for name in [n for n in candidates if any(d not in candidates and d not in library
                                                for d in candidates[n].depends)]:
        outcome.dropped.append(f"helper {name}: it calls a helper that was dropped")
        del candidates[name]
    attached = {by_helper[name][0]["name"]: helper.replace(verified=record).to_data()
                for name, helper in candidates.items()}
    outcome.concepts = [{**c, "helper": attached[c["name"]]} if c["name"] in attached else c
                        for c in outcome.concepts]
    outcome.kept = sorted(candidates)
    return outcome


__all__ = ["STEP", "MAX_HELPERS", "Proposal", "HelperOutcome", "wanted", "helpers_prompt", "parse_helpers",
           "attach_helpers"]
