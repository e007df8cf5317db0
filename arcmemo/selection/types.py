"""What a selection is asked to do (SelectionSettings) and what it produced (Selection).

`mode` names the memory method that reads (arcmemo.methods; its `MODES` are the installed
methods' names, checked where a run or command starts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MIN_TOKEN_BUDGET = 500             # below this not even a small puzzle and its instructions fit
MIN_HINT_BUDGET = 200              # about one concept in full
DEFAULT_TOKEN_BUDGET = 6000        # the selection prompt, for a model of unknown context (budgets_for)
DEFAULT_HINT_BUDGET = 3000         # the concepts handed to the solver, likewise
VIEWS = ("full", "collapsed")
HINT_FORMS = ("arcmemo", "released")
CAPTION_IMAGES = ("pairs", "puzzle")
# How the select model saw memory (Selection.stats["form"]), least degraded first
SELECTION_LEVELS = ("full", "collapsed", "compressed", "prefiltered")


@dataclass
class SelectionSettings:
    mode: str = "ps"                # the memory method reading (arcmemo.methods)
    top_k: int = 5                  # oe: how many lessons to keep
    expand: bool = False            # ps: add graph neighbours of the chosen concepts
    token_budget: int = DEFAULT_TOKEN_BUDGET  # ps/oe: select model's tokens of the whole prompt
    hint_budget: int = DEFAULT_HINT_BUDGET    # ps: solver's tokens of the hint it is handed
    pass_index: int = 0             # the sample index of the model calls: a later pass asks afresh
    # Less common settings:
    ps_caption: bool = False        # ps over budget: caption the puzzle (aux) for the pre-filter
    expand_limit: int = 8           # ps: at most this many neighbours added by expand
    select_params: dict = field(default_factory=dict)   # passed to llm.chat for role select
    caption_params: dict = field(default_factory=dict)  # passed to llm.chat for the caption
    memory_format: str | None = None  # all: which format to show (None: PS if there is any, else OE)
    # The paper's hint and re-selection (issue 13):
    other_names: bool = False       # ps: the hint also names the concepts not selected, within hint_budget
    retry_feedback: str = ""        # ps, oe: a failed try's feedback, shown with the puzzle (--reselect-on-retry)
    # Where a run's protocol (run/protocol.py) follows the ArcMemo authors' released code:
    view: str = "full"              # ps: the memory the select model reads: full, or collapsed (views.py)
    hint_form: str = "arcmemo"      # ps: the solver's hint: arcmemo's, or released (views.py)
    caption_image: str = "pairs"    # oe, a vision model: one picture per pair, or one of the whole puzzle
    caption: str | None = None      # oe: the puzzle's caption, made already (once for a task's threads)
    options: dict = field(default_factory=dict)  # the memory method's own settings (RunConfig.method_options)

    def __post_init__(self) -> None:
        if not isinstance(self.mode, str) or not self.mode:
            raise ValueError(f"selection mode must name a memory method, got {self.mode!r}")
        if self.memory_format not in (None, "ps", "oe"):
            raise ValueError(f"selection memory_format must be ps or oe, got {self.memory_format!r}")
        if self.top_k < 1:
            raise ValueError(f"selection top_k must be at least 1, got {self.top_k}")
        if self.hint_budget < MIN_HINT_BUDGET:
            raise ValueError(f"selection hint_budget must be at least {MIN_HINT_BUDGET}, got {self.hint_budget}")
        for name, allowed in (("view", VIEWS), ("hint_form", HINT_FORMS), ("caption_image", CAPTION_IMAGES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"selection {name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        if self.token_budget < MIN_TOKEN_BUDGET:
            raise ValueError(f"selection token_budget must be at least {MIN_TOKEN_BUDGET}, got {self.token_budget}")


@dataclass
class Selection:
    mode: str
    concept_ids: list[int] = field(default_factory=list)
    hint: str = ""                  # exactly what the solver sees ("" = no memory)
    reasoning: str | None = None    # the select model's reasoning/answer, or the oe caption
    unmatched: list[str] = field(default_factory=list)
    fallback: bool = False          # True: the model step failed, the task gets no hint
    error: str | None = None
    usage: Any = None               # arcmemo.llm Usage (None when no model was called)
    # What a model-based selection also reports:
    caption: str | None = None
    expanded_ids: list[int] = field(default_factory=list)   # ids added by expand (also in concept_ids)
    stats: dict = field(default_factory=dict)  # memory size, shown, compressed, prefiltered, prompt tokens

    def usage_dict(self) -> dict:
        return self.usage.to_dict() if self.usage is not None else {}
