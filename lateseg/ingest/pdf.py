"""PDF text extraction with PyMuPDF: reading order, no page furniture, whole words.

``read_pdf`` returns the text of every page, ``page`` spans (label = 1-based page number;
each page's text lies inside its span) and ``table`` spans, and metadata. On the way:

* columns are read one after the other and ruled tables come out as ``a | b | c`` rows
  (:mod:`lateseg.ingest.pdf_layout`);
* running headers, footers and page numbers are dropped (:func:`furniture`): lines in the
  outer rows of a page that are page numbers, that repeat (digits ignored) on many pages,
  or that sit on a baseline where such lines sit on many pages;
* a word split by a hyphen at a line end is rejoined on the first line (:func:`dehyphenate`),
  with the hyphen dropped unless the document says it belongs to the word.

Pages are joined by a blank line, or by a single newline when a sentence runs on.

A page without a usable text layer (a scan, an image, glyph soup) is read by OCR
(:mod:`lateseg.ingest.ocr`) when ``ocr`` allows, page by page, and goes the same way:
its lines keep Tesseract's reading order and each word its box. Image files (PNG, JPEG,
TIFF) are read as documents of such pages (:func:`read_image_layout`).
"""

from __future__ import annotations

import itertools
import logging
import re
import statistics
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lateseg.errors import IngestError
from lateseg.ingest import ocr as ocr_mod
from lateseg.ingest.ocr import (
    MAX_IMAGE_PIXELS,
    OcrUnavailable,
    check_mode,
    unusable_text,
)
from lateseg.ingest.pdf_layout import (
    Frag,
    Line,
    mark_paragraphs,
    outside,
    reading_order,
    rows,
    table_lines,
    text_lines,
)
from lateseg.ingest.tables import row_spans
from lateseg.text.words import WORD
from lateseg.types import LineBox, Span

log = logging.getLogger(__name__)

PAGE_SEPARATOR = "\n\n"
PAGE_RUNS_ON = "\n"

# Page furniture lives in the outermost rows of this share of the page height.
MARGIN_SHARE = 0.15
EDGE_ROWS = 3
# A line repeating on at least this many pages (and FREQUENT_SHARE of them) is furniture.
MIN_REPEAT = 3
FREQUENT_SHARE = 0.1
# A baseline holding furniture on this share of pages makes any edge line on it furniture
# (section names next to page numbers, chapter titles in running heads).
BAND_SHARE = 0.25

_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^(?:page|p\.|pg\.?)?\s*[-–—(\[|]?\s*(?:#|[ivxlcdm]+)\s*[-–—)\]|]?\s*(?:(?:of|/)\s*#)?$"
)
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")
# The last token of a line, ending in a hyphen after a letter: (token before the last
# word part, last word part).
_SPLIT_TAIL = re.compile(r"(\S*?)([^\W\d_]+)-")
# Prefixes that make compounds ("non-exclusive") when the document gives no evidence.
_COMPOUND_PREFIXES = frozenset({"non", "self", "third", "well", "cross", "quasi", "semi", "anti"})


@dataclass
class PageLines:
    """What one page holds: text lines, tables and rotated lines, before cleaning."""

    number: int
    top: float
    bottom: float
    width: float
    lines: list[Line]
    tables: list[Line] = field(default_factory=list)
    rotated: list[Line] = field(default_factory=list)
    #: The OCR's mean word confidence (0-1) when the page was read by OCR, else None.
    ocr: float | None = None

    @property
    def empty(self) -> bool:
        return not (self.lines or self.tables or self.rotated)

    def text(self) -> str:
        return "\n".join(ln.text for ln in (*self.lines, *self.tables, *self.rotated))


def read_pdf(
    path: Path, password: str | None = None, data: bytes | None = None, ocr: str = "auto"
) -> tuple[str, list[Span], dict]:
    """Return the cleaned text of every page, page and table spans, and metadata;
    ``data``: the file's bytes when already read; ``ocr``: ``auto`` (pages without usable
    text), ``off`` or ``force`` (every page).

    Raises :class:`IngestError` for empty, truncated or corrupt files (with PyMuPDF's
    reason), encrypted PDFs without the right password, and PDFs with no text on any
    page once OCR (where allowed and installed) has read them.
    """
    text, spans, meta, _ = read_pdf_layout(path, password, data, ocr)
    return text, spans, meta


def read_pdf_layout(
    path: Path, password: str | None = None, data: bytes | None = None, ocr: str = "auto"
) -> tuple[str, list[Span], dict, list[LineBox]]:
    """:func:`read_pdf` and where each stretch of the text was drawn (line boxes with
    the text offsets they cover, for highlights on the page)."""
    check_mode(ocr)
    doc = _open(Path(path), password, data)
    try:
        pages, unread = _read_pages(doc, ocr, Path(path).name)
        meta: dict[str, Any] = {
            "pages": doc.page_count,
            "title": (doc.metadata or {}).get("title") or None,
        }
    finally:
        doc.close()
    return _finish(pages, unread, meta)


def _read_pages(doc: Any, ocr: str, name: str) -> tuple[list[PageLines], list[tuple[int, str]]]:
    """Every page of ``doc`` read from its text layer, or by OCR where ``ocr`` says; and
    the pages left unread, with the reason (OCR off, not installed, or failed there).

    Pages are rendered here, one at a time, and read by :func:`ocr.workers` Tesseract
    processes at once; at most twice that many rendered pages wait, so memory stays
    bounded whatever the page count."""
    from concurrent.futures import Future, ThreadPoolExecutor

    pages: list[PageLines] = []
    unread: list[tuple[int, str]] = []
    missing: str | None = None  # OCR is not installed: said once, not tried per page
    bar: Any = None  # shown from the first page OCR reads, counting the pages read
    pending: deque[tuple[int, str, Future[ocr_mod.OcrPage]]] = deque()

    def settle(until: int) -> None:
        nonlocal missing
        while len(pending) > until:
            at, why, future = pending.popleft()
            page = pages[at]
            try:
                pages[at] = _read_by_ocr(page, future.result())
            except IngestError as e:  # OcrUnavailable too: the other pages go on
                _unread(unread, page, why, str(e))
                if isinstance(e, OcrUnavailable):
                    missing = str(e)
            if bar is not None:
                bar.update(1)
            ocr_mod.report_page(name, pages[at].number, doc.page_count)

    n_workers = ocr_mod.workers()
    with ThreadPoolExecutor(n_workers, thread_name_prefix="lateseg-ocr") as pool:
        try:
            for i in range(doc.page_count):
                page, raw = _read_page(doc, i)
                why = "forced" if ocr == "force" else _needs_ocr(raw, page)
                if why is None:
                    pages.append(page)
                    continue
                # until OCR has read it: its text layer (or nothing), kept where OCR cannot
                pages.append(page if not page.empty else _blank(page))
                if ocr == "off" or missing:
                    off = "OCR is off (--ocr auto reads such pages)" if ocr == "off" else missing
                    _unread(unread, page, why, off or "")
                    continue
                try:
                    rendered = ocr_mod.render(raw, page.number)
                except IngestError as e:
                    _unread(unread, page, why, str(e))
                    missing = str(e) if isinstance(e, OcrUnavailable) else missing
                    continue
                pending.append((len(pages) - 1, why, pool.submit(ocr_mod.read, rendered)))
                if bar is None:
                    bar = _ocr_bar(doc.page_count, name)
                settle(2 * n_workers)
            settle(0)
        finally:
            for _, _, future in pending:
                future.cancel()
            if bar is not None:
                bar.close()
    unread.sort()
    return pages, unread


def _unread(unread: list[tuple[int, str]], page: PageLines, why: str, reason: str) -> None:
    """Record that OCR did not read ``page``: unread when it has no text of its own, else
    said once in the log (its text layer, unusable or not, stays the page's text)."""
    if page.empty:
        unread.append((page.number, f"{why}; {reason}"))
    else:
        log.info("page %d: %s; its text layer is kept (%s)", page.number, why, reason)


def _read_by_ocr(page: PageLines, read: ocr_mod.OcrPage) -> PageLines:
    """``page`` (its number and frame) holding what OCR read on it instead."""
    return PageLines(
        page.number, page.top, page.bottom, page.width, read.lines, read.tables,
        ocr=read.confidence,
    )  # fmt: skip


def _needs_ocr(raw: Any, page: PageLines) -> str | None:
    """Why ``page`` (read from PyMuPDF page ``raw``) needs OCR (no text, or a text layer
    that is not the page's text), or None."""
    if page.empty:
        return "no text layer"
    try:
        why = unusable_text(page.text(), raw)
    except Exception:  # a damaged page: its text layer stands
        why = None
    return f"unusable text layer ({why})" if why else None


def _blank(page: PageLines) -> PageLines:
    return PageLines(page.number, page.top, page.bottom, page.width, [])


def _ocr_bar(total: int, name: str) -> Any:
    """A bar counting the pages OCR reads (of at most ``total``), on a terminal; None
    elsewhere. (Ingest's own bar counts files; this one shows where a long scan is.)"""
    import sys

    if total < 2 or not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"pages of {name}", unit="page", leave=False)


def _finish(
    pages: list[PageLines], unread: list[tuple[int, str]], meta: dict[str, Any]
) -> tuple[str, list[Span], dict, list[LineBox]]:
    """Text, spans, metadata and line boxes of pages read: furniture dropped, words
    rejoined, pages assembled; OCR'd pages marked with an ``ocr`` span (label: the
    confidence) and counted in ``meta``."""
    if all(p.empty for p in pages):
        n = len(pages)
        if unread:
            reasons = sorted({r for _, r in unread})
            raise IngestError(f"no text layer (scanned?): {n} pages, no text; {reasons[0]}")
        if any(p.ocr is not None for p in pages):
            raise IngestError(
                f"no text layer (scanned?): {n} pages, and OCR found no words on them "
                "(photos or blank pages?)"
            )
        raise IngestError(f"no text layer (scanned?): {n} pages, no text")
    drop = furniture(pages)
    if not any(
        len(d) < len(p.lines) or p.tables or p.rotated for d, p in zip(drop, pages, strict=True)
    ):
        drop = [set() for _ in pages]  # nothing but "furniture": keep it, it is the text
    ordered = [_ordered(p, drop[i]) for i, p in enumerate(pages)]
    dehyphenate(ordered)
    text, spans, boxes = assemble(ordered)
    meta["furniture_lines"] = sum(len(d) for d in drop)
    meta["tables"] = sum(len(p.tables) for p in pages)
    read = {p.number: p.ocr for p in pages if p.ocr is not None}
    if read:
        meta["ocr_pages"] = sorted(read)
        meta["ocr_confidence"] = round(sum(read.values()) / len(read), 4)
        meta["ocr_engine"] = ocr_mod.engine_name()
        spans += [
            Span(s.start, s.end, "ocr", f"{read[int(s.label)]:.2f}")
            for s in spans
            if s.kind == "page" and int(s.label) in read
        ]
    if unread:
        meta["unread_pages"] = [{"page": n, "reason": r} for n, r in unread]
        log.warning(
            "%d of %d pages not read: %s", len(unread), len(pages),
            "; ".join(f"p. {n}: {r}" for n, r in unread[:3]),
        )  # fmt: skip
    return text, spans, meta, boxes


IMAGE_FILETYPES = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".tif": "tiff", ".tiff": "tiff"}
#: An image file of more frames than this is refused (a longer scan is a PDF's job).
MAX_IMAGE_FRAMES = 500


def read_image_layout(
    path: Path, data: bytes | None = None, ocr: str = "auto"
) -> tuple[str, list[Span], dict, list[LineBox]]:
    """A PNG, JPEG or TIFF file (every frame of a TIFF a page) read by OCR, as
    :func:`read_pdf_layout` returns it. Its size and frames are checked from the file's
    header before anything is decoded: over :data:`~lateseg.ingest.ocr.MAX_IMAGE_PIXELS`
    a frame, or over :data:`MAX_IMAGE_FRAMES` frames, it is refused."""
    check_mode(ocr)
    path = Path(path)
    if ocr == "off":
        raise IngestError("an image has no text layer, and OCR is off (--ocr auto reads it)")
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as e:
            raise IngestError(f"cannot read image: {e}") from None
    filetype = image_filetype(data, path)
    sizes = image_frames(data, filetype)
    import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype=filetype)
    except Exception as e:
        raise IngestError(f"corrupt {filetype.upper()} image, unreadable: {e}") from None
    pages: list[PageLines] = []
    unread: list[tuple[int, str]] = []
    bar = _ocr_bar(len(sizes), path.name)
    try:
        if doc.page_count != len(sizes):
            raise IngestError(
                f"{filetype.upper()} image: {len(sizes)} frames in its header, "
                f"{doc.page_count} readable"
            )
        for i, (w, _) in enumerate(sizes):
            page = doc.load_page(i)
            rect = page.rect
            blank = PageLines(i + 1, rect.y0, rect.y1, rect.width, [])
            try:  # each frame at its own resolution (not scaled from a missing dpi)
                read = ocr_mod.ocr_page(page, i + 1, zoom=w / max(rect.width, 1.0))
                pages.append(_read_by_ocr(blank, read))
            except OcrUnavailable:
                raise
            except IngestError as e:
                unread.append((i + 1, str(e)))
                pages.append(blank)
            if bar is not None:
                bar.update(1)
            ocr_mod.report_page(path.name, i + 1, len(sizes))
        meta: dict[str, Any] = {"pages": doc.page_count, "title": None, "image": filetype}
    except IngestError:
        raise
    except Exception as e:  # damaged frames
        raise IngestError(f"corrupt {filetype.upper()} image: {e}") from None
    finally:
        doc.close()
        if bar is not None:
            bar.close()
    return _finish(pages, unread, meta)


#: Images smaller than this (shorter side, longer side; pixels) are icons and logos, not
#: pages: a walk passes over them.
MIN_PAGE_PIXELS = (300, 500)


def image_skip_reason(path: Path) -> str | None:
    """Why a walk passes over the image file ``path`` (its header unreadable: ``binary``;
    too small to be a page), or None to read it."""
    try:
        with path.open("rb") as f:
            img = _image_file(f)
            w, h = img.size
    except ImportError:
        return None  # the reader says what to install
    except Exception:
        return "binary"  # not an image a reader could open
    if min(w, h) < MIN_PAGE_PIXELS[0] or max(w, h) < MIN_PAGE_PIXELS[1]:
        return f"image too small to be a page ({w} x {h} px)"
    return None


#: Image files by their first bytes: PyMuPDF's file type and Pillow's plugin class.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png", "PngImagePlugin", "PngImageFile"),
    (b"\xff\xd8\xff", "jpeg", "JpegImagePlugin", "JpegImageFile"),
    (b"II*\x00", "tiff", "TiffImagePlugin", "TiffImageFile"),
    (b"MM\x00*", "tiff", "TiffImagePlugin", "TiffImageFile"),
    (b"II+\x00", "tiff", "TiffImagePlugin", "TiffImageFile"),  # BigTIFF
    (b"MM\x00+", "tiff", "TiffImagePlugin", "TiffImageFile"),
)


def image_filetype(data: bytes, path: str | Path) -> str:
    """How PyMuPDF opens an image file: ``png``, ``jpeg`` or ``tiff`` by its first bytes,
    else by its suffix (the reader then says what is wrong with it). Ingest and the page
    viewer open the same bytes the same way."""
    kind = next((kind for magic, kind, _, _ in _MAGIC if data.startswith(magic)), None)
    return kind or IMAGE_FILETYPES.get(Path(path).suffix.lower(), "png")


def _image_file(f: Any) -> Any:
    """The Pillow image of open file ``f`` by its first bytes, its header read and
    nothing decoded. Pillow's plugin class is used directly: ``Image.open`` would refuse
    a large image by its process-wide limit, which lateseg leaves alone and checks its own
    (:data:`~lateseg.ingest.ocr.MAX_IMAGE_PIXELS`) instead. ImportError without Pillow;
    ValueError for anything else."""
    import importlib

    head = f.read(8)
    f.seek(0)
    for magic, _, module, name in _MAGIC:
        if head.startswith(magic):
            plugin = importlib.import_module(f"PIL.{module}")
            return getattr(plugin, name)(f)
    raise ValueError("not a PNG, JPEG or TIFF image")


def image_frames(data: bytes, filetype: str) -> list[tuple[int, int]]:
    """Width and height in pixels of every frame of an image file, from its header(s),
    nothing decoded; IngestError for an empty, truncated or oversized file, or one of more
    than :data:`MAX_IMAGE_FRAMES` frames (counted up to that, never all)."""
    if not data:
        raise IngestError("empty file (0 bytes): not an image")
    import io

    try:
        img = _image_file(io.BytesIO(data))
    except ImportError:
        raise OcrUnavailable("reading images needs Pillow: install lateseg[ocr]") from None
    except Exception as e:  # not an image, a truncated header
        raise IngestError(f"corrupt or truncated {filetype.upper()} image: {e}") from None
    sizes: list[tuple[int, int]] = [img.size]
    try:  # the frames of a TIFF are pages; a PNG or JPEG is one page (an animation's first)
        while filetype == "tiff" and len(sizes) <= MAX_IMAGE_FRAMES:
            try:
                img.seek(len(sizes))
            except EOFError:
                break
            sizes.append(img.size)
    except Exception as e:  # a damaged frame directory
        raise IngestError(
            f"corrupt {filetype.upper()} image: frame {len(sizes) + 1}: {e}"
        ) from None
    if len(sizes) > MAX_IMAGE_FRAMES:
        raise IngestError(
            f"{filetype.upper()} image of more than {MAX_IMAGE_FRAMES} frames; lateseg reads "
            f"at most {MAX_IMAGE_FRAMES} (make a PDF of a longer scan)"
        )
    for n, (w, h) in enumerate(sizes, 1):
        if w * h > MAX_IMAGE_PIXELS:
            where = f"frame {n} is" if len(sizes) > 1 else "it is"
            raise IngestError(
                f"image too large: {where} {w} x {h} pixels ({w * h / 1e6:.0f} MP); lateseg "
                f"reads at most {MAX_IMAGE_PIXELS // 1_000_000} MP a page (scale it down)"
            )
        if w < 1 or h < 1:
            raise IngestError(f"image of {w} x {h} pixels: nothing to read")
    return sizes


def _open(path: Path, password: str | None, data: bytes | None) -> Any:
    """Open ``path`` (its bytes ``data`` when given) as a PDF and unlock it, or raise
    IngestError with the reason."""
    import pymupdf

    if data is None:
        try:
            data = path.read_bytes()
        except OSError as e:  # missing, a folder, no permission
            raise IngestError(f"cannot read PDF: {e}") from None
    size = len(data)
    # No %%EOF in the last 8 KiB: a download or copy that stopped early.
    truncated = b"%%EOF" not in data[-8192:]
    if size == 0:
        raise IngestError("empty file (0 bytes): not a PDF")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as e:  # PyMuPDF raises FileDataError, RuntimeError, ...
        what = (
            "corrupt or truncated PDF (no %%EOF marker at its end)" if truncated else "corrupt PDF"
        )
        raise IngestError(f"{what}, unreadable: {e}") from None
    if truncated and doc.is_repaired:
        doc.close()
        raise IngestError(
            f"truncated PDF: {size} bytes and no %%EOF marker at the end, PyMuPDF could only "
            "repair part of it; download or export the file again"
        )
    if doc.is_repaired:
        log.warning("%s is damaged; PyMuPDF repaired it, text may be incomplete", path)
    if doc.needs_pass and not (password and doc.authenticate(password)):
        doc.close()
        given = "the password given does not open it" if password else "give the password"
        raise IngestError(f"encrypted PDF ({given})")
    return doc


def _read_page(doc: Any, index: int) -> tuple[PageLines, Any]:
    """Lines, tables and rotated lines of page ``index``, in unrotated page coordinates
    (those PyMuPDF gives text in), and the loaded PyMuPDF page (for what OCR needs)."""
    import pymupdf

    # Ligatures expanded, no images; rectangles (rules, frames) collected for tables.
    flags = (
        pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_COLLECT_VECTORS
    )
    try:
        page = doc.load_page(index)
        horizontal, rotated, rules = text_lines(page.get_text("dict", flags=flags))
        tables = table_lines(page, rules)
        rect = page.rect * page.derotation_matrix
    except Exception as e:  # damaged page tree or content streams
        raise IngestError(f"corrupt PDF: page {index + 1}: {e}") from None
    return PageLines(index + 1, rect.y0, rect.y1, rect.width, horizontal, tables, rotated), page


def _key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _edge_rows(page: PageLines) -> list[list[list[Line]]]:
    """Top rows (outermost first) and bottom rows (outermost first) inside the margins."""
    all_rows = rows(page.lines)
    margin = MARGIN_SHARE * (page.bottom - page.top)
    top = [r for r in all_rows[:EDGE_ROWS] if max(ln.y1 for ln in r) <= page.top + margin]
    bottom = [
        r for r in all_rows[::-1][:EDGE_ROWS] if min(ln.y0 for ln in r) >= page.bottom - margin
    ]
    return [top, bottom]


def _walk(edges: list[list[list[Line]]], is_furniture: Any) -> list[Line]:
    """Lines of the rows met walking inwards from each edge whose lines are all furniture,
    stopping at the first row that is not: body text shields whatever lies further in,
    and a row mixing both ("4  CARD32  OFFSET", a table row) is body."""
    found: dict[int, Line] = {}
    for side in edges:
        for row in side:
            if not all(is_furniture(ln) for ln in row):
                break
            found.update((id(ln), ln) for ln in row)
    return list(found.values())


def furniture(pages: list[PageLines]) -> list[set[int]]:
    """Per page, the indices (into ``page.lines``) of running headers, footers and page
    numbers.

    Candidates are lines met walking inwards through the rows of a page's top and bottom
    margins (:func:`_walk`) that are page numbers ("7", "Page 3 of 8", "- iv -"), whose
    digit-normalised text sits in the margins of at least :data:`MIN_REPEAT` pages and
    :data:`FREQUENT_SHARE` of them, or that lie on a baseline ("band") where such lines,
    or any repeating on :data:`MIN_REPEAT` pages, sit on :data:`BAND_SHARE` of the pages.
    Of those, only lines outside the usual body frame (where the text of most pages
    starts and ends once page numbers and band lines are taken away) are furniture: a
    chapter-opening "CHAPTER" or the first numbered clause of every page repeat too, but
    inside the frame.
    """
    edges = [_edge_rows(p) for p in pages]
    counts: Counter[str] = Counter()
    for page_edges in edges:
        counts.update({_key(ln.text) for side in page_edges for row in side for ln in row})

    def numbered(ln: Line) -> bool:
        return bool(_PAGE_NUMBER.match(_key(ln.text)))

    def frequent(ln: Line) -> bool:
        return counts[_key(ln.text)] >= max(MIN_REPEAT, FREQUENT_SHARE * len(pages))

    bands: defaultdict[int, set[int]] = defaultdict(set)
    for i, page_edges in enumerate(edges):
        for ln in (ln for side in page_edges for row in side[:1] for ln in row):
            if numbered(ln) or counts[_key(ln.text)] >= MIN_REPEAT:
                bands[round(ln.cy / 2)].add(i)
    strong = {b for b, on in bands.items() if len(on) >= max(MIN_REPEAT, BAND_SHARE * len(pages))}

    def placed(ln: Line) -> bool:
        """A page number, or on a furniture band."""
        band = round(ln.cy / 2)
        return numbered(ln) or bool({band - 1, band, band + 1} & strong)

    found = [_walk(page_edges, lambda ln: placed(ln) or frequent(ln)) for page_edges in edges]
    top, bottom = _body_frame(pages, [[ln for ln in f if placed(ln)] for f in found])
    out: list[set[int]] = []
    for page, lines in zip(pages, found, strict=True):
        index = {id(ln): i for i, ln in enumerate(page.lines)}
        out.append({index[id(ln)] for ln in lines if ln.y1 <= top + 1 or ln.y0 >= bottom - 1})
    return out


def _body_frame(pages: list[PageLines], furniture: list[list[Line]]) -> tuple[float, float]:
    """Median top and bottom of the pages' text once ``furniture`` is taken away."""
    tops, bottoms = [], []
    for page, lines in zip(pages, furniture, strict=True):
        ids = {id(ln) for ln in lines}
        body = [ln for ln in page.lines if id(ln) not in ids]
        if body:
            tops.append(min(ln.y0 for ln in body))
            bottoms.append(max(ln.y1 for ln in body))
    if not tops:
        return float("inf"), float("-inf")
    return statistics.median(tops), statistics.median(bottoms)


def _ordered(page: PageLines, drop: set[int]) -> list[Line]:
    """The page's lines in reading order with paragraph marks, furniture dropped."""
    body = [ln for i, ln in enumerate(page.lines) if i not in drop]
    if page.ocr is not None:  # Tesseract's own reading order and paragraphs
        return _with_tables(body, page.tables)
    lines = reading_order(outside(body, page.tables) + page.tables, page.width)
    mark_paragraphs(lines)
    for ln in page.rotated:
        ln.para = True
    return lines + page.rotated


def _with_tables(lines: list[Line], tables: list[Line]) -> list[Line]:
    """OCR'd ``lines`` (Tesseract's order) with each table put before the first line
    below it that shares its columns (at the end when none does); the line after a
    table starts a paragraph."""
    out = list(lines)
    for table in tables:
        at = next(
            (
                i
                for i, ln in enumerate(out)
                if ln.kind == "text" and ln.y0 >= table.y1 - 1 and ln.x0 < table.x1
                and ln.x1 > table.x0
            ),
            len(out),
        )  # fmt: skip
        out.insert(at, table)
        if at + 1 < len(out):
            out[at + 1].para = True
    return out


def _vocabulary(pages: list[list[Line]]) -> Counter[str]:
    """Lower-cased words (hyphenated compounds whole) away from line-end hyphens."""
    vocab: Counter[str] = Counter()
    for lines in pages:
        for ln in lines:
            if ln.kind == "text":
                body = ln.text.rsplit(" ", 1)[0] if ln.text.endswith("-") else ln.text
                vocab.update(WORD.findall(body.lower()))
    return vocab


def _keeps_hyphen(prev: Line, before: str, part: str, head: str, vocab: Counter[str]) -> bool:
    """Whether ``part-`` + ``head`` is a hyphenated compound rather than one word that
    typesetting split. ``Non-Debian``, ``MySQL-based`` and ``not-to-exceed`` keep it;
    otherwise the document's own usage of either form decides, and without any, code
    (monospaced) and a few compound prefixes keep it."""
    word = WORD.match(head)
    if not word or not head[0].islower() or "-" in before or not part[1:].islower():
        return True
    joined, hyphenated = (part + word.group()).lower(), f"{part}-{word.group()}".lower()
    if vocab[hyphenated] or vocab[joined]:
        return vocab[hyphenated] > vocab[joined]
    return prev.mono or part.lower() in _COMPOUND_PREFIXES


def dehyphenate(pages: list[list[Line]]) -> None:
    """Move the rest of a word split by a line-end hyphen up onto the line it starts on
    (across columns and pages too), dropping the hyphen unless :func:`_keeps_hyphen`.
    Lines left empty are removed. Works in place."""
    flat = [(p, ln) for p, lines in enumerate(pages) for ln in lines if ln.kind == "text"]
    if not any(ln.text.endswith("-") for _, ln in flat):
        return
    vocab = _vocabulary(pages)
    for (p, prev), (q, nxt) in itertools.pairwise(flat):
        if not prev.text.endswith("-") or not nxt.text or (nxt.para and p == q):
            continue
        tail = _SPLIT_TAIL.fullmatch(prev.text.split()[-1])
        if not tail:
            continue
        head, _, rest = nxt.text.partition(" ")
        keep = _keeps_hyphen(prev, tail.group(1), tail.group(2), head, vocab)
        kept = prev.text if keep else prev.text[:-1]
        cut = len(nxt.text) - len(rest.lstrip())  # the head and the spaces after it
        moved = _shift(_clip(nxt.fragments(), 0, len(head)), len(kept), q + 1)
        prev.frags = _clip(prev.fragments(), 0, len(kept)) + moved
        nxt.frags = _shift(_clip(nxt.fragments(), cut, len(nxt.text)), -cut, None)
        prev.text = kept + head
        nxt.text = rest.lstrip()
    for lines in pages:
        lines[:] = [ln for ln in lines if ln.text]


def _clip(frags: list[Frag], start: int, end: int) -> list[Frag]:
    """The parts of ``frags`` inside ``[start, end)``."""
    out = []
    for f in frags:
        a, b = max(f.start, start), min(f.end, end)
        if a < b:
            out.append(Frag(a, b, f.box, f.page))
    return out


def _shift(frags: list[Frag], by: int, page: int | None) -> list[Frag]:
    """``frags`` moved by ``by`` characters, on ``page`` when they have none of their own."""
    return [Frag(f.start + by, f.end + by, f.box, f.page or page) for f in frags]


def _runs_on(prev: list[Line], nxt: list[Line]) -> bool:
    """A sentence runs from the end of one page into the next."""
    if not prev or not nxt or prev[-1].kind != "text" or nxt[0].kind != "text":
        return False
    return not _SENTENCE_END.search(prev[-1].text) and nxt[0].text[:1].islower()


def assemble(pages: list[list[Line]]) -> tuple[str, list[Span], list[LineBox]]:
    """Join lines (a blank line before each paragraph) and pages; return the text with
    one ``page`` span per page and one ``table`` span per table, and where each stretch
    of the text was drawn (:class:`~lateseg.types.LineBox`, in text order)."""
    parts: list[str] = []
    spans: list[Span] = []
    boxes: list[LineBox] = []
    pos = 0
    for number, lines in enumerate(pages, 1):
        if number > 1:
            sep = PAGE_RUNS_ON if _runs_on(pages[number - 2], lines) else PAGE_SEPARATOR
            parts.append(sep)
            pos += len(sep)
        start = pos
        tables = 0
        for i, ln in enumerate(lines):
            if i:
                sep = "\n\n" if ln.para else "\n"
                parts.append(sep)
                pos += len(sep)
            if ln.kind == "table":
                tables += 1
                label = f"p. {number}, table {tables}"
                spans.append(Span(pos, pos + len(ln.text), "table", label))
                spans += row_spans(ln.text, pos, label, ln.header)
            boxes += [
                LineBox(f.page or number, *f.box, pos + f.start, pos + f.end)
                for f in ln.fragments()
            ]
            parts.append(ln.text)
            pos += len(ln.text)
        spans.append(Span(start, pos, "page", str(number)))
    boxes.sort(key=lambda b: b.start)
    return "".join(parts), spans, boxes
