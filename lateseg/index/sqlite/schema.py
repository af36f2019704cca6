"""SQLite store, part 1: the schema, opening and migrating a docstore file, its manifest
and its transactions (:class:`SqliteBase`, which the other parts extend:
:mod:`lateseg.index.sqlite.lexical`, :mod:`lateseg.index.sqlite.integrity`, and the rows in
:mod:`lateseg.index.sqlite.store`).

Readers never write: a folder that cannot be written (read-only media, another user's
index) opens read-only, and the schema is created or migrated only by a writer.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lateseg.errors import IndexStoreError
from lateseg.index.manifest import Manifest, read_manifest, write_manifest

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


class SqliteBase:
    """A docstore file opened (and created or migrated by a writer); what every part of
    the SQLite store stands on. ``writable=False`` (or a folder that cannot be written)
    opens read-only."""

    #: One writer at a time: :class:`lateseg.index.Index` takes the folder's lock.
    concurrent_writers = False
    url = None  # a file, not a server

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

    # -- counters and transactions ---------------------------------------------------
    def index_id(self) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key='index_id'").fetchone()
        return str(row[0]) if row else ""

    def _counters(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self.db.execute("SELECT name, value FROM counters")}

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one committed state (a read transaction)."""
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

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


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
