"""`arcmemo concepts list|show|search|edit|delete|history|graph|stats|export|import`: look at and move memory;
`consolidate|merge|split|revert`: merge near-duplicate concepts and undo a merge."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arcmemo.cli.common import (
    AtLeast,
    FloatAtLeast,
    UserError,
    db_option,
    echo_json,
    run_dir_option,
    user_errors,
)
from arcmemo.cli.selection_options import MethodChoice
from arcmemo.consolidation import ACTOR, MAX_JUDGED, MIN_OVERLAP
from arcmemo.core.table import counted
from arcmemo.memory.errors import ConceptDataError, StoreError, UnknownConcept
from arcmemo.memory.schema.concept import FORMATS, LIST_FIELDS

if TYPE_CHECKING:
    from arcmemo.memory.schema.concept import Concept

FORMAT = click.Choice(FORMATS)
TEXT_FIELDS = ("format", "name", "kind", "routine_subtype", "output_typing", "description", "situation",
               "suggestion", "source")


def _actor(actor: str | None) -> str:
    if actor:
        return actor
    import getpass

    try:
        return f"user:{getpass.getuser()}"
    except Exception:  # no login name (containers)
        return "user"


def _url(db: str | None, *, create: bool = False) -> str:
    """--db/ARCMEMO_DB; read commands refuse to create a missing SQLite file."""
    from arcmemo.core.config import db_url

    url = db_url(db)
    from arcmemo.memory.store.reader import sqlite_file

    path = sqlite_file(url)
    if not create and path is not None and not path.exists():
        raise UserError(f"no memory database at {url} (pass --db, set ARCMEMO_DB, or create one with "
                        f"`arcmemo seed` or `arcmemo concepts import`)")
    return url


def _closed_at_the_end(memory):
    """`memory`, closed when the command ends (its SQLite file left without -wal/-shm beside it)."""
    click.get_current_context().call_on_close(memory.close)
    return memory


def _open(db: str | None, *, create: bool = False):
    """The Memory for --db/ARCMEMO_DB."""
    from arcmemo.memory.store import Memory

    url = _url(db, create=create)
    try:
        return _closed_at_the_end(Memory(url))
    except StoreError as exc:
        raise UserError(str(exc)) from None


def _open_for_reading(db: str | None):
    """The memory for a command that only reads: opened read-only, so nothing is ever written to
    it (memory/store/reader.py): lean for an up-to-date SQLite file (no database libraries loaded),
    else the full Memory in read-only mode."""
    from arcmemo.memory.store.reader import open_reader

    try:
        return _closed_at_the_end(open_reader(_url(db)))
    except StoreError as exc:
        raise UserError(str(exc)) from None


def _lookup_format(fn):
    """`--format` for commands that look a concept up by name."""
    return click.option("--format", "fmt", type=FORMAT, default=None,
                        help="Look REF up in this format only (default: every format; a name found in more "
                             "than one is an error that lists them).")(fn)


def _table(rows: list[list], header: list[str]) -> str:
    from arcmemo.core.table import table

    return table(rows, header, rule=False)


def _clip(text: str | None, n: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _summary_row(c: Concept) -> list:
    detail = (c.routine_subtype or c.output_typing) if c.format == "ps" else (c.situation or c.description)
    return [c.id, c.format, c.name, len(c.used_in or []), c.kind or "", _clip(detail, 60)]


def _summary(c: Concept) -> dict:
    return {"id": c.id, **c.to_data(), "model": c.created_by_model, "content_hash": c.content_hash,
            "created_at": c.created_at.isoformat(), "updated_at": c.updated_at.isoformat()}


def _print_concepts(concepts: list[Concept], as_json: bool) -> None:
    if as_json:
        echo_json([_summary(c) for c in concepts])
    elif concepts:
        click.echo(_table([_summary_row(c) for c in concepts], ["id", "format", "name", "uses", "kind", "detail"]))
    else:
        click.echo("no concepts", err=True)


@click.group()
def concepts() -> None:
    """Browse, edit and move the concept memory."""


@concepts.command("list")
@db_option
@click.option("--format", "fmt", type=FORMAT, help="Only this format.")
@click.option("--as-of", type=AtLeast(0), metavar="REV", help="The memory as it was after revision REV.")
@click.option("--with-code", is_flag=True,
              help="Only the concepts that have a helper, each with its helper's source and where it was verified.")
@click.option("--json", "as_json", is_flag=True, help="Full concept data as JSON.")
@user_errors
def list_command(db, fmt, as_of, with_code, as_json) -> None:
    """List concepts, one line each (id, format, name, uses, kind, detail)."""
    concepts = _open_for_reading(db).list(fmt, as_of=as_of)
    if not with_code:
        _print_concepts(concepts, as_json)
        return
    concepts = [c for c in concepts if c.helper]
    if as_json or not concepts:
        _print_concepts(concepts, as_json)
        return
    for c in concepts:
        helper, verified = c.helper, c.helper.verified
        click.echo(f"# {c.name} (id {c.id}): {helper.name}, verified on task {verified.task_id} "
                   f"({verified.tasks}) at {verified.at}"
                   + (f"; calls {', '.join(helper.depends)}" if helper.depends else ""))
        click.echo(helper.source.rstrip() + "\n\n")


@concepts.command("show")
@click.argument("ref")
@db_option
@_lookup_format
@click.option("--as-of", type=AtLeast(0), metavar="REV", help="The concept as it was after revision REV.")
@click.option("--json", "as_json", is_flag=True, help="The concept's data, model, hash and times as JSON.")
@run_dir_option
@user_errors
def show(ref, db, fmt, as_of, as_json, run_dir) -> None:
    """One concept in full. REF is an id or a name; case, spaces, '_' and '-' in a name do not matter.

    Its "in solves" counts are `concepts stats`' (the runs that wrote this memory and the
    read-only solves of it in the runs folder, --run-dir)."""
    memory = _open_for_reading(db)
    if as_of is None:
        concept = memory.find(ref, fmt)
    else:
        then = {c.id: c for c in memory.list(as_of=as_of)}
        try:
            from arcmemo.memory.store.names import Entry, resolve

            concept = then[resolve(ref, [Entry(c.id, c.format, c.name) for c in then.values()], fmt)]
        except UnknownConcept as exc:
            raise UnknownConcept(f"as of revision {as_of}: {exc}") from None
    counts = _use(memory, run_dir, [concept.id]).get(concept.id)
    if as_json:
        echo_json({**_summary(concept), "usage": counts.as_dict() if counts else None})
    else:
        click.echo(f"# id {concept.id}, {len(concept.used_in or [])} uses, model {concept.created_by_model or '-'}, "
                   f"updated {concept.updated_at:%Y-%m-%d %H:%M:%S}")
        if counts:
            click.echo("# in solves: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.as_dict().items()))
        from arcmemo.core import safeyaml

        click.echo(safeyaml.dump(concept.to_data()), nl=False)


@concepts.command("search")
@click.argument("query")
@db_option
@click.option("--format", "fmt", type=FORMAT, help="Only this format.")
@click.option("--limit", type=AtLeast(1), default=20, show_default=True, help="At most N concepts.")
@click.option("--json", "as_json", is_flag=True, help="Full concept data as JSON.")
@user_errors
def search(query, db, fmt, limit, as_json) -> None:
    """Find concepts containing every word of QUERY.

    Case-insensitive, over name, description, cues, implementation notes, situation and
    suggestion; name matches first."""
    _print_concepts(_open_for_reading(db).search(query, fmt, limit=limit), as_json)


def _parse_set(assignments: tuple[str, ...]) -> dict:
    from arcmemo.core import safeyaml

    changes = {}
    for item in assignments:
        field, sep, value = item.partition("=")
        field = field.strip()
        if not sep or not field:
            raise UserError(f"--set {item!r}: expected FIELD=VALUE")
        if field in LIST_FIELDS:
            try:
                parsed = safeyaml.load(value) if value.strip() else []
            except (safeyaml.YAMLError, RecursionError) as exc:
                raise UserError(f"--set {field}: not a YAML list: {_yaml_problem(exc)}") from None
            if not isinstance(parsed, list):
                raise UserError(f"--set {field}: expected a YAML list, e.g. {field}='[first, second]'")
            changes[field] = parsed
        elif field in TEXT_FIELDS:
            changes[field] = value if value.strip() else None
        else:
            raise UserError(f"--set {field}: unknown field (fields: {', '.join(TEXT_FIELDS + LIST_FIELDS)})")
    return changes


def _yaml_problem(exc: BaseException) -> str:
    from arcmemo.core import safeyaml

    return safeyaml.describe(exc) if isinstance(exc, safeyaml.YAMLError) else "nested too deeply to read"


@concepts.command("edit")
@click.argument("ref")
@db_option
@_lookup_format
@click.option("--set", "assignments", multiple=True, metavar="FIELD=VALUE",
              help="Set one field (repeatable); list fields take YAML: cues='[a, b]'. Without --set, opens $EDITOR.")
@click.option("--helper-source", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="A file with new source for the concept's helper (verified again with its recorded program "
                   "and task before it is stored).")
@click.option("--reason", default="edited from the command line", show_default=True,
              help="Why, kept with the revision.")
@click.option("--actor", default=None, help="Who edits (default user:$USER).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@user_errors
def edit(ref, db, fmt, assignments, helper_source, reason, actor, as_json) -> None:
    """Change a concept (REF = id or name); every edit is a revision (see `history`).

    A changed helper is verified again in the sandbox (its recorded program must still pass
    every train pair of its task and call it) before anything is stored."""
    from arcmemo.run.helpers.verify import HelperVerificationError, verify_edit
    from arcmemo.run.session import shared_sandbox

    memory = _open(db)
    concept = memory.find(ref, fmt)
    if assignments or helper_source:
        changes = _parse_set(assignments)
        if helper_source:
            if not concept.helper:
                raise UserError(f"concept {concept.name!r} has no helper to change; add one in $EDITOR "
                                "(helper: name, source, depends, verified: task_id, tasks, program)")
            changes["helper"] = {**concept.helper.to_data(), "source": helper_source.read_text(encoding="utf-8")}
    else:
        from arcmemo.core import safeyaml
        from arcmemo.memory.io.imports import read_edit

        text = click.edit(safeyaml.dump(concept.to_data()), extension=".yaml")
        if text is None:
            click.echo("no changes", err=True)
            return
        changes = read_edit(text)
    try:
        changes = verify_edit(memory, shared_sandbox(), concept, changes)
        before = concept.to_data()
        updated = memory.edit(concept.id, changes, actor=_actor(actor), reason=reason)
    except HelperVerificationError as exc:
        raise UserError(f"concept {concept.name!r}: the edited helper does not verify: {exc}; nothing changed") from None
    except ConceptDataError as exc:
        raise UserError(f"concept {concept.name!r}: {exc}; nothing changed") from None
    if as_json:
        echo_json(_summary(updated))
    elif updated.to_data() == before:
        click.echo("no changes", err=True)
    else:
        click.echo(f"edited {updated.format} concept {updated.id} {updated.name!r} (revision {memory.revision()})")


@concepts.command("delete")
@click.argument("ref")
@db_option
@_lookup_format
@click.option("--reason", default="deleted from the command line", show_default=True,
              help="Why, kept with the revision.")
@click.option("--actor", default=None, help="Who deletes (default user:$USER).")
@user_errors
def delete(ref, db, fmt, reason, actor) -> None:
    """Delete a concept (REF = id or name; its history stays).

    `list --as-of` and `show --as-of` still show it as it was."""
    memory = _open(db)
    concept = memory.find(ref, fmt)
    memory.delete(concept.id, actor=_actor(actor), reason=reason)
    click.echo(f"deleted {concept.format} concept {concept.id} {concept.name!r} (revision {memory.revision()})")


@concepts.command("history")
@click.argument("ref", required=False)
@db_option
@_lookup_format
@click.option("--limit", type=AtLeast(0), default=None, help="Only the last N revisions.")
@click.option("--json", "as_json", is_flag=True, help="Every revision with its snapshot as JSON.")
@user_errors
def history(ref, db, fmt, limit, as_json) -> None:
    """Revisions of one concept (REF = id or name) or of all.

    Oldest first; each shows op, actor, run, task, model and reason."""
    memory = _open_for_reading(db)
    revs = memory.history() if ref is None else _history_of(memory, ref, fmt)
    if limit is not None:
        revs = revs[-limit:] if limit > 0 else []
    if as_json:
        echo_json([r.to_json() for r in revs])
        return
    rows = [[r.id, f"{r.created_at:%Y-%m-%d %H:%M:%S}", r.op, r.format, r.name, r.actor, r.run_id or "",
             r.task_id or "", r.model or "", _clip(r.reason, 40)] for r in revs]
    click.echo(_table(rows, ["rev", "time", "op", "format", "name", "actor", "run", "task", "model", "reason"]))


def _history_of(memory, ref: str, fmt: str | None) -> list:
    """Revisions of every concept that had the name REF means; a deleted or renamed concept is
    found by a name or id it had."""
    try:
        concept = memory.find(ref, fmt)
    except UnknownConcept as missing:
        revs = (memory.history(int(ref)) if ref.isdigit() else []) or memory.history(ref.strip(), fmt)
        if not revs:
            raise missing from None
        return revs
    return memory.history(concept.name, concept.format)


@concepts.command("graph")
@click.argument("name", required=False)
@db_option
@click.option("--graphml", "graphml", type=click.Path(dir_okay=False), help="Write the whole graph as GraphML.")
@click.option("--json", "as_json", is_flag=True,
              help="The neighbours as JSON: name, kind (type | co_usage), direction, typing, parameter, weight.")
@user_errors
def graph(name, db, graphml, as_json) -> None:
    """How a PS concept connects to others; --graphml exports the whole graph.

    A type link: a routine returns what another concept takes as a parameter (its output
    typing matches the parameter's typing). A co-usage link: two concepts were used in the
    same tasks. NAME is matched like `show`'s REF."""
    from arcmemo.memory.views.links import describe_link

    if name is None and graphml is None:
        raise UserError("give a concept NAME, --graphml PATH, or both")
    memory = _open_for_reading(db)
    if graphml:
        from arcmemo.memory.views.graph import build_graph, write_graphml

        g = build_graph(memory.list("ps"))
        write_graphml(g, graphml)
        click.echo(f"wrote {g.number_of_nodes()} concepts, {g.number_of_edges()} edges to {graphml}", err=True)
    if name is not None:
        name = memory.find(name, "ps").name
        rows = memory.links().neighbours(name)
        if as_json:
            echo_json(rows)
            return
        if not rows:
            click.echo(f"{name!r} has no type or co-usage links")
        for kind, heading in (("type", "type links (one's output is the other's input):"),
                              ("co_usage", "co-usage (used in the same tasks):")):
            lines = [f"- {describe_link(name, r)}" for r in rows if r["kind"] == kind]
            if lines:
                click.echo("\n".join([heading, *lines]))


def _use(memory, run_dir, concept_ids=None) -> dict:
    """Concept id -> its use: the memory's rows and the events of the read-only runs of it in the
    runs folder (records/concept_use.py), as every view counts it."""
    from arcmemo.core.settings import Settings
    from arcmemo.run.records.concept_use import concept_use, runs_reading

    return concept_use(memory, runs_reading(str(memory.url), Settings.load(runs_dir=run_dir).runs_dir), concept_ids)


@concepts.command("stats")
@db_option
@click.option("--run", "run_ref", default=None, metavar="RUN",
              help="Count only this run's tasks, read from its run directory (any run, read-only ones included).")
@run_dir_option
@click.option("--sort", "sort_by", type=click.Choice(["offered", "called", "called_passing", "solved", "offered_passing",
                                                      "helpful", "harmful", "name", "id"]),
              default="called_passing", show_default=True, help="Order of the rows (counts: most first).")
@click.option("--format", "fmt", type=FORMAT, default="ps", show_default=True,
              help="The items of this format (a memory method's: `arcmemo methods list`).")
@click.option("--all", "show_all", is_flag=True, help="Also the concepts never offered.")
@click.option("--unused-after", type=AtLeast(1), default=10, show_default=True, metavar="N",
              help="Flag a concept offered at least N times whose helper was never called, or never by a program "
                   "passing the train pairs (one without a helper: never offered to a task that passed them).")
@click.option("--flagged", is_flag=True, help="Only the flagged concepts.")
@click.option("--json", "as_json", is_flag=True, help="The rows as JSON.")
@user_errors
def stats(db, run_ref, run_dir, sort_by, fmt, show_all, unused_after, flagged, as_json) -> None:
    """How solves used each PS concept (or item of --format), measured by running the programs.

    offered: tasks it was offered to; called: its helper was called by a program there;
    called passing: by a program that passed every train pair; solved: called in a task the
    run finally solved; offered passing: offered to a task whose program passed every train
    pair; helpful, harmful: the memory method's own verdicts (ACE's, say). Without --run:
    every run that wrote this memory (seeding, solve --continual) and every read-only solve of
    it in the runs folder (--run-dir), as the concept's web page counts; with --run: that run's
    tasks. A concept merged into another counts for that one while merged.

    The flag column marks what memory keeps offering without use: offered at least
    --unused-after times and, with a helper, never called or never called by a passing
    program; without one, never offered to a task whose program passed the train pairs
    (candidates to edit, merge or delete)."""
    from arcmemo.memory.store.reads import COUNTERS, JUDGED, ConceptUse

    memory = _open_for_reading(db)
    if run_ref is None:
        counts = _use(memory, run_dir)
    else:
        counts = _run_usage(run_ref, run_dir, memory.merged_into())
    rows = [{"id": c.id, "name": c.name, "helper": c.helper.name if c.helper else None,
             **(counts.get(c.id) or ConceptUse()).as_dict()}
            for c in memory.list(fmt) if show_all or c.id in counts]
    for row in rows:
        row["flag"] = _unused_flag(row, unused_after)
    if flagged:
        rows = [r for r in rows if r["flag"]]
    if sort_by in (*COUNTERS, *JUDGED):
        rows.sort(key=lambda r: (-r[sort_by], -r["called"], -r["offered"], r["name"]))
    else:
        rows.sort(key=lambda r: r[sort_by])
    if as_json:
        echo_json(rows)
    elif rows:
        click.echo(_table([[r["id"], r["name"], r["helper"] or "-", *(r[k] for k in (*COUNTERS, *JUDGED)),
                            r["flag"] or ""] for r in rows],
                          ["id", "name", "helper", *(k.replace("_", " ") for k in (*COUNTERS, *JUDGED)), "flag"]))
    else:
        click.echo(("no concept is flagged" if flagged else "no concept was offered in a recorded solve yet")
                   + (f" (run {run_ref})" if run_ref else ""), err=True)


def _unused_flag(row: dict, offers: int) -> str | None:
    """Why a concept's counts say memory offers it without use (stats --unused-after), or None."""
    if row["offered"] < offers:
        return None
    if not row["helper"]:
        return None if row["offered_passing"] else f"offered {row['offered']}x, never to a task that passed"
    if not row["called"]:
        return f"offered {row['offered']}x, never called"
    if not row["called_passing"]:
        return f"offered {row['offered']}x, never called by a passing program"
    return None


def _run_usage(ref: str, run_dir: str | None, merged_into: dict[int, int] | None = None) -> dict:
    """Per concept id, the use counts a run's task events recorded (the last outcome of each task
    and pass), counted as every view counts them (run/records/concept_use.py)."""
    from arcmemo.core.settings import Settings
    from arcmemo.run.records.concept_use import outcome_use, task_uses
    from arcmemo.run.records.reader import find_run

    run = find_run(ref, Settings.load(runs_dir=run_dir).runs_dir)
    return outcome_use(task_uses(run.log.done.values()), merged_into)


CONSOLIDATED = click.Choice([f for f in FORMATS if f != "sheet"])


@concepts.command("consolidate")
@db_option
@click.option("--dry-run", is_flag=True, help="List what would be merged and why; change nothing.")
@click.option("--no-model", is_flag=True,
              help="Ask no model: merge only concepts whose helpers behave the same on the probe inputs.")
@click.option("--method", "method_name", type=MethodChoice(), default="ps", show_default=True,
              help="Merge within this memory method's own items only (`arcmemo methods list`).")
@click.option("--across-methods", is_flag=True, help="Merge within the whole memory, whichever method owns an item.")
@click.option("--format", "formats", type=CONSOLIDATED, multiple=True,
              help="Only this format (repeatable; default: the method's formats, or with --across-methods every "
                   "format but the cheatsheet).")
@click.option("--min-overlap", type=FloatAtLeast(0, maximum=1), default=MIN_OVERLAP, show_default=True,
              help="How much two concepts' words must overlap (the idf-weighted share of the shorter one's words "
                   "the other has too) for the model to judge them; their typings must agree as well.")
@click.option("--max-judged", type=AtLeast(0), default=MAX_JUDGED, show_default=True,
              help="Ask the model about at most N pairs (the closest first); the others are listed.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (env OPENAI_BASE_URL).")
@click.option("--aux-model", default=None, help="The model that judges pairs (env ARCMEMO_AUX_MODEL).")
@click.option("--no-cache", is_flag=True, help="Ask the model again even if this request was answered before.")
@click.option("--json", "as_json", is_flag=True, help="The plan (and what was merged) as JSON.")
@user_errors
def consolidate(db, dry_run, no_model, method_name, across_methods, formats, min_overlap, max_judged, base_url,
                aux_model, no_cache, as_json) -> None:
    """Find near-duplicate concepts and merge each group into one.

    Concepts are one when their helpers give the same results on probe inputs (small fixed
    grids and the train inputs of the tasks they were used in, run in the sandbox), or when
    their words overlap, their typings agree and the aux model judges them the same concept.
    The survivor takes the union of the others' tasks, cues, notes and parameters and keeps
    its helper; each merged concept is deleted with a revision naming the survivor (actor
    consolidate). `concepts split NAME` or `concepts revert REV` undoes a merge. Each memory
    method's items are its own: a consolidation merges within one method's (--method, ps by
    default) unless --across-methods says otherwise."""
    from arcmemo.consolidation.plan import apply_plan
    from arcmemo.core.settings import Settings
    from arcmemo.memory.store import Memory
    from arcmemo.memory.store.scoped import method_memory
    from arcmemo.methods import load_method
    from arcmemo.run.jobs.consolidating import consolidated_formats, plan_for
    from arcmemo.run.session import open_session, resolve_models

    settings = Settings.load(db=db)
    memory = _closed_at_the_end(Memory(_url(db), read_only=dry_run))
    if not across_methods:
        method = load_method(method_name)
        formats = formats or tuple(f for f in consolidated_formats(method, None) if f != "sheet")
        memory = method_memory(memory, method.owner())
    with open_session(settings) as session:
        session.use_prompts(settings.prompts_dir, settings.grid_text)
        llm = None if no_model else session.llm(
            None, resolve_models({"base_url": base_url, "aux_model": aux_model, "cache": False if no_cache else None}))
        plan = plan_for(memory, session.sandbox, llm, formats=formats, min_overlap=min_overlap, max_judged=max_judged)
        done = [] if dry_run else apply_plan(memory, plan, actor=ACTOR)
    if as_json:
        echo_json({**plan.to_json(), "dry_run": dry_run, "revision": memory.revision(),
                   "applied": [{**m.to_json(), "error": error} for m, _, error in done]})
        return
    _print_plan(plan, done, dry_run, memory.revision())


def _print_plan(plan, done: list, dry_run: bool, revision: int) -> None:
    errors = {id(m): error for m, _, error in done if error}
    heading = "would merge (dry run, nothing changed):" if dry_run else "merged:"
    lines = []
    for m in plan.merges:
        if id(m) in errors:
            continue
        lines.append(f"{m.survivor.format} {m.survivor.name!r} (id {m.survivor.id}) <- "
                     + "; ".join(f"{c.name!r} (id {c.id}): {m.why[c.id]}" for c in m.absorbed))
    click.echo("\n".join([heading, *(f"  {line}" for line in lines)]) if lines else
               "nothing to merge" + (" (dry run)" if dry_run else ""))
    for title, items in (("refused (each names both)", [*plan.refused, *errors.values()]),
                         ("judged different by the model",
                          [f"{j['first']!r} / {j['second']!r}: {j['reason']}" for j in plan.judged if not j["same"]]),
                         ("not judged", plan.unjudged)):
        if items:
            click.echo(f"{title}:\n" + "\n".join(f"  - {item}" for item in items))
    stats = plan.stats
    missing = f"; tasks not found for probe inputs: {_listed(stats['tasks_not_found'])}" if stats["tasks_not_found"] else ""
    click.echo(f"{stats['concepts']} concepts ({', '.join(stats['formats'])}), {stats['sandbox_runs']} sandbox runs, "
               f"{stats['word_pairs']} pairs alike in words, {stats['judged']} judged by the model{missing}", err=True)
    if done and len(errors) < len(done):
        click.echo(f"memory at revision {revision}; undo a merge with `arcmemo concepts split NAME` or "
                   "`arcmemo concepts revert REV` (see `arcmemo concepts history NAME`)", err=True)


def _who_and_why(verb: str, reason: str = ""):
    """`--reason` and `--actor` of a command that merges or splits (kept with its revisions)."""
    def decorate(fn):
        fn = click.option("--actor", default=None, help=f"Who {verb} (default user:$USER).")(fn)
        return click.option("--reason", default=reason, show_default=bool(reason),
                            help="Why, kept with the revisions.")(fn)
    return decorate


@concepts.command("merge")
@click.argument("into")
@click.argument("others", nargs=-1, required=True)
@db_option
@_lookup_format
@_who_and_why("merges", "merged from the command line")
@user_errors
def merge(into, others, db, fmt, reason, actor) -> None:
    """Merge the concepts OTHERS into INTO (each an id or a name), as consolidate does.

    Refused, naming both, for concepts of different formats, helpers that give different
    results on the probe inputs (or cannot be compared), a helper other helpers call, or a
    parameter INTO's helper does not take."""
    from arcmemo.consolidation.plan import check_merge
    from arcmemo.run.helpers.behaviour import Behaviour
    from arcmemo.run.session import shared_sandbox

    memory = _open(db)
    survivor = memory.find(into, fmt)
    absorbed = [memory.find(ref, fmt) for ref in others]
    concepts = memory.list()
    behaviour = Behaviour(shared_sandbox(), [c for c in concepts if c.format == "ps"])
    aligned = set()
    for other in absorbed:
        problem, same = check_merge(survivor, other, False, concepts, behaviour)
        if problem:
            raise UserError(f"{problem}; nothing changed")
        if same:
            aligned.add(other.id)
    after = memory.merge_concepts(survivor.id, [c.id for c in absorbed], actor=_actor(actor),
                                  reasons={c.id: reason for c in absorbed}, aligned=aligned)
    click.echo(f"merged {', '.join(repr(c.name) for c in absorbed)} into {after.format} concept {after.id} "
               f"{after.name!r} (revision {memory.revision()})")


@concepts.command("split")
@click.argument("ref")
@db_option
@_lookup_format
@_who_and_why("splits")
@user_errors
def split(ref, db, fmt, reason, actor) -> None:
    """Undo merges: REF merged into others is restored as it was, or every concept merged into REF is.

    Each restored concept comes back under its own id with its fields, helper and
    revisions; the survivor loses what the merge brought and keeps what was written to it
    since. New revisions (op split) record it; history is never rewritten."""
    memory = _open(db)
    try:
        concept = memory.find(ref, fmt)
    except UnknownConcept as missing:
        revs = memory.history(ref.strip(), fmt)
        if not revs or revs[-1].op != "merged":
            raise missing from None
        undone = [memory.unmerge(revs[-1].id, actor=_actor(actor), reason=reason)]
    else:
        undone = memory.split(concept.id, actor=_actor(actor), reason=reason)
    _print_split(undone, memory.revision())


@concepts.command("revert")
@click.argument("revision", type=AtLeast(1))
@db_option
@_who_and_why("reverts")
@user_errors
def revert(revision, db, reason, actor) -> None:
    """Undo the merge recorded at REVISION (its merge or merged revision; see `concepts history`).

    Only a merge can be reverted; it is undone as `concepts split` undoes it."""
    memory = _open(db)
    _print_split([memory.unmerge(revision, actor=_actor(actor), reason=reason)], memory.revision())


def _print_split(undone: list, revision: int) -> None:
    for restored, survivor in undone:
        click.echo(f"split {restored.format} concept {restored.id} {restored.name!r} out of {survivor.id} "
                   f"{survivor.name!r}")
    click.echo(f"memory at revision {revision}", err=True)


@concepts.command("export")
@click.argument("path", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@db_option
@click.option("--format", "fmt", type=FORMAT, help="Only this format.")
@click.option("--as-of", type=AtLeast(0), metavar="REV", help="The memory as it was after revision REV.")
@user_errors
def export(path, db, fmt, as_of) -> None:
    """Write the memory as canonical YAML to PATH (default: stdout).

    The export streams (its memory use does not grow with the memory's size); a file is
    written beside PATH and renamed onto it at the end, so PATH is never half-written."""
    from arcmemo.core.files import unwritable
    from arcmemo.memory.io.export import write_yaml

    memory = _open_for_reading(db)
    if path in (None, "-"):
        write_yaml(memory, sys.stdout, as_of=as_of, format=fmt)
        return
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as out:
            write_yaml(memory, out, as_of=as_of, format=fmt)
        partial.replace(target)
    except OSError as exc:
        raise unwritable(target, exc) from None
    finally:
        partial.unlink(missing_ok=True)
    click.echo(f"wrote {path}", err=True)


@concepts.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False))
@db_option
@click.option("--actor", default=None, help="Who imports (default user:$USER).")
@click.option("--on-duplicate", type=click.Choice(["refuse", "merge"]), default="refuse", show_default=True,
              help="A concept given twice in one file (the same name; a lesson: the same text): refuse the file, "
                   "or merge the two (each merge is listed).")
@click.option("--max-new-types", type=AtLeast(0), default=None, metavar="N",
              help="Create at most N custom types per file; the others are listed, not created "
                   "[default: 500; raise it for an export of a large memory].")
@click.option("--json", "as_json", is_flag=True, help="What each file added, extended and left unchanged, as JSON.")
@user_errors
def import_command(paths, db, actor, on_duplicate, max_new_types, as_json) -> None:
    """Merge memory files (arcmemo YAML, ArcMemo JSON) into the memory.

    Accepts arcmemo YAML exports, ArcMemo's compressed_v1.json (PS) and parsed_lessons.json
    (OE). Each file is checked completely first and written in one transaction; its helpers
    are verified in the sandbox (their programs run on their tasks), and one that fails
    rejects the whole file. Nothing is coerced: a number, list or mapping where text belongs
    is an error naming the line and field. A typing defines a custom type only when it reads
    `name := type expression`; any other typing stays text."""
    from arcmemo.memory.io.imports import MAX_IMPORT_TYPES, import_file
    from arcmemo.run.helpers.verify import HelperVerifier
    from arcmemo.run.session import shared_sandbox

    memory = _open(db, create=True)
    results = []
    for path in paths:
        verifier = HelperVerifier(shared_sandbox(), {name: c.helper for name, c in memory.helpers().items()})
        r = import_file(memory, path, actor=_actor(actor), check_helpers=verifier.check, on_duplicate=on_duplicate,
                        max_new_types=MAX_IMPORT_TYPES if max_new_types is None else max_new_types)
        results.append({"path": r.path, "kind": r.kind, "added": r.added, "extended": r.extended,
                        "unchanged": r.unchanged, "custom_types": r.custom_types,
                        "merged_duplicates": r.merged_duplicates, "types_dropped": r.types_dropped})
        if as_json:
            continue
        click.echo(f"{r.path} ({r.kind}): {r.added} added, {r.extended} extended, {r.unchanged} unchanged, "
                   f"{r.custom_types} custom types")
        for line in r.merged_duplicates:
            click.echo(f"  merged: {line}")
        if r.types_dropped:
            click.echo(f"  {counted(len(r.types_dropped), 'custom type')} not created, over the cap of "
                       f"{MAX_IMPORT_TYPES if max_new_types is None else max_new_types} per file (--max-new-types): "
                       f"{_listed(r.types_dropped)}; the typings naming them keep the name as text")
    if as_json:
        echo_json(results)


def _listed(names: list[str], most: int = 10) -> str:
    shown = ", ".join(repr(n) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


COMMANDS = [concepts]
