"""Shared by all chunkers: token boundaries -> Chunks with section and page."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence

import numpy as np

from lateseg.types import Chunk, Document, Span

SECTION_KINDS = (
    "clause", "heading", "exhibit", "recital", "signature",
    "module", "class", "function", "method",
)  # fmt: skip


class Pages:
    """The page number at an offset, from a document's ``page`` spans (a label that is
    not a number gives None): what a chunk stores as its first page when it is made, and
    what a hit's last page is looked up with at query time."""

    def __init__(self, pages: Sequence[Span]) -> None:
        ordered = sorted(pages, key=lambda p: p.start)
        self._starts = [p.start for p in ordered]
        self._labels = [int(p.label) if p.label.isdigit() else None for p in ordered]

    def __bool__(self) -> bool:
        return bool(self._starts)

    def at(self, offset: int) -> int | None:
        i = bisect.bisect_right(self._starts, offset) - 1
        return self._labels[i] if i >= 0 else None


class Locator:
    """Finds the page and innermost section (clause path / qualified name) at an offset."""

    def __init__(self, doc: Document) -> None:
        self._pages = Pages(doc.spans("page"))
        self._sections = doc.spans(*SECTION_KINDS)

    def page(self, offset: int) -> int | None:
        return self._pages.at(offset)

    def section(self, offset: int, end: int | None = None) -> str | None:
        """The innermost section holding ``offset``; with ``end``, the innermost one
        holding most of ``[offset, end)``, if that is deeper: a chunk that opens with
        the heading of ``3.18 /tmp`` and goes on with all of ``3.18.1 Purpose`` is cited
        as 3.18.1."""
        best = None
        deepest = None
        stop = offset if end is None else max(offset, end - 1)
        half = 0 if end is None else (end - offset) / 2
        for s in self._sections:  # sorted by start; the last enclosing one is innermost
            if s.start > stop:
                break
            if s.start <= offset < s.end and _narrower(s, best):
                best = s
            held = 0 if end is None else min(s.end, end) - max(s.start, offset)
            if held > half and _narrower(s, deepest):
                deepest = s
        if deepest is not None and (
            best is None or (best.start <= deepest.start and deepest.end <= best.end)
        ):
            best = deepest
        return best.label if best else None


def _narrower(s: Span, than: Span | None) -> bool:
    return than is None or s.end - s.start <= than.end - than.start


def chunks_from_boundaries(
    doc: Document, offsets: np.ndarray, bounds: Sequence[int]
) -> list[Chunk]:
    """Chunks between consecutive token boundaries ``bounds`` (``0 = b0 < … < bk = n``).

    A chunk runs from its first token to just before the next chunk's first token,
    trailing whitespace trimmed, so chunks are disjoint and cover all non-blank text
    (characters no token covers included).
    """
    text = doc.text
    n = offsets.shape[0]
    if n == 0:
        return []
    if bounds[0] != 0 or bounds[-1] != n or any(a >= b for a, b in itertools.pairwise(bounds)):
        raise ValueError(f"bounds must rise strictly from 0 to {n}")
    loc = Locator(doc)
    chunks = []
    first = len(text) - len(text.lstrip())
    last = len(text.rstrip())
    for m in range(len(bounds) - 1):
        start = first if m == 0 else int(offsets[bounds[m], 0])
        end = last if m == len(bounds) - 2 else int(offsets[bounds[m + 1], 0])
        end = start + len(text[start:end].rstrip())
        chunks.append(
            Chunk(doc.id, start, end, text[start:end], loc.section(start, end), loc.page(start))
        )
    return chunks
