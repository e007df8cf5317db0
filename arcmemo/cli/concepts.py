"""`arcmemo concepts list|show|search|edit|delete|history|graph|stats|export|import`: look at and move memory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arcmemo.cli.common import (
    USER_ERRORS,
    AtLeast,
    UserError,
    db_option,
    echo_json,
    run_dir_option,
    user_errors,
)
from arcmemo.memory.concept import FORMATS, LIST_FIELDS
from arcmemo.memory.errors import ConceptDataError, StoreError, UnknownConcept

if TYPE_CHECKING:
    from arcmemo.memory.concept import Concept

USER_ERRORS.append(StoreError)  # a memory that cannot be opened, a name not in it: one line, any command


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
    from arcmemo.core.settings import db_url

    url = db_url(db)
    from arcmemo.memory.reader import sqlite_file

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
    it (memory/reader.py): lean for an up-to-date SQLite file (no database libraries loaded),
    else the full Memory in read-only mode."""
    from arcmemo.memory.reader import open_reader

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
        verified = c.helper["verified"]
        click.echo(f"# {c.name} (id {c.id}): {c.helper['name']}, verified on task {verified['task_id']} "
                   f"({verified['tasks']}) at {verified['at']}"
                   + (f"; calls {', '.join(c.helper['depends'])}" if c.helper["depends"] else ""))
        click.echo(c.helper["source"].rstrip() + "\n\n")


@concepts.command("show")
@click.argument("ref")
@db_option
@_lookup_format
@click.option("--as-of", type=AtLeast(0), metavar="REV", help="The concept as it was after revision REV.")
@click.option("--json", "as_json", is_flag=True, help="The concept's data, model, hash and times as JSON.")
@user_errors
def show(ref, db, fmt, as_of, as_json) -> None:
    """One concept in full. REF is an id or a name; case, spaces, '_' and '-' in a name do not matter."""
    memory = _open_for_reading(db)
    if as_of is None:
        concept = memory.find(ref, fmt)
    else:
        then = {c.id: c for c in memory.list(as_of=as_of)}
        try:
            from arcmemo.memory.names import Entry, resolve

            concept = then[resolve(ref, [Entry(c.id, c.format, c.name) for c in then.values()], fmt)]
        except UnknownConcept as exc:
            raise UnknownConcept(f"as of revision {as_of}: {exc}") from None
    counts = memory.usage(concept_ids=[concept.id]).get(concept.id)
    if as_json:
        echo_json({**_summary(concept), "usage": counts.as_dict() if counts else None})
    else:
        click.echo(f"# id {concept.id}, {len(concept.used_in or [])} uses, model {concept.created_by_model or '-'}, "
                   f"updated {concept.updated_at:%Y-%m-%d %H:%M:%S}")
        if counts:
            click.echo("# in solves: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.as_dict().items()))
        from arcmemo.memory.io import to_yaml

        click.echo(to_yaml(concept.to_data()), nl=False)


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
    from arcmemo.run.helpercheck import HelperVerificationError, verify_edit
    from arcmemo.run.session import shared_sandbox

    memory = _open(db)
    concept = memory.find(ref, fmt)
    if assignments or helper_source:
        changes = _parse_set(assignments)
        if helper_source:
            if not concept.helper:
                raise UserError(f"concept {concept.name!r} has no helper to change; add one in $EDITOR "
                                "(helper: name, source, depends, verified: task_id, tasks, program)")
            changes["helper"] = {**concept.helper, "source": helper_source.read_text(encoding="utf-8")}
    else:
        from arcmemo.memory.io import read_edit, to_yaml

        text = click.edit(to_yaml(concept.to_data()), extension=".yaml")
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
    from arcmemo.memory.links import describe_link

    if name is None and graphml is None:
        raise UserError("give a concept NAME, --graphml PATH, or both")
    memory = _open_for_reading(db)
    if graphml:
        from arcmemo.memory.graph import build_graph, write_graphml

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
@click.option("--json", "as_json", is_flag=True, help="The rows as JSON.")
@user_errors
def stats(db, run_ref, run_dir, sort_by, fmt, show_all, as_json) -> None:
    """How solves used each PS concept (or item of --format), measured by running the programs.

    offered: tasks it was offered to; called: its helper was called by a program there;
    called passing: by a program that passed every train pair; solved: called in a task the
    run finally solved; offered passing: offered to a task whose program passed every train
    pair; helpful, harmful: the memory method's own verdicts (ACE's, say). Without --run:
    every run that wrote this memory (seeding, solve --continual); a read-only solve keeps
    its counts in its run directory (--run)."""
    from arcmemo.memory.reads import COUNTERS, JUDGED, ConceptUse

    memory = _open_for_reading(db)
    counts = memory.usage() if run_ref is None else _run_usage(run_ref, run_dir)
    rows = [{"id": c.id, "name": c.name, "helper": c.helper["name"] if c.helper else None,
             **(counts.get(c.id) or ConceptUse()).as_dict()}
            for c in memory.list(fmt) if show_all or c.id in counts]
    if sort_by in (*COUNTERS, *JUDGED):
        rows.sort(key=lambda r: (-r[sort_by], -r["called"], -r["offered"], r["name"]))
    else:
        rows.sort(key=lambda r: r[sort_by])
    if as_json:
        echo_json(rows)
    elif rows:
        click.echo(_table([[r["id"], r["name"], r["helper"] or "-", *(r[k] for k in (*COUNTERS, *JUDGED))]
                           for r in rows], ["id", "name", "helper", *(k.replace("_", " ") for k in (*COUNTERS, *JUDGED))]))
    else:
        click.echo("no concept was offered in a recorded solve yet" + (f" (run {run_ref})" if run_ref else ""),
                   err=True)


def _run_usage(ref: str, run_dir: str | None) -> dict:
    """Per concept id, the use counts a run's task events recorded (the last outcome of each task and pass)."""
    from arcmemo.core.settings import Settings
    from arcmemo.memory.reads import COUNTERS, ConceptUse
    from arcmemo.run.rundir import RunDir

    run = RunDir.find(ref, Settings.load(runs_dir=run_dir).runs_dir)
    latest = {(e.get("pass_index"), e.get("task_id")): e for e in run.events() if e.get("type") == "task"}
    counts: dict[int, ConceptUse] = {}
    for event in latest.values():
        for row in event.get("concept_use") or []:
            total = counts.setdefault(row["id"], ConceptUse())
            for name in COUNTERS:
                setattr(total, name, getattr(total, name) + int(row.get(name, 0)))
    return counts


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
    from arcmemo.memory.io import write_yaml

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
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
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
    from arcmemo.memory.io import MAX_IMPORT_TYPES, import_file
    from arcmemo.run.helpercheck import HelperVerifier
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
            click.echo(f"  {len(r.types_dropped)} custom type(s) not created, over the cap of "
                       f"{MAX_IMPORT_TYPES if max_new_types is None else max_new_types} per file (--max-new-types): "
                       f"{_listed(r.types_dropped)}; the typings naming them keep the name as text")
    if as_json:
        echo_json(results)


def _listed(names: list[str], most: int = 10) -> str:
    shown = ", ".join(repr(n) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


COMMANDS = [concepts]
