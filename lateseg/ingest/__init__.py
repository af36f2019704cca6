"""Ingestion: files in, :class:`~lateseg.types.Document` out.

``load_document(path)`` dispatches on the file type; ``iter_files(paths)`` walks folders.
"""

from __future__ import annotations

from pathlib import Path

from lateseg.errors import UnsupportedFormatError
from lateseg.ingest.code import CODE_SUFFIXES, python_units
from lateseg.ingest.contract import clause_spans, definition_spans
from lateseg.ingest.folder import WalkConfig, iter_files
from lateseg.ingest.pdf import read_pdf
from lateseg.ingest.text import looks_like_text, markdown_headings, read_text
from lateseg.types import Document, Span

__all__ = ["WalkConfig", "iter_files", "load_document"]


def _contract_structure(text: str) -> list[Span]:
    """Clause and definition spans; numbered headings count as clauses in any document
    (licenses, policies, specifications are numbered the same way)."""
    return clause_spans(text) + definition_spans(text)


def load_document(path: str | Path, password: str | None = None) -> Document:
    """Read one file into a Document (source = absolute path).

    Raises :class:`~lateseg.errors.IngestError` (with the reason) when the file cannot be
    read, and :class:`~lateseg.errors.UnsupportedFormatError` for types lateseg does not
    handle.
    """
    p = Path(path).expanduser().resolve()
    suffix = p.suffix.lower()
    source = str(p)
    if suffix == ".pdf":
        text, pages, meta = read_pdf(p, password=password)
        return Document(source, text, "pdf", tuple(pages + _contract_structure(text)), meta)
    if suffix in CODE_SUFFIXES:
        text = read_text(p)
        lang = CODE_SUFFIXES[suffix]
        units = python_units(text, p.stem) if lang == "python" else []
        return Document(source, text, "code", tuple(units), {"language": lang})
    if suffix in {".md", ".markdown"}:
        text = read_text(p)
        structure = markdown_headings(text) + _contract_structure(text)
        return Document(source, text, "markdown", tuple(structure))
    if suffix in {".txt", ".rst"} or looks_like_text(p):
        text = read_text(p)
        return Document(source, text, "text", tuple(_contract_structure(text)))
    raise UnsupportedFormatError(
        f"unsupported file type {suffix or 'without suffix'!r} and not text; lateseg reads "
        ".pdf, .txt, .md, source code and other plain text"
    )
