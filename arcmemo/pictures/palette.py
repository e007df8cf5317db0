"""The ARC colour palette: the colours of the ARC testing interface, one per cell value 0-9."""

from __future__ import annotations

COLOURS = ("#000000", "#0074D9", "#FF4136", "#2ECC40", "#FFDC00",
           "#AAAAAA", "#F012BE", "#FF851B", "#7FDBFF", "#870C25")
NAMES = ("black", "blue", "red", "green", "yellow", "grey", "magenta", "orange", "sky", "maroon")

# Around the cells: grid lines, the page, and the two-tone outline of a cell that differs from
# the expected output (white inside black, visible on every palette colour).
GRID_LINE = "#555555"
BACKGROUND = "#FFFFFF"
TEXT = "#222222"
DIFF_OUTER = "#000000"
DIFF_INNER = "#FFFFFF"


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """'#0074D9' -> (0, 116, 217)."""
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
