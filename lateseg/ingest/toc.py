"""Front matter and back matter that only point at the text: tables of contents, lists
of figures and tables, and indexes.

A table of contents repeats every heading of a document with a page number, so a clause
parser that reads it takes its last entry for a clause running to the end of the text
(the Debian Policy Manual's ``22.68 Version 2.1.0 . . . 179`` covered 92 % of it), and
retrieval quotes its lines as answers. :func:`toc_spans` finds these regions from the
text alone (so PDFs, text and Markdown are read alike) and returns them as ``toc`` spans;
the clause parser skips their lines, and search leaves chunks inside them out unless
asked (``include_toc``).

A line is an *entry* when it ends in a page reference:

* with dot leaders: ``1.1 Scope . . . . . 3``, ``Purpose ........ 12`` (or a leader run
  alone, where a long title wrapped);
* numbered: ``3 Binary packages 13``, ``Chapter 4 Fees 21``, ``A.2 Forms xii``;
* titled, only inside a region the other two started: ``Index 183``.

A region is a run of entries with at most :data:`MAX_WRAPPED` other lines in a row
between them (wrapped titles); it counts when it has :data:`MIN_LEADERS` leader entries,
or :data:`MIN_NUMBERED` numbered ones whose page numbers mostly rise (a numbered list of
amounts does not). A ``Contents`` / ``List of Figures`` heading just above joins it. An
index is an ``Index`` heading followed by ``term, 12, 40`` lines. Every pattern looks
at a bounded tail of a line, so the cost is linear in the text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from lateseg.types import Span

TAIL = 200  # characters at a line's end that the entry patterns read
MAX_WRAPPED = 2
MIN_LEADERS = 3
MIN_NUMBERED = 4
RISING_SHARE = 0.8
MIN_INDEX_ENTRIES = 3

_PAGE = r"(\d{1,4}|[ivxlcdm]{1,7})"
_LEADER = re.compile(r"(?:[.·…][ \t]?){4,}[ \t]*" + _PAGE + r"?[ \t]*$")
_NUMBERED = re.compile(
    r"^(?:(?:chapter|section|part|appendix|annex|schedule)[ \t]+)?"
    r"(?:\d{1,3}(?:\.\d{1,3})*\.?|[A-Z](?:\.\d{1,3})*\.|[IVXLC]{1,6}\.)[ \t]+"
    r"\S.{0,160}?[ \t]" + _PAGE + r"$",
    re.IGNORECASE,
)
_TITLED = re.compile(r"^[A-Z][^.!?:;]{0,100}?[ \t]" + _PAGE + r"$")
_HEADER = re.compile(
    r"^(?:table[ \t]+of[ \t]+contents|contents|list[ \t]+of[ \t]+"
    r"(?:figures|tables|illustrations|exhibits|schedules))$",
    re.IGNORECASE,
)
_INDEX_HEADER = re.compile(r"^(?:general[ \t]+|subject[ \t]+|alphabetical[ \t]+)?index$", re.I)
_INDEX_ENTRY = re.compile(r"^.{1,100}?,[ \t]*\d{1,4}(?:[ \t]*[,–-][ \t]*\d{1,4})*$")
_ENTRY_NUMBER = re.compile(r"^(?:chapter[ \t]+)?(\d{1,3}(?:\.\d{1,3})*)\.?[ \t]+(\S.*)$", re.I)
_ENTRY_PAGE = re.compile(r"(?:[ \t]*(?:[.·…][ \t]?){2,})?[ \t]+" + _PAGE + r"[ \t]*$")
_LEADER_ONLY = re.compile(r"(?:[.·…][ \t]?){4,}[ \t]*$")


@dataclass(slots=True)
class _Line:
    start: int
    end: int
    text: str  # stripped; at most TAIL characters from the end when the line is longer


def _lines(text: str) -> Iterator[_Line]:
    pos, n = 0, len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        piece = text[max(pos, end - TAIL) : end].strip()
        if piece:
            yield _Line(pos, end, piece)
        pos = end + 1


def _page(m: re.Match[str]) -> int | None:
    value = m.group(m.lastindex or 0) if m.lastindex else None
    return int(value) if value and value.isdigit() else None


def _entry(line: _Line) -> tuple[str, int | None] | None:
    """(``leader`` | ``numbered`` | ``titled``, page number) for an entry line."""
    s = line.text
    m = _LEADER.search(s)
    if m:
        return "leader", _page(m)
    m = _NUMBERED.match(s)
    if m and line.end - line.start <= TAIL:
        return "numbered", _page(m)
    m = _TITLED.match(s)
    if m and line.end - line.start <= TAIL:
        return "titled", _page(m)
    return None


def _rising(pages: list[int]) -> bool:
    steps = [b >= a for a, b in itertools.pairwise(pages)]
    return bool(steps) and sum(steps) >= RISING_SHARE * len(steps)


def _accept(entries: list[tuple[_Line, str, int | None]]) -> bool:
    kinds = [k for _, k, _ in entries]
    if kinds.count("leader") >= MIN_LEADERS:
        return True
    numbered = [p for _, k, p in entries if k == "numbered" and p is not None]
    return len(numbered) >= MIN_NUMBERED and _rising(numbered)


def _contents(lines: list[_Line]) -> list[tuple[int, int]]:
    """Line-index ranges [first, last] of table-of-contents regions."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        first = _entry(lines[i])
        if first is None or first[0] == "titled":
            i += 1
            continue
        entries = [(lines[i], *first)]
        last, j, wrapped = i, i + 1, 0
        while j < len(lines) and wrapped <= MAX_WRAPPED:
            e = _entry(lines[j])
            if e is None:
                wrapped += 1
            else:
                entries.append((lines[j], *e))
                last, wrapped = j, 0
            j += 1
        if _accept(entries):
            start = i
            for back in range(i - 1, max(i - 4, -1), -1):
                if _HEADER.match(lines[back].text):
                    start = back
                    break
            out.append((start, last))
        i = last + 1
    return out


def _index(lines: list[_Line], taken: set[int]) -> list[tuple[int, int]]:
    """Line-index ranges of back-of-book indexes: a heading, then entries and terms, up
    to the first prose line. The walk goes on from that line, so each line is read once
    (a heading inside an index joins it)."""
    out = []
    i = 0
    while i < len(lines):
        if i in taken or not _INDEX_HEADER.match(lines[i].text):
            i += 1
            continue
        entries, last, j = 0, i, i + 1
        while j < len(lines):
            s = lines[j].text
            if _INDEX_ENTRY.match(s) and lines[j].end - lines[j].start <= TAIL:
                entries, last = entries + 1, j
            elif len(s) > 80 or (s.endswith(".") and len(s) > 40):
                break  # prose: the index ended
            j += 1
        if entries >= MIN_INDEX_ENTRIES:
            out.append((i, last))
        i = j
    return out


def toc_spans(text: str) -> list[Span]:
    """``toc`` spans (labels ``contents`` or ``index``) over the tables of contents,
    lists of figures or tables, and indexes of ``text`` (see the module docstring)."""
    lines = list(_lines(text))
    contents = _contents(lines)
    spans = [Span(lines[a].start, lines[b].end, "toc", "contents") for a, b in contents]
    taken = {k for a, b in contents for k in range(a, b + 1)}
    spans += [Span(lines[a].start, lines[b].end, "toc", "index") for a, b in _index(lines, taken)]
    return sorted(spans, key=lambda s: s.start)


def toc_titles(text: str, spans: list[Span]) -> dict[str, str]:
    """Number -> title of the numbered entries of the ``contents`` spans (leaders and
    page numbers taken off, wrapped entries joined, whitespace collapsed):
    ``{"5.15": "/var/tmp : Temporary files preserved between system reboots"}``. The
    clause parser uses them to confirm body headings, never to name them."""
    out: dict[str, str] = {}
    for span in spans:
        if span.label != "contents":
            continue
        number: str | None = None
        parts: list[str] = []
        for line in _lines(text[span.start : span.end]):
            if line.end - line.start > TAIL:
                number = None
                continue
            m = _ENTRY_NUMBER.match(line.text)
            if m:
                number, parts = m.group(1), [m.group(2)]
            elif number is not None:
                parts.append(line.text)
            else:
                continue
            if _entry(line) is not None:
                title = " ".join(" ".join(parts).split())
                title = _LEADER_ONLY.sub("", _ENTRY_PAGE.sub("", title)).strip()
                if title and number not in out:
                    out[number] = title
                number = None
    return out
