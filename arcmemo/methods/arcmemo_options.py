"""The settings ArcMemo's methods (ps, oe) take beyond the paper's (`--method-option`, or the flag
`--use-prior` that sets it):

- use_prior (false): the memory's own use counts order what selection shows (selection/prior.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arcmemo.methods.contract import MethodBase, MethodOptionError

OPTION_NAMES = ("use_prior",)


@dataclass(frozen=True)
class ArcMemoOptions:
    use_prior: bool = False

    @classmethod
    def of(cls, options: Mapping[str, Any] | None) -> ArcMemoOptions:
        """The options a run or command gave (names other than OPTION_NAMES are not looked at:
        check_options refuses them first). MethodOptionError naming a value of the wrong kind."""
        options = dict(options or {})
        for name in ("use_prior",):
            if not isinstance(options.get(name, False), bool):
                raise MethodOptionError(f"method option {name} must be true or false, got {options[name]!r}")
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


__all__ = ["ArcMemoOptions", "ArcMemoMethod", "OPTION_NAMES"]
