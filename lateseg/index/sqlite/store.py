"""SQLite docstore: the index's one source of truth in one folder (the embedded default
behind :class:`lateseg.index.base.Store`).

Documents, their chunks, the chunks' vectors (float32 BLOBs) and the lexical index
change together, in one transaction per document, so the database is consistent at
every instant, as SQLite's own atomic commit is. Every write also appends a row to a
change log (``changes``: the chunk IDs it added and removed, under a sequence number),
from which any process brings its FAISS cache up to date (:mod:`lateseg.index.cache`).

This module holds the rows (documents, chunks, vectors, the change log); the schema and
opening are in :mod:`lateseg.index.sqlite.schema`, lexical search in
:mod:`lateseg.index.sqlite.lexical`, integrity in :mod:`lateseg.index.sqlite.integrity`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from lateseg.errors import IndexStoreError
from lateseg.index.base import (
    Change,
    LogState,
    batches,
    box_blob_fits,
    catalogue_entry,
    check_same_file,
    decode_boxes,
    document_from_row,
    document_summary,
    encode_boxes,
    id_array,
    matrix,
    vector_blobs,
)
from lateseg.index.sqlite.integrity import SqliteIntegrity
from lateseg.index.sqlite.lexical import SqliteLexical, fts_query
from lateseg.index.sqlite.schema import LINE_BOXES, SCHEMA_VERSION, _script
from lateseg.types import Chunk, Document, LineBox

log = logging.getLogger(__name__)

__all__ = ["SCHEMA_VERSION", "DocStore", "fts_query"]


class DocStore(SqliteLexical, SqliteIntegrity):
    """Documents, chunks and vectors, keyed by integer chunk IDs that are also the FAISS
    IDs. ``writable=False`` (or a folder that cannot be written) opens read-only."""

    # -- the change log ------------------------------------------------------------
    def log_state(self) -> LogState:
        c = self._counters()
        return LogState(c.get("seq", 0), c.get("log_start", 1), c.get("vectors", 0))

    def changes_since(self, seq: int) -> list[Change]:
        rows = self.db.execute(
            "SELECT seq, first_id, added, removed FROM changes WHERE seq > ? ORDER BY seq",
            (seq,),
        )
        return [Change(int(s), int(f), int(a), id_array(r)) for s, f, a, r in rows]

    def forget_changes(self, upto: int) -> None:
        """Drop the change log up to change ``upto`` (a saved cache holds them)."""
        with self._tx():
            self.db.execute("DELETE FROM changes WHERE seq <= ?", (upto,))
            self.db.execute(
                "UPDATE counters SET value=MAX(value, ?) WHERE name='log_start'", (upto + 1,)
            )

    def vectors_of(self, ids: Sequence[int], dim: int) -> tuple[np.ndarray, np.ndarray]:
        """``(found_ids, [n, dim] float32)`` of the IDs among ``ids`` that have vectors."""
        found: list[int] = []
        parts: list[bytes] = []
        for batch in batches(list(ids), 900):
            marks = ",".join("?" * len(batch))
            for cid, blob in self.db.execute(
                f"SELECT chunk_id, vector FROM vectors WHERE chunk_id IN ({marks})", batch
            ):
                found.append(int(cid))
                parts.append(blob)
        return np.asarray(found, dtype=np.int64), matrix(parts, dim)

    def iter_vectors(
        self, dim: int, batch: int = 20_000
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every stored vector in ID order, ``batch`` at a time."""
        last = -1
        while True:
            rows = self.db.execute(
                "SELECT chunk_id, vector FROM vectors WHERE chunk_id > ? ORDER BY chunk_id LIMIT ?",
                (last, batch),
            ).fetchall()
            if not rows:
                return
            last = int(rows[-1][0])
            yield (
                np.asarray([r[0] for r in rows], dtype=np.int64),
                matrix([r[1] for r in rows], dim),
            )

    # -- writes (the caller holds the index's write lock) ---------------------------
    def source_of_hash(self, file_hash: str) -> str | None:
        """A source indexed from a file with this SHA-256 (None: no such file)."""
        row = self.db.execute(
            "SELECT source FROM documents WHERE file_hash=? LIMIT 1", (file_hash,)
        ).fetchone()
        return None if row is None else str(row[0])

    def file_hash(self, source: str) -> str | None:
        row = self.db.execute(
            "SELECT file_hash FROM documents WHERE source=?", (source,)
        ).fetchone()
        return row[0] if row else None

    def replace_document(
        self,
        doc: Document,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        path: bytes | None = None,
    ) -> Change:
        """Atomically replace the rows of ``doc.source`` with ``doc``, its chunks and
        their ``vectors`` ``[len(chunks), dim]``, logging the change (returned: the new
        chunk IDs and the removed ones).

        ``path`` is the file's name as bytes (None for documents made in memory); a
        different file whose name shows as the same ``source`` is refused. Chunk IDs
        (also the FAISS IDs) come from a counter committed with the rows and are never
        reused, so a cache can never take one chunk's vector for another's.
        """
        if len(vectors) != len(chunks):
            raise IndexStoreError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        blobs = vector_blobs(vectors)
        with self._tx():
            row = self.db.execute(
                "SELECT path FROM documents WHERE source=?", (doc.source,)
            ).fetchone()
            check_same_file(doc.source, row[0] if row else None, path)
            old = self.chunk_ids_of_source(doc.source)
            had = self._vector_count(doc.source)
            first = self._counters()["next_chunk_id"]
            new_ids = list(range(first, first + len(chunks)))
            self.db.execute("DELETE FROM documents WHERE source=?", (doc.source,))
            self.db.execute(
                "INSERT INTO documents (id, source, kind, text, structure, meta, file_hash, path) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (
                    doc.id,
                    doc.source,
                    doc.kind,
                    doc.text,
                    json.dumps([s.to_dict() for s in doc.structure]),
                    json.dumps(doc.meta, default=str),
                    file_hash,
                    path,
                ),
            )
            self.db.executemany(
                'INSERT INTO chunks (id, doc_id, ord, start, "end", text, section, page) '
                "VALUES (?,?,?,?,?,?,?,?)",
                [
                    (cid, doc.id, i, c.start, c.end, c.text, c.section, c.page)
                    for i, (cid, c) in enumerate(zip(new_ids, chunks, strict=True))
                ],
            )
            self.db.executemany(
                "INSERT INTO vectors VALUES (?, ?)", zip(new_ids, blobs, strict=True)
            )
            if doc.lines:
                _script(self.db, LINE_BOXES)  # an index made before the table
                self.db.execute(
                    "INSERT OR REPLACE INTO line_boxes VALUES (?, ?)",
                    (doc.id, encode_boxes(doc.lines)),
                )
            return self._log(first, len(chunks), old, had)

    def _vector_count(self, source: str) -> int:
        """How many of the document's chunks have vectors (all, but in a document a
        format-1 index left without them)."""
        return int(
            self.db.execute(
                "SELECT COUNT(*) FROM vectors v JOIN chunks c ON c.id=v.chunk_id "
                "JOIN documents d ON d.id=c.doc_id WHERE d.source=?",
                (source,),
            ).fetchone()[0]
        )

    def remove_sources(self, sources: Iterable[str]) -> Change | None:
        """Delete the documents of ``sources`` (one transaction); the change, or None
        when none of them was indexed."""
        with self._tx():
            removed: list[int] = []
            had = 0
            for source in sources:
                removed += self.chunk_ids_of_source(source)
                had += self._vector_count(source)
                self.db.execute("DELETE FROM documents WHERE source=?", (source,))
            if not removed:
                return None
            return self._log(self._counters()["next_chunk_id"], 0, removed, had)

    def _log(self, first: int, added: int, removed: Sequence[int], had: int) -> Change:
        """Inside a write transaction: append the change and move the counters
        (``had``: how many of the removed chunks had vectors)."""
        c = self._counters()
        seq = c["seq"] + 1
        gone = np.asarray(removed, dtype=np.int64)
        self.db.execute("INSERT INTO changes VALUES (?,?,?,?)", (seq, first, added, gone.tobytes()))
        self.db.executemany(
            "UPDATE counters SET value=? WHERE name=?",
            [
                (seq, "seq"),
                (max(c["next_chunk_id"], first + added), "next_chunk_id"),
                (c["vectors"] + added - had, "vectors"),
            ],
        )
        return Change(seq, first, added, gone)

    # -- reads ---------------------------------------------------------------------
    def neighbours(self, chunk_id: int) -> list[tuple[int, int, int]]:
        """``(chunk_id, start, end)`` of every chunk of the document of ``chunk_id``, in
        order (empty if the chunk is gone)."""
        rows = self.db.execute(
            'SELECT c.id, c.start, c."end" FROM chunks c WHERE c.doc_id = '
            "(SELECT doc_id FROM chunks WHERE id=?) ORDER BY c.ord",
            (chunk_id,),
        )
        return [(int(a), int(b), int(c)) for a, b, c in rows]

    def kinds(self) -> dict[str, int]:
        rows = self.db.execute("SELECT kind, COUNT(*) FROM documents GROUP BY kind ORDER BY kind")
        return {str(k): int(n) for k, n in rows}

    def chunk_kinds(self) -> dict[str, int]:
        """Chunks per kind of their document."""
        rows = self.db.execute(
            "SELECT d.kind, COUNT(*) FROM chunks c JOIN documents d ON d.id=c.doc_id "
            "GROUP BY d.kind ORDER BY d.kind"
        )
        return {str(k): int(n) for k, n in rows}

    def chunk_ids_of_source(self, source: str) -> list[int]:
        rows = self.db.execute(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE d.source=?",
            (source,),
        )
        return [r[0] for r in rows]

    def all_chunk_ids(self) -> dict[int, str]:
        return dict(self.db.execute("SELECT id, doc_id FROM chunks").fetchall())

    def chunk_rows(self, ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(
            f'SELECT c.id, c.doc_id, c.start, c."end", c.text, c.section, c.page, d.source, '
            f"d.kind, d.file_hash "
            f"FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE c.id IN ({marks})",
            list(ids),
        )
        keys = (
            "id",
            "doc_id",
            "start",
            "end",
            "text",
            "section",
            "page",
            "source",
            "kind",
            "file_hash",
        )
        return {r[0]: dict(zip(keys, r, strict=False)) for r in rows}

    def layouts(
        self, doc_ids: Sequence[str], text_kinds: Sequence[str]
    ) -> dict[str, tuple[str, str, str | None, str]]:
        """``{doc_id: (file_hash, kind, text, structure JSON)}`` of the documents with
        these IDs (those present); ``text`` only for documents of ``text_kinds``, else
        None (a PDF's text is not read to find its pages)."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        kinds = ",".join("?" * len(text_kinds)) or "NULL"
        rows = self.db.execute(
            f"SELECT id, file_hash, kind, CASE WHEN kind IN ({kinds}) THEN text END, structure "
            f"FROM documents WHERE id IN ({marks})",
            [*text_kinds, *doc_ids],
        )
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}

    def line_boxes(self, doc_id: str, text_length: int) -> list[LineBox] | None:
        """Where each stretch of the PDF ``doc_id``'s text was drawn, or None when the
        index has no geometry for it (built before lateseg kept it, or damaged: rows
        that are not whole, boxes that are not finite, offsets outside the
        ``text_length`` characters of its text are refused as a whole, with a warning)."""
        if not self._table("line_boxes"):
            return None
        size = self.db.execute(
            "SELECT length(boxes) FROM line_boxes WHERE doc_id=?", (doc_id,)
        ).fetchone()
        if size is None:
            return None
        if not box_blob_fits(size[0], text_length):
            log.warning("line boxes of %s are damaged (more boxes than characters)", doc_id)
            return None
        row = self.db.execute("SELECT boxes FROM line_boxes WHERE doc_id=?", (doc_id,)).fetchone()
        return decode_boxes(row[0] if row else None, text_length, doc_id, log.warning)

    def document(self, source: str) -> Document | None:
        row = self.db.execute(
            "SELECT id, source, kind, text, structure, meta FROM documents WHERE source=?",
            (source,),
        ).fetchone()
        return None if row is None else document_from_row(row)

    def documents_by_id(self, doc_ids: Sequence[str]) -> list[Document]:
        """The stored Documents with these IDs (those present)."""
        sources = []
        for batch in batches(list(doc_ids), 900):
            marks = ",".join("?" * len(batch))
            sources += [
                r[0]
                for r in self.db.execute(
                    f"SELECT source FROM documents WHERE id IN ({marks})", batch
                )
            ]
        return [d for s in sources if (d := self.document(s)) is not None]

    def document_rows(self, doc_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Per document ID: its source, kind, meta and chunk count, and its text when it
        is a single chunk (long texts are not read)."""
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(
            "SELECT d.id, d.source, d.kind, d.meta, n.chunks, "
            "CASE WHEN n.chunks = 1 THEN d.text END FROM documents d JOIN "
            "(SELECT doc_id, COUNT(*) AS chunks FROM chunks GROUP BY doc_id) n "
            f"ON n.doc_id = d.id WHERE d.id IN ({marks})",
            ids,
        )
        return {r[0]: document_summary(r) for r in rows}

    def catalogue(self) -> list[dict[str, Any]]:
        """Every document, in source order (:func:`~lateseg.index.base.catalogue_entry`)."""
        rows = self.db.execute(
            "SELECT d.source, d.kind, d.meta, COUNT(c.id), d.structure FROM documents d "
            "LEFT JOIN chunks c ON c.doc_id = d.id GROUP BY d.id ORDER BY d.source"
        )
        return [catalogue_entry(r) for r in rows]

    def sources(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT source FROM documents ORDER BY source")]

    def heads(self, chars: int) -> list[tuple[str, str, dict[str, Any], str]]:
        """``(source, kind, meta, the text's first chars characters)`` of every document,
        in source order: what names a document (its title, preamble, parties)."""
        rows = self.db.execute(
            "SELECT source, kind, meta, substr(text, 1, ?) FROM documents ORDER BY source",
            (int(chars),),
        )
        return [(r[0], r[1], json.loads(r[2]), r[3]) for r in rows]

    def source_paths(self) -> list[tuple[str, str]]:
        """``(source, path)`` of every document: the file's real name (``os.fsdecode``
        of the stored bytes, which may hold surrogate escapes) or else the source."""
        has_path = not self.legacy or "path" in [
            r[1] for r in self.db.execute("PRAGMA table_info(documents)")
        ]
        sql = (
            "SELECT source, path FROM documents"
            if has_path
            else "SELECT source, NULL FROM documents"
        )
        return [(s, os.fsdecode(p) if p is not None else s) for s, p in self.db.execute(sql)]

    def counts(self) -> tuple[int, int]:
        docs = self.db.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        chunks = self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(docs), int(chunks)
