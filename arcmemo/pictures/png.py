"""A laid-out picture as PNG, drawn with Pillow (for vision models and files)."""

from __future__ import annotations

import base64
import io
from functools import cache
from typing import TYPE_CHECKING

from arcmemo.pictures.palette import BACKGROUND, COLOURS, GRID_LINE, TEXT

if TYPE_CHECKING:
    from arcmemo.pictures.layout import Scene


@cache
def _font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def to_png(scene: Scene) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (scene.width, scene.height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for text in scene.texts:
        draw.text((text.x, text.y), text.text, fill=TEXT, font=_font(text.size), anchor="ls")
    for grid in scene.grids:
        for x, y, value, _, _ in grid.cells():
            draw.rectangle((x, y, x + grid.cell - 1, y + grid.cell - 1), fill=COLOURS[value])
        for x0, y0, x1, y1 in grid.lines():
            draw.line((x0, y0, x1, y1), fill=GRID_LINE, width=round(grid.line_width))
        for cross in grid.crosses():
            draw.line((cross.x0, cross.y0, cross.x1, cross.y1), fill=cross.ink, width=round(cross.width))
        frame = grid.frame()
        if frame is not None:
            draw.rectangle((frame.x, frame.y, frame.x + frame.w - 1, frame.y + frame.h - 1), outline=frame.colour,
                           width=round(frame.width))
    for gap in scene.placeholders:
        draw.rectangle((gap.x, gap.y, gap.x + gap.width - 1, gap.y + gap.height - 1), outline=GRID_LINE, width=1)
        draw.text((gap.x + gap.width // 2, gap.y + gap.height // 2), gap.text, fill=TEXT, font=_font(10), anchor="mm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def data_url(png: bytes) -> str:
    """A PNG as a `data:image/png;base64,...` URL (an <img> on a page, an image part for a model)."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("data_url: the bytes are not a PNG image")
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
