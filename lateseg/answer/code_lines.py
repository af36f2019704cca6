"""Where a code fact lies in its passage (:class:`Fact`), and the line arithmetic the
patterns of :mod:`lateseg.answer.code_facts` share: a line without its indentation, the
lines around a span, the ``def`` or ``class`` a line is in, a signature's end; and the
exit statuses the docs state in tables (:func:`exit_rows`). Every function here is
bounded: no scan runs past its text or its limit.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from lateseg.answer.cells import row_cells
from lateseg.text.words import identifier_words
from lateseg.types import Hit

DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w{1,120})[ \t]*\(", re.MULTILINE)
CLASS = re.compile(r"^[ \t]*class[ \t]+(\w{1,120})\b", re.MULTILINE)

# how far around a fact its lines are read for scoring
AROUND = 3
DOC_CHARS = 400


@dataclass(frozen=True)
class Fact:
    """A fact of ``kind`` in passage ``passage``: the lines ``start``..``end`` that state
    it (offsets in the passage's text), its ``value`` (the phrase's offsets there), the
    ``name`` it is the value of (a parameter, a variable, a function) and the ``context``
    it is scored by."""

    passage: int
    kind: str
    start: int
    end: int
    value: tuple[int, int]
    name: str
    context: str


def line_at(text: str, at: int) -> tuple[int, int]:
    """The line of ``text`` around offset ``at``, without its indentation."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    while start < end and text[start] in " \t":
        start += 1
    return start, len(text[:end].rstrip())


def around(text: str, start: int, end: int, lines: int = AROUND) -> str:
    """``text[start:end]`` with ``lines`` lines either side."""
    a = start
    for _ in range(lines):
        a = max(text.rfind("\n", 0, max(a - 1, 0)), 0)
    b = end
    for _ in range(lines):
        nxt = text.find("\n", b + 1)
        b = len(text) if nxt < 0 else nxt
    return text[a:b]


@functools.lru_cache(maxsize=16)
def _definitions(text: str) -> tuple[list[int], list[str], list[bool]]:
    """Where each ``def`` and ``class`` line of ``text`` ends its match, in order, its
    name and whether it is a class: read once per text, so each fact's enclosing name is
    a binary search (a text of thousands of facts costs no quadratic rescans)."""
    found = sorted(
        (m.end(), m.group(1), rx is CLASS) for rx in (DEF, CLASS) for m in rx.finditer(text)
    )
    return [f[0] for f in found], [f[1] for f in found], [f[2] for f in found]


def enclosing_def(text: str, at: int) -> str:
    """The name of the last ``def`` or ``class`` before offset ``at`` ("" for none)."""
    ends, names, _ = _definitions(text)
    k = bisect.bisect_right(ends, at) - 1
    return names[k] if k >= 0 else ""


def exit_class(name: str) -> bool:
    """Whether a class's name says its members are exit statuses (``ExitCode``,
    ``ExitStatus``, ``ReturnCode``; not ``JSONEncoder``, ``Barcode``, ``HTTPStatus``)."""
    words = {w.lower() for w in identifier_words(name)}
    return "exit" in words or ("return" in words and bool(words & {"code", "codes"}))


#: The most characters between a class's line and a member it is asked about.
MEMBER_REACH = 20_000


def member_of(text: str, m: re.Match[str]) -> str:
    """The class whose body holds the indented name of an assignment matched from its
    line's start (group 1: the name): the last ``class`` line above, indented less, with
    no line between them indented as little (the body has not ended); "" for none (or
    one more than :data:`MEMBER_REACH` characters above)."""
    line, at = m.start(), m.start(1)
    ends, names, is_class = _definitions(text)
    k = bisect.bisect_right(ends, at) - 1
    if k < 0 or not is_class[k] or at == line:
        return ""
    head = text.rfind("\n", 0, ends[k]) + 1
    if line - head > MEMBER_REACH:
        return ""
    indent = len(text[head:at]) - len(text[head:at].lstrip(" \t"))
    for row in text[head:line].splitlines()[1:]:
        if row.strip() and len(row) - len(row.lstrip(" \t")) <= indent:
            return ""  # the class's body ended before the name
    return names[k] if at - line > indent else ""


def signature_end(text: str, open_paren: int, limit: int = 2000) -> int:
    """The offset of the ``)`` closing the ``(`` at ``open_paren`` (bounded scan; the
    end of the scanned text when unbalanced)."""
    close = _closing(text, open_paren, limit)
    return min(len(text), open_paren + limit) if close is None else close


def enclosing_call(text: str, at: int, limit: int = 1500) -> str | None:
    """The call that offset ``at`` is an argument of, from its line's start to its
    closing ``)`` (``parser.add_argument(`` … ``env="TWINE_CERT",`` … ``help=…)``): what
    a keyword argument means is said by the call's other arguments, not by the lines
    around it, which are another call's. None where ``at`` is in no call within
    ``limit`` characters (or in a list or a mapping first)."""
    depth = 0
    for i in range(at - 1, max(-1, at - limit - 1), -1):
        c = text[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                if c != "(":
                    return None
                close = _closing(text, i, limit)
                return None if close is None else text[text.rfind("\n", 0, i) + 1 : close + 1]
            depth -= 1
    return None


def _closing(text: str, open_paren: int, limit: int) -> int | None:
    """The offset of the bracket closing the one at ``open_paren`` within ``limit``
    characters, or None where it does not close there."""
    depth = 0
    for i in range(open_paren, min(len(text), open_paren + limit)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return None


def hit_value(hits: Sequence[Hit], f: Fact) -> str:
    """The text of a fact's value."""
    return hits[f.passage].text[f.value[0] : f.value[1]]


# -- exit statuses in the docs' tables --------------------------------------------
# Exit statuses that the docs state in a table, one fact a row (:func:`exit_rows`).
#
# A command's docs often list its exit statuses as a table rather than in a sentence. Two
# forms reach an answer:
#
# * a table as ingest writes it (:mod:`lateseg.ingest.tables`, for Markdown, HTML, DOCX and
#   PDF): a row a line, each cell carrying its header, ``Exit code: 3 · Description: Dead
#   code found``;
# * a reStructuredText ``list-table`` (kept as its source), whose first row is its header
#   (``- - Code`` / ``- Meaning``), then one row a status (``- - ``1``` / ``- Invalid
#   input``).
#
# The status is the cell whose header says so ("Exit code", "Exit status", "Return code");
# in a list-table a header of "Code" or "Status" alone counts too where the words just
# before the table speak of exiting (an "Exit codes" title). Each row whose cell there is a
# number gives a fact: the number is its value, and the row's other cells are what it is
# scored by. Passages are read as text, once, line by line, and only their first
# :data:`MOST_CHARS` characters.

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
    comment above), as facts of ``exit_code``."""
    text = text[:MOST_CHARS]
    return [*_rows(i, text), *_list_tables(i, text)]


def _rows(i: int, text: str) -> list[Fact]:
    """Rows as ingest writes a table (:func:`~lateseg.answer.cells.row_cells`): one line
    a row, each cell ``Header: value``."""
    out: list[Fact] = []
    for a, b in _lines(text):
        cells = row_cells(text[a:b], a)
        said = [f"{head}: {text[start:end].strip()}" for head, start, end in cells]
        for c, (head, start, end) in enumerate(cells):
            value = text[start:end]
            m = _NUMBER.fullmatch(value.strip())
            if m is not None and _HEADER.search(head):
                v0 = start + len(value) - len(value.lstrip())
                span = (v0 + m.start(1), v0 + m.end(1))
                context = " ".join([said[c], *said[:c], *said[c + 1 :]])
                out.append(Fact(i, "exit_code", a, b, span, "exit", context))
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
