"""The lists of a passage, which quoted answers may take whole: runs of bulleted or
numbered lines, or definition lists (short terms each followed by its description), with
the sentence that introduces them and each item's name; and lists inside one sentence,
after its colon (:func:`inline_list`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_BULLET = re.compile(r"[ \t]*(?:[-•*–·▪]|\(?(?:[a-z]|[ivx]{1,4}|\d{1,2})[.)])[ \t]+(?=\S)")
_TERM = re.compile(r"[ \t]*([A-Za-z][\w./+-]*(?:[ \t]+[\w./+-]+){0,2})[ \t]*$")
_LABEL_END = re.compile(r"\s*(?::|\s\(|\s[-–—]\s|;|,|\.\s|\.$)")


@dataclass(frozen=True)
class ListBlock:
    """A list in a text: ``start``/``end`` cover its introducing sentence (when one
    ends with ``:`` or speaks of "the following") and its items; ``labels`` are the
    items' names (``required``, ``Severity 1``), offsets in the same text."""

    start: int
    end: int
    labels: tuple[tuple[int, int], ...]


def _lines(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line)))
        pos += len(line) + 1
    return out


def find_lists(text: str) -> list[ListBlock]:
    """The lists of ``text``: runs of two or more bulleted or numbered lines, or of three
    or more short term lines each followed by its description (a definition list)."""
    lines = [(a, b) for a, b in _lines(text)]
    blocks: list[ListBlock] = []
    i = 0
    while i < len(lines):
        items: list[tuple[int, int]] = []
        j = i
        # bulleted / numbered: each item is a line opening with a marker
        continued = False  # the line before is part of an item: a wrapped line goes on
        kind = None  # items of one list share their kind of marker
        while j < len(lines):
            a, b = lines[j]
            if not text[a:b].strip():
                j += 1
                continued = False
                continue
            m = _BULLET.match(text, a, b)
            marker = None if m is None else _marker(m.group(0))
            if m is None or (items and marker != kind):
                if m is None and items and continued:
                    j += 1
                    continue
                break
            kind, continued = marker, True
            cut = _LABEL_END.search(text, m.end(), b)
            end = cut.start() if cut else b
            words = text[m.end() : end].split()
            if len(words) > 8:
                end = m.end() + len(" ".join(words[:8]))
            items.append((m.end(), end))
            j += 1
        if len(items) < 2:
            items, j = _definition_list(text, lines, i)
        if len(items) >= 2:
            start = _introducer(text, lines, i) if items else lines[i][0]
            blocks.append(ListBlock(start, lines[j - 1][1], tuple(items)))
            i = j
        else:
            i += 1
    return blocks


def _marker(marker: str) -> str:
    """The kind of a list marker: ``"bullet"`` (``-``, ``•``), ``"letter"`` (``(a)``,
    ``a.``), ``"roman"`` (``(iv)``) or ``"number"`` (``1.``, ``(2)``)."""
    m = marker.strip().strip("().")
    if not m or not m.isalnum():
        return "bullet"
    if m.isdigit():
        return "number"
    return "roman" if set(m) <= set("ivx") and len(m) > 1 else "letter"


def _definition_list(
    text: str, lines: list[tuple[int, int]], i: int
) -> tuple[list[tuple[int, int]], int]:
    """Term lines (one to three words, no end punctuation) each followed by a longer
    description line: the terms, and the index of the line after the list."""
    items: list[tuple[int, int]] = []
    j = i
    while j + 1 < len(lines):
        a, b = lines[j]
        m = _TERM.fullmatch(text, a, b)
        na, nb = lines[j + 1]
        described = nb - na > 40 and text[na:nb].strip()[:1].isupper()
        if not (m and described and not text[a:b].strip().endswith((".", ":", ","))):
            if (items and not text[a:b].strip()) or (items and not m):
                # the last description runs on until the next term or a blank line
                j += 1
                if j < len(lines) and _TERM.fullmatch(text, *lines[j]) is None:
                    continue
                continue
            break
        items.append(m.span(1))
        j += 2
        while (
            j < len(lines)
            and text[lines[j][0] : lines[j][1]].strip()
            and not (
                _TERM.fullmatch(text, *lines[j])
                and j + 1 < len(lines)
                and lines[j + 1][1] - lines[j + 1][0] > 40
            )
        ):
            j += 1
    return (items if len(items) >= 3 else []), max(j, i + 1)


def _introducer(text: str, lines: list[tuple[int, int]], i: int) -> int:
    """The start of the sentence introducing the list that begins at line ``i`` (one
    ending with ``:`` or speaking of "the following"), else the list's own start."""
    k = i - 1
    while k >= 0 and not text[lines[k][0] : lines[k][1]].strip():
        k -= 1
    if k < 0:
        return lines[i][0]
    a, b = lines[k]
    line = text[a:b].strip()
    if line.endswith(":") or re.search(r"\bfollowing\b", line, re.I):
        # back to the sentence's start: the line after a blank line or a sentence end
        while (
            k > 0
            and text[lines[k - 1][0] : lines[k - 1][1]].strip()
            and not text[lines[k - 1][0] : lines[k - 1][1]].rstrip().endswith((".", ":"))
        ):
            k -= 1
        return (
            lines[k][0]
            + len(text[lines[k][0] : lines[k][1]])
            - len(text[lines[k][0] : lines[k][1]].lstrip())
        )
    return lines[i][0]


# the items after a sentence's colon: "…: shareable vs. unshareable and variable vs. static"
# (a comma before a digit is a thousands separator: "$5,000")
_INLINE_SEP = re.compile(
    r"\s*;\s*(?:(?:and|or)\s+)?|,(?!\d)\s*(?:(?:and/or|and|or)\s+)?|\s+(?:and/or|and|or)\s+"
)
#: An item of an inline list has at most this many words (else the colon opens a clause).
INLINE_WORDS = 6


def inline_list(text: str, start: int, end: int) -> ListBlock | None:
    """The list that sentence ``text[start:end]`` states after its colon ("two
    distinctions among files: shareable vs. unshareable and variable vs. static"): two or
    more items of at most :data:`INLINE_WORDS` words, separated by commas, semicolons,
    "and" or "or"; None when it states none."""
    colon = text.find(":", start, end)
    if colon < 0 or text[colon + 1 : colon + 2] not in (" ", "\n", "\t"):
        return None  # no colon, or one inside a value ("10:30", "https:")
    stop = len(text[:end].rstrip().rstrip(".;").rstrip())
    items: list[tuple[int, int]] = []
    pos = colon + 1
    for m in [*_INLINE_SEP.finditer(text, pos, stop), None]:
        a, b = pos, m.start() if m is not None else stop
        piece = text[a:b]
        a += len(piece) - len(piece.lstrip())
        b -= len(piece) - len(piece.rstrip())
        if b <= a or len(text[a:b].split()) > INLINE_WORDS:
            return None
        items.append((a, b))
        if m is not None:
            pos = m.end()
    return ListBlock(start, end, tuple(items)) if len(items) >= 2 else None
