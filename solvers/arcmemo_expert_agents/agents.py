"""Expert agents: an agent is a combination of views, and its prompt shows the puzzle
through those views only.

The default order tries the combinations that solve the most in the paper first
(grid + mono-colour objects, grid + pixels, grid + diagonal objects, grid + differences),
then the other object variants, then object + pixel combinations: 20 agents.

Context budget: a view whose text for the whole task is longer than the room left in
the model's context is dropped for that task; an agent whose views together do not fit
loses its grid view first (as in the paper), and is skipped if it still does not fit.
Every drop is reported as a note.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from arcmemo.solverkit import Task, estimate_tokens
from arcmemo_expert_agents.objects import ObjectVariant
from arcmemo_expert_agents.views import View, dims, task_view_text

GRID, PIXEL, DIFFERENCE = View("grid"), View("pixel"), View("difference")


def obj(multicolor: bool = False, constraint: str = "none") -> View:
    return View("object", ObjectVariant(multicolor, constraint))


@dataclass(frozen=True)
class Agent:
    views: tuple[View, ...]

    def __post_init__(self):
        if not self.views:
            raise ValueError("an agent needs at least one view")

    @property
    def name(self) -> str:
        return "+".join(v.name for v in self.views)


_OBJECT_ORDER = [obj(False, "none"), obj(False, "diag"), obj(True, "none"), obj(True, "diag"),
                 obj(False, "color"), obj(False, "row"), obj(False, "col"),
                 obj(True, "row"), obj(True, "col")]

DEFAULT_AGENTS: tuple[Agent, ...] = (
    Agent((GRID, obj(False, "none"))),
    Agent((GRID, PIXEL)),
    Agent((GRID, obj(False, "diag"))),
    Agent((GRID, DIFFERENCE)),
    *(Agent((GRID, o)) for o in _OBJECT_ORDER[2:]),
    *(Agent((GRID, o, PIXEL)) for o in _OBJECT_ORDER),
)


def agents_by_name() -> dict[str, Agent]:
    return {a.name: a for a in DEFAULT_AGENTS}


@dataclass
class TaskViews:
    """Rendered views of one task, computed once and shared by every agent."""

    task: Task
    texts: dict[View, dict[tuple, str]] = field(default_factory=dict)
    errors: dict[View, str] = field(default_factory=dict)

    def get(self, view: View) -> dict[tuple, str] | None:
        if view not in self.texts and view not in self.errors:
            try:
                self.texts[view] = task_view_text(self.task, view)
            except Exception as exc:       # a view that cannot render this task is dropped
                self.errors[view] = f"{type(exc).__name__}: {exc}"
        return self.texts.get(view)

    def tokens(self, view: View) -> int:
        texts = self.get(view)
        return 0 if texts is None else sum(estimate_tokens(t) for t in texts.values())


@dataclass
class PlannedAgent:
    agent: Agent                  # as configured
    views: tuple[View, ...]       # what it gets for this task, after drops

    @property
    def name(self) -> str:
        return "+".join(v.name for v in self.views)


def plan_agents(task_views: TaskViews, agents: list[Agent], view_budget: int, *,
                measure: Callable[[tuple[View, ...]], int] | None = None
                ) -> tuple[list[PlannedAgent], list[str]]:
    """The agents that fit `view_budget` tokens of views, in order, without duplicates,
    and the notes saying what was dropped and why. `measure(views)` gives an agent's
    token count for its views (default: the sum of the views' own estimates; the solver
    measures the rendered puzzle, headings included)."""
    if measure is None:
        def measure(views):
            return sum(task_views.tokens(v) for v in views)
    notes: list[str] = []
    dropped: set[View] = set()
    for view in dict.fromkeys(v for a in agents for v in a.views):
        texts = task_views.get(view)
        if texts is None:
            dropped.add(view)
            notes.append(f"view {view.name} dropped for task {task_views.task.id}: it could not "
                         f"be rendered ({task_views.errors[view]})")
        elif task_views.tokens(view) > view_budget:
            dropped.add(view)
            notes.append(f"view {view.name} dropped for task {task_views.task.id}: about "
                         f"{task_views.tokens(view)} tokens, more than the {view_budget} left "
                         f"for views in the context")
    planned: list[PlannedAgent] = []
    seen: set[tuple[View, ...]] = set()
    for agent in agents:
        views = tuple(v for v in agent.views if v not in dropped)
        total = measure(views) if views else 0
        if total > view_budget and GRID in views and len(views) > 1:
            views = tuple(v for v in views if v != GRID)
            notes.append(f"agent {agent.name}: grid view left out for task {task_views.task.id} "
                         f"(views together about {total} tokens > {view_budget})")
            total = measure(views) if views else 0
        if not views or views == (DIFFERENCE,):
            notes.append(f"agent {agent.name} skipped for task {task_views.task.id}: "
                         + ("all its views were dropped" if not views else
                            "only its difference view is left, which does not show the grids"))
            continue
        if total > view_budget:
            notes.append(f"agent {agent.name} skipped for task {task_views.task.id}: its views "
                         f"together are about {total} tokens > {view_budget}")
            continue
        if views in seen:
            continue
        seen.add(views)
        planned.append(PlannedAgent(agent, views))
    return planned, notes


def _section(task_views: TaskViews, views: tuple[View, ...], key: tuple) -> str:
    return "\n\n".join(f"{v.title}:\n{task_views.texts[v][key]}" for v in views)


def render_puzzle(task_views: TaskViews, views: tuple[View, ...]) -> str:
    """The puzzle as the agent sees it: each example's input and output in every grid
    view, then the difference view, then the test inputs."""
    task = task_views.task
    grid_views = tuple(v for v in views if v.kind != "difference")
    parts = []
    for i, pair in enumerate(task.train):
        block = [f"## Example {i + 1}"]
        if grid_views:
            block.append(f"### Input ({dims(pair.input)})\n" + _section(task_views, grid_views, ("input", i)))
            block.append(f"### Output ({dims(pair.output)})\n" + _section(task_views, grid_views, ("output", i)))
        else:
            block.append(f"Input {dims(pair.input)}, output {dims(pair.output)}.")
        if DIFFERENCE in views:
            block.append("### Difference view (input -> output)\n"
                         + task_views.texts[DIFFERENCE][("difference", i)])
        parts.append("\n\n".join(block))
    for j, grid in enumerate(task.test_inputs):
        if grid_views:
            parts.append(f"## Test input {j + 1} ({dims(grid)})\n\n"
                         + _section(task_views, grid_views, ("test", j)))
        else:
            parts.append(f"## Test input {j + 1} ({dims(grid)})")
    return "\n\n".join(parts)


def view_intro(views: tuple[View, ...]) -> str:
    """What each of the agent's views shows, and for object views the matching get_objects call."""
    lines = []
    for v in views:
        if v.kind == "grid":
            lines.append("- grid view: the whole grid, one row per line, cells as letters.")
        elif v.kind == "pixel":
            lines.append("- pixel view: every non-background colour with the (row, col) of each of "
                         "its cells, most frequent colour first; get_pixel_coords(grid) returns the same.")
        elif v.kind == "difference":
            lines.append("- difference view (per example): the cells that change from input to output, "
                         "or, if the size changes, how the two grids relate.")
        else:
            lines.append(f"- {v.title}: {v.variant.describe()}. Each object with its top-left "
                         f"corner tl, size, cell count, colours, its grid and its shape; "
                         f"`{v.variant.call()}` returns these objects in this order.")
    return "\n".join(lines)
