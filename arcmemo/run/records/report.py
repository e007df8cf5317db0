"""A run's summary and runs side by side, as tables (arcmemo.core.table) or rows for JSON.

Every score shown here comes from arcmemo.scoring.runscore (`score_of`): the paper's
oracle@k over threads as the headline, the ARC Prize score of the two submitted attempts
under its own name, a test-informed run's numbers marked with † and a footnote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arcmemo.core.errors import ArcmemoError
from arcmemo.core.table import cell as fmt
from arcmemo.core.table import counted, table, wrapped
from arcmemo.run.protocol import test_informed, test_informed_by, what_tests_decided
from arcmemo.scoring.runscore import (
    ARC_PRIZE,
    DEFAULT_STRICT,
    FOOTNOTE,
    MARK,
    NO_TEST_OUTPUTS,
    STRICT_NOT_RECORDED,
    RunScore,
    headline_k,
    headline_name,
    run_score,
    strict_name,
    strict_rows,
    strict_variant,
)

__all__ = ["fmt", "table", "summary_rows", "score_gap", "ORACLE1_NOTE", "faults_cell", "config_rows", "memory_start_text",
           "summary_table", "COMPARE_HEADER", "compare_records", "compare_rows", "compare_table", "solved_alone",
           "alone_texts", "alone_label", "UNKNOWN", "score_of", "running_score", "footnote", "per_task_rows",
           "depth_text", "mean_records", "mean_text", "MismatchedRuns"]    # fmt: the one cell formatter, the pages use it too

UNKNOWN = NO_TEST_OUTPUTS


def score_of(config: dict[str, Any] | None, summary: dict[str, Any]) -> RunScore:
    """The score of a run (its config says whether it was test-informed), from its summary."""
    return run_score(summary, test_informed=test_informed(config or {}),
                     test_informed_by=tuple(test_informed_by(config or {})), config=config)


def running_score(outcomes: Sequence[Any], threads: int, retries: int, config: dict[str, Any]) -> str:
    """The progress line's score while a run goes on: its headline over the tasks done so far."""
    from arcmemo.run.records.scores import outcome_scores

    done = list(outcomes)
    score = score_of(config, {"tasks": len(done), **outcome_scores(done, threads, retries, table=False)})
    if score.value is None:
        return f"{score.name} ?"
    return f"{score.name} {score.value:.1f}" + (f" {MARK}" if score.test_informed else "")


def footnote(scores: Sequence[RunScore]) -> str | None:
    """The footnote a table of these runs' scores needs (test-informed runs are marked): which
    choices let a test output decide something, when the runs say."""
    reasons = sorted({r for s in scores if s.test_informed for r in s.test_informed_by})
    if not reasons:
        return FOOTNOTE if any(s.test_informed for s in scores) else None
    return (f"{MARK} test-informed: a test output decided {what_tests_decided(reasons)}, so its score is not a "
            "held-out score")


def _per_pass(summary: dict[str, Any], score: RunScore) -> tuple[str, str]:
    """(headline, ARC Prize score) of every pass, " / " between passes ("-": not recorded)."""
    passes = summary.get("passes", [])

    def short(value: float | None) -> str:
        return "unknown" if value is None else f"{value:.1f}"

    head = " / ".join(short(p["headline"].get("oracle")) if p.get("headline") else "-" for p in passes) or "-"
    prize = " / ".join(short((p.get("submitted") or p).get("oracle2")) for p in passes) or "-"
    mark = f" {MARK}" if score.test_informed else ""
    return head + mark, prize + mark


def summary_table(summary: dict[str, Any], config: dict[str, Any] | None = None) -> str:
    text = table(summary_rows(summary, config), ("run " + summary["run_id"], ""))
    note = footnote([score_of(config, summary)])
    return text + (f"\n{wrapped(note)}" if note else "")


def summary_rows(summary: dict[str, Any], config: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """(label, value) rows of a solve run's summary, for the text table and the HTML report."""
    usage = summary.get("usage", {})
    score = score_of(config, summary)
    rows = [
        ("tasks", f"{summary['tasks']} of {summary['tasks_planned']}"),
        (score.label, score.cell()),
        (score.strict_label, score.strict_cell()),
        (ARC_PRIZE, score.mark(score.arc_prize, NO_TEST_OUTPUTS)),
        ("the submitted attempts' oracle@1 / strict",
         " / ".join(score.mark(v, "unknown") for v in (score.submitted_oracle1, score.submitted_strict))),
    ]
    gap = score_gap(summary, score)
    if gap:
        rows.append(("why these scores differ", gap))
    if "faults" in summary:         # next to the scores: a solver or sandbox that broke is not a plain 0
        rows.append(("what broke (tasks)", faults_cell(summary)))
    if len(summary.get("passes", [])) > 1:
        head, prize = _per_pass(summary, score)
        rows += [(f"{score.name} per pass", head), (f"{ARC_PRIZE} per pass", prize)]
    fits = summary.get("fit_answer_tasks") or []
    rows += [
        ("passed train pairs (the model's program or memory's fit)",
         len(set(summary.get("passed_train") or []) | set(fits))),
        ("concepts selected / task", summary.get("concepts_selected_per_task", 0)),
        ("concepts offered / helper called / by a passing program / in a solved task", _use_cell(summary)),
        ("tasks where a helper call gave every train output (probe)", len(summary.get("probe_fit_tasks") or [])),
        ("tasks answered by memory's fit (its output submitted)", len(fits)),
        ("selection fallbacks", summary.get("selection_fallbacks", 0)),
        ("selection levels (tasks)", ", ".join(f"{level} {n}" for level, n in
                                               (summary.get("selection_levels") or {}).items()) or "-"),
        ("threads, retries", f"{summary.get('threads', 1)}, {summary.get('retries', '?')}"),
        ("concepts written", f"{len(summary.get('concepts_added', []))} added, "
                             f"{len(summary.get('concepts_extended', []))} extended, "
                             f"{summary.get('write_failures', 0)} failed writes"),
        ("tokens in / out / reasoning", f"{usage.get('prompt_tokens', 0)} / {usage.get('completion_tokens', 0)}"
                                        f" / {usage.get('reasoning_tokens', 0)}"),
        ("model calls (cache hits, errors)", f"{usage.get('calls', 0)} ({usage.get('cache_hits', 0)}, "
                                            f"{usage.get('errors', 0)})"),
        ("cost USD", f"{usage.get('cost_usd', 0):.4f}"),
        ("wall time s", summary.get("wall_time_s", 0)),
    ]
    if summary.get("failure_lessons"):
        rows.append(("failure lessons written / offered", failure_lessons_cell(summary)))
    rows += config_rows(config)
    lost, writes_lost = summary.get("tasks_lost") or [], summary.get("writes_lost") or []
    if lost or writes_lost:
        rows.append(("lost to endpoint errors", f"{len(lost)} tasks, {len(writes_lost)} memory writes "
                                                "(--resume retries them)"))
    if summary.get("stopped"):
        rows.append(("stopped", f"early: {summary['stopped']}"))
    return rows


ORACLE1_NOTE = ("the submitted oracle@1 is the mean over the two submitted grids (one of two right counts half); "
                "the ARC Prize score counts a test input right when either was")


def _use_cell(summary: dict[str, Any]) -> str:
    """The concept use counts, memory's fit counted beside the model's programs: "4 / 0 + 2 by
    memory's fit / 0 + 2 / 0 + 2". Memory's own counters (what selection learns from, `concepts
    stats`) are the model's programs' use; a submitted fit is one helper call that gave every
    train output, in its task."""
    use = summary.get("concept_use") or {}
    fits = set(summary.get("fit_answer_tasks") or [])
    by_fit = {"called": len(fits), "called_passing": len(fits), "solved": len(fits & set(summary.get("solved") or []))}
    cells = [str(use.get("offered", 0))]
    for key in ("called", "called_passing", "solved"):
        extra = f" + {by_fit[key]}" + (" by memory's fit" if key == "called" else "") if fits else ""
        cells.append(f"{use.get(key, 0)}{extra}")
    return " / ".join(cells)


def score_gap(summary: dict[str, Any], score: RunScore) -> str | None:
    """Why the headline, the ARC Prize score and the submitted attempts' oracle@1 differ, where they
    stand side by side (None: they agree, or are unknown): the submitted oracle@1 averages the two
    submitted grids, and the headline counts any of a thread's answers, memory's fit included."""
    per_task = summary.get("per_task") or {}
    values = (score.value, score.arc_prize, score.submitted_oracle1)
    if any(v is None for v in values) or len(set(values)) == 1:
        return None
    said = []
    half = sorted(t for t, s in per_task.items() if s.get("oracle2") == 1 and (s.get("oracle1") or 0) < 1)
    if half:
        said.append(f"the submitted oracle@1 is the mean over the two submitted grids: on {_tasks(half)} one of the "
                    "two was right, which counts half")
    missed = sorted(t for t, s in per_task.items() if (s.get("headline") or 0) > (s.get("oracle2") or 0))
    if missed:
        said.append(f"the {score.name} counts a test input right when any of a thread's answers was (memory's fit "
                    f"included): on {_tasks(missed)} a right answer was not among the two submitted")
    return "; ".join(said) or None


def _tasks(ids: Sequence[str], most: int = 4) -> str:
    return ", ".join(ids[:most]) + (f" and {len(ids) - most} more" if len(ids) > most else "") + \
        f" ({len(ids)} task{'s' if len(ids) != 1 else ''})"


def faults_cell(summary: dict[str, Any]) -> str:
    """What broke under the run's tasks, by stage, with the tasks ("nothing": none broke), so a run
    whose solver or sandbox broke does not read as a plain 0 (records/summary.py fault_counts)."""
    from arcmemo.run.records.answered import FAULT_WORDS

    faults, tasks = summary.get("faults") or {}, summary.get("fault_tasks") or {}
    if not faults:
        return "nothing"
    return "; ".join(f"{FAULT_WORDS.get(stage, stage)} broke in "
                     + (_tasks(list(tasks[stage])) if tasks.get(stage) else counted(n, "task"))
                     for stage, n in faults.items())


def config_rows(config: dict[str, Any] | None) -> list[tuple[str, Any]]:
    """What a run's config says of its memory method: every method option's value (defaults
    included) and what the method started from (`memory_start`)."""
    config = config or {}
    settings = config.get("settings") if isinstance(config.get("settings"), dict) else {}
    rows: list[tuple[str, Any]] = []
    options = settings.get("method_options")
    if isinstance(options, dict):
        rows.append((f"method options ({settings.get('selection', '?')})",
                     ", ".join(f"{k}={_option(v)}" for k, v in sorted(options.items())) or "none"))
    start = config.get("memory_start")
    if isinstance(start, dict):
        rows.append(("memory at the start", memory_start_text(start)))
    return rows


def _option(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def memory_start_text(start: dict[str, Any]) -> str:
    """config.json's memory_start in words: "empty", or "ps: 66 items (66 from the seed solutions)"."""
    if start.get("empty"):
        return f"{start.get('method', '?')}: empty"
    return (f"{start.get('method', '?')}: {start.get('items', '?')} items "
            f"({start.get('from_seeds', 0)} from the seed solutions)")


def per_task_rows(summary: dict[str, Any], config: dict[str, Any] | None = None) -> tuple[list[tuple], tuple]:
    """(rows, header) of every task's scores (0..1): its headline over its threads, then its
    submitted attempts' scores, its train pairs in records/answered.py's words, memory's fit
    counted (`runs show --tasks`; from the summary alone, which a lean read keeps to)."""
    from arcmemo.run.records.answered import train_words

    score = score_of(config, summary)
    fits = set(summary.get("fit_answer_tasks") or [])
    rows = []
    for task_id, s in summary.get("per_task", {}).items():
        head = s.get("headline")
        rows.append((task_id, "-" if "headline" not in s else score.mark(head, "unknown"),
                     score.mark(s.get("oracle2"), "unknown"), score.mark(s.get("oracle1"), "unknown"),
                     score.mark(s.get("strict"), "unknown"), train_words(bool(s["passed_train"]), task_id in fits),
                     s["pass"], s["selected"]))
    header = ("task", score.name, "ARC Prize (submitted)", "submitted oracle@1", "submitted strict", "train pairs",
              "pass", "concepts")
    return rows, header


COMPARE_HEADER = ("run", "selection", "solver model", "tasks", "score", "statistic", "strict@k", ARC_PRIZE,
                  "score per pass", "failure lessons written / offered", "tokens", "cost USD")


def failure_lessons_cell(summary: dict[str, Any]) -> str:
    """Lessons a run wrote from failed tasks / how often its tasks were offered one ("-": neither
    learned from failures nor offered one; methods/arcmemo/failure_lessons.py)."""
    counts = summary.get("failure_lessons")
    return f"{counts['written']} / {counts['offered']}" if counts else "-"


def compare_records(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per run (config, summary): its settings, scores, usage, and the tasks only it solves (--json)."""
    alone = dict(solved_alone(entries))
    records = []
    for config, summary in entries:
        settings, usage = config.get("settings", {}), summary.get("usage", {})
        score = score_of(config, summary)
        records.append({
            "run": summary["run_id"], "selection": settings.get("selection", "?"),
            "solver_model": config.get("models", {}).get("solver", "?"), "tasks": summary["tasks"],
            "score": score.value, "statistic": score.name, "score_label": score.label, "score_unknown": score.why,
            "strict": score.strict, "strict_variant": score.strict_variant, "retry_depth": score.retry_depth,
            "threads": score.threads, "arc_prize": score.arc_prize,
            "submitted": {"oracle1": score.submitted_oracle1, "oracle2": score.arc_prize,
                          "strict": score.submitted_strict},
            "test_informed": score.test_informed,
            "score_per_pass": [(p.get("headline") or {}).get("oracle") for p in summary.get("passes", [])],
            "arc_prize_per_pass": [(p.get("submitted") or p).get("oracle2") for p in summary.get("passes", [])],
            "tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0),
            "cost_usd": usage.get("cost_usd", 0), "only_solves": alone[summary["run_id"]],
            "table4": summary.get("table4"), "failure_lessons": summary.get("failure_lessons"),
        })
    return records


def compare_rows(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple]:
    """One row per run (config, summary), in the columns of COMPARE_HEADER."""
    rows = []
    for (config, summary), r in zip(entries, compare_records(entries)):
        score = score_of(config, summary)
        rows.append((r["run"], r["selection"], r["solver_model"], r["tasks"], score.cell(), score.name,
                     score.strict_cell(), score.mark(score.arc_prize, NO_TEST_OUTPUTS),
                     _per_pass(summary, score)[0], failure_lessons_cell(summary), r["tokens"], f"{r['cost_usd']:.4f}"))
    return rows


def compare_table(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """Runs side by side (config, summary), then the tasks each solves that the others don't (and
    which of them memory's fit answered)."""
    lines = [table(compare_rows(entries), COMPARE_HEADER)]
    note = footnote([score_of(config, summary) for config, summary in entries])
    lines += [wrapped(note)] if note else []
    lines.append("")
    for run_id, only in alone_texts(entries):
        lines.append(wrapped(f"{alone_label(run_id)} ({len(only)}): {', '.join(only) or '-'}", "  "))
    return "\n".join(lines)


def alone_texts(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple[str, list[str]]]:
    """`solved_alone`, each task whose submitted attempts held memory's fit said so, from the
    summaries (a comparison reads no event log): "6150a2bd (memory's fit rotate_grid(grid, 2)
    submitted)" (records/answered.py's words)."""
    from arcmemo.run.records.answered import submitted_fit_text

    said = []
    for (_, summary), (run_id, only) in zip(entries, solved_alone(entries)):
        calls, fit_tasks = summary.get("fit_answers") or {}, set(summary.get("fit_answer_tasks") or [])
        texts = []
        for task_id in only:
            fit = submitted_fit_text(calls.get(task_id, [])) if task_id in fit_tasks else None
            texts.append(f"{task_id} ({fit})" if fit else task_id)
        said.append((run_id, texts))
    return said


def alone_label(run_id: str) -> str:
    """What `solved_alone` counts, as a line of the comparison says it (the web page's says the same)."""
    return f"only {run_id} solves with its submitted attempts"


def solved_alone(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple[str, list[str]]]:
    """(run id, the tasks it solves and none of the other runs does) per run: solved by its
    submitted attempts (the ARC Prize score's, summary["solved"]), not by any thread's step."""
    solved = [set(s.get("solved", [])) for _, s in entries]
    result = []
    for i, (_, summary) in enumerate(entries):
        others = set().union(*(solved[:i] + solved[i + 1:])) if len(solved) > 1 else set()
        result.append((summary["run_id"], sorted(solved[i] - others)))
    return result


# ---------------------------------------------------------------------- the paper's tables
class MismatchedRuns(ArcmemoError, ValueError):
    """Runs whose tables cannot be averaged cell by cell (other threads or retries, no table)."""


def _with_std(value: float, std: float | None) -> str:
    return f"{value:.2f}" if std is None else f"{value:.2f} ({std:.2f})"


def _k_header(threads: int) -> list[str]:
    return [f"k={k}" for k in range(1, threads + 1)]


def depth_text(summary: dict[str, Any], config: dict[str, Any] | None = None) -> str | None:
    """A run's Table 4 block (oracle@k per retry depth, each thread alone as the paper's
    "individual run scores") and the strict block of its strict variant (Table 5's, or the
    released driver's: runscore.strict_variant); None when the run has no table."""
    t = summary.get("table4")
    if not t:
        return None
    n, rows = t["threads"], []
    for d in range(t["retries"] + 1):
        rows.append([d, *t["per_thread"][d], *(_with_std(v, sd) for v, sd in zip(t["oracle"][d], t["oracle_std"][d]))])
    variant = strict_variant(config, summary)
    if variant == DEFAULT_STRICT:
        strict = [[d, *(_with_std(v, sd) for v, sd in zip(t["strict"][d], t["strict_std"][d]))]
                  for d in range(t["retries"] + 1)]
    else:
        chosen = strict_rows(summary, variant)
        strict = ([[d, *(fmt(v) for v in row)] for d, row in enumerate(chosen)] if chosen else
                  [[d, *([STRICT_NOT_RECORDED] * n)] for d in range(t["retries"] + 1)])
    return "\n".join([
        f"oracle@k by retry depth (the paper's Table 4), % of {counted(t['puzzles'], 'puzzle')}; {counted(n, 'thread')}; "
        "bracketed: std over the k-subsets of threads\n(k counts threads, the paper's runs; the headline is the "
        f"k={headline_k(n)} column at retry {t['retries']}; the {ARC_PRIZE} scores what was submitted instead)",
        table(rows, ["retry", *(f"thread {i}" for i in range(n)), *_k_header(n)]), "",
        strict_name(variant), table(strict, ["retry", *_k_header(n)])])


def mean_records(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Mean and std (over the runs, sample std; None for one run) of every Table 4 and Table 5
    cell, of the headline and of the submitted attempts' scores, over repeated runs of one
    configuration (config, summary each)."""
    summaries = [summary for _, summary in entries]
    tables = [s.get("table4") for s in summaries]
    missing = [s["run_id"] for s, t in zip(summaries, tables) if not t]
    if missing:
        raise MismatchedRuns(f"no per-depth table in run(s) {', '.join(missing)} (not a solve run, not scored, "
                             "or from before threads were recorded)")
    shapes = {(t["threads"], t["retries"]) for t in tables}
    if len(shapes) > 1:
        listed = ", ".join(f"{s['run_id']}: {t['threads']} threads, {t['retries']} retries"
                           for s, t in zip(summaries, tables))
        raise MismatchedRuns(f"--mean needs runs of one shape (threads and retries); got {listed}")
    (n, retries), = shapes
    # imported here: a summary or a listing needs neither (statistics loads fractions and decimal)
    from statistics import mean, stdev

    def agg(values: list[float | None]) -> dict[str, float | None] | None:
        if any(v is None for v in values):
            return None
        return {"mean": mean(values), "std": stdev(values) if len(values) > 1 else None}

    scores = [score_of(config, summary) for config, summary in entries]
    variants = {s.strict_variant for s in scores}
    if len(variants) > 1:
        raise MismatchedRuns("--mean needs runs of one strict variant; got "
                             + ", ".join(f"{s['run_id']}: {v.strict_variant}" for s, v in zip(summaries, scores)))
    (variant,) = variants
    strict = [strict_rows(summary, variant) for summary in summaries]
    record: dict[str, Any] = {"runs": [s["run_id"] for s in summaries], "threads": n, "retries": retries,
                              "test_informed": any(s.test_informed for s in scores), "strict_variant": variant}
    record["oracle"] = [[agg([t["oracle"][d][k] for t in tables]) for k in range(n)] for d in range(retries + 1)]
    record["strict"] = [[agg([rows[d][k] if rows else None for rows in strict]) for k in range(n)]
                        for d in range(retries + 1)]
    record["headline"] = {"statistic": headline_name(n), "k": headline_k(n), "retry_depth": retries,
                          "oracle": agg([s.value for s in scores]), "strict": agg([s.strict for s in scores]),
                          "strict_label": scores[0].strict_label}
    record["arc_prize"] = agg([s.arc_prize for s in scores])
    record["submitted"] = {"oracle1": agg([s.submitted_oracle1 for s in scores]), "oracle2": record["arc_prize"],
                           "strict": agg([s.submitted_strict for s in scores])}
    return record


def mean_text(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """`mean_records` as tables (`runs compare --mean`)."""
    record = mean_records(entries)
    n, runs = record["threads"], len(record["runs"])
    mark = f" {MARK}" if record["test_informed"] else ""

    def cell(value: dict[str, float | None] | None) -> str:
        return UNKNOWN if value is None else _with_std(value["mean"], value["std"]) + mark

    retries = counted(record["retries"], "retry", "retries")
    blocks = [f"{runs} runs of one configuration, each {counted(n, 'thread')} and {retries}; "
              "mean (std) over the runs", ""]
    for name, title in (("oracle", "oracle@k (Table 4)"), ("strict", strict_name(record["strict_variant"]))):
        rows = [[d, *(cell(c) for c in row)] for d, row in enumerate(record[name])]
        blocks += [f"{title}, mean (std) over {runs} runs", table(rows, ["retry", *_k_header(n)]), ""]
    head, submitted = record["headline"], record["submitted"]
    rows = [(f"{head['statistic']} over threads, retry depth {head['retry_depth']} (the paper's score)",
             cell(head["oracle"])),
            (head["strict_label"], cell(head["strict"])),
            (ARC_PRIZE, cell(record["arc_prize"])),
            ("the submitted attempts' oracle@1", cell(submitted["oracle1"])),
            ("the submitted attempts' strict", cell(submitted["strict"]))]
    blocks.append(table(rows, ("score", f"mean (std) over {runs} runs")))
    if record["test_informed"]:
        blocks.append(FOOTNOTE)
    return "\n".join(blocks)
