"""Every file format lateseg reads, in one table: suffix -> kind and reader.

The walk (:mod:`lateseg.ingest.folder`), the repository rules (:mod:`lateseg.ingest.repo`),
the uploads of ``lateseg serve`` (:mod:`lateseg.serve.jobs`), the ``kind`` filter of
search (:data:`DOCUMENT_KINDS`) and :func:`load_document` all read this table; a new
format is a row here. Readers are imported when a file of their kind is read, so the
table costs nothing to import (the CLI's cold start reads it).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lateseg.errors import UnsupportedFormatError

if TYPE_CHECKING:
    from lateseg.types import Document

#: Source code: suffix -> tree-sitter language (``.h`` is tried as C++ when it does not
#: parse as C).
CODE_SUFFIXES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",  # TypeScript with JSX: its own grammar
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",  # tried as C++ when it does not parse as C
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".scala": "scala",
    ".swift": "swift",
    ".sh": "shell",
    ".sql": "sql",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".cfg": "ini",
    ".ini": "ini",
}


@dataclass(frozen=True)
class ReadOptions:
    """How files are read: ``password`` for encrypted PDFs; ``ocr``: ``auto`` (OCR the
    pages without usable text), ``off`` or ``force`` (every page of PDFs and images)."""

    password: str | None = None
    ocr: str = "auto"

    def __post_init__(self) -> None:
        from lateseg.ingest.ocr.engine import check_mode

        check_mode(self.ocr)


# (path, source, data or None, root or None, options) -> Document
Reader = Callable[[Path, str, "bytes | None", "Path | None", ReadOptions], "Document"]


def _pdf(p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions) -> Document:
    from lateseg.ingest.contract.clauses import contract_structure
    from lateseg.ingest.pdf.reader import read_pdf_layout
    from lateseg.types import Document

    text, pages, meta, lines = read_pdf_layout(p, password=o.password, data=data, ocr=o.ocr)
    spans = tuple(pages + contract_structure(text))
    return Document(source, text, "pdf", spans, meta, lines=tuple(lines))


def _image(p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions) -> Document:
    from lateseg.ingest.contract.clauses import contract_structure
    from lateseg.ingest.images import read_image_layout
    from lateseg.types import Document

    text, pages, meta, lines = read_image_layout(p, data=data, ocr=o.ocr)
    spans = tuple(pages + contract_structure(text))
    return Document(source, text, "image", spans, meta, lines=tuple(lines))


def _docx(p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions) -> Document:
    from lateseg.ingest.contract.clauses import contract_structure
    from lateseg.ingest.docx import read_docx
    from lateseg.types import Document

    text, headings, meta = read_docx(p, data)
    return Document(source, text, "docx", tuple(headings + contract_structure(text)), meta)


def _html(p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions) -> Document:
    from lateseg.ingest.contract.clauses import contract_structure
    from lateseg.ingest.html import read_html
    from lateseg.types import Document

    text, headings, meta = read_html(p, data)
    return Document(source, text, "html", tuple(headings + contract_structure(text)), meta)


def _markdown(
    p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
) -> Document:
    from lateseg.ingest.contract.clauses import contract_structure
    from lateseg.ingest.text import markdown_headings, read_text
    from lateseg.types import Document

    text = read_text(p, data)
    structure = markdown_headings(text) + contract_structure(text)
    return Document(source, text, "markdown", tuple(structure))


def _text(p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions) -> Document:
    from lateseg.ingest.contract.clauses import contract_structure
    from lateseg.ingest.text import read_text
    from lateseg.types import Document

    text = read_text(p, data)
    return Document(source, text, "text", tuple(contract_structure(text)))


def _code(p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions) -> Document:
    from lateseg.ingest.code.units import code_units
    from lateseg.ingest.text import read_text
    from lateseg.types import Document

    text = read_text(p, data)
    lang = CODE_SUFFIXES[p.suffix.lower()]
    units = code_units(text, module_name(p, root), lang)
    return Document(source, text, "code", tuple(units), {"language": lang})


@dataclass(frozen=True)
class Format:
    """One format: the ``Document.kind`` it makes, its suffixes (lower case), its
    reader, whether its text is *extracted* from a binary container (so the text-file
    rules on binaries, size and long lines do not apply), and whether ``lateseg serve``
    accepts it as an upload by default (source code is for ingesting folders)."""

    kind: str
    suffixes: tuple[str, ...]
    read: Reader
    extracted: bool = False
    upload: bool = True


FORMATS: tuple[Format, ...] = (
    Format("pdf", (".pdf",), _pdf, extracted=True),
    Format("docx", (".docx",), _docx, extracted=True),
    Format("image", (".png", ".jpg", ".jpeg", ".tif", ".tiff"), _image, extracted=True),
    Format("html", (".html", ".htm", ".xhtml"), _html),
    Format("markdown", (".md", ".markdown"), _markdown),
    Format("text", (".txt", ".rst"), _text),
    Format("code", tuple(CODE_SUFFIXES), _code, upload=False),
)
#: Any other file that looks like text is read as text.
TEXT = next(f for f in FORMATS if f.kind == "text")

BY_SUFFIX: dict[str, Format] = {s: f for f in FORMATS for s in f.suffixes}
#: Image files, read by OCR.
IMAGE_SUFFIXES: frozenset[str] = frozenset(
    s for f in FORMATS if f.kind == "image" for s in f.suffixes
)
#: Kinds whose documents are pages to show (PDFs, and images read by OCR).
PAGED_KINDS: tuple[str, ...] = ("pdf", "image")
#: Every ``Document.kind`` an ingestor makes (search's ``kind`` filter takes one).
DOCUMENT_KINDS: tuple[str, ...] = tuple(f.kind for f in FORMATS)
#: Every suffix the walk reads (files without one are read when they look like text).
SUFFIXES: frozenset[str] = frozenset(BY_SUFFIX)
#: Suffixes whose text is extracted from a binary container.
EXTRACTED_SUFFIXES: frozenset[str] = frozenset(
    s for f in FORMATS if f.extracted for s in f.suffixes
)
#: Suffixes ``lateseg serve`` accepts as uploads by default (and zip archives of them).
UPLOAD_SUFFIXES: tuple[str, ...] = (
    *(s for f in FORMATS if f.upload for s in f.suffixes),
    ".zip",
)


def format_of(path: str | os.PathLike[str]) -> Format | None:
    """The format of a file by its suffix, or None."""
    return BY_SUFFIX.get(Path(path).suffix.lower())


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
    ocr: str = "auto",
) -> Document:
    """Read one file into a Document (source = absolute path, as
    :func:`~lateseg.ingest.paths.source_name` shows it), by its format.

    ``root`` is the folder the file was found under; code units are named relative to
    it (``billing.invoice.Invoice.total``). ``data`` is the file's content when the
    caller has read it already (ingest reads each file once); ``path`` is then taken as
    it is, not resolved again. ``ocr``: ``auto`` reads pages and images without a usable
    text layer by OCR, ``off`` never, ``force`` every page (:mod:`lateseg.ingest.ocr.engine`).

    Raises :class:`~lateseg.errors.IngestError` (with the reason) when the file cannot be
    read, and :class:`~lateseg.errors.UnsupportedFormatError` for types lateseg does not
    handle.
    """
    from lateseg.ingest.paths import source_name
    from lateseg.ingest.text import looks_like_text

    p = Path(path).expanduser()
    p = Path(os.path.abspath(p)) if data is not None else p.resolve()
    fmt = format_of(p)
    if fmt is None and looks_like_text(p, data):
        fmt = TEXT
    if fmt is None:
        known = ", ".join(s for f in FORMATS if f.kind != "code" for s in f.suffixes)
        raise UnsupportedFormatError(
            f"unsupported file type {p.suffix.lower() or 'without suffix'!r} and not text; "
            f"lateseg reads {known}, source code and other plain text"
        )
    return fmt.read(p, source_name(p), data, root, ReadOptions(password, ocr))
