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

import re
from collections.abc import Sequence
from typing import TypeVar

from lateseg.text.boundaries import CELL_SEPARATOR
from lateseg.types import Span

__all__ = ["CELL_SEPARATOR", "HEADER_SEPARATOR", "row_spans", "table_text"]

#: Between the cells of the header row.
HEADER_SEPARATOR = " | "

Box = TypeVar("Box")


_PERIOD = re.compile(r"(?:FY\s?)?(?:19|20)\d\d|Q[1-4](?:\s(?:19|20)\d\d)?|H[12]")


def looks_like_header(rows: Sequence[Sequence[str]]) -> bool:
    """Whether the first of ``rows`` (cell texts) reads as column headers when nothing
    marks it (no ``<th>``, no bold, no repeat-as-header flag): three columns or more,
    two rows or more below; every header cell a short label (at most six words, no
    figures but a year or a quarter; the first may be empty, over a column of row
    labels); and a column below holds figures where its header holds none (or the
    headers are periods), so the first row is not simply one more row of names."""
    head, body = list(rows[0]), [list(r) for r in rows[1:]]
    if len(head) < 3 or len(body) < 2:
        return False

    def label(c: str) -> bool:
        figures = any(ch.isdigit() for ch in c)
        return len(c.split()) <= 6 and (not figures or bool(_PERIOD.fullmatch(c)))

    if not all(label(c) for c in head) or not all(head[1:]):
        return False
    for col, name in enumerate(head):
        below = [r[col] for r in body if col < len(r) and r[col]]
        figures = sum(any(ch.isdigit() for ch in c) for c in below)
        if below and figures * 2 >= len(below) and not any(ch.isdigit() for ch in name):
            return True
    return any(_PERIOD.fullmatch(c) for c in head)


def table_text(
    rows: Sequence[Sequence[tuple[str, Box | None]]],
    merged: Sequence[Sequence[bool]] | None = None,
    header: bool | None = None,
) -> tuple[str, list[tuple[int, int, Box]], bool]:
    """The text of a table given as rows of ``(cell text, cell box or None)``, where each
    cell's value lies in it with its box (cells without a box: not listed), and whether
    its first line is the header row.

    ``header``: whether the first non-empty row is the header (None: as
    :func:`looks_like_header` judges). Without one, a two-column table is written as
    ``key: value`` lines and a wider one as rows of cells joined by ``" | "``.
    ``merged[r][c]``: the cell continues the one above it (a vertically merged cell),
    whose value then holds in this row too. A cell merged across columns is given once,
    in its first column, and empty cells after it (so every cell stays under its
    header). Empty rows are left out.
    """
    keep = [i for i, r in enumerate(rows) if any(text for text, _ in r)]
    if not keep:
        return "", [], False
    if header is None:
        header = looks_like_header([[t for t, _ in rows[i]] for i in keep])
    names = [text for text, _ in rows[keep[0]]] if header else []
    width = max(len(rows[i]) for i in keep)
    parts: list[str] = []
    cells: list[tuple[int, int, Box]] = []
    pos = 0

    def put(piece: str, box: Box | None = None) -> None:
        nonlocal pos
        if box is not None and piece:
            cells.append((pos, pos + len(piece), box))
        parts.append(piece)
        pos += len(piece)

    if header:
        for col, (text, box) in enumerate(rows[keep[0]]):
            put(HEADER_SEPARATOR if col else "")
            put(text, box)
    above: list[tuple[str, Box | None]] = [("", None)] * width
    for n, r in enumerate(keep[1:] if header else keep):
        if n or header:
            put("\n")
        row = rows[r]
        first = True
        for col, (text, box) in enumerate(row):
            if merged is not None and merged[r][col] and not text:
                text, box = above[col]
            above[col] = (text, box)
            if not text and (header or width == 2):
                continue
            if header:
                put("" if first else CELL_SEPARATOR)
                if col < len(names) and names[col]:
                    put(f"{names[col]}: ")
            elif width == 2:
                put("" if first else ": ")
            else:
                put("" if first else HEADER_SEPARATOR)
            first = False
            put(text, box)
    return "".join(parts), cells, header


def row_spans(table: str, at: int, label: str, header: bool) -> list[Span]:
    """A ``row`` span for each row of a table's text (each line but the header, where
    ``header``: as :func:`table_text` said), the table's text starting at offset ``at`` of
    the document; labels ``"<label>, row N"`` (N from 1)."""
    lines = table.split("\n")
    spans = []
    pos = at
    for n, row in enumerate(lines):
        if row and (n or not header):
            k = n if header else n + 1
            spans.append(Span(pos, pos + len(row), "row", f"{label}, row {k}"))
        pos += len(row) + 1
    return spans
