"""The prompts a command renders: a user's templates first (checked), and how grids are written.

`PromptSetup(prompts_dir, grid_text)` reads and checks everything when it is made, so a
bad directory or template fails before a run opens anything: every installed solver's
templates are loaded first, so that a folder for any solver is checked, not only the
run's. `with setup:` then puts it in force for this process until the block ends: every
template rendered reads the user's file where there is one, every grid is written in the
`grid_text` style. A run does this once (RunSession.use_prompts; a Ray worker for itself),
since its tasks and threads all render the same prompts.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from arcmemo.core.gridtext import DEFAULT_GRID_TEXT, check_grid_text, grid_text, use_grid_text
from arcmemo.prompts import PromptError, template_hashes, template_sets, templates_in_force, use_templates
from arcmemo.prompts.userdir import read_prompt_dir


def load_template_sets() -> list:
    """Every template set: arcmemo's and each installed solver's (importing a solver registers its
    set; one that fails to import is left out here and reported when it is used)."""
    from arcmemo.solverkit.discovery import available_solvers

    for entry_point in available_solvers().values():
        try:
            entry_point.load()
        except Exception:       # a broken third-party plugin: load_solver names the problem when asked for it
            continue
    return template_sets()


def put_in_force(files, grid_text: str) -> ExitStack:
    """Render with the user's `files` and write grids as `grid_text` in this process until the
    returned stack is closed (a Ray worker: the driver's, as in force there, `in_force()`)."""
    stack = ExitStack()
    stack.enter_context(use_templates(files))
    stack.enter_context(use_grid_text(grid_text))
    return stack


def in_force() -> dict:
    """The user's template files in force in this process (to send to a Ray worker)."""
    return dict(templates_in_force())


class PromptSetup:
    """The user's templates in `prompts_dir` (None: the shipped ones only) and the grid text
    style, checked when made; `with` puts them in force."""

    def __init__(self, prompts_dir: str | Path | None = None, grid_text: str = DEFAULT_GRID_TEXT):
        try:
            self.grid_text = check_grid_text(grid_text)
        except ValueError as exc:
            raise PromptError(str(exc)) from None
        self.prompts_dir = str(Path(prompts_dir).expanduser().resolve()) if prompts_dir else None
        self.files = read_prompt_dir(self.prompts_dir, load_template_sets()) if self.prompts_dir else {}
        self._stack: ExitStack | None = None

    def __enter__(self) -> PromptSetup:
        self._stack = put_in_force(self.files, self.grid_text)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._stack is not None:
            self._stack.close()
            self._stack = None

    def record(self) -> dict[str, Any]:
        """For a run's config.json (in force): the directory, the grid text, and arcmemo's templates'
        hashes and sources."""
        return {"prompts_dir": self.prompts_dir, **prompts_record()}


def changed_templates(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The templates whose file in force differs from the one a run recorded ({name: {"hash": ...}},
    or {name: hash} as runs recorded before sources), as `name (hash -> hash)`."""
    def digest(entry: Any) -> Any:
        return entry.get("hash") if isinstance(entry, dict) else entry

    return [f"{name} ({digest(recorded[name])} -> {digest(entry)})" for name, entry in sorted(now.items())
            if name in recorded and digest(recorded[name]) != digest(entry)]


def prompts_record() -> dict[str, Any]:
    """What a run's config.json says of the prompts in force: the grid text style and arcmemo's
    templates' hashes and sources (a solve run records its solver's too)."""
    return {"grid_text": grid_text(), "prompt_templates": template_hashes()}


__all__ = ["PromptSetup", "load_template_sets", "put_in_force", "in_force", "prompts_record", "changed_templates"]
