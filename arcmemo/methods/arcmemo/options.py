"""The settings ArcMemo's methods (ps, oe) take beyond the paper's (`--method-option`, or the solve
flags `--learn-from-failures`, `--failure-lessons`, `--use-prior` that set them):

- learn_from_failures (false): a block's tasks whose programs failed their train pairs after
  every retry are written too, as OE lessons marked as from a failure (failure_write.py),
  owned by the method that wrote them;
- failure_lessons (include | exclude; include): whether selection shows the method's own
  lessons from failures (failure_lessons.py; include shows them only where there are any);
- use_prior (false): the memory's own use counts order what selection shows (selection/prior.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arcmemo.methods.contract import MethodBase
from arcmemo.methods.options import option_names, read_options

FAILURE_LESSONS = ("include", "exclude")


@dataclass(frozen=True)
class ArcMemoOptions:
    learn_from_failures: bool = False
    failure_lessons: str = field(default="include", metadata={"choices": FAILURE_LESSONS})
    use_prior: bool = False

    @classmethod
    def of(cls, options: Mapping[str, Any] | None) -> ArcMemoOptions:
        """The options a run or command gave over the defaults (MethodOptionError naming a bad value)."""
        return read_options(cls, dict(options or {}))


OPTION_NAMES = option_names(ArcMemoOptions)


class ArcMemoMethod(MethodBase):
    """What ArcMemo's methods (ps, oe) share: these options; a read that may serve every thread
    of a puzzle and that takes a failed try's feedback (the paper's re-selection)."""

    Options = ArcMemoOptions
    shares_read = True
    reselects = True


__all__ = ["ArcMemoOptions", "ArcMemoMethod", "FAILURE_LESSONS", "OPTION_NAMES"]
