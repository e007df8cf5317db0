"""Pictures of a puzzle for a vision model (the ArcMemo paper's OE caption step).

One PNG per train pair (input beside output) and one per test input, in the ARC palette,
with an OpenAI chat `image_url` content part to send each.
"""

from __future__ import annotations

from arcmemo.core.tasks import Task
from arcmemo.pictures.png import data_url
from arcmemo.pictures.puzzles import pair_row, png, test_row


def task_images(task: Task, *, cell: int = 20) -> list[bytes]:
    """PNGs: each train pair, then each test input. A Task holds no test outputs, so none can show."""
    rows = [pair_row(i, pair) for i, pair in enumerate(task.train, 1)]
    rows += [test_row(j, grid) for j, grid in enumerate(task.test_inputs, 1)]
    return [png([row], cell=cell) for row in rows]


def image_part(png_bytes: bytes, detail: str | None = None) -> dict:
    """An OpenAI chat content part carrying a PNG as a `data:image/png;base64,...` URL."""
    url = data_url(png_bytes)
    return {"type": "image_url", "image_url": {"url": url, **({"detail": detail} if detail else {})}}
