"""The answer in a table row: the cell of the column the question asks about.

Ingest writes each table row as one line whose cells carry their headers
(:mod:`lateseg.ingest.tables`): ``Sub-processor: Pelican Relay Mail Ltd. · Location: Cork,
Ireland · Processing: Delivery of marketing e-mails``. A question about a table names a
row by some of its cells ("… sends the marketing e-mails") and asks for a column
("Which sub-processor …"). :func:`table_cell` finds the row the question names and, in
it, the cell of the asked column: the one whose header the question says (right after
its question word, best: "which sub-processor", "what is the monthly fee", "how many
included users"; a place for "where"), leaving out the cells the question states itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from lateseg.answer.question import Asked, content_words
from lateseg.text.boundaries import CELL_SEPARATOR
from lateseg.text.words import stem

_PLACE_HEADERS = ("location", "place", "city", "country", "address", "jurisdiction", "site")


def _stems(text: str) -> set[str]:
    return _prefixes(content_words(text))


def _prefixes(words: Iterable[str]) -> set[str]:
    """The first five letters of each word's stem: how a header's words meet the
    question's."""
    return {stem(w)[:5] for w in words}


def row_cells(line: str, at: int = 0) -> list[tuple[str, int, int]]:
    """``(header, start, end)`` of each ``Header: value`` cell of a table row ``line``
    (offsets from ``at``), or [] when the line is not such a row (two cells or more)."""
    cells = []
    pos = at
    for piece in line.split(CELL_SEPARATOR):
        header, colon, value = piece.partition(": ")
        if colon and 0 < len(header) <= 60 and value.strip():
            start = pos + len(header) + len(colon)
            cells.append((header.strip(), start, start + len(value.rstrip())))
        pos += len(piece) + len(CELL_SEPARATOR)
    return cells if len(cells) >= 2 else []


def _table_rows(text: str) -> Iterator[list[tuple[str, int, int]]]:
    """The :func:`row_cells` of each line of ``text`` that is a table row (offsets in
    ``text``)."""
    pos = 0
    for line in text.split("\n"):
        cells = row_cells(line, pos)
        pos += len(line) + 1
        if cells:
            yield cells


def table_cell(asked: Asked, text: str) -> tuple[int, int] | None:
    """The cell of ``text`` (one or more table rows) that answers ``asked``, or None when
    ``text`` holds no table row or the question names none of its columns."""
    question = asked.question
    q_stems = _prefixes(asked.words)
    where = bool(re.search(r"\bwhere\b", question, re.IGNORECASE))
    best: tuple[float, int, int] | None = None
    for cells in _table_rows(text):
        named = [_named(text[a:b], question, q_stems) for _, a, b in cells]
        row_score = sum(named)
        for (header, a, b), is_named in zip(cells, named, strict=True):
            score = _header_score(header, q_stems, asked.asks_by, where)
            # a cell the question states is not its answer, unless its column is asked
            # for in full right after the question word (a score of 2: "which
            # directory holds the files of the boot loader" states "boot" too)
            if score <= 0 or (is_named and score < 2.0):
                continue
            key = (row_score + score, a, b)
            if best is None or key[0] > best[0]:
                best = key
    return None if best is None else (best[1], best[2])


def other_cell(asked: Asked, text: str) -> tuple[int, int] | None:
    """In a row of two cells whose one the question states ("what belongs in the boot
    directory" over ``Directory: boot · Description: Static files of the boot loader``),
    the other cell: a key and its value. None when no row is such, or when the question
    asks for a value of a kind (a number, a date): then only a typed phrase answers."""
    if asked.quantity:
        return None
    question = asked.question
    q_stems = _prefixes(asked.words)
    for cells in _table_rows(text):
        if len(cells) != 2:
            continue
        named = [_named(text[a:b], question, q_stems) for _, a, b in cells]
        if named.count(True) == 1:
            _, a, b = cells[named.index(False)]
            return a, b
    return None


def in_a_label(text: str, a: int, b: int) -> bool:
    """Whether ``[a, b)`` of ``text`` lies outside every cell value of the table rows it
    holds: a column's header, not an answer."""
    pos = 0
    for line in text.split("\n"):
        end = pos + len(line)
        if pos <= a < end:
            cells = row_cells(line, pos)
            return bool(cells) and not any(s <= a and b <= e for _, s, e in cells)
        pos = end + 1
    return False


def _named(value: str, question: str, q_stems: set[str]) -> bool:
    """Whether the question states this cell's value (most of its content words)."""
    if value.lower() in question.lower():
        return True
    words = _stems(value)
    return bool(words) and len(words & q_stems) * 2 > len(words)


def _header_score(header: str, q_stems: set[str], asks_by: Sequence[str], where: bool) -> float:
    """How plainly the question asks for this column: its header's words in the
    question (``q_stems``), more when they follow the question word (``asks_by``:
    :attr:`Asked.asks_by <lateseg.answer.question.Asked.asks_by>`); a place column
    for "where"."""
    words = _stems(header)
    if not words:
        return 0.0
    shared = len(words & q_stems) / len(words)
    score = shared if shared >= 0.5 else 0.0
    if score:
        first = stem(content_words(header)[0])[:5]
        # "which location is the sub-processor": location, not the other
        if any(stem(w)[:5] == first for w in asks_by):
            score += 1.0
    if where and any(p in header.lower() for p in _PLACE_HEADERS):
        score += 1.5
    return score


def names_a_cell(asked: Asked, text: str) -> bool:
    """Whether ``text`` is a table row with a cell the question states word for word and
    another column the question asks for by its header ("which role has an hourly rate
    of $120": the row whose rate is $120, asked for its role). A row whose key alone the
    question says ("what is the /dev directory for" over ``Directory: dev · Description:
    Device files``) is not singled out: prose may answer that as well."""
    lowered = asked.question.lower()
    cells = row_cells(text)
    stated = [b - a >= 3 and text[a:b].lower() in lowered for _, a, b in cells]
    if not any(stated):
        return False
    q_stems = _prefixes(asked.words)
    return any(
        not said and _stems(header) and _stems(header) <= q_stems
        for (header, _, _), said in zip(cells, stated, strict=True)
    )
