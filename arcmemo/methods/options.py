"""A memory method's own settings (--method-option KEY=VALUE) read into a dataclass of defaults:
every field is one option; a whole-number field takes whole numbers within its bounds
(`field(metadata={"min": .., "max": ..})`), a number field numbers within its bounds, a
true/false field true or false. A method's
`option_problem` reports what `read_options` refuses, so a run refuses it at start."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from arcmemo.methods.contract import MethodOptionError

T = TypeVar("T")


def _within(field: dataclasses.Field, value: Any) -> Any:
    low, high = field.metadata.get("min"), field.metadata.get("max")
    if (low is not None and value < low) or (high is not None and value > high):
        raise MethodOptionError(f"option {field.name} must be between {low} and {high}, got {value}")
    return value


def _checked(field: dataclasses.Field, value: Any) -> Any:
    default = field.default
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise MethodOptionError(f"option {field.name} must be true or false, got {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise MethodOptionError(f"option {field.name} must be a whole number, got {value!r}")
        return _within(field, value)
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise MethodOptionError(f"option {field.name} must be a number, got {value!r}")
        return _within(field, float(value))
    raise TypeError(f"option {field.name}: no rule for values like its default {default!r}")


def read_options(cls: type[T], options: dict[str, Any] | None) -> T:
    """`cls` with the given options over its defaults (MethodOptionError naming a bad value; names
    it does not have are check_options's to refuse, and are ignored here)."""
    given = options or {}
    return cls(**{f.name: _checked(f, given[f.name]) for f in dataclasses.fields(cls) if f.name in given})


def option_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def problem_with(cls: type, options: dict[str, Any]) -> str | None:
    """What read_options refuses in `options` (None: nothing)."""
    try:
        read_options(cls, options)
    except MethodOptionError as exc:
        return str(exc)
    return None


__all__ = ["read_options", "option_names", "problem_with"]
