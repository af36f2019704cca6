"""PDF text extraction with PyMuPDF: each page's lines read from its text layer, or by
OCR where it has none that is usable, then made into the document's text.

``read_pdf`` returns the text of every page, ``page`` spans (label = 1-based page number;
each page's text lies inside its span) and ``table`` spans, and metadata. On the way:

* columns are read one after the other and ruled tables come out as ``a | b | c`` rows
  (:mod:`lateseg.ingest.layout`);
* running headers, footers and page numbers are dropped, a word split by a hyphen at a
  line end is rejoined, and pages are joined by a blank line, or by a single newline when
  a sentence runs on (:mod:`lateseg.ingest.pdf.text`).

A page without a usable text layer (a scan, an image, glyph soup) is read by OCR
(:mod:`lateseg.ingest.ocr.engine`) when ``ocr`` allows, page by page, and goes the same way:
its lines keep Tesseract's reading order and each word its box. Image files (PNG, JPEG,
TIFF) are read as documents of such pages (:mod:`lateseg.ingest.images`).
"""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path
from typing import Any

from lateseg.errors import IngestError
from lateseg.ingest.layout import text_lines
from lateseg.ingest.ocr import engine as ocr_mod
from lateseg.ingest.ocr.engine import OcrUnavailable
from lateseg.ingest.ocr.modes import check_mode
from lateseg.ingest.ocr.words import fix_lookalikes
from lateseg.ingest.pdf.tables import table_lines
from lateseg.ingest.pdf.text import PageLines, assemble, dehyphenate, furniture, ordered
from lateseg.ingest.pdf.text_layer import unusable_text
from lateseg.types import LineBox, Span

log = logging.getLogger(__name__)


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
    return finish_pages(pages, unread, meta)


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
                pages[at] = read_by_ocr(page, future.result())
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
                    bar = ocr_bar(doc.page_count, name)
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


def read_by_ocr(page: PageLines, read: ocr_mod.OcrPage) -> PageLines:
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


def ocr_bar(total: int, name: str) -> Any:
    """A bar counting the pages OCR reads (of at most ``total``), on a terminal; None
    elsewhere. (Ingest's own bar counts files; this one shows where a long scan is.)"""
    import sys

    if total < 2 or not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"pages of {name}", unit="page", leave=False)


def finish_pages(
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
    lines = [ordered(p, drop[i]) for i, p in enumerate(pages)]
    dehyphenate(lines)
    text, spans, boxes = assemble(lines)
    meta["furniture_lines"] = sum(len(d) for d in drop)
    meta["tables"] = sum(len(p.tables) for p in pages)
    read = {p.number: p.ocr for p in pages if p.ocr is not None}
    ocr_ranges = [(s.start, s.end) for s in spans if s.kind == "page" and int(s.label) in read]
    text = fix_lookalikes(text, ocr_ranges)
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
