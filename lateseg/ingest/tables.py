"""A table as text, the same for PDF, DOCX and HTML: a row is a line that carries its
column headers.

Flattened rows (``a | b | c``) lose which column a cell is in, and a phrase taken from
them crosses rows ("Cork, Ireland | Delivery of marketing … Sundial Support Services").
Here the first row is the header (cells joined by ``" | "``) and every other row is one
line whose cells carry their column's header::

    Sub-processor | Location | Processing
    Sub-processor: Pelican Relay Mail Ltd. · Location: Cork, Ireland · Processing: marketing e-mails

so a row is read, retrieved and cited alone, and each cell keeps its own offsets (and,
in a PDF, its drawn box). Each such row is a ``row`` span: a chunk never ends inside one
(:func:`lateseg.segment.dynamic.boundary_bonus`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from lateseg.text.boundaries import CELL_SEPARATOR
from lateseg.types import Span

__all__ = ["CELL_SEPARATOR", "HEADER_SEPARATOR", "row_spans", "table_text"]

#: Between the cells of the header row.
HEADER_SEPARATOR = " | "

Box = TypeVar("Box")


def table_text(
    rows: Sequence[Sequence[tuple[str, Box | None]]],
    merged: Sequence[Sequence[bool]] | None = None,
) -> tuple[str, list[tuple[int, int, Box]]]:
    """The text of a table given as rows of ``(cell text, cell box or None)``, and where
    each cell's value lies in it with its box (cells without a box: not listed).

    The first non-empty row is the header. ``merged[r][c]``: the cell continues the one
    above it (a vertically merged cell), whose value then holds in this row too. A cell
    merged across columns is given once, in its first column, and empty cells after it
    (so every cell stays under its header). Empty rows are left out.
    """
    keep = [i for i, r in enumerate(rows) if any(text for text, _ in r)]
    if not keep:
        return "", []
    header = [text for text, _ in rows[keep[0]]]
    parts: list[str] = []
    cells: list[tuple[int, int, Box]] = []
    pos = 0

    def put(piece: str, box: Box | None = None) -> None:
        nonlocal pos
        if box is not None and piece:
            cells.append((pos, pos + len(piece), box))
        parts.append(piece)
        pos += len(piece)

    for col, (text, box) in enumerate(rows[keep[0]]):
        put(HEADER_SEPARATOR if col else "")
        put(text, box)
    above: list[tuple[str, Box | None]] = [("", None)] * len(header)
    for r in keep[1:]:
        row = rows[r]
        put("\n")
        first = True
        for col, (text, box) in enumerate(row):
            if merged is not None and merged[r][col] and not text and col < len(above):
                text, box = above[col]
            if col < len(above):
                above[col] = (text, box)
            if not text:
                continue
            put("" if first else CELL_SEPARATOR)
            first = False
            name = header[col] if col < len(header) else ""
            if name:
                put(f"{name}: ")
            put(text, box)
    return "".join(parts), cells


def row_spans(table: str, at: int, label: str) -> list[Span]:
    """A ``row`` span for each line of a table's text after its header, the table's text
    starting at offset ``at`` of the document; labels ``"<label>, row N"``."""
    spans = []
    pos = at
    for n, row in enumerate(table.split("\n")):
        if n and row:
            spans.append(Span(pos, pos + len(row), "row", f"{label}, row {n}"))
        pos += len(row) + 1
    return spans
