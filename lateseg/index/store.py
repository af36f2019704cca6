"""SQLite docstore: documents and chunks, one transaction per document (WAL mode)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from lateseg.errors import IndexStoreError
from lateseg.types import Chunk, Document, Span

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    structure TEXT NOT NULL,
    meta TEXT NOT NULL,
    file_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    text TEXT NOT NULL,
    section TEXT,
    page INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, ord);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO counters VALUES ('next_chunk_id', 0);
"""


class DocStore:
    """Documents (full text + structure) and their chunks, keyed by integer chunk IDs
    that are also the FAISS IDs."""

    def __init__(self, path: Path) -> None:
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise IndexStoreError(f"{path} is not a lateseg docstore: {e}") from None

    def close(self) -> None:
        self.db.close()

    def file_hash(self, source: str) -> str | None:
        row = self.db.execute(
            "SELECT file_hash FROM documents WHERE source=?", (source,)
        ).fetchone()
        return row[0] if row else None

    def replace_document(
        self, doc: Document, file_hash: str, chunks: Sequence[Chunk]
    ) -> tuple[list[int], list[int]]:
        """Atomically replace the rows of ``doc.source``.

        Returns ``(new_ids, removed_ids)``. Chunk IDs (which are also the FAISS IDs) come
        from a counter committed with the rows and are never reused, so a vector saved
        before a crash can never be mistaken for a later chunk's.
        """
        with self._tx():
            old = self.chunk_ids_of_source(doc.source)
            first = int(
                self.db.execute("SELECT value FROM counters WHERE name='next_chunk_id'").fetchone()[
                    0
                ]
            )
            new_ids = list(range(first, first + len(chunks)))
            self.db.execute(
                "UPDATE counters SET value=? WHERE name='next_chunk_id'", (first + len(chunks),)
            )
            self.db.execute("DELETE FROM documents WHERE source=?", (doc.source,))
            self.db.execute(
                "INSERT INTO documents VALUES (?,?,?,?,?,?,?)",
                (
                    doc.id,
                    doc.source,
                    doc.kind,
                    doc.text,
                    json.dumps([s.to_dict() for s in doc.structure]),
                    json.dumps(doc.meta, default=str),
                    file_hash,
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
        return new_ids, old

    def remove_documents(self, doc_ids: Iterable[str]) -> None:
        with self._tx():
            self.db.executemany("DELETE FROM documents WHERE id=?", [(d,) for d in doc_ids])

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
            f'SELECT c.id, c.doc_id, c.start, c."end", c.text, c.section, c.page, d.source '
            f"FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE c.id IN ({marks})",
            list(ids),
        )
        keys = ("id", "doc_id", "start", "end", "text", "section", "page", "source")
        return {r[0]: dict(zip(keys, r, strict=False)) for r in rows}

    def document(self, source: str) -> Document | None:
        row = self.db.execute(
            "SELECT id, source, kind, text, structure, meta FROM documents WHERE source=?",
            (source,),
        ).fetchone()
        if row is None:
            return None
        spans = tuple(Span.from_dict(d) for d in json.loads(row[4]))
        return Document(row[1], row[3], row[2], spans, json.loads(row[5]), id=row[0])

    def sources(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT source FROM documents ORDER BY source")]

    def counts(self) -> tuple[int, int]:
        docs = self.db.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        chunks = self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(docs), int(chunks)

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
