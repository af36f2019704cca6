"""Where a hit lies, found at query time from its document: lines, last page, contents.

A chunk row stores its first page and its section. What else a citation needs is read
from the chunk's document, cached per (document, file hash) for the most recently used
documents, so a search reads each of its hits' documents at most once until they change:

* ``line`` / ``line_end``: 1-based lines of the file, for the kinds whose text is the
  file's own line for line (:data:`LINE_KINDS`), by binary search in the newline
  positions (measured: counting newlines in SQL cost 4-20 ms per hit on a 5 MB text);
* ``page_end``: the page of the chunk's last character (its ``page`` is the first);
* ``toc``: whether most of the chunk lies in a table of contents or an index (``toc``
  spans, :mod:`lateseg.ingest.toc`), which search leaves out unless asked;
* ``ocr``: whether the chunk touches a page read by OCR (``ocr`` spans), which its
  citation says.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lateseg.segment.spans import Pages
from lateseg.types import Span

# Document kinds whose text is the file's own, line for line: their hits carry line numbers.
LINE_KINDS = ("code", "text", "markdown")

# {doc_id: (file_hash, kind, text (None unless a LINE_KINDS kind), structure JSON)}
Layouts = Callable[[Sequence[str]], Mapping[str, tuple[str, str, str | None, str]]]


@dataclass(frozen=True)
class _Layout:
    newlines: np.ndarray | None
    pages: Pages
    toc: list[tuple[int, int]]
    ocr: list[tuple[int, int]]

    @classmethod
    def of(cls, text: str | None, structure: str) -> _Layout:
        pages: list[Span] = []
        toc: list[tuple[int, int]] = []
        ocr: list[tuple[int, int]] = []
        try:  # the docstore is read like any file: a damaged structure costs the extras only
            for d in json.loads(structure):
                if d.get("kind") == "page":
                    pages.append(Span.from_dict(d))
                elif d.get("kind") in ("toc", "ocr"):
                    (toc if d["kind"] == "toc" else ocr).append((int(d["start"]), int(d["end"])))
        except (ValueError, TypeError, KeyError, AttributeError):
            pages, toc, ocr = [], [], []
        newlines = _newlines(text) if text is not None else None
        return cls(newlines, Pages(pages), sorted(toc), sorted(ocr))

    def in_toc(self, start: int, end: int) -> bool:
        inside = sum(max(0, min(b, end) - max(a, start)) for a, b in self.toc)
        return inside * 2 > end - start


class ProvenanceCache:
    """``annotate(rows)`` adds ``line``, ``line_end``, ``page_end``, ``toc`` and ``ocr`` to chunk
    rows (which carry ``doc_id``, ``file_hash``, ``kind``, ``start``, ``end``, ``page``)."""

    def __init__(self, layouts: Layouts, documents: int = 64) -> None:
        self._layouts = layouts
        self._size = documents
        self._cache: OrderedDict[tuple[str, str], _Layout] = OrderedDict()
        self._lock = threading.Lock()

    def annotate(self, rows: Sequence[dict[str, Any]], exact_page: bool = False) -> None:
        """Add the fields to ``rows`` in place; ``exact_page``: also set ``page`` to the
        page of the row's first character (a sentence inside a chunk, not the chunk)."""
        wanted = {(r["doc_id"], r["file_hash"]) for r in rows}
        with self._lock:
            missing = [key for key in wanted if key not in self._cache]
        found: dict[tuple[str, str], _Layout] = {}
        if missing:
            for doc_id, (digest, _, text, structure) in self._layouts(
                [d for d, _ in missing]
            ).items():
                found[(doc_id, digest)] = _Layout.of(text, structure)
        with self._lock:
            self._cache.update(found)
            # a key can be missing: the document changed since the rows were read
            table = {key: self._cache.get(key) for key in wanted}
            for key in wanted:
                if key in self._cache:
                    self._cache.move_to_end(key)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        for r in rows:
            layout = table.get((r["doc_id"], r["file_hash"]))
            r["line"] = r["line_end"] = None
            r["page_end"], r["toc"], r["ocr"] = r["page"], False, False
            if layout is None:
                continue
            start, end = r["start"], r["end"]
            if layout.newlines is not None and r["kind"] in LINE_KINDS:
                r["line"], r["line_end"] = _span_lines(layout.newlines, start, end)
            if layout.pages and exact_page:
                r["page"] = layout.pages.at(start) or r["page"]
                r["page_end"] = r["page"]
            if layout.pages and r["page"] is not None:
                last = layout.pages.at(max(start, end - 1))
                r["page_end"] = max(r["page"], last) if last is not None else r["page"]
            r["toc"] = bool(layout.toc) and layout.in_toc(start, end)
            r["ocr"] = any(a < end and start < b for a, b in layout.ocr)


def _span_lines(newlines: np.ndarray, start: int, end: int) -> tuple[int, int]:
    """1-based first and last line of ``[start, end)`` from the text's sorted newline
    positions (the line of its last character, so a span ending in a newline does not
    reach the next line)."""
    first = int(np.searchsorted(newlines, start)) + 1
    return first, int(np.searchsorted(newlines, max(start, end - 1))) + 1


def _newlines(text: str) -> np.ndarray:
    """Sorted character (code point) positions of the newlines of ``text``."""
    points = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32)
    return np.flatnonzero(points == 10).astype(np.int64)
