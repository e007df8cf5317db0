"""Inside a run: the memory's helper module, traced and bound (runs in the child process only).

A run may be given one of its modules as *the helpers* (`Sandbox.run(..., helpers=NAME)`):
verified functions from memory that the program imports. Two things hold for them:

- every public function the module defines is wrapped so the run reports which helpers
  the program called (per grid). Only calls from outside the module count: a helper that
  calls another helper reports the outer one, as that is what the program used;
- a program cannot shadow a helper: after the program is defined, any of its globals that
  has a helper's name but is not the helper (the program wrote its own `def` of it, or
  assigned the name) is bound back to the memory's version, and so is any helper the
  program replaced on the module itself; only a name imported from another of the run's
  modules stays as the program chose. The names bound back are reported, so the
  feedback can tell the model its own version was not used.

This is a measurement and a guard against honest mistakes, not a security boundary: the
program runs in the same interpreter and could reach the records by introspection. The
kernel and process layers (see the package docstring) are what contain a hostile program.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterable

MAX_NAMES = 200  # helpers a run reports at most (a module is a selection's few helpers)


class HelperTrace:
    """The helpers of one module, wrapped in place; `called()` and `bind()` report on them."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        self.wrappers: dict[str, types.FunctionType] = {}
        self._called: dict[str, None] = {}
        self._depth = 0
        space = vars(module)
        for name, value in list(space.items()):
            if (isinstance(value, types.FunctionType) and not name.startswith("_")
                    and value.__module__ == module.__name__ and len(self.wrappers) < MAX_NAMES):
                self.wrappers[name] = self._wrap(name, value)
        space.update(self.wrappers)

    def _wrap(self, name: str, fn: types.FunctionType):
        @functools.wraps(fn)
        def helper(*args, **kwargs):
            if self._depth == 0:
                self._called[name] = None
            self._depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1

        return helper

    def bind(self, namespace: dict, others: Iterable[str] = ()) -> list[str]:
        """Put the memory's helpers back wherever the program replaced them; the names replaced.
        A name the program took from one of the run's `others` modules (the expert agents'
        `arc_helpers` has a `touches_border` of its own) is the program's choice and stays."""
        replaced = []
        space = vars(self.module)
        others = set(others)
        for name, wrapper in self.wrappers.items():
            value = namespace.get(name, wrapper)
            if value is not wrapper and _module_of(value) not in others:
                namespace[name] = wrapper
                replaced.append(name)
            if space.get(name) is not wrapper:
                space[name] = wrapper
                if name not in replaced:
                    replaced.append(name)
        return sorted(replaced)

    def called(self) -> list[str]:
        """The helpers called since the last call (in the order first called), then forgotten."""
        names, self._called = list(self._called), {}
        self._depth = 0
        return names


def _module_of(value) -> str | None:
    try:
        module = getattr(value, "__module__", None)
        return module if isinstance(module, str) else None
    except Exception:  # a hostile __getattr__
        return None


def is_name_list(value) -> bool:
    """What a run may report as helper names: a short list of identifiers (a forged line may
    hold anything)."""
    return (type(value) is list and len(value) <= MAX_NAMES
            and all(type(v) is str and len(v) <= 200 and v.isidentifier() for v in value))
