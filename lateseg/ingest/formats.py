"""Every file format lateseg reads, as one registry (:data:`FORMATS`, in the shape of
every extension family: :mod:`lateseg.registry`): a :class:`Format` names the
``Document.kind`` it makes, its suffixes, its reader, and whether its documents are
pages to show (:attr:`Format.paged`: the viewer shows page images and highlights).

The walk (:mod:`lateseg.ingest.folder`), the repository rules (:mod:`lateseg.ingest.repo`),
the uploads of ``lateseg serve`` (:mod:`lateseg.serve.jobs`), the ``kind`` filter of
search, the viewer (:func:`is_paged`) and :func:`load_document` all read the registry; a
new format is one class and its ``@FORMATS.register`` line. Readers are imported when a
file of their kind is read, so the registry costs nothing to import (the CLI's cold
start reads it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from lateseg.errors import UnsupportedFormatError
from lateseg.registry import Registry

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
        from lateseg.ingest.ocr.modes import check_mode

        check_mode(self.ocr)


class Format:
    """One format: the ``Document.kind`` it makes (its registry ``name``), its
    ``suffixes`` (lower case) and its reader (:meth:`read`); whether its text is
    ``extracted`` from a binary container (so the text-file rules on binaries, size and
    long lines do not apply), whether ``lateseg serve`` accepts it as an ``upload`` by
    default (source code is for ingesting folders), and whether its documents are
    ``paged``: pages the viewer shows as images with the span highlighted."""

    name: ClassVar[str] = ""
    kind: ClassVar[str] = ""  # the same as name: what a Format row called it before
    summary: ClassVar[str] = ""
    suffixes: ClassVar[tuple[str, ...]] = ()
    extracted: ClassVar[bool] = False
    upload: ClassVar[bool] = True
    paged: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__()
        cls.kind = cls.name

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        """The document of the file ``p`` (shown as ``source``; ``data``: its bytes when
        already read; ``root``: the folder it was found under)."""
        raise NotImplementedError


#: The formats lateseg reads, by ``Document.kind``.
FORMATS: Registry[Format] = Registry("format", key="kind", option="kind")


@FORMATS.register
class Pdf(Format):
    name, summary, suffixes = "pdf", "PDF, by its text layer or OCR", (".pdf",)
    extracted = paged = True

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        from lateseg.ingest.contract.clauses import contract_structure
        from lateseg.ingest.pdf.reader import read_pdf_layout
        from lateseg.types import Document

        text, pages, meta, lines = read_pdf_layout(p, password=o.password, data=data, ocr=o.ocr)
        spans = tuple(pages + contract_structure(text))
        return Document(source, text, "pdf", spans, meta, lines=tuple(lines))


@FORMATS.register
class Docx(Format):
    name, summary, suffixes = "docx", "Word documents", (".docx",)
    extracted = True

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        from lateseg.ingest.contract.clauses import contract_structure
        from lateseg.ingest.docx import read_docx
        from lateseg.types import Document

        text, headings, meta = read_docx(p, data)
        return Document(source, text, "docx", tuple(headings + contract_structure(text)), meta)


@FORMATS.register
class Image(Format):
    name, summary = "image", "scans and photos, read by OCR"
    suffixes = (".png", ".jpg", ".jpeg", ".tif", ".tiff")
    extracted = paged = True

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        from lateseg.ingest.contract.clauses import contract_structure
        from lateseg.ingest.images import read_image_layout
        from lateseg.types import Document

        text, pages, meta, lines = read_image_layout(p, data=data, ocr=o.ocr)
        spans = tuple(pages + contract_structure(text))
        return Document(source, text, "image", spans, meta, lines=tuple(lines))


@FORMATS.register
class Html(Format):
    name, summary, suffixes = "html", "web pages", (".html", ".htm", ".xhtml")

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        from lateseg.ingest.html import read_html
        from lateseg.types import Document

        text, structure, meta = read_html(p, data)
        return Document(source, text, "html", tuple(structure), meta)


@FORMATS.register
class Markdown(Format):
    name, summary, suffixes = "markdown", "Markdown", (".md", ".markdown")

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        from lateseg.ingest.markdown import read_markdown
        from lateseg.types import Document

        text, structure, meta = read_markdown(p, data)
        return Document(source, text, "markdown", tuple(structure), meta)


@FORMATS.register
class Text(Format):
    name, summary, suffixes = "text", "plain text", (".txt", ".rst")

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        from lateseg.ingest.contract.clauses import contract_structure
        from lateseg.ingest.text import read_text
        from lateseg.types import Document

        text = read_text(p, data)
        return Document(source, text, "text", tuple(contract_structure(text)))


@FORMATS.register
class Code(Format):
    name, summary, suffixes = "code", "source code", tuple(CODE_SUFFIXES)
    upload = False

    @classmethod
    def read(
        cls, p: Path, source: str, data: bytes | None, root: Path | None, o: ReadOptions
    ) -> Document:
        from lateseg.ingest.code.units import code_units
        from lateseg.ingest.text import read_text
        from lateseg.types import Document

        text = read_text(p, data)
        lang = CODE_SUFFIXES[p.suffix.lower()]
        units = code_units(text, module_name(p, root), lang)
        return Document(source, text, "code", tuple(units), {"language": lang})


#: Any other file that looks like text is read as text.
TEXT = Text


def format_of(path: str | os.PathLike[str]) -> type[Format] | None:
    """The format of a file by its suffix (the first registered that claims it), or None."""
    suffix = Path(path).suffix.lower()
    return next((f for f in FORMATS.values() if suffix in f.suffixes), None)


def is_paged(kind: str) -> bool:
    """Whether documents of ``kind`` are pages to show (a registered paged format)."""
    return kind in FORMATS and FORMATS[kind].paged


def document_kinds() -> tuple[str, ...]:
    """Every ``Document.kind`` an ingestor makes (search's ``kind`` filter takes one)."""
    return tuple(FORMATS)


def read_suffixes() -> frozenset[str]:
    """Every suffix the walk reads (files without one are read when they look like text)."""
    return frozenset(s for f in FORMATS.values() for s in f.suffixes)


def extracted_suffixes() -> frozenset[str]:
    """Suffixes whose text is extracted from a binary container."""
    return frozenset(s for f in FORMATS.values() if f.extracted for s in f.suffixes)


def image_suffixes() -> frozenset[str]:
    """Suffixes of image files, read by OCR."""
    return frozenset(s for s in Image.suffixes)


def upload_suffixes() -> tuple[str, ...]:
    """Suffixes ``lateseg serve`` accepts as uploads by default (and zip archives of them)."""
    return (*(s for f in FORMATS.values() if f.upload for s in f.suffixes), ".zip")


# The same, as constants of the formats registered when this module was imported (the
# built-in ones): for code that reads them once, such as an argument parser's choices.
BY_SUFFIX: dict[str, type[Format]] = {s: f for f in FORMATS.values() for s in f.suffixes}
IMAGE_SUFFIXES: frozenset[str] = image_suffixes()
PAGED_KINDS: tuple[str, ...] = tuple(k for k, f in FORMATS.items() if f.paged)
DOCUMENT_KINDS: tuple[str, ...] = document_kinds()
SUFFIXES: frozenset[str] = read_suffixes()
EXTRACTED_SUFFIXES: frozenset[str] = extracted_suffixes()
UPLOAD_SUFFIXES: tuple[str, ...] = upload_suffixes()


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
        known = ", ".join(s for f in FORMATS.values() if f.name != "code" for s in f.suffixes)
        raise UnsupportedFormatError(
            f"unsupported file type {p.suffix.lower() or 'without suffix'!r} and not text; "
            f"lateseg reads {known}, source code and other plain text"
        )
    return fmt.read(p, source_name(p), data, root, ReadOptions(password, ocr))
