"""A laid-out picture as SVG, drawn with drawsvg: one <rect> per cell (its colour in `fill`),
inside `<g class="cells">`, row by row, so pages, tests and browsers can read each cell."""

from __future__ import annotations

import drawsvg

from arcmemo.pictures.layout import Scene
from arcmemo.pictures.palette import BACKGROUND, COLOURS, GRID_LINE, TEXT


def to_svg(scene: Scene, *, inline: bool = False) -> str:
    """The SVG document; `inline=True` leaves out the XML declaration, for embedding in HTML."""
    d = drawsvg.Drawing(scene.width, scene.height, role="img", class_="arc-picture")
    d.append(drawsvg.Rectangle(0, 0, scene.width, scene.height, fill=BACKGROUND))
    for text in scene.texts:
        d.append(drawsvg.Text(text.text, text.size, text.x, text.y, fill=TEXT, font_family="sans-serif",
                              class_="title"))
    for grid in scene.grids:
        group = drawsvg.Group(class_="grid", data_rows=grid.rows, data_cols=grid.cols)
        cells = drawsvg.Group(class_="cells")
        for x, y, value, _, _ in grid.cells():
            cells.append(drawsvg.Rectangle(x, y, grid.cell, grid.cell, fill=COLOURS[value]))
        group.append(cells)
        lines = drawsvg.Path(stroke=GRID_LINE, stroke_width=max(0.5, grid.cell / 16), fill="none", class_="lines")
        for x0, y0, x1, y1 in grid.lines():
            lines.M(x0, y0).L(x1, y1)
        group.append(lines)
        for box in grid.outlines():
            half = box.width / 2
            group.append(drawsvg.Rectangle(box.x + half, box.y + half, box.w - box.width, box.h - box.width,
                                           fill="none", stroke=box.colour, stroke_width=box.width,
                                           class_="differs"))
        d.append(group)
    for gap in scene.placeholders:
        d.append(drawsvg.Rectangle(gap.x + 0.5, gap.y + 0.5, gap.width - 1, gap.height - 1, fill="none",
                                   stroke=GRID_LINE, stroke_dasharray="3 3", class_="missing"))
        d.append(drawsvg.Text(gap.text, 10, gap.x + gap.width / 2, gap.y + gap.height / 2 + 3, fill=TEXT,
                              font_family="sans-serif", text_anchor="middle"))
    svg = d.as_svg()
    return svg[svg.index("<svg"):] if inline else svg
