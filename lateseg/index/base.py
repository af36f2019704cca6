"""The store behind an index, as Protocols: what :class:`lateseg.index.Index`, the
:class:`~lateseg.retrieve.retriever.Retriever`, ``index verify`` and ``compact`` may ask of it.

A store is the index's one source of truth. Documents, their chunks, the chunks' vectors
and the lexical index change together, one transaction per document, and every write
appends to a change log (a sequence of :class:`Change`) from which each process brings its
FAISS cache up to date. Two stores implement it: SQLite in one folder
(:mod:`lateseg.index.sqlite.store`, the embedded default) and PostgreSQL on a server
(:mod:`lateseg.index.postgres`, many writers and many machines). The index location
chooses: a folder, or a ``postgresql://`` URL (:func:`lateseg.open_index.open_folder`).

Also here: what both stores share (the lexical query's words, the line-box row format,
vector and ID blobs).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from lateseg.errors import IndexStoreError, IngestError
from lateseg.text.words import SEARCH_STOPWORDS, terms
from lateseg.types import Chunk, Document, LineBox, Span


@dataclass(frozen=True)
class Change:
    """One committed write: chunk IDs ``[first_id, first_id + added)`` were added and
    ``removed`` were removed, as change number ``seq``."""

    seq: int
    first_id: int
    added: int
    removed: np.ndarray  # int64


@dataclass(frozen=True)
class LogState:
    """Where the change log stands: the last change, the first one still kept, and how
    many vectors the store holds."""

    seq: int
    log_start: int
    vectors: int


class ChangeLog(Protocol):
    """The change log and the vectors it points at (what a FAISS cache catches up from).

    The log is gapless and in commit order: a reader that sees change ``n`` sees every
    change before it."""

    def index_id(self) -> str: ...
    def log_state(self) -> LogState: ...
    def changes_since(self, seq: int) -> list[Change]: ...
    def forget_changes(self, upto: int) -> None: ...
    def snapshot(self) -> AbstractContextManager[None]: ...
    def vectors_of(self, ids: Sequence[int], dim: int) -> tuple[np.ndarray, np.ndarray]: ...
    def iter_vectors(
        self, dim: int, batch: int = ...
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]: ...


class Rows(Protocol):
    """Documents and chunks: one transaction per written document."""

    def replace_document(
        self,
        doc: Document,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        path: bytes | None = None,
    ) -> Change: ...
    def remove_sources(self, sources: Iterable[str]) -> Change | None: ...
    def file_hash(self, source: str) -> str | None: ...
    def source_of_hash(self, file_hash: str) -> str | None: ...
    def chunk_rows(self, ids: Sequence[int]) -> dict[int, dict[str, Any]]: ...
    def chunk_ids_of_source(self, source: str) -> list[int]: ...
    def all_chunk_ids(self) -> dict[int, str]: ...
    def neighbours(self, chunk_id: int) -> list[tuple[int, int, int]]: ...
    def document(self, source: str) -> Document | None: ...
    def documents_by_id(self, doc_ids: Sequence[str]) -> list[Document]: ...
    def document_rows(self, doc_ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...
    def catalogue(self) -> list[dict[str, Any]]: ...
    def layouts(
        self, doc_ids: Sequence[str], text_kinds: Sequence[str]
    ) -> dict[str, tuple[str, str, str | None, str]]: ...
    def line_boxes(self, doc_id: str, text_length: int) -> list[LineBox] | None: ...
    def sources(self) -> list[str]: ...
    def source_paths(self) -> list[tuple[str, str]]: ...
    def heads(self, chars: int) -> list[tuple[str, str, dict[str, Any], str]]: ...
    def counts(self) -> tuple[int, int]: ...
    def kinds(self) -> dict[str, int]: ...
    def chunk_kinds(self) -> dict[str, int]: ...


class Lexical(Protocol):
    """Word search over chunk text, and the filters on a chunk's document (a source glob,
    a kind) that every search takes."""

    def lexical(
        self, query: str, k: int, *, source: str | None = None, kind: str | None = None
    ) -> list[tuple[int, float]]: ...
    def phrase_sources(self, phrase: str, limit: int = 50) -> list[str]: ...
    def chunk_filter(
        self, ids: Sequence[int], *, source: str | None, kind: str | None
    ) -> set[int]: ...


class Integrity(Protocol):
    """What ``index verify`` and ``index compact`` ask of the store."""

    def problems(self, dim: int, *, deep_text_check: bool = False) -> list[str]: ...
    def compact(self) -> None: ...
    def disk_bytes(self) -> dict[str, int]: ...


class Store(ChangeLog, Rows, Lexical, Integrity, Protocol):
    """A whole store. ``location`` names it in messages (a path, a URL without its
    password), ``name`` in short (the folder's or the database's name). ``readonly``
    stores refuse every write; ``concurrent_writers`` says whether several processes may
    write at once (else :class:`~lateseg.index.Index` takes a folder lock). ``legacy``
    is an index from before vectors lived in the store (SQLite only; migrated by
    ``migrate`` on its first write)."""

    location: str
    name: str
    readonly: bool
    concurrent_writers: bool

    @property
    def url(self) -> str | None:
        """The server's address with its credentials (None: a file): what a worker that
        writes into the store itself connects to."""
        ...

    @property
    def legacy(self) -> bool: ...
    def reread_version(self) -> bool: ...
    def migrate(
        self, vectors: Callable[[list[int]], tuple[np.ndarray, np.ndarray]]
    ) -> list[str]: ...
    def read_manifest(self, *, device: str | None = None) -> Any: ...
    def write_manifest(self, manifest: Any) -> None: ...
    def close(self) -> None: ...


# -- shared by the stores ---------------------------------------------------------------


def query_words(text: str) -> list[str]:
    """The content words of a query, lower-cased, first occurrence first (only ``\\w``
    characters: no operator of any search syntax survives)."""
    words = [w for w in terms(text) if w not in SEARCH_STOPWORDS]
    return list(dict.fromkeys(words))


# Where each stretch of a PDF's text was drawn (types.LineBox rows), stored as one blob.
BOX = np.dtype(
    [("page", "<i4"), ("x0", "<f4"), ("y0", "<f4"), ("x1", "<f4"), ("y1", "<f4"),
     ("start", "<i4"), ("end", "<i4")]
)  # fmt: skip


def encode_boxes(lines: Sequence[LineBox]) -> bytes:
    return np.array([tuple(b) for b in lines], dtype=BOX).tobytes()


def box_blob_fits(size: int | None, text_length: int) -> bool:
    """Whether a line-box blob of ``size`` bytes can belong to a text of this length (a
    box covers at least one character): checked before the blob is read."""
    return (size or 0) <= BOX.itemsize * (text_length + 1)


def decode_boxes(
    blob: Any, text_length: int, doc_id: str, warn: Callable[..., None]
) -> list[LineBox] | None:
    """The line boxes in ``blob``, or None (with a warning) when they are damaged: rows
    that are not whole, boxes that are not finite, offsets outside the text."""
    if isinstance(blob, memoryview):
        blob = blob.tobytes()
    if not isinstance(blob, bytes) or len(blob) % BOX.itemsize:
        warn("line boxes of %s are damaged (not whole rows); ignored", doc_id)
        return None
    a = np.frombuffer(blob, dtype=BOX)
    coords = np.stack([a["x0"], a["y0"], a["x1"], a["y1"]]) if len(a) else np.zeros((4, 0))
    if len(a) and (
        not np.isfinite(coords).all()
        or (a["page"] < 1).any()
        or (a["start"] < 0).any()
        or (a["end"] < a["start"]).any()
        or (a["end"] > text_length).any()
    ):
        warn("line boxes of %s are damaged (pages, boxes or offsets); ignored", doc_id)
        return None
    return [LineBox(*r) for r in a.tolist()]


def id_array(blob: Any) -> np.ndarray:
    """The int64 chunk IDs of a change-log row's ``removed`` blob."""
    blob = bytes(blob)
    if len(blob) % 8:
        raise IndexStoreError("a change-log row is damaged (removed IDs are not int64)")
    return np.frombuffer(blob, dtype=np.int64).copy()


def matrix(blobs: Sequence[Any], dim: int) -> np.ndarray:
    """``[n, dim]`` float32 from n stored vector blobs (each ``4 * dim`` bytes)."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    if any(len(b) != 4 * dim for b in blobs):
        raise IndexStoreError(
            f"a stored vector is not {dim} float32 values; run `lateseg index verify`"
        )
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim).copy()


def vector_blobs(vectors: np.ndarray) -> list[bytes]:
    return [np.ascontiguousarray(v, dtype=np.float32).tobytes() for v in vectors]


def batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def check_same_file(source: str, stored: Any, path: bytes | None) -> None:
    """Refuse to replace ``source``'s document with another file's whose name only shows
    the same (``stored``: the indexed file's name as bytes, or None)."""
    if stored is not None and path is not None and bytes(stored) != path:
        raise IngestError(f"its name shows as {source!r}, like another indexed file's; rename one")


def document_from_row(row: Sequence[Any]) -> Document:
    """A stored Document from its row ``(id, source, kind, text, structure JSON, meta
    JSON)``."""
    spans = tuple(Span.from_dict(d) for d in json.loads(row[4]))
    return Document(row[1], row[3], row[2], spans, json.loads(row[5]), id=row[0])


def document_summary(row: Sequence[Any]) -> dict[str, Any]:
    """``document_rows``' entry from ``(id, source, kind, meta JSON, chunk count, text of
    a single-chunk document or None)``."""
    return {
        "source": row[1],
        "kind": row[2],
        "meta": json.loads(row[3]),
        "chunks": int(row[4]),
        "text": row[5],
    }


def catalogue_entry(row: Sequence[Any]) -> dict[str, Any]:
    """``catalogue``'s entry from ``(source, kind, meta JSON, chunk count, structure
    JSON)``: the document's pages (its page spans; 0 for text without pages), the pages
    read by OCR, and when it was indexed (``meta["indexed_at"]``, None before lateseg
    recorded it)."""
    meta = json.loads(row[2])
    spans = json.loads(row[4])
    pages = sum(1 for s in spans if isinstance(s, dict) and s.get("kind") == "page")
    ocr = meta.get("ocr_pages") if isinstance(meta, dict) else None
    return {
        "source": row[0],
        "kind": row[1],
        "chunks": int(row[3]),
        "pages": pages,
        "ocr_pages": len(ocr) if isinstance(ocr, list) else 0,
        "indexed_at": meta.get("indexed_at") if isinstance(meta, dict) else None,
    }


def store_disk_full(error: BaseException) -> bool:
    """Whether a store's error says its disk is full (SQLite's "database or disk is
    full", PostgreSQL's SQLSTATE 53100), without importing either driver."""
    if type(error).__module__.startswith("sqlite3") and "disk is full" in str(error):
        return True
    return getattr(error, "sqlstate", None) == "53100"


def span_mismatches(documents: Iterable[tuple[str, Iterable[tuple[int, int, str]]]]) -> int:
    """How many chunks' text differs from their document's span, over ``(document text,
    its chunks' (start, end, text))``."""
    return sum(
        text[start:end] != chunk for text, chunks in documents for start, end, chunk in chunks
    )
