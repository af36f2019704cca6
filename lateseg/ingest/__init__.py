"""Ingestion: files in, :class:`~lateseg.types.Document` out.

``load_document(path)`` dispatches on the file type; ``iter_files(paths)`` walks folders.
"""

from __future__ import annotations

import os
from pathlib import Path

from lateseg.errors import UnsupportedFormatError
from lateseg.ingest.code import CODE_SUFFIXES, code_units
from lateseg.ingest.contract import contract_structure
from lateseg.ingest.docx import read_docx
from lateseg.ingest.folder import WalkConfig, iter_files
from lateseg.ingest.html import read_html
from lateseg.ingest.paths import source_name
from lateseg.ingest.pdf import read_pdf_layout
from lateseg.ingest.text import looks_like_text, markdown_headings, read_text
from lateseg.types import Document

__all__ = ["WalkConfig", "iter_files", "load_document"]


def module_name(path: Path, root: Path | None) -> str:
    """Dotted module path of a source file relative to the folder it was found under
    (``billing/invoice.py`` -> ``billing.invoice``), else its stem."""
    if root is not None and path.is_relative_to(root):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts and parts[-1] == "__init__" and len(parts) > 1:
            parts.pop()
        return ".".join(parts)
    return path.stem


def load_document(
    path: str | Path,
    password: str | None = None,
    root: Path | None = None,
    data: bytes | None = None,
) -> Document:
    """Read one file into a Document (source = absolute path, as
    :func:`~lateseg.ingest.paths.source_name` shows it).

    ``root`` is the folder the file was found under; code units are named relative to
    it (``billing.invoice.Invoice.total``). ``data`` is the file's content when the
    caller has read it already (ingest reads each file once); ``path`` is then taken as
    it is, not resolved again.

    Raises :class:`~lateseg.errors.IngestError` (with the reason) when the file cannot be
    read, and :class:`~lateseg.errors.UnsupportedFormatError` for types lateseg does not
    handle.
    """
    p = Path(path).expanduser()
    p = Path(os.path.abspath(p)) if data is not None else p.resolve()
    suffix = p.suffix.lower()
    source = source_name(p)
    if suffix == ".pdf":
        text, pages, meta, lines = read_pdf_layout(p, password=password, data=data)
        spans = tuple(pages + contract_structure(text))
        return Document(source, text, "pdf", spans, meta, lines=tuple(lines))
    if suffix in CODE_SUFFIXES:
        text = read_text(p, data)
        lang = CODE_SUFFIXES[suffix]
        units = code_units(text, module_name(p, root), lang)
        return Document(source, text, "code", tuple(units), {"language": lang})
    if suffix == ".docx":
        text, headings, meta = read_docx(p, data)
        return Document(source, text, "docx", tuple(headings + contract_structure(text)), meta)
    if suffix in {".html", ".htm", ".xhtml"}:
        text, headings, meta = read_html(p, data)
        return Document(source, text, "html", tuple(headings + contract_structure(text)), meta)
    if suffix in {".md", ".markdown"}:
        text = read_text(p, data)
        structure = markdown_headings(text) + contract_structure(text)
        return Document(source, text, "markdown", tuple(structure))
    if suffix in {".txt", ".rst"} or looks_like_text(p, data):
        text = read_text(p, data)
        return Document(source, text, "text", tuple(contract_structure(text)))
    raise UnsupportedFormatError(
        f"unsupported file type {suffix or 'without suffix'!r} and not text; lateseg reads "
        ".pdf, .txt, .md, source code and other plain text"
    )
