"""Ruled tables on a PDF page (``page.find_tables``; open sides too), each one ``table``
line: the header row with cells joined by ``" | "``, then one line per row whose cells
carry their column's header (``Location: Cork, Ireland · Processing: marketing e-mails``),
each cell its own drawn box (:mod:`lateseg.ingest.tables`)."""

from __future__ import annotations

import logging
from typing import Any

from lateseg.ingest.layout import Box, Frag, Line
from lateseg.ingest.tables import table_text

log = logging.getLogger(__name__)

# A table row taller than this many lines of its text is a paragraph: rules between
# columns of prose, not a table (for tables with open sides here, for every table found
# on a scan in lateseg.ingest.ocr.tables).
MAX_ROW_LINES = 6


def _ruled_positions(rules: list[Box]) -> tuple[set[int], set[int]]:
    """Distinct x positions of vertical and y positions of horizontal rules (thin boxes,
    and the edges of larger ones), rounded to 2 points."""
    xs: set[int] = set()
    ys: set[int] = set()
    for x0, y0, x1, y1 in rules:
        if x1 - x0 <= 4 and y1 - y0 >= 8:
            xs.add(round(x0 / 2))
        elif y1 - y0 <= 4 and x1 - x0 >= 8:
            ys.add(round(y0 / 2))
        elif x1 - x0 >= 5 and y1 - y0 >= 5:
            xs.update((round(x0 / 2), round(x1 / 2)))
            ys.update((round(y0 / 2), round(y1 / 2)))
    return xs, ys


def table_lines(page: Any, rules: list[Box]) -> list[Line]:
    """Ruled tables on ``page`` as ``table`` lines (:mod:`lateseg.ingest.tables`), in the table's
    box, each cell's text drawn in its cell's box.

    ``find_tables`` costs tens of milliseconds a page, so it only runs on pages whose
    ``rules`` could form a grid of two columns: three vertical rule positions and two
    horizontal ones, or one vertical rule between columns whose sides are open and three
    horizontal rules (FHS's directory tables; :mod:`lateseg.ingest.ocr.tables` reads such
    a table on a scan too). A frame around a code block (two of each) is skipped.
    """
    xs, ys = _ruled_positions(rules)
    framed = len(xs) >= 3 and len(ys) >= 2
    if not (framed or (len(xs) >= 1 and len(ys) >= 3)):
        return []
    try:
        try:
            found = page.find_tables(use_layout=False)
        except TypeError:  # PyMuPDF before 2.0 has no layout analyser to switch off
            found = page.find_tables()
    except Exception as e:  # a table finder failure must not lose the page's text
        log.warning("page %d: table detection failed (%s); reading it as text", page.number + 1, e)
        return []
    out: list[Line] = []
    for table in found.tables:
        if not framed and _prose(page, table):
            continue  # a rule between two columns of text, not a table
        try:
            cells, merged = _table_cells(page, table)
            text, drawn, header = table_text(cells, merged, _bold_first_row(page, table))
        except Exception as e:  # one table's cells must not lose the page's text
            log.warning("page %d: a table could not be read (%s); reading it as text",
                        page.number + 1, e)  # fmt: skip
            continue
        if text:
            x0, y0, x1, y1 = table.bbox
            frags = [Frag(a, b, box) for a, b, box in drawn]
            line = Line(text, x0, y0, x1, y1, kind="table", frags=frags, header=header)
            out.append(line)
    return out


def _prose(page: Any, table: Any) -> bool:
    """Whether ``table``'s rows are paragraphs, not lines of cells: its median row is
    taller than :data:`MAX_ROW_LINES` of its words' lines (a page's two columns between
    rules, read by ``find_tables`` as a table of two tall cells)."""
    words = page.get_text("words", clip=table.bbox)
    rows = sorted(r.bbox[3] - r.bbox[1] for r in table.rows)
    if not words or not rows:
        return False
    line = sorted(w[3] - w[1] for w in words)[len(words) // 2]
    return rows[len(rows) // 2] > MAX_ROW_LINES * max(line, 1.0)


def _table_cells(
    page: Any, table: Any
) -> tuple[list[list[tuple[str, Box | None]]], list[list[bool]]]:
    """The cells of ``table``, row by row: their text and box (None: a slot a merged
    cell covers), and whether each slot continues the cell above it (PyMuPDF gives None
    for slots merged down and across alike: down is where the last cell of the column
    reaches into this row).

    Cell text is gathered from the page's words by their centres: ``Table.extract`` drops
    the spaces between words set in some fonts ("AdaLovelace")."""
    words = page.get_text("words", clip=table.bbox, sort=True)
    rows: list[list[tuple[str, Box | None]]] = []
    merged: list[list[bool]] = []
    last: dict[int, Box] = {}  # column -> the last cell box seen in it
    for row in table.rows:
        cells: list[tuple[str, Box | None]] = []
        down: list[bool] = []
        top = row.bbox[1]
        for col, cell in enumerate(row.cells):
            if cell:
                inside = [w[4] for w in words if _contains(cell, w)]
                cells.append((" ".join(inside), tuple(cell)))
                down.append(False)
                last[col] = tuple(cell)
            else:
                cells.append(("", None))
                down.append(col in last and last[col][3] > top + 1)
        rows.append(cells)
        merged.append(down)
    return rows, merged


def _bold_first_row(page: Any, table: Any) -> bool | None:
    """True when the table's first row is set bold and the rows below are not all bold
    (its header), None when it does not say."""
    if len(table.rows) < 2:
        return None

    def bold(bbox: Any) -> bool:
        spans = [
            span
            for block in page.get_text("dict", clip=bbox)["blocks"]
            for line in block.get("lines", ())
            for span in line["spans"]
            if span["text"].strip()
        ]
        marks = [bool(s["flags"] & 16) or "bold" in s["font"].lower() for s in spans]
        return bool(marks) and all(marks)

    first = bold(table.rows[0].bbox)
    return True if first and not bold(table.rows[1].bbox) else None


def _contains(box: Box, word: tuple) -> bool:
    cx, cy = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]
