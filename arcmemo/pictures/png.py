"""A laid-out picture as PNG, drawn with Pillow (for vision models and files)."""

from __future__ import annotations

import io
from functools import cache

from arcmemo.pictures.layout import Scene
from arcmemo.pictures.palette import BACKGROUND, COLOURS, GRID_LINE, TEXT


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
            draw.line((x0, y0, x1, y1), fill=GRID_LINE, width=1)
        for box in grid.outlines():
            draw.rectangle((box.x, box.y, box.x + box.w - 1, box.y + box.h - 1), outline=box.colour, width=box.width)
    for gap in scene.placeholders:
        draw.rectangle((gap.x, gap.y, gap.x + gap.width - 1, gap.y + gap.height - 1), outline=GRID_LINE, width=1)
        draw.text((gap.x + gap.width // 2, gap.y + gap.height // 2), gap.text, fill=TEXT, font=_font(10), anchor="mm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
