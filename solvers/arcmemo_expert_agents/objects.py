"""The object-view variants: how a grid is split into objects for an object view.

Two colour modes (mono-colour: touching cells of one colour; multi-colour: touching
non-background cells of any colour) times five constraints (none, by row, by column, by
colour, diagonal connectivity). "by colour" makes every colour one object whatever the
colour mode, so mono/by-colour and multi/by-colour are the same split and only one is
offered: nine distinct variants (the paper counts ten).

The splitting itself is `primitives.get_objects` (scipy.ndimage labelling), the same
function the model's program can call, so a view and the program agree on what an
object is.
"""

from __future__ import annotations

from dataclasses import dataclass

from arcmemo_expert_agents.primitives import get_objects

CONSTRAINTS = ("none", "row", "col", "color", "diag")


@dataclass(frozen=True)
class ObjectVariant:
    multicolor: bool = False
    constraint: str = "none"

    def __post_init__(self):
        if self.constraint not in CONSTRAINTS:
            raise ValueError(f"object variant: constraint must be one of {CONSTRAINTS}, "
                             f"got {self.constraint!r}")

    @property
    def name(self) -> str:
        colour = "multi" if self.multicolor else "mono"
        return f"object[{colour},{self.constraint}]"

    @property
    def label(self) -> str:
        """A short human label, e.g. "multi-colour, diagonal"."""
        if self.constraint == "color":
            return "one object per colour"
        colour = "multi-colour" if self.multicolor else "mono-colour"
        extra = {"none": "", "row": ", by row", "col": ", by column", "diag": ", diagonal"}
        return colour + extra[self.constraint]

    def kwargs(self) -> dict:
        """The get_objects keyword arguments that produce this split."""
        return {"multicolor": self.multicolor, "diag": self.constraint == "diag",
                "by_row": self.constraint == "row", "by_col": self.constraint == "col",
                "by_color": self.constraint == "color"}

    def call(self) -> str:
        """The get_objects call a program uses to get the same objects as the view."""
        args = ", ".join(f"{k}=True" for k, v in self.kwargs().items() if v)
        return f"get_objects(grid{', ' + args if args else ''})"

    def describe(self) -> str:
        colour = ("touching non-background cells of any colour form one object" if self.multicolor
                  else "touching cells of the same colour form one object")
        extra = {
            "none": "cells touch through their 4 side neighbours",
            "row": "objects never span rows: each is a run of cells within one row",
            "col": "objects never span columns: each is a run of cells within one column",
            "color": "all cells of one colour form a single object, touching or not",
            "diag": "cells also touch through diagonal neighbours (8-connectivity)",
        }[self.constraint]
        if self.constraint == "color":
            return extra
        return f"{colour}; {extra}"


VARIANTS: tuple[ObjectVariant, ...] = tuple(
    ObjectVariant(multicolor=m, constraint=c)
    for m in (False, True) for c in CONSTRAINTS
    if not (m and c == "color")
)


def extract(grid, variant: ObjectVariant) -> list[dict]:
    """The objects of `grid` under `variant`, with size, cell count and shape."""
    return get_objects(grid, more_info=True, **variant.kwargs())
