"""Inside a run: a program executed as the ArcMemo authors' released code executes one (runs in
the child process only, for `Sandbox.run(..., reading="released")`).

Their executor (matt-seb-ho/arc_memo, `utils/code_execution/exec_transform.py` and `exec.py`)
runs, for each grid in a process of its own, a template: `import numpy as np`, `input_grid =
np.array(..., dtype=int)`, the program, `output_grid = transform(input_grid)`; twice in one
namespace, with builtins that lack exit and quit and refuse to import os, sys, subprocess,
multiprocessing and pathlib. It then takes only a 2-D numpy array of values 0-9, and its scorer
compares that with the expected grid by `np.array_equal`. So the program's top-level code runs
(with `np` and `input_grid` defined), what it rebinds counts, nothing carries over from one grid
to the next, and a list of lists is a "return type error".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arcmemo.sandbox.common import MAX_SIDE, NO_GRID, NotAGrid

REFUSED_IMPORTS = ("os", "sys", "subprocess", "multiprocessing", "pathlib")   # exec.py, DISALLOWED_IMPORTS


class ReleasedRun:
    """The program (compiled) run on one grid as the released code's template runs it; `bind` puts
    the memory's helpers back after each run of the program (tracing.py) and says which it did."""

    def __init__(self, program, entry: str, bind: Callable[[dict], list[str]], np) -> None:
        import builtins

        self.program, self.bind, self.np = program, bind, np
        self.call_entry = compile(f"output_grid = {entry}(input_grid)", "<template>", "exec", dont_inherit=True)
        self.builtins = {k: v for k, v in vars(builtins).items() if k not in ("exit", "quit")}
        real_import = builtins.__import__

        def released_import(name, globals=None, locals=None, fromlist=(), level=0):
            if name in REFUSED_IMPORTS:
                raise ImportError(f"Import of '{name}' not allowed")
            return real_import(name, globals, locals, fromlist, level)

        self.builtins["__import__"] = released_import
        self.rebound: list[str] = []

    def call(self, grid) -> Any:
        """What the template leaves in `output_grid` for `grid` (an int array)."""
        ns = {"__builtins__": self.builtins}
        for _ in range(2):
            ns["np"], ns["input_grid"] = self.np, grid.copy()
            exec(self.program, ns)
            self.rebound = self.bind(ns)
            exec(self.call_entry, ns)
        return ns["output_grid"]


def released_grid(value: Any, np) -> list[list[int]]:
    """The grid a return is, by the released code's checks in its order and words, then the grid
    it equals as their scorer compares (np.array_equal). A return that passes the checks but that
    no ARC grid equals (empty, over 30 wide, fractions) is refused too: it can never be right."""
    if not isinstance(value, np.ndarray):
        try:
            shown = type.__repr__(type(value))
        except BaseException:
            shown = "<class ?>"
        raise NotAGrid(f"return type error: function returned {shown}")
    if len(value.shape) != 2:
        raise NotAGrid(f"return shape error: function returned {tuple(value.shape)}")
    if not np.all((0 <= value) & (value <= 9)):
        raise NotAGrid("return value range error: function returned values outside [0, 9]")
    h, w = value.shape
    if not (0 < h <= MAX_SIDE and 0 < w <= MAX_SIDE):
        raise NotAGrid(f"returned a {h}x{w} array, which {NO_GRID}")
    ints = np.asarray(value).astype(np.int64)
    if not np.array_equal(value, ints):
        raise NotAGrid(f"returned values that are not whole numbers, which {NO_GRID}")
    return [[int(v) for v in row] for row in ints.tolist()]
