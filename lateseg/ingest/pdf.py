"""PDF text extraction with PyMuPDF, one ``page`` span per page."""

from __future__ import annotations

from pathlib import Path

from lateseg.errors import IngestError
from lateseg.types import Span

PAGE_SEPARATOR = "\n\n"


def read_pdf(path: Path, password: str | None = None) -> tuple[str, list[Span], dict]:
    """Return the text of every page joined by a blank line, the page spans (labels are
    1-based page numbers) and metadata.

    Raises :class:`IngestError` for encrypted PDFs without the right password, corrupt
    files (with PyMuPDF's reason) and PDFs without a text layer (scanned images).
    """
    import pymupdf

    try:
        doc = pymupdf.open(path)
    except Exception as e:  # PyMuPDF raises its own FileDataError, RuntimeError, ...
        raise IngestError(f"corrupt or unreadable PDF: {e}") from None
    try:
        if doc.needs_pass and not (password and doc.authenticate(password)):
            raise IngestError("encrypted PDF (give the password to open it)")
        parts: list[str] = []
        spans: list[Span] = []
        pos = 0
        for number in range(1, doc.page_count + 1):
            page = doc[number - 1]
            try:
                page_text = page.get_text("text", sort=True).rstrip()
            except Exception as e:
                raise IngestError(f"corrupt PDF: page {number}: {e}") from None
            if parts:
                parts.append(PAGE_SEPARATOR)
                pos += len(PAGE_SEPARATOR)
            parts.append(page_text)
            spans.append(Span(pos, pos + len(page_text), "page", str(number)))
            pos += len(page_text)
        text = "".join(parts)
        if not text.strip():
            raise IngestError(f"no text layer (scanned?): {doc.page_count} pages, no text")
        meta = {"pages": doc.page_count, "title": (doc.metadata or {}).get("title") or None}
        return text, spans, meta
    finally:
        doc.close()
