"""A laid-out picture as SVG, drawn with drawsvg: one <rect> per cell (its colour in `fill`),
inside `<g class="cells">`, row by row, so pages, tests and browsers can read each cell; the
grid lines, the × marks of differing cells (`path.differs`) and a wrong shape's dashed frame
(`rect.wrong-shape`) are drawn over them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcmemo.pictures.palette import BACKGROUND, COLOURS, GRID_LINE, TEXT

if TYPE_CHECKING:
    import drawsvg

    from arcmemo.pictures.layout import Scene


def to_svg(scene: Scene, *, inline: bool = False) -> str:
    """The SVG document; `inline=True` leaves out the XML declaration, for embedding in HTML."""
    import drawsvg  # here, not at start-up: `tasks show` in a terminal draws no SVG

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
        if grid.line_width:
            lines = drawsvg.Path(stroke=GRID_LINE, stroke_width=grid.line_width, fill="none", class_="lines")
            for x0, y0, x1, y1 in grid.lines():
                lines.M(x0, y0).L(x1, y1)
            group.append(lines)
        marks: dict[str, drawsvg.Path] = {}       # one path per ink colour
        for cross in grid.crosses():
            if cross.ink not in marks:
                marks[cross.ink] = drawsvg.Path(stroke=cross.ink, stroke_width=cross.width, fill="none",
                                                stroke_linecap="round", class_="differs")
                group.append(marks[cross.ink])
            marks[cross.ink].M(cross.x0, cross.y0).L(cross.x1, cross.y1)
        frame = grid.frame()
        if frame is not None:
            group.append(drawsvg.Rectangle(frame.x, frame.y, frame.w, frame.h, fill="none", stroke=frame.colour,
                                           stroke_width=frame.width, stroke_dasharray="6 4", class_="wrong-shape"))
        d.append(group)
    for gap in scene.placeholders:
        d.append(drawsvg.Rectangle(gap.x + 0.5, gap.y + 0.5, gap.width - 1, gap.height - 1, fill="none",
                                   stroke=GRID_LINE, stroke_dasharray="3 3", class_="missing"))
        d.append(drawsvg.Text(gap.text, 10, gap.x + gap.width / 2, gap.y + gap.height / 2 + 3, fill=TEXT,
                              font_family="sans-serif", text_anchor="middle"))
    svg = d.as_svg()
    return svg[svg.index("<svg"):] if inline else svg
