"""SQLite docstore: the index's one source of truth.

Documents, their chunks, the chunks' vectors (float32 BLOBs) and the lexical index
change together, in one transaction per document, so the database is consistent at
every instant, as SQLite's own atomic commit is. Every write also appends a row to a
change log (``changes``: the chunk IDs it added and removed, under a sequence number),
from which any process brings its FAISS cache up to date (:mod:`lateseg.index.cache`).

Readers never write: a folder that cannot be written (read-only media, another user's
index) opens read-only, and the schema is created or migrated only by a writer.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from lateseg.errors import IndexStoreError, IngestError
from lateseg.index.base import (
    Change,
    LogState,
    batches,
    box_blob_fits,
    decode_boxes,
    encode_boxes,
    id_array,
    matrix,
    query_words,
    span_mismatches,
    vector_blobs,
)
from lateseg.index.manifest import Manifest, read_manifest, write_manifest
from lateseg.types import Chunk, Document, LineBox, Span

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2  # PRAGMA user_version; 0 = an index from before vectors lived here
PAGE_SIZE = 8192

TABLES = """
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

# Version 2: vectors beside their chunks, the change log, the index's identity, and the
# file path as bytes (names that are not UTF-8 are shown escaped in ``source``).
VERSION_2 = """
CREATE TABLE IF NOT EXISTS vectors (
    chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER PRIMARY KEY,
    first_id INTEGER NOT NULL,
    added INTEGER NOT NULL,
    removed BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO counters VALUES ('seq', 0);
INSERT OR IGNORE INTO counters VALUES ('log_start', 1);
INSERT OR IGNORE INTO counters VALUES ('vectors', 0);
"""

# Where each stretch of a PDF's text was drawn (types.LineBox rows packed as base.BOX), for
# highlights on the page. Added beside schema 2 (an index without the table has no
# geometry; lateseg before it ignores the table, and the cascade keeps it in step).
LINE_BOXES = """
CREATE TABLE IF NOT EXISTS line_boxes (
    doc_id TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    boxes BLOB NOT NULL
);
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


def fts_query(text: str) -> str | None:
    """An FTS5 query matching any content word of ``text`` (quoted: no operators are
    taken from user input), or None when there is none."""
    words = query_words(text)
    return " OR ".join(f'"{w}"' for w in words) if words else None


class DocStore:
    """Documents, chunks and vectors, keyed by integer chunk IDs that are also the FAISS
    IDs. ``writable=False`` (or a folder that cannot be written) opens read-only."""

    #: One writer at a time: :class:`lateseg.index.Index` takes the folder's lock.
    concurrent_writers = False

    def __init__(self, path: Path, *, writable: bool = True) -> None:
        self.path = path
        self.location = str(path.parent)
        self.name = path.parent.name
        self.readonly = not writable or not _can_write(path)
        try:
            self.db = self._connect()
            self.db.execute("PRAGMA foreign_keys=ON")
            self.version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
            self.has_fts = self._table("chunks_fts")
            if not self._table("documents"):
                if self.readonly:
                    # Created but never committed (a writer killed while creating it):
                    # an empty index, read from an empty schema in memory.
                    log.info("%s holds no tables yet: reading it as an empty index", path)
                    self.db.close()
                    self.db = sqlite3.connect(
                        ":memory:", isolation_level=None, check_same_thread=False
                    )
                self._create()
        except sqlite3.DatabaseError as e:
            raise IndexStoreError(f"{path} is not a lateseg docstore: {e}") from None
        if self.version > SCHEMA_VERSION:
            raise IndexStoreError(
                f"{path} has docstore schema {self.version}; this lateseg reads up to "
                f"{SCHEMA_VERSION}. Upgrade lateseg."
            )

    def _connect(self) -> sqlite3.Connection:
        if not self.readonly:
            return sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if not self.path.is_file():
            raise IndexStoreError(f"{self.path} is missing")
        if _can_write(self.path):
            # A reader by choice on a writable folder: an ordinary connection (SQLite's
            # own -wal/-shm files come and go with it), through which lateseg writes
            # nothing (every write goes through _tx, which refuses).
            uri = f"file:{quote(str(self.path))}?mode=rw"
            return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        uri = f"file:{quote(str(self.path))}?mode=ro"
        db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        try:
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return db
        except sqlite3.OperationalError:
            # WAL needs a writable -shm beside the file; on read-only media open the
            # file as immutable (changes left in a -wal file cannot be read then).
            db.close()
            wal = self.path.with_name(self.path.name + "-wal")
            if wal.is_file() and wal.stat().st_size:
                log.warning("%s holds changes a read-only open cannot apply", wal)
            return sqlite3.connect(
                f"file:{quote(str(self.path))}?mode=ro&immutable=1",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
            )

    def _table(self, name: str) -> bool:
        return bool(self.db.execute("SELECT 1 FROM sqlite_master WHERE name=?", (name,)).fetchone())

    def _create(self) -> None:
        """A new, empty docstore at the current schema."""
        # 8 KiB pages hold five 384-d float32 vectors (1.5 KiB each) where 4 KiB pages
        # hold two: a quarter less disk for the vector table.
        self.db.execute(f"PRAGMA page_size={PAGE_SIZE}")
        self.db.execute("PRAGMA journal_mode=WAL")
        with _Transaction(self.db):
            _script(self.db, TABLES + VERSION_2 + LEXICAL + LINE_BOXES)
            self.db.execute("ALTER TABLE documents ADD COLUMN path BLOB")
            self._set_identity()
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self.version, self.has_fts = SCHEMA_VERSION, True

    def _set_identity(self) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('index_id', ?)", (uuid.uuid4().hex,))

    def reread_version(self) -> bool:
        """Read the schema version again (another process may have migrated the
        docstore); whether it changed."""
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        changed, self.version = version != self.version, version
        if changed:
            self.has_fts = self._table("chunks_fts")
        return changed

    @property
    def legacy(self) -> bool:
        """An index from before vectors lived in the docstore (read as it is; migrated
        by :meth:`migrate` on its first write)."""
        return self.version < SCHEMA_VERSION

    def migrate(self, vectors: Any) -> list[str]:
        """Bring a legacy docstore to the current schema in one transaction, taking each
        chunk's vector from ``vectors(ids) -> (found_ids, matrix)`` (the old FAISS file).
        Returns the IDs of the documents some of whose chunks had no vector there (an
        ingest killed before it saved them); their chunks stay, without vectors, for the
        caller to encode again."""
        if self.readonly:
            raise IndexStoreError(f"{self.path} is read-only; it cannot be migrated")
        self.db.execute("PRAGMA journal_mode=WAL")
        with self._tx():
            _script(self.db, VERSION_2 + LEXICAL + LINE_BOXES)
            cols = [r[1] for r in self.db.execute("PRAGMA table_info(documents)")]
            if "path" not in cols:
                self.db.execute("ALTER TABLE documents ADD COLUMN path BLOB")
            if not self.has_fts:  # an index from before lexical search: index it now
                self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
            ids = [r[0] for r in self.db.execute("SELECT id FROM chunks ORDER BY id")]
            found_ids, found = vectors(ids)
            self.db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                ((int(i), v.tobytes()) for i, v in zip(found_ids, found, strict=True)),
            )
            lacking = sorted(
                {
                    r[0]
                    for r in self.db.execute(
                        "SELECT DISTINCT c.doc_id FROM chunks c LEFT JOIN vectors v "
                        "ON v.chunk_id = c.id WHERE v.chunk_id IS NULL"
                    )
                }
            )
            self.db.execute(
                "UPDATE counters SET value=(SELECT COUNT(*) FROM vectors) WHERE name='vectors'"
            )
            self._set_identity()
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self.version, self.has_fts = SCHEMA_VERSION, True
        return lacking

    def close(self) -> None:
        self.db.close()

    # -- the manifest: ``manifest.json`` beside the docstore -----------------------
    def read_manifest(self, *, device: str | None = None) -> Manifest | None:
        return read_manifest(self.path.parent, device=device)

    def write_manifest(self, manifest: Manifest) -> None:
        write_manifest(self.path.parent, manifest)

    def disk_bytes(self) -> dict[str, int]:
        """The docstore's files and their sizes."""
        names = (self.path.name, self.path.name + "-wal")
        files = [self.path.with_name(n) for n in names]
        return {f.name: f.stat().st_size for f in files if f.is_file()}

    # -- the change log ------------------------------------------------------------
    def index_id(self) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key='index_id'").fetchone()
        return str(row[0]) if row else ""

    def log_state(self) -> LogState:
        c = self._counters()
        return LogState(c.get("seq", 0), c.get("log_start", 1), c.get("vectors", 0))

    def _counters(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self.db.execute("SELECT name, value FROM counters")}

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

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one committed state (a read transaction)."""
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

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
            if row is not None and path is not None and row[0] is not None and row[0] != path:
                raise IngestError(
                    f"its name shows as {doc.source!r}, like another indexed file's; rename one"
                )
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

    def problems(self, dim: int, *, deep_text_check: bool = False) -> list[str]:
        """SQLite and text-index integrity, chunk text against document text, and (at
        the current schema) a vector of ``dim`` floats for every chunk.

        The text index is checked row for row (one entry per chunk); ``deep_text_check``
        also runs FTS5's own token-level check, which SQLite runs as a write statement,
        so only a writable connection with no other writer at work can ask for it.
        """
        out = []
        check = self.db.execute("PRAGMA integrity_check").fetchall()
        if check != [("ok",)]:
            out.append("sqlite integrity: " + "; ".join(str(r[0]) for r in check[:5]))
        if self.has_fts:
            missing, stray = self.db.execute(
                "SELECT (SELECT COUNT(*) FROM chunks WHERE id NOT IN "
                "(SELECT id FROM chunks_fts_docsize)), (SELECT COUNT(*) FROM "
                "chunks_fts_docsize WHERE id NOT IN (SELECT id FROM chunks))"
            ).fetchone()
            if missing or stray:
                out.append(
                    f"text index out of step with chunks: {missing} chunks missing, "
                    f"{stray} entries without a chunk"
                )
            elif deep_text_check and not self.readonly:
                try:
                    self.db.execute(
                        "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)"
                    )
                except sqlite3.DatabaseError as e:
                    out.append(f"text index out of step with chunks: {e}")
        bad = span_mismatches(
            (text, self.db.execute('SELECT start, "end", text FROM chunks WHERE doc_id=?', (i,)))
            for i, text in self.db.execute("SELECT id, text FROM documents")
        )
        if bad:
            out.append(f"{bad} chunks whose text differs from their document's span")
        if self.legacy:
            return out
        lacking = self.db.execute(
            "SELECT COUNT(*) FROM chunks c LEFT JOIN vectors v ON v.chunk_id=c.id "
            "WHERE v.chunk_id IS NULL"
        ).fetchone()[0]
        if lacking:
            out.append(f"{lacking} chunks have no vector in the docstore")
        wrong = self.db.execute(
            "SELECT COUNT(*) FROM vectors WHERE length(vector) != ?", (4 * dim,)
        ).fetchone()[0]
        if wrong:
            out.append(f"{wrong} stored vectors are not {dim} float32 values")
        c = self._counters()
        n, top = self.db.execute("SELECT COUNT(*), MAX(chunk_id) FROM vectors").fetchone()
        if c["vectors"] != n:
            out.append(f"the vector counter says {c['vectors']}, the docstore holds {n}")
        if top is not None and top >= c["next_chunk_id"]:
            out.append(f"chunk ID {top} is not below the next ID counter {c['next_chunk_id']}")
        return out

    def compact(self) -> None:
        self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

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

    def lexical(
        self, query: str, k: int, *, source: str | None = None, kind: str | None = None
    ) -> list[tuple[int, float]]:
        """Up to ``k`` ``(chunk_id, score)`` by BM25 (higher is better), optionally only
        chunks of sources matching the glob ``source`` or of documents of ``kind``."""
        if not self.has_fts:
            raise IndexStoreError(
                f"{self.path} predates lexical search; any ingest into it (or `lateseg "
                "index compact`) adds the text index"
            )
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

    def phrase_sources(self, phrase: str, limit: int = 50) -> list[str]:
        """The sources (at most ``limit``) with a chunk holding ``phrase``'s words in a
        row (FTS5 phrase match, stemmed; only its words are used, no operators)."""
        words = re.findall(r"\w+", phrase.lower())
        if not words or not self.has_fts:
            return []
        sql = (
            "SELECT DISTINCT d.source FROM chunks_fts f JOIN chunks c ON c.id=f.rowid "
            "JOIN documents d ON d.id=c.doc_id WHERE chunks_fts MATCH ? LIMIT ?"
        )
        return [r[0] for r in self.db.execute(sql, ('"' + " ".join(words) + '"', int(limit)))]

    def chunk_filter(self, ids: Sequence[int], *, source: str | None, kind: str | None) -> set[int]:
        """The IDs among ``ids`` whose document matches the source glob and kind."""
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        sql = f"SELECT c.id FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE c.id IN ({marks})"
        where, extra = _document_filter(source, kind)
        return {int(r[0]) for r in self.db.execute(sql + where, [*ids, *extra])}

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
        if row is None:
            return None
        spans = tuple(Span.from_dict(d) for d in json.loads(row[4]))
        return Document(row[1], row[3], row[2], spans, json.loads(row[5]), id=row[0])

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

    def _tx(self) -> _Transaction:
        if self.readonly:
            raise IndexStoreError(f"{self.path} is open read-only")
        return _Transaction(self.db)


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Run the statements of ``sql`` one by one: ``executescript`` would commit the
    transaction they belong to."""
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            db.execute(pending)
            pending = ""
    if pending.strip():
        raise IndexStoreError(f"incomplete SQL statement: {pending.strip()[:60]}")


def _can_write(path: Path) -> bool:
    """Whether the docstore (or, before it exists, its folder) can be written."""
    if path.exists():
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    return os.access(path.parent, os.W_OK)


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
