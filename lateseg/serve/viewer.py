"""Where a span of a PDF document's text lies on its pages, and the pages as images.

:func:`span_rects` turns a span ``[start, end)`` of a document's text into rectangles on
its pages: the line boxes kept at ingest (:class:`~lateseg.types.LineBox`) that the span
covers, cut at the span's first and last characters with the per-character boxes of the
page's own text (PyMuPDF ``rawdict``), so a highlight starts and stops exactly there.
A document indexed before line boxes were kept is located per line by searching the
span's text on its pages (``method="search"``), and says so.

:class:`PdfPages` opens only the file the index holds: the document's source path, a
regular file reached without symbolic links, whose SHA-256 is the one recorded at ingest.
Pages are rendered to PNG once per (document, page, zoom) and kept in a bounded cache.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lateseg.errors import LatesegError
from lateseg.segment.spans import Pages
from lateseg.serve.limits import DEFAULT_ZOOM, MAX_PAGE_SIDE, MAX_ZOOM, MIN_ZOOM
from lateseg.types import Document, LineBox

MAX_PDF_BYTES = 512 * 1024 * 1024


class NotServable(LatesegError):
    """The document's file cannot be shown (missing, changed since ingest, not a plain
    file): the message says which."""


@dataclass(frozen=True)
class Rect:
    """A rectangle on page ``page`` (1-based), in PDF points of the page as displayed
    (rotation applied; origin top left)."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float

    def to_dict(self) -> dict[str, float]:
        return {"page": self.page, "x0": self.x0, "y0": self.y0, "x1": self.x1, "y1": self.y1}


def _flags() -> int:
    """The ingest's text flags (:mod:`lateseg.ingest.pdf.reader`), so characters line up."""
    import pymupdf

    return int(pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP)


def _squash(text: str) -> str:
    """Non-space characters, with the hyphen forms the ingest normalises made plain."""
    return "".join(text.split()).replace("\u00ad", "").replace("\u2010", "-")


def span_pages(doc: Document, start: int, end: int) -> list[int]:
    """The pages (1-based) that ``[start, end)`` of ``doc`` lies on."""
    if doc.lines:
        return sorted({b.page for b in doc.lines if b.start < end and b.end > start})
    pages = Pages(doc.spans("page"))
    first, last = pages.at(start), pages.at(max(start, end - 1))
    if first is None:
        return []
    return list(range(first, (last or first) + 1))


class PdfPages:
    """The pages of indexed PDFs: rectangles for spans and PNG renders, from the files
    the index records (checked by hash), one open file and one render at a time."""

    def __init__(self, file_hash: Any, cache_bytes: int = 64 * 1024 * 1024) -> None:
        self._file_hash = file_hash  # source -> recorded SHA-256 (or None)
        self._lock = threading.Lock()
        self._checked: dict[str, tuple[int, int, str]] = {}  # source -> (size, mtime, hash)
        self._open: OrderedDict[str, Any] = OrderedDict()
        self._chars: OrderedDict[tuple[str, int], list[tuple[str, Any]]] = OrderedDict()
        self._png: OrderedDict[tuple[str, int, float], bytes] = OrderedDict()
        self._png_bytes = 0
        self._cache_bytes = cache_bytes

    # -- files --------------------------------------------------------------------------

    def path(self, doc: Document) -> Path:
        """The document's file, if it is the one the index holds; else NotServable."""
        return self._verified(doc)[0]

    def _plain_file(self, doc: Document) -> tuple[Path, os.stat_result]:
        path = Path(doc.source)
        if not path.is_absolute() or os.path.realpath(path) != str(path):
            raise NotServable("its file is not reached by a plain absolute path (a link?)")
        try:
            st = path.stat()
        except OSError:
            raise NotServable(f"its file {path.name!r} is no longer there") from None
        if not path.is_file() or st.st_size > MAX_PDF_BYTES:
            raise NotServable(f"{path.name!r} is not a regular file of a size lateseg serves")
        return path, st

    def _verified(self, doc: Document, data: list[bytes] | None = None) -> tuple[Path, str]:
        """The document's file and its SHA-256, which must be the one recorded at ingest
        (hashed again when its size or time changed). The caches are keyed by that hash,
        so a file re-ingested with other content is never read from an earlier open or
        render. ``data``: receives the bytes when they were read."""
        path, st = self._plain_file(doc)
        want = self._file_hash(doc.source)
        seen = self._checked.get(doc.source)
        if seen is None or seen[:2] != (st.st_size, st.st_mtime_ns) or seen[2] != want:
            raw = path.read_bytes()
            if hashlib.sha256(raw).hexdigest() != want:
                raise NotServable(f"{path.name!r} changed since it was indexed; ingest it again")
            self._checked[doc.source] = (st.st_size, st.st_mtime_ns, str(want))
            if data is not None:
                data.append(raw)
        return path, self._checked[doc.source][2]

    def _pdf(self, doc: Document) -> Any:
        import pymupdf

        read: list[bytes] = []
        path, digest = self._verified(doc, read)
        if digest in self._open:
            self._open.move_to_end(digest)
            return self._open[digest]
        # open the bytes that were hashed (read them now if they were checked before)
        raw = read[0] if read else path.read_bytes()
        if not read and hashlib.sha256(raw).hexdigest() != digest:
            raise NotServable(f"{path.name!r} changed since it was indexed; ingest it again")
        try:
            pdf = pymupdf.open(stream=raw, filetype=_filetype(doc, raw))
        except Exception as e:
            raise NotServable(f"{path.name!r} cannot be opened: {e}") from None
        self._open[digest] = pdf
        while len(self._open) > 8:
            self._open.popitem(last=False)[1].close()
        return pdf

    def page_size(self, doc: Document, number: int) -> tuple[float, float]:
        """Width and height (points) of page ``number`` as displayed."""
        with self._lock:
            page = self._page(doc, number)
            return float(page.rect.width), float(page.rect.height)

    def _page(self, doc: Document, number: int) -> Any:
        pdf = self._pdf(doc)
        if not 1 <= number <= pdf.page_count:
            raise NotServable(f"page {number} is outside 1..{pdf.page_count}")
        return pdf.load_page(number - 1)

    # -- spans --------------------------------------------------------------------------

    def rects(self, doc: Document, start: int, end: int) -> tuple[list[Rect], str]:
        """Rectangles covering ``[start, end)`` of ``doc`` and how they were found:
        ``"geometry"`` (line boxes kept at ingest, cut at the span's ends per character)
        or ``"search"`` (an index without line boxes: each of the span's lines searched
        on its pages)."""
        start, end = max(0, start), min(len(doc.text), end)
        if end <= start:
            return [], "geometry" if doc.lines else "search"
        with self._lock:
            if doc.lines:
                return self._from_geometry(doc, start, end), "geometry"
            return self._from_search(doc, start, end), "search"

    def _from_geometry(self, doc: Document, start: int, end: int) -> list[Rect]:
        out: list[Rect] = []
        pages: dict[int, Any] = {}  # loaded once per page of the span
        for box in doc.lines:
            if box.end <= start or box.start >= end:
                continue
            if box.page not in pages:
                pages[box.page] = self._page(doc, box.page)
            x0, x1 = box.x0, box.x1
            if box.start < start or box.end > end:
                x0, x1 = self._cut(doc, box, max(start, box.start), min(end, box.end))
            if x1 > x0:
                out.append(_displayed(pages[box.page], box.page, (x0, box.y0, x1, box.y1)))
        return out

    def _cut(self, doc: Document, box: LineBox, a: int, b: int) -> tuple[float, float]:
        """The left and right edges of characters ``[a, b)`` inside ``box``: their own
        boxes where the box's text lines up with the page's characters, else in
        proportion along the box."""
        segment = doc.text[box.start : box.end]
        k0 = len(_squash(segment[: a - box.start]))
        k1 = len(_squash(segment[: b - box.start]))
        needle = _squash(segment)
        if k1 <= k0:
            return 0.0, 0.0
        chars = [c for c in self._page_chars(doc, box.page) if _inside(c[1], box)]
        hay = "".join(c for c, _ in chars)
        at = hay.find(needle) if needle else -1
        if at >= 0:
            return float(chars[at + k0][1][0]), float(chars[at + k1 - 1][1][2])
        width = box.x1 - box.x0
        n = max(1, len(needle))
        return box.x0 + width * k0 / n, box.x0 + width * k1 / n

    def _page_chars(self, doc: Document, number: int) -> list[tuple[str, Any]]:
        """The page's non-space characters with their boxes, in content order."""
        key = (self._verified(doc)[1], number)
        if key in self._chars:
            self._chars.move_to_end(key)
            return self._chars[key]
        raw = self._page(doc, number).get_text("rawdict", flags=_flags())
        chars = [
            (ch["c"].replace("\u00ad", "").replace("\u2010", "-"), ch["bbox"])
            for block in raw["blocks"]
            for line in block.get("lines", ())
            for span in line["spans"]
            for ch in span["chars"]
            if ch["c"].strip() and ch["c"] != "\u00ad"
        ]
        self._chars[key] = chars
        while len(self._chars) > 32:
            self._chars.popitem(last=False)
        return chars

    def _from_search(self, doc: Document, start: int, end: int) -> list[Rect]:
        out: list[Rect] = []
        pieces = [p.strip() for p in doc.text[start:end].splitlines() if p.strip()]
        for number in span_pages(doc, start, end):
            page = self._page(doc, number)
            for piece in pieces:
                for r in page.search_for(piece[:200]):
                    out.append(Rect(number, float(r.x0), float(r.y0), float(r.x1), float(r.y1)))
        return out

    # -- images -------------------------------------------------------------------------

    def png(
        self, doc: Document, number: int, zoom: float = DEFAULT_ZOOM, rects: Sequence[Rect] = ()
    ) -> bytes:
        """Page ``number`` rendered at ``zoom``, with ``rects`` (those on this page)
        drawn over it in translucent yellow. A page larger than :data:`MAX_PAGE_SIDE`
        pixels a side at that zoom is drawn at the zoom that fits (a 3000-point page
        costs no more than a letter page at zoom 4); the highlight is drawn at the same
        zoom, under the same lock. The plain render is cached."""
        if not MIN_ZOOM <= zoom <= MAX_ZOOM:
            raise NotServable(f"zoom {zoom} is outside {MIN_ZOOM}..{MAX_ZOOM}")
        with self._lock:
            page = self._page(doc, number)
            side = max(float(page.rect.width), float(page.rect.height), 1.0)
            zoom = min(zoom, MAX_PAGE_SIDE / side)
            key = (self._verified(doc)[1], number, zoom)
            data = self._png.get(key)
            if data is None:
                import pymupdf

                pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom))
                data = pix.tobytes("png")
                self._remember(key, data)
            else:
                self._png.move_to_end(key)
            mine = [r for r in rects if r.page == number]
            return _overlay(data, mine, zoom) if mine else data

    def _remember(self, key: tuple[str, int, float], data: bytes) -> None:
        self._png[key] = data
        self._png_bytes += len(data)
        while self._png_bytes > self._cache_bytes and len(self._png) > 1:
            self._png_bytes -= len(self._png.popitem(last=False)[1])


def _filetype(doc: Document, raw: bytes) -> str:
    """How PyMuPDF opens the document's file: a PDF, or an image read by OCR (PNG, JPEG,
    TIFF: pages in the same coordinates as at ingest, which decided the same way)."""
    if doc.kind == "image":
        from lateseg.ingest.images import image_filetype

        return image_filetype(raw, doc.source)
    return "pdf"


def _displayed(page: Any, number: int, box: tuple[float, ...]) -> Rect:
    """A box in unrotated page coordinates (as text comes) on the displayed page."""
    import pymupdf

    r = pymupdf.Rect(*box)
    if page.rotation:
        r = r * page.rotation_matrix
    return Rect(number, float(r.x0), float(r.y0), float(r.x1), float(r.y1))


def _inside(bbox: Any, box: LineBox) -> bool:
    cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
    return box.x0 - 1 <= cx <= box.x1 + 1 and box.y0 - 1 <= cy <= box.y1 + 1


def _overlay(png: bytes, rects: Sequence[Rect], zoom: float) -> bytes:
    from PIL import Image, ImageDraw

    base = Image.open(io.BytesIO(png)).convert("RGBA")
    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for r in rects:
        draw.rectangle(
            [r.x0 * zoom, r.y0 * zoom, r.x1 * zoom, r.y1 * zoom], fill=(255, 214, 0, 110)
        )
    out = io.BytesIO()
    Image.alpha_composite(base, layer).convert("RGB").save(out, format="PNG")
    return out.getvalue()
