"""Exit statuses that the docs state in a table, one fact a row (:func:`exit_rows`).

A command's docs often list its exit statuses as a table rather than in a sentence. Two
forms reach an answer:

* a table as ingest writes it (:mod:`lateseg.ingest.tables`, for Markdown, HTML, DOCX and
  PDF): a row a line, each cell carrying its header, ``Exit code: 3 · Description: Dead
  code found``;
* a reStructuredText ``list-table`` (kept as its source), whose first row is its header
  (``- - Code`` / ``- Meaning``), then one row a status (``- - ``1``` / ``- Invalid
  input``).

The status is the cell whose header says so ("Exit code", "Exit status", "Return code");
in a list-table a header of "Code" or "Status" alone counts too where the words just
before the table speak of exiting (an "Exit codes" title). Each row whose cell there is a
number gives a fact: the number is its value, and the row's other cells are what it is
scored by. Passages are read as text, once, line by line, and only their first
:data:`MOST_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lateseg.answer.code_lines import Fact
from lateseg.text.boundaries import CELL_SEPARATOR

#: A header naming the exit status.
_HEADER = re.compile(r"\b(?:exit|return)[ \t_-]{0,3}(?:code|status)(?:es|s)?\b", re.IGNORECASE)
#: A header that names it only under words about exiting.
_ALONE = re.compile(r"^(?:code|status)(?:es|s)?$", re.IGNORECASE)
_EXITING = re.compile(r"\bexit", re.IGNORECASE)
#: How far before a table its title may stand.
_BEFORE = 400
#: A cell that is a number (as reStructuredText or Markdown code, or bare).
_NUMBER = re.compile(r"`{0,2}(-?\d{1,6})`{0,2}")
_LIST_TABLE = re.compile(r"^([ \t]*)\.\. list-table::", re.MULTILINE)
_HEADER_ROWS = re.compile(r":header-rows:[ \t]*(\d+)")

#: The characters of a passage read for tables (a passage is a chunk or a unit: this
#: bounds a hostile one).
MOST_CHARS = 20_000

Cell = tuple[int, int, str]  # offsets in the passage, the cell's text


def exit_rows(i: int, text: str) -> list[Fact]:
    """The exit statuses stated by the tables of passage ``i``'s ``text`` (see the
    module docstring), as facts of ``exit_code``."""
    text = text[:MOST_CHARS]
    return [*_rows(i, text), *_list_tables(i, text)]


def _rows(i: int, text: str) -> list[Fact]:
    """Rows as ingest writes a table: one line a row, each cell ``Header: value``."""
    out: list[Fact] = []
    for a, b in _lines(text):
        if CELL_SEPARATOR not in text[a:b]:
            continue
        cells: list[Cell] = []
        at = a
        for part in text[a:b].split(CELL_SEPARATOR):
            cells.append(_cell(text, at, at + len(part)))
            at += len(part) + len(CELL_SEPARATOR)
        for c, (start, _, words) in enumerate(cells):
            head, colon, value = words.partition(": ")
            m = _NUMBER.fullmatch(value.strip())
            if colon and m is not None and _HEADER.search(head):
                v0 = start + len(head) + len(colon) + len(value) - len(value.lstrip())
                said = " ".join(w for k, (_, _, w) in enumerate(cells) if k != c)
                span = (v0 + m.start(1), v0 + m.end(1))
                out.append(Fact(i, "exit_code", a, b, span, "exit", f"{words} {said}"))
                break
    return out


def _column(header: list[Cell], text: str, at: int) -> int | None:
    """The column of ``header`` that holds the exit status, or None."""
    for c, (_, _, words) in enumerate(header):
        if _HEADER.search(words):
            return c
    before = text[max(0, at - _BEFORE) : at]
    for c, (_, _, words) in enumerate(header):
        if _ALONE.match(words.strip("`* ")) and _EXITING.search(before):
            return c
    return None


def _facts(i: int, rows: list[list[Cell]], col: int, spans: list[tuple[int, int]]) -> list[Fact]:
    header = " ".join(w for _, _, w in rows[0])
    out = []
    for row, (start, end) in zip(rows[1:], spans[1:], strict=True):
        if col >= len(row):
            continue
        a, _, words = row[col]
        m = _NUMBER.fullmatch(words)
        if m is None:
            continue
        value = (a + m.start(1), a + m.end(1))
        said = " ".join(w for _, _, w in row)
        out.append(Fact(i, "exit_code", start, end, value, "exit", f"{header} {said}"))
    return out


def _list_tables(i: int, text: str) -> list[Fact]:
    """``.. list-table::`` blocks whose ``:header-rows:`` is at least 1: a row is a
    ``- - `` line, its other cells the ``- `` lines two columns deeper (a bullet list
    inside a cell is no cell); the first row is the header, the other header rows are
    skipped. A directive inside a block already read is not read again, so each line is
    read once."""
    out: list[Fact] = []
    resume = 0
    for d in _LIST_TABLE.finditer(text):
        if d.start() < resume:
            continue  # inside the block of the table before
        indent = len(d.group(1))
        rows: list[list[Cell]] = []
        spans: list[tuple[int, int]] = []
        header_rows, row_depth = 0, -1
        after = text.find("\n", d.end())
        resume = len(text)
        for a, b in _lines(text, after + 1) if after >= 0 else []:
            line = text[a:b]
            body = line.lstrip()
            if not body:
                continue
            depth = len(line) - len(body)
            if depth <= indent:
                resume = a  # the directive's block has ended
                break
            if m := _HEADER_ROWS.match(body):
                header_rows = int(m.group(1))
            elif body.startswith("- - "):
                rows.append([_cell(text, a + depth + 4, b)])
                spans.append((a + depth, b))
                row_depth = depth
            elif body.startswith("- ") and rows and depth == row_depth + 2:
                rows[-1].append(_cell(text, a + depth + 2, b))
                spans[-1] = (spans[-1][0], b)
        if header_rows < 1 or len(rows) <= header_rows:
            continue
        col = _column(rows[0], text, d.start())
        if col is not None:
            out += _facts(i, rows[:1] + rows[header_rows:], col, spans[:1] + spans[header_rows:])
    return out


def _cell(text: str, a: int, b: int) -> Cell:
    """The cell ``text[a:b]`` without the spaces around it."""
    words = text[a:b].strip()
    start = a + len(text[a:b]) - len(text[a:b].lstrip())
    return (start, start + len(words), words)


def _lines(text: str, start: int = 0) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` of each line of ``text`` from the line at ``start`` on, as
    they are asked for (a table's block ends early: the rest is never split)."""
    a = text.rfind("\n", 0, start) + 1
    while a <= len(text):
        b = text.find("\n", a)
        b = len(text) if b < 0 else b
        yield a, b
        a = b + 1
