"""The options of a solve, declared once under their headings: `solve` takes them all, `select`
the ones that shape what a task's first thread is shown (the same definitions, so the two never
drift), and a run configuration file or a sweep names them as keys (configfile.py).

Each heading is a list of (option decorator, whether a read takes it). The help is shown
grouped by heading through cloup's option groups (headings.py).
"""

from __future__ import annotations

from collections.abc import Callable

import click

from arcmemo.cli.common import (
    AtLeast,
    FloatAtLeast,
    LazyChoice,
    db_option,
    grid_text_option,
    prompts_option,
    reasoning_efforts,
    role_call_options,
    role_model_options,
    run_dir_option,
    task_source_options,
)
from arcmemo.cli.runplan.configfile import config_option
from arcmemo.cli.runplan.protocol import OPTIONS as PROTOCOL
from arcmemo.cli.selection_options import MethodChoice
from arcmemo.run.protocol import READ_CHOICES
from arcmemo.selection.types import MIN_HINT_BUDGET, MIN_TOKEN_BUDGET

Decorator = Callable[[Callable], Callable]
READ, RUN = True, False          # taken by a read (select) too, or by a solve only


def _isolation_levels() -> tuple[str, ...]:
    from arcmemo.sandbox import LEVELS

    return LEVELS


def method_option(*also: str) -> Decorator:
    """--method (--selection): the memory method; `also` adds a command's own older spelling."""
    return click.option("--method", "--selection", *also, "method", type=MethodChoice(), default="ps",
                        show_default=True, help="The memory method (`arcmemo methods list`).")


WHAT_TO_SOLVE: list[tuple[Decorator, bool]] = [
    (config_option, READ),
    (task_source_options, READ),
    (click.option("--tasks", multiple=True, metavar="IDS|FILE",
                  help="Task ids, comma- or space-separated, or a file of ids (one per line); repeatable."), RUN),
    (click.option("--limit", type=AtLeast(1), default=None, help="Solve only the first N tasks (after ordering)."),
     RUN),
    (click.option("--order", type=click.Choice(["as-given", "shuffled"]), default="as-given", show_default=True,
                  help="Task order: as listed, or shuffled with --seed."), RUN),
    (click.option("--seed", type=int, default=0, show_default=True, help="Seed for --order shuffled."), RUN),
    (click.option("--no-score", is_flag=True,
                  help="Solve without scoring (tasks without test outputs are accepted; the score is unknown)."), RUN),
]

MEMORY_METHOD: list[tuple[Decorator, bool]] = [         # after the method option (method_option)
    (click.option("--method-option", "method_options", multiple=True, metavar="KEY=VALUE",
                  help="A setting of the method's own, VALUE read as YAML; repeatable (`arcmemo methods list`)."),
     READ),
    (click.option("--memory-format", type=click.Choice(["ps", "oe"]), default=None,
                  help="Which concepts the method reads and writes (default: its own format)."), READ),
    (db_option, READ),
    (click.option("--top-k", type=AtLeast(1), default=5, show_default=True, help="Lessons picked by --method oe."),
     READ),
    (click.option("--expand", is_flag=True, help="Add graph neighbours of the selected PS concepts."), READ),
    (click.option("--token-budget", type=AtLeast(MIN_TOKEN_BUDGET, " (tokens)"), default=None,
                  help="Tokens of a selection prompt (default: 30% of the select model's context, at most 6000)."),
     READ),
    (click.option("--hint-budget", type=AtLeast(MIN_HINT_BUDGET, " (tokens)"), default=None,
                  help="Tokens of the ps hint (default: 18% of the solver model's context, at most 3000)."), READ),
    (click.option("--caption", "ps_caption", is_flag=True,
                  help="ps over --token-budget: caption the puzzle (aux model) to pre-filter the concepts."), READ),
    (click.option("--other-names/--no-other-names", default=True, show_default=True,
                  help="ps: the hint also names the concepts not selected (the paper's hint)."),
     READ),
    (click.option("--use-prior", is_flag=True,
                  help="ps, oe: order what the select model reads by each item's recorded use (option use_prior)."),
     READ),
    (click.option("--failure-lessons", type=click.Choice(["include", "exclude"]), default=None,
                  help="ps, oe: show the lessons from failed tasks (default: include) or not (option "
                       "failure_lessons)."), READ),
    (click.option("--helpers", type=click.Choice(["on", "off"]), default="on", show_default=True,
                  help="Offer the selected concepts' verified helpers to the solver's programs (memory_helpers)."),
     READ),
    (click.option("--max-helpers", type=AtLeast(0), default=None,
                  help="At most N helpers per task (default: 2 for a small-context model, else 8)."), READ),
    (click.option("--probe-helpers/--no-probe-helpers", default=None,
                  help="Try memory's helpers on the train pairs; a fitting call is named in the hint [default: the "
                       "method's]."), READ),
    (click.option("--fits-as-answers", type=click.Choice(["on", "off"]), default="on", show_default=True,
                  help="With the probe: a call giving every train output is also a candidate answer."), RUN),
    (click.option("--continual", is_flag=True, help="Write verified solves back into memory every -k tasks."), RUN),
    (click.option("-k", "k", type=AtLeast(1), default=10, show_default=True, help="Write-back interval for --continual."),
     RUN),
    (click.option("--learn-from-failures", is_flag=True,
                  help="ps, oe with --continual: also write lessons from tasks that failed every retry (option "
                       "learn_from_failures)."), RUN),
    (click.option("--consolidate-every", type=AtLeast(1), default=None, metavar="N",
                  help="With --continual: every N blocks, merge near-duplicate concepts (`concepts consolidate`)."),
     RUN),
]

PROTOCOL_CHOICES: list[tuple[Decorator, bool]] = [
    *((option, READ if name in ("protocol", *READ_CHOICES) else RUN) for name, option in PROTOCOL),
    (grid_text_option, READ),
    (prompts_option, READ),
]


def _solver_call_options(fn: Callable) -> Callable:
    for option in reversed([
        click.option("--max-tokens", type=AtLeast(1), default=None,
                     help="Completion token limit of a solver call (a reasoning model: max_completion_tokens)."),
        click.option("--temperature", type=FloatAtLeast(0, maximum=2), default=None,
                     help="Sampling temperature of the solver model (0 to 2)."),
        click.option("--reasoning-effort", type=LazyChoice(reasoning_efforts), default=None,
                     help="Reasoning effort of the solver model; a reasoning model only (the paper: medium)."),
    ]):
        fn = option(fn)
    return fn


MODEL: list[tuple[Decorator, bool]] = [
    (click.option("--solver", default="program-synthesis", show_default=True,
                  help="An installed solver plugin (`arcmemo solvers list`)."), RUN),
    (role_model_options, READ),
    (_solver_call_options, RUN),
    (role_call_options, READ),
    (click.option("--concurrency", type=AtLeast(1), default=None, help="Model calls in flight at once (default 8)."),
     RUN),
    (click.option("--no-cache", is_flag=True, help="Ask the model again even for requests already answered."), READ),
    (click.option("--model-seed", type=AtLeast(0), default=None,
                  help="Sampling seed of the solver and select models (sample i of a task uses SEED + i)."), READ),
    (click.option("--repeat", type=AtLeast(0), default=0, show_default=True, metavar="N",
                  help="Run as repeat N of this configuration, the model asked afresh (`runs compare --mean`)."),
     READ),
]

ATTEMPTS: list[tuple[Decorator, bool]] = [
    (click.option("--attempts", "-n", type=AtLeast(1), default=1, show_default=True,
                  help="Independent samples per task."), RUN),
    (click.option("--retries", "-r", type=AtLeast(0), default=2, show_default=True,
                  help="Feedback rounds per sample."), RUN),
    (click.option("--passes", "-p", type=AtLeast(1), default=1, show_default=True,
                  help="Re-run the tasks no attempt solved on the train pairs, with the memory as it then is."), RUN),
    (click.option("--threads", type=AtLeast(1), default=1, show_default=True,
                  help="Independent threads per task (the paper: 3), each its own read, sample and retries."), RUN),
    (click.option("--reselect-on-retry", is_flag=True,
                  help="ps, oe: before each retry, read memory again with the failed try's feedback."), RUN),
]

RUN_AND_OUTPUT: list[tuple[Decorator, bool]] = [
    (run_dir_option, READ),
    (click.option("--resume", default=None, metavar="RUN",
                  help="Continue a stopped run (id or path) with its recorded settings; a new endpoint replaces "
                       "its own."), RUN),
    (click.option("--budget-usd", type=FloatAtLeast(0, open=True), default=None,
                  help="Stop cleanly before spending more than this."), RUN),
    (click.option("--tasks-in-flight", type=AtLeast(1), default=None,
                  help="Tasks solved at once (default 8 with an endpoint, 1 with the embedded model)."), RUN),
    (click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                  help="Where tasks are solved: this process, or Ray workers (pip install 'arcmemo[ray]')."), RUN),
    (click.option("--ray-address", default=None, metavar="ADDRESS",
                  help="With --executor ray: a cluster to join (auto, or ray://HOST:10001). Default: a local Ray."),
     RUN),
    (click.option("--require-isolation", type=LazyChoice(_isolation_levels), default=None,
                  help="Refuse to run unless the sandbox isolates programs at least this well here."), RUN),
    (click.option("--quiet", "-q", is_flag=True, help="No progress display (problems are still printed)."), RUN),
]

# heading -> its options, in the order `--help` shows them
HEADINGS: dict[str, list[tuple[Decorator, bool]]] = {
    "What to solve": WHAT_TO_SOLVE,
    "Memory method": MEMORY_METHOD,
    "Protocol": PROTOCOL_CHOICES,
    "Model": MODEL,
    "Attempts and retries": ATTEMPTS,
    "Run and output": RUN_AND_OUTPUT,
}


def _groups(read_only: bool, method: Decorator) -> dict[str, list[Decorator]]:
    groups = {title: [option for option, read in options if read or not read_only]
              for title, options in HEADINGS.items()}
    groups["Memory method"].insert(0, method)
    return groups


def solve_options(fn: Callable) -> Callable:
    """Every option of a solve, under its heading."""
    from arcmemo.cli.runplan.headings import grouped

    return grouped(_groups(False, method_option()))(fn)


def read_options(own: dict[str, list[Decorator]], method_also: tuple[str, ...] = ()) -> Decorator:
    """The options of a solve that shape a task's read, under their headings, and a command's `own`
    options after them under the headings named; `method_also`: its own older spellings of --method."""
    from arcmemo.cli.runplan.headings import grouped

    groups = _groups(True, method_option(*method_also))
    for title, options in own.items():
        groups[title] = [*groups.get(title, []), *options]
    return grouped({title: options for title, options in groups.items() if options})


__all__ = ["HEADINGS", "solve_options", "read_options", "method_option"]
