"""PostgreSQL store: the rows (documents, chunks, their vectors, line boxes) and the change
log, written one transaction per document by many writers at once.

Encoding happens outside the database, and each document's transaction first locks the
log's sequence row, so the short transactions that write rows are ordered by the server
and the log is gapless in commit order (a reader that sees change *n* sees every change
before it). A transaction that fails on a conflict, a deadlock or a lost connection (a
server restart) is retried on a new connection (:meth:`PgBase._write`); writing a document
twice is harmless (the second write replaces the first), so a retry after a commit whose
answer was lost loses nothing either.

The schema and connections are in :mod:`lateseg.index.postgres.schema`, lexical search in
:mod:`lateseg.index.postgres.lexical`, integrity in :mod:`lateseg.index.postgres.integrity`.
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
from lateseg.index.postgres.integrity import PgIntegrity
from lateseg.index.postgres.lexical import PgLexical
from lateseg.index.postgres.schema import _text
from lateseg.types import Chunk, Document, LineBox

log = logging.getLogger(__name__)


class PgStore(PgLexical, PgIntegrity):
    """The :class:`~lateseg.index.base.Store` on a PostgreSQL server at ``url`` (opening
    and its options: :class:`~lateseg.index.postgres.schema.PgBase`)."""

    # -- the change log ------------------------------------------------------------
    def log_state(self) -> LogState:
        c = self._counters()
        return LogState(c.get("seq", 0), c.get("log_start", 1), c.get("vectors", 0))

    def changes_since(self, seq: int) -> list[Change]:
        rows = self._all(
            "SELECT seq, first_id, added, removed FROM lateseg_changes WHERE seq > %s ORDER BY seq",
            (seq,),
        )
        return [Change(int(s), int(f), int(a), id_array(r)) for s, f, a, r in rows]

    def forget_changes(self, upto: int) -> None:
        def forget(db: Any) -> None:
            db.execute("DELETE FROM lateseg_changes WHERE seq <= %s", (upto,))
            db.execute(
                "UPDATE lateseg_counters SET value = GREATEST(value, %s) WHERE name='log_start'",
                (upto + 1,),
            )

        self._write(forget)

    def vectors_of(self, ids: Sequence[int], dim: int) -> tuple[np.ndarray, np.ndarray]:
        rows = self._all(
            "SELECT chunk_id, vector FROM lateseg_vectors WHERE chunk_id = ANY(%s) "
            "ORDER BY chunk_id",
            ([int(i) for i in ids],),
        )
        return np.asarray([r[0] for r in rows], dtype=np.int64), matrix([r[1] for r in rows], dim)

    def iter_vectors(
        self, dim: int, batch: int = 20_000
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        last = -1
        while True:
            rows = self._all(
                "SELECT chunk_id, vector FROM lateseg_vectors WHERE chunk_id > %s "
                "ORDER BY chunk_id LIMIT %s",
                (last, batch),
            )
            if not rows:
                return
            last = int(rows[-1][0])
            yield (
                np.asarray([r[0] for r in rows], dtype=np.int64),
                matrix([r[1] for r in rows], dim),
            )

    # -- writes --------------------------------------------------------------------
    def replace_document(
        self,
        doc: Document,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        path: bytes | None = None,
    ) -> Change:
        """Replace the rows of ``doc.source`` with ``doc``, its chunks and their
        ``vectors`` in one transaction, logging the change (see
        :meth:`lateseg.index.sqlite.store.DocStore.replace_document`)."""
        if len(vectors) != len(chunks):
            raise IndexStoreError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        blobs = vector_blobs(vectors)
        structure = json.dumps([s.to_dict() for s in doc.structure])
        meta = json.dumps(doc.meta, default=str)

        def write(db: Any) -> Change:
            counters = self._lock_log(db)
            row = db.execute(
                "SELECT path FROM lateseg_documents WHERE source=%s", (_text(doc.source),)
            ).fetchone()
            check_same_file(doc.source, row[0] if row else None, path)
            old, had = self._removing(db, [doc.source])
            first = counters["next_chunk_id"]
            db.execute("DELETE FROM lateseg_documents WHERE source=%s", (_text(doc.source),))
            db.execute(
                "INSERT INTO lateseg_documents (id, source, kind, text, structure, meta, "
                "file_hash, path) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                (
                    doc.id,
                    _text(doc.source),
                    doc.kind,
                    _text(doc.text),
                    _text(structure),
                    _text(meta),
                    file_hash,
                    path,
                ),
            )
            # Binary COPY: no escaping of text and vectors on either side (the vectors'
            # text form would double their size and be parsed back by the server).
            with db.cursor().copy(
                'COPY lateseg_chunks (id, doc_id, ord, start, "end", text, section, page) '
                "FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(["int8", "text", "int4", "int4", "int4", "text", "text", "int4"])
                for i, c in enumerate(chunks):
                    section = None if c.section is None else _text(c.section)
                    copy.write_row(
                        (first + i, doc.id, i, c.start, c.end, _text(c.text), section, c.page)
                    )
            with db.cursor().copy(
                "COPY lateseg_vectors (chunk_id, vector) FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(["int8", "bytea"])
                for i, blob in enumerate(blobs):
                    copy.write_row((first + i, blob))
            if doc.lines:
                db.execute(
                    "INSERT INTO lateseg_line_boxes VALUES (%s, %s)",
                    (doc.id, encode_boxes(doc.lines)),
                )
            return self._log(db, counters, first, len(chunks), old, had)

        return self._write(write)

    def remove_sources(self, sources: Iterable[str]) -> Change | None:
        names = [_text(s) for s in sources]

        def remove(db: Any) -> Change | None:
            counters = self._lock_log(db)
            removed, had = self._removing(db, names)
            db.execute("DELETE FROM lateseg_documents WHERE source = ANY(%s)", (names,))
            if not removed:
                return None
            return self._log(db, counters, counters["next_chunk_id"], 0, removed, had)

        return self._write(remove)

    def _lock_log(self, db: Any) -> dict[str, int]:
        """Inside a write: lock the counters (the log's sequence among them; held to the
        commit, the lock orders concurrent writers' changes as they commit) and read
        them, in one round trip."""
        rows = db.execute(
            "SELECT name, value FROM lateseg_counters ORDER BY name FOR UPDATE"
        ).fetchall()
        return {str(k): int(v) for k, v in rows}

    def _removing(self, db: Any, sources: list[str]) -> tuple[list[int], int]:
        """The chunk IDs of these sources' documents, and how many have vectors."""
        rows = db.execute(
            "SELECT c.id, v.chunk_id IS NOT NULL FROM lateseg_chunks c "
            "JOIN lateseg_documents d ON d.id = c.doc_id "
            "LEFT JOIN lateseg_vectors v ON v.chunk_id = c.id WHERE d.source = ANY(%s)",
            ([_text(s) for s in sources],),
        ).fetchall()
        return [int(r[0]) for r in rows], sum(bool(r[1]) for r in rows)

    def _log(
        self,
        db: Any,
        c: dict[str, int],
        first: int,
        added: int,
        removed: Sequence[int],
        had: int,
    ) -> Change:
        seq = c["seq"] + 1
        gone = np.asarray(removed, dtype=np.int64)
        db.execute(
            "INSERT INTO lateseg_changes VALUES (%s,%s,%s,%s)",
            (seq, first, added, gone.tobytes()),
        )
        db.execute(
            "UPDATE lateseg_counters SET value = CASE name WHEN 'seq' THEN %s "
            "WHEN 'next_chunk_id' THEN %s WHEN 'vectors' THEN %s ELSE value END",
            (seq, max(c["next_chunk_id"], first + added), c["vectors"] + added - had),
        )
        return Change(seq, first, added, gone)

    # -- reads ---------------------------------------------------------------------
    def source_of_hash(self, file_hash: str) -> str | None:
        rows = self._all(
            "SELECT source FROM lateseg_documents WHERE file_hash=%s LIMIT 1", (file_hash,)
        )
        return str(rows[0][0]) if rows else None

    def file_hash(self, source: str) -> str | None:
        rows = self._all(
            "SELECT file_hash FROM lateseg_documents WHERE source=%s", (_text(source),)
        )
        return str(rows[0][0]) if rows else None

    def neighbours(self, chunk_id: int) -> list[tuple[int, int, int]]:
        rows = self._all(
            'SELECT c.id, c.start, c."end" FROM lateseg_chunks c WHERE c.doc_id = '
            "(SELECT doc_id FROM lateseg_chunks WHERE id=%s) ORDER BY c.ord",
            (chunk_id,),
        )
        return [(int(a), int(b), int(c)) for a, b, c in rows]

    def kinds(self) -> dict[str, int]:
        rows = self._all("SELECT kind, COUNT(*) FROM lateseg_documents GROUP BY kind ORDER BY kind")
        return {str(k): int(n) for k, n in rows}

    def chunk_kinds(self) -> dict[str, int]:
        """Chunks per kind of their document."""
        rows = self._all(
            "SELECT d.kind, COUNT(*) FROM lateseg_chunks c JOIN lateseg_documents d "
            "ON d.id=c.doc_id GROUP BY d.kind ORDER BY d.kind"
        )
        return {str(k): int(n) for k, n in rows}

    def chunk_ids_of_source(self, source: str) -> list[int]:
        rows = self._all(
            "SELECT c.id FROM lateseg_chunks c JOIN lateseg_documents d ON d.id=c.doc_id "
            "WHERE d.source=%s",
            (_text(source),),
        )
        return [int(r[0]) for r in rows]

    def all_chunk_ids(self) -> dict[int, str]:
        return {int(i): str(d) for i, d in self._all("SELECT id, doc_id FROM lateseg_chunks")}

    def chunk_rows(self, ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        if not ids:
            return {}
        rows = self._all(
            'SELECT c.id, c.doc_id, c.start, c."end", c.text, c.section, c.page, d.source, '
            "d.kind, d.file_hash FROM lateseg_chunks c JOIN lateseg_documents d "
            "ON d.id=c.doc_id WHERE c.id = ANY(%s)",
            ([int(i) for i in ids],),
        )
        keys = _CHUNK_KEYS
        return {int(r[0]): dict(zip(keys, r, strict=True)) for r in rows}

    def layouts(
        self, doc_ids: Sequence[str], text_kinds: Sequence[str]
    ) -> dict[str, tuple[str, str, str | None, str]]:
        if not doc_ids:
            return {}
        rows = self._all(
            "SELECT id, file_hash, kind, CASE WHEN kind = ANY(%s) THEN text END, structure "
            "FROM lateseg_documents WHERE id = ANY(%s)",
            (list(text_kinds), list(doc_ids)),
        )
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}

    def line_boxes(self, doc_id: str, text_length: int) -> list[LineBox] | None:
        rows = self._all(
            "SELECT octet_length(boxes) FROM lateseg_line_boxes WHERE doc_id=%s", (doc_id,)
        )
        if not rows:
            return None
        if not box_blob_fits(rows[0][0], text_length):
            log.warning("line boxes of %s are damaged (more boxes than characters)", doc_id)
            return None
        blob = self._all("SELECT boxes FROM lateseg_line_boxes WHERE doc_id=%s", (doc_id,))
        return decode_boxes(blob[0][0] if blob else None, text_length, doc_id, log.warning)

    def document(self, source: str) -> Document | None:
        rows = self._all(
            "SELECT id, source, kind, text, structure, meta FROM lateseg_documents WHERE source=%s",
            (_text(source),),
        )
        return document_from_row(rows[0]) if rows else None

    def documents_by_id(self, doc_ids: Sequence[str]) -> list[Document]:
        rows = self._all(
            "SELECT id, source, kind, text, structure, meta FROM lateseg_documents "
            "WHERE id = ANY(%s) ORDER BY source",
            (list(doc_ids),),
        )
        return [document_from_row(r) for r in rows]

    def document_rows(self, doc_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        rows = self._all(
            "SELECT d.id, d.source, d.kind, d.meta, n.chunks, "
            "CASE WHEN n.chunks = 1 THEN d.text END FROM lateseg_documents d JOIN "
            "(SELECT doc_id, COUNT(*) AS chunks FROM lateseg_chunks WHERE doc_id = ANY(%s) "
            "GROUP BY doc_id) n ON n.doc_id = d.id",
            (ids,),
        )
        return {r[0]: document_summary(r) for r in rows}

    def catalogue(self) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT d.source, d.kind, d.meta, COUNT(c.id), d.structure FROM lateseg_documents d "
            "LEFT JOIN lateseg_chunks c ON c.doc_id = d.id GROUP BY d.id "
            'ORDER BY d.source COLLATE "C"'
        )
        return [catalogue_entry(r) for r in rows]

    def sources(self) -> list[str]:
        rows = self._all('SELECT source FROM lateseg_documents ORDER BY source COLLATE "C"')
        return [str(r[0]) for r in rows]

    def heads(self, chars: int) -> list[tuple[str, str, dict[str, Any], str]]:
        rows = self._all(
            "SELECT source, kind, meta, left(text, %s) FROM lateseg_documents "
            'ORDER BY source COLLATE "C"',
            (int(chars),),
        )
        return [(r[0], r[1], json.loads(r[2]), r[3]) for r in rows]

    def source_paths(self) -> list[tuple[str, str]]:
        rows = self._all("SELECT source, path FROM lateseg_documents")
        return [(s, os.fsdecode(bytes(p)) if p is not None else s) for s, p in rows]

    def counts(self) -> tuple[int, int]:
        row = self._one(
            "SELECT (SELECT COUNT(*) FROM lateseg_documents), (SELECT COUNT(*) FROM lateseg_chunks)"
        )
        return int(row[0]), int(row[1])


_CHUNK_KEYS = ("id", "doc_id", "start", "end", "text", "section", "page", "source", "kind",
               "file_hash")  # fmt: skip
