"""SQLite docstore: documents and chunks, one transaction per document (WAL mode)."""

from __future__ import annotations

import json
import re
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

# BM25 over chunk text (SQLite FTS5, Porter stemming), kept in step with `chunks` by
# triggers inside the same transactions; deletes cascading from `documents` fire them too.
LEXICAL = """
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""

# Words too common to rank by (a query's other words decide).
_STOPWORDS = (
    "a an and any are as at be by can do does for from has have how i in is it its may "
    "must of on or shall should so than that the their then there these this those to "
    "under upon was what when where which who whom why will with would"
)
STOPWORDS = frozenset(_STOPWORDS.split())


def fts_query(text: str) -> str | None:
    """An FTS5 query matching any content word of ``text`` (quoted: no operators are
    taken from user input), or None when there is none."""
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS]
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


class DocStore:
    """Documents (full text + structure) and their chunks, keyed by integer chunk IDs
    that are also the FAISS IDs."""

    def __init__(self, path: Path) -> None:
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            had_fts = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE name='chunks_fts'"
            ).fetchone()
            self.db.executescript(LEXICAL)
            if not had_fts:  # an index from before lexical search: index its chunks now
                self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
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

    def remove_sources(self, sources: Iterable[str]) -> list[int]:
        """Delete the documents of ``sources`` (one transaction); their chunk IDs."""
        with self._tx():
            removed = []
            for source in sources:
                removed += self.chunk_ids_of_source(source)
                self.db.execute("DELETE FROM documents WHERE source=?", (source,))
        return removed

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

    def problems(self) -> list[str]:
        """SQLite and text-index integrity, and chunk text against document text."""
        out = []
        check = self.db.execute("PRAGMA integrity_check").fetchall()
        if check != [("ok",)]:
            out.append("sqlite integrity: " + "; ".join(str(r[0]) for r in check[:5]))
        try:
            self.db.execute(
                "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)"
            )
        except sqlite3.DatabaseError as e:
            out.append(f"text index out of step with chunks: {e}")
        bad = 0
        for doc_id, text in self.db.execute("SELECT id, text FROM documents"):
            for start, end, chunk in self.db.execute(
                'SELECT start, "end", text FROM chunks WHERE doc_id=?', (doc_id,)
            ):
                bad += text[start:end] != chunk
        if bad:
            out.append(f"{bad} chunks whose text differs from their document's span")
        return out

    def compact(self) -> None:
        self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

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

    def lexical(
        self, query: str, k: int, *, source: str | None = None, kind: str | None = None
    ) -> list[tuple[int, float]]:
        """Up to ``k`` ``(chunk_id, score)`` by BM25 (higher is better), optionally only
        chunks of sources matching the glob ``source`` or of documents of ``kind``."""
        match = fts_query(query)
        if match is None:
            return []
        sql = (
            "SELECT f.rowid, -bm25(chunks_fts) FROM chunks_fts f "
            "JOIN chunks c ON c.id=f.rowid JOIN documents d ON d.id=c.doc_id "
            "WHERE chunks_fts MATCH ?"
        )
        where, extra = _document_filter(source, kind)
        sql += where + " ORDER BY bm25(chunks_fts) LIMIT ?"
        args: list[Any] = [match, *extra, k]
        return [(int(r[0]), float(r[1])) for r in self.db.execute(sql, args)]

    def chunk_filter(self, ids: Sequence[int], *, source: str | None, kind: str | None) -> set[int]:
        """The IDs among ``ids`` whose document matches the source glob and kind."""
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        sql = f"SELECT c.id FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE c.id IN ({marks})"
        where, extra = _document_filter(source, kind)
        return {int(r[0]) for r in self.db.execute(sql + where, [*ids, *extra])}

    def document(self, source: str) -> Document | None:
        row = self.db.execute(
            "SELECT id, source, kind, text, structure, meta FROM documents WHERE source=?",
            (source,),
        ).fetchone()
        if row is None:
            return None
        spans = tuple(Span.from_dict(d) for d in json.loads(row[4]))
        return Document(row[1], row[3], row[2], spans, json.loads(row[5]), id=row[0])

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
        return {
            r[0]: {
                "source": r[1],
                "kind": r[2],
                "meta": json.loads(r[3]),
                "chunks": int(r[4]),
                "text": r[5],
            }
            for r in rows
        }

    def sources(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT source FROM documents ORDER BY source")]

    def counts(self) -> tuple[int, int]:
        docs = self.db.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        chunks = self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(docs), int(chunks)

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)


def _document_filter(source: str | None, kind: str | None) -> tuple[str, list[Any]]:
    """SQL conditions on the joined ``documents d`` row: source glob and kind."""
    sql, args = "", []
    if source is not None:
        sql += " AND d.source GLOB ?"
        args.append(source)
    if kind is not None:
        sql += " AND d.kind=?"
        args.append(kind)
    return sql, args


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
