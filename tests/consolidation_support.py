"""A memory with planted near-duplicates, for the consolidation tests.

- "rotate grid" and "turn grid clockwise": helpers written differently, with different names and
  parameter names, that give the same results (the same concept by behaviour);
- "color mapping" and "recolour cells by a colour table": no helpers, alike in words and typings
  (a pair for the model to judge);
- "upscale grid" and "enlarge grid": alike in words and typings, helpers that give different
  results (a pair consolidation must refuse, naming both);
- "flip grid": a helper like none of the others; an OE lesson about colour tables.
"""

from __future__ import annotations

from arcmemo.memory.store import Memory

VERIFIED = {"task_id": "6150a2bd", "tasks": "training", "at": "2026-01-01T00:00:00+00:00", "run_id": None}

ROTATE = '''import numpy as np


def rotate_grid(grid, quarter_turns):
    """Rotate the grid clockwise by quarter turns.

    Example: rotate_grid(np.array([[1, 2]]), 1) -> [[1], [2]]
    """
    return np.rot90(np.asarray(grid), -int(quarter_turns))
'''
TURN = '''def turn_grid_clockwise(grid, turns):
    """Turn the grid a quarter clockwise, `turns` times.

    Example: turn_grid_clockwise([[1, 2]], 1) -> [[1], [2]]
    """
    rows = [list(row) for row in grid]
    for _ in range(int(turns) % 4):
        rows = [list(row) for row in zip(*rows[::-1])]
    return rows
'''
UPSCALE = '''import numpy as np


def upscale_grid(grid, factor):
    """Make every cell a factor x factor block.

    Example: upscale_grid([[1, 2]], 2) -> [[1, 1, 2, 2], [1, 1, 2, 2]]
    """
    return np.kron(np.asarray(grid), np.ones((int(factor), int(factor)), dtype=int))
'''
ENLARGE = '''import numpy as np


def enlarge_grid(grid, factor):
    """Repeat the whole grid factor x factor times.

    Example: enlarge_grid([[1, 2]], 2) -> [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    return np.tile(np.asarray(grid), (int(factor), int(factor)))
'''
FLIP = '''import numpy as np


def flip_grid(grid, axis):
    """Mirror the grid.

    Example: flip_grid([[1, 2]], 'horizontal') -> [[2, 1]]
    """
    return np.fliplr(np.asarray(grid)) if axis == "horizontal" else np.flipud(np.asarray(grid))
'''
HALF_TURN = '''from memory_helpers import turn_grid_clockwise


def half_turn(grid):
    """Turn the grid by 180 degrees.

    Example: half_turn([[1, 2]]) -> [[2, 1]]
    """
    return turn_grid_clockwise(grid, 2)
'''


def helper(name: str, source: str, depends=(), task_id: str = "6150a2bd") -> dict:
    program = f"from memory_helpers import {name}\n\n\ndef transform(grid):\n    return {name}(grid)\n"
    return {"name": name, "source": source, "depends": list(depends),
            "verified": {**VERIFIED, "task_id": task_id, "program": program}}


def routine(name: str, description: str, parameters: list[tuple[str, str, str | None]], cues: list[str],
            used_in: list[str], helper_data: dict | None = None, output_typing: str = "grid") -> dict:
    return {"name": name, "kind": "routine", "routine_subtype": "grid manipulation", "output_typing": output_typing,
            "description": description, "cues": cues, "used_in": used_in, "helper": helper_data,
            "implementation": [f"see {name}"],
            "parameters": [{"name": n, "typing": t, "description": d} for n, t, d in parameters]}


ROTATE_CONCEPT = routine(
    "rotate grid", "Rotate the whole grid clockwise by a number of quarter turns.",
    [("grid", "grid", "the grid"), ("quarter_turns", "int", None)],
    ["the output is the input turned"], ["6150a2bd"], helper("rotate_grid", ROTATE))
TURN_CONCEPT = routine(
    "turn grid clockwise", "Turn a grid a quarter clockwise, several times over.",
    [("grid", "grid", None), ("turns", "int", "how many quarter turns")],
    ["corners move to the next corner", "the output is the input turned"], ["3c9b0459"],
    helper("turn_grid_clockwise", TURN, task_id="3c9b0459"))
COLOR_MAPPING = routine(
    "color mapping", "Recolour every cell of the grid through a colour table; other cells keep their colour.",
    [("grid", "grid", "the grid"), ("mapping", "color mapping", "input colour to output colour")],
    ["a given input colour always turns into the same output colour"], ["0d3d703e", "b1948b0a"])
RECOLOUR = routine(
    "recolour cells by a colour table", "Map every cell's colour through a colour table learned from the examples.",
    [("grid", "grid", None), ("table", "color mapping", None)],
    ["each input colour always turns into the same output colour", "only colours change"], ["c8f0f002"])
UPSCALE_CONCEPT = routine(
    "upscale grid", "Enlarge the grid by an integer scale factor.",
    [("grid", "grid", None), ("factor", "int", None)],
    ["the output is an integer multiple of the input size"], ["b91ae062"], helper("upscale_grid", UPSCALE))
ENLARGE_CONCEPT = routine(
    "enlarge grid", "Enlarge the grid by an integer factor.",
    [("grid", "grid", None), ("factor", "int", None)],
    ["the output size is an integer multiple of the input size"], ["a416b8f3"], helper("enlarge_grid", ENLARGE))
FLIP_CONCEPT = routine(
    "flip grid", "Mirror the grid left to right or top to bottom.",
    [("grid", "grid", None), ("axis", "horizontal | vertical", None)],
    ["the output is the input seen in a mirror"], ["b8825c91"], helper("flip_grid", FLIP))
LESSON = {"format": "oe", "name": "lesson-colour-table", "used_in": ["0d3d703e"],
          "situation": "Every input colour always becomes the same output colour.",
          "suggestion": "Build a colour table from the examples and recolour every cell through it."}
HALF_TURN_CONCEPT = routine("half turn", "Turn the grid by 180 degrees.", [("grid", "grid", None)],
                            ["the output is upside down"], ["3c9b0459"],
                            helper("half_turn", HALF_TURN, ["turn_grid_clockwise"], task_id="3c9b0459"))
PLANTED = [ROTATE_CONCEPT, TURN_CONCEPT, COLOR_MAPPING, RECOLOUR, UPSCALE_CONCEPT, ENLARGE_CONCEPT, FLIP_CONCEPT, LESSON]
SAME = "```yaml\nsame: yes\nreason: both recolour every cell through one colour table\n```"
DIFFERENT = "```yaml\nsame: no\nreason: one scales cells, the other repeats the grid\n```"


def planted_memory(path) -> Memory:
    """A memory at `path` holding PLANTED (one revision each)."""
    memory = Memory(str(path))
    for data in PLANTED:
        memory.add(data, actor="test", source="human")
    return memory


__all__ = ["planted_memory", "PLANTED", "SAME", "DIFFERENT", "HALF_TURN_CONCEPT", "helper", "routine"]
