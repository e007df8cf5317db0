"""A memory method's own settings (--method-option KEY=VALUE) read into a dataclass of defaults,
the one shape of method options (`MethodBase.Options`): every field is one option; a
whole-number field takes whole numbers within its bounds (`field(metadata={"min": .., "max":
..})`), a number field numbers within its bounds, a true/false field true or false, a text
field text, or one of its `metadata={"choices": (...)}` when it has them. A run records every option's value, the
defaults included (`MethodBase.option_values`)."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from arcmemo.core.errors import ArcmemoError

T = TypeVar("T")


class MethodOptionError(ArcmemoError, ValueError):
    """Settings a memory method does not take (the message names them and the ones it does)."""


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
    if isinstance(default, str):
        if "choices" not in field.metadata:
            if not isinstance(value, str):
                raise MethodOptionError(f"option {field.name} must be text, got {value!r}")
            return value
        if value not in field.metadata["choices"]:
            raise MethodOptionError(f"option {field.name} must be {' or '.join(field.metadata['choices'])}, "
                                    f"got {value!r}")
        return value
    raise TypeError(f"option {field.name}: no rule for values like its default {default!r}")


def read_options(cls: type[T], options: dict[str, Any] | None) -> T:
    """`cls` with the given options over its defaults (MethodOptionError naming a bad value; names
    it does not have are check_options's to refuse, and are ignored here)."""
    given = options or {}
    return cls(**{f.name: _checked(f, given[f.name]) for f in dataclasses.fields(cls) if f.name in given})


def option_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


__all__ = ["MethodOptionError", "read_options", "option_names"]
