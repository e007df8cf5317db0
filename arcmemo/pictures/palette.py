"""The ARC colour palette: the colours of the ARC testing interface, one per cell value 0-9."""

from __future__ import annotations

COLOURS = ("#000000", "#0074D9", "#FF4136", "#2ECC40", "#FFDC00",
           "#AAAAAA", "#F012BE", "#FF851B", "#7FDBFF", "#870C25")
NAMES = ("black", "blue", "red", "green", "yellow", "grey", "magenta", "orange", "sky", "maroon")

# Around the cells: grid lines (dark grey, so that neighbouring red and orange cells stay apart),
# the page, and the dashed frame of a grid whose shape differs from the expected one.
GRID_LINE = "#555555"
BACKGROUND = "#FFFFFF"
TEXT = "#222222"
DIFF_FRAME = "#D6336C"


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """'#0074D9' -> (0, 116, 217)."""
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def ink_on(hex_colour: str) -> str:
    """Black or white, whichever reads on a cell of this colour (marks, terminal text)."""
    r, g, b = rgb(hex_colour)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#FFFFFF"
