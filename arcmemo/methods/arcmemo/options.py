"""The settings ArcMemo's methods (ps, oe) take beyond the paper's (`--method-option`, or the solve
flags `--learn-from-failures`, `--failure-lessons`, `--use-prior` that set them):

- learn_from_failures (false): a block's tasks whose programs failed their train pairs after
  every retry are written too, as OE lessons marked as from a failure (failure_write.py);
- failure_lessons (include | exclude; include): whether selection shows those lessons
  (failure_lessons.py; include shows them only where there are any);
- use_prior (false): the memory's own use counts order what selection shows (selection/prior.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arcmemo.methods.contract import MethodBase, MethodOptionError

FAILURE_LESSONS = ("include", "exclude")
OPTION_NAMES = ("learn_from_failures", "failure_lessons", "use_prior")


@dataclass(frozen=True)
class ArcMemoOptions:
    learn_from_failures: bool = False
    failure_lessons: str = "include"
    use_prior: bool = False

    @classmethod
    def of(cls, options: Mapping[str, Any] | None) -> ArcMemoOptions:
        """The options a run or command gave (names other than OPTION_NAMES are not looked at:
        check_options refuses them first). MethodOptionError naming a value of the wrong kind."""
        options = dict(options or {})
        for name in ("learn_from_failures", "use_prior"):
            if not isinstance(options.get(name, False), bool):
                raise MethodOptionError(f"method option {name} must be true or false, got {options[name]!r}")
        if options.get("failure_lessons", "include") not in FAILURE_LESSONS:
            raise MethodOptionError(f"method option failure_lessons must be {' or '.join(FAILURE_LESSONS)}, "
                                    f"got {options['failure_lessons']!r}")
        return cls(**{name: options[name] for name in OPTION_NAMES if name in options})


class ArcMemoMethod(MethodBase):
    """What ArcMemo's methods (ps, oe) share: these options, their values checked at a run's start."""

    option_names = OPTION_NAMES

    def option_problem(self, options: Mapping[str, Any]) -> str | None:
        try:
            ArcMemoOptions.of(options)
        except MethodOptionError as exc:
            return str(exc)
        return None


__all__ = ["ArcMemoOptions", "ArcMemoMethod", "FAILURE_LESSONS", "OPTION_NAMES"]
