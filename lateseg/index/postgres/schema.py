"""PostgreSQL store, part 1: the schema, connecting (and reconnecting after a server
restart), the transactions every write runs in, and the manifest (:class:`PgBase`, which
the other parts extend: :mod:`lateseg.index.postgres.lexical`,
:mod:`lateseg.index.postgres.integrity`,
and the rows and change log in :mod:`lateseg.index.postgres.store`).

Every table is named ``lateseg_*``, in the connection's schema: an index can share a
database with other tables, and several indexes can share one database in several schemas
(``?options=-csearch_path%3Dteam_a`` in the URL).
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from lateseg.errors import IndexStoreError
from lateseg.index.manifest import MAX_MANIFEST_BYTES, Manifest, decode_manifest, manifest_json

log = logging.getLogger(__name__)

SCHEMES = ("postgresql://", "postgres://")
SCHEMA_VERSION = 1
# How long a lost connection is retried (a server restart), and how many times a
# transaction that failed on a conflict or a lost connection is run again.
RECONNECT_SECONDS = 60.0
RETRIES = 8
TEXT_CONFIG = "english"  # stemming and stop words of the lexical index

TABLES = f"""
CREATE TABLE IF NOT EXISTS lateseg_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lateseg_counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS lateseg_documents (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    structure TEXT NOT NULL,
    meta TEXT NOT NULL,
    file_hash TEXT NOT NULL,
    path BYTEA
);
CREATE INDEX IF NOT EXISTS lateseg_documents_hash ON lateseg_documents (file_hash);
CREATE TABLE IF NOT EXISTS lateseg_chunks (
    id BIGINT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES lateseg_documents (id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    text TEXT NOT NULL,
    section TEXT,
    page INTEGER,
    words TSVECTOR GENERATED ALWAYS AS (to_tsvector('{TEXT_CONFIG}', text)) STORED
);
CREATE INDEX IF NOT EXISTS lateseg_chunks_doc ON lateseg_chunks (doc_id, ord);
CREATE INDEX IF NOT EXISTS lateseg_chunks_words ON lateseg_chunks USING GIN (words);
CREATE TABLE IF NOT EXISTS lateseg_vectors (
    chunk_id BIGINT PRIMARY KEY REFERENCES lateseg_chunks (id) ON DELETE CASCADE,
    vector BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS lateseg_changes (
    seq BIGINT PRIMARY KEY,
    first_id BIGINT NOT NULL,
    added INTEGER NOT NULL,
    removed BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS lateseg_line_boxes (
    doc_id TEXT PRIMARY KEY REFERENCES lateseg_documents (id) ON DELETE CASCADE,
    boxes BYTEA NOT NULL
);
INSERT INTO lateseg_counters VALUES
    ('seq', 0), ('log_start', 1), ('vectors', 0), ('next_chunk_id', 0)
    ON CONFLICT DO NOTHING;
"""
TABLE_NAMES = (
    "lateseg_meta", "lateseg_counters", "lateseg_documents", "lateseg_chunks",
    "lateseg_vectors", "lateseg_changes", "lateseg_line_boxes",
)  # fmt: skip
_CREATE_LOCK = 0x1A7E5E6  # pg_advisory_xact_lock key: creators of the tables take turns

T = TypeVar("T")


def is_store_url(location: object) -> bool:
    """Whether an index location names a PostgreSQL server rather than a folder."""
    return isinstance(location, str) and location.startswith(SCHEMES)


def shown_url(url: str) -> str:
    """The URL without its password (for messages and ``stats``)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise IndexStoreError(
            "a postgresql:// index needs psycopg 3: pip install 'lateseg[postgres]'"
        ) from None
    return psycopg


class PgBase:
    """A connection to the lateseg tables at ``url`` (created there by a writer when the
    database has none); what every part of the PostgreSQL store stands on.

    ``writable=False`` opens a read-only session (``default_transaction_read_only``);
    ``create`` makes the tables when the database has none yet (else a database without
    them is refused)."""

    concurrent_writers = True
    legacy = False

    def __init__(self, url: str, *, writable: bool = True, create: bool = True) -> None:
        self.url = url
        self.location = shown_url(url)
        self.name = urlsplit(url).path.strip("/") or "postgres"
        self.readonly = not writable
        self._pg = _psycopg()
        self._snapshots = 0
        self.db = self._connect(wait=0.0)
        if not self._has_tables():
            if self.readonly or not create:
                self.close()
                raise IndexStoreError(
                    f"no lateseg index at {self.location}; create it with "
                    f"`lateseg ingest PATH --index {self.location}`"
                )
            self._create()
        version = int(self._one("SELECT value FROM lateseg_meta WHERE key='schema'")[0])
        if version > SCHEMA_VERSION:
            raise IndexStoreError(
                f"{self.location} has lateseg schema {version}; this lateseg reads up to "
                f"{SCHEMA_VERSION}. Upgrade lateseg."
            )

    # -- connections ---------------------------------------------------------------
    def _connect(self, wait: float) -> Any:
        """A new autocommit connection, trying for ``wait`` seconds (a restarting server
        refuses connections for a while)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                db = self._pg.connect(self.url, autocommit=True, connect_timeout=10)
                break
            except self._pg.OperationalError as e:
                if time.monotonic() >= deadline:
                    raise IndexStoreError(
                        f"cannot connect to {self.location}: {str(e).strip()}"
                    ) from None
                time.sleep(0.5)
        if self.readonly:
            db.execute("SET default_transaction_read_only = on")
        else:
            # Documents' texts (tens of kilobytes) compress 3x faster with lz4 than with
            # the default pglz; a server built without lz4 keeps its default.
            with contextlib.suppress(self._pg.Error):
                db.execute("SET default_toast_compression = 'lz4'")
        return db

    def _reconnect(self) -> None:
        with contextlib.suppress(Exception):  # a broken connection may fail to close
            self.db.close()
        log.warning("lost the connection to %s; reconnecting", self.location)
        self.db = self._connect(wait=RECONNECT_SECONDS)

    def _read(self, run: Callable[[Any], T]) -> T:
        """``run(connection)`` for a read; a lost connection is opened again and the read
        run once more (not inside a snapshot, whose view a new connection cannot keep)."""
        try:
            return run(self.db)
        except self._pg.OperationalError:
            if self._snapshots or not self.db.broken:
                raise
        self._reconnect()
        return run(self.db)

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._read(lambda db: db.execute(sql, args).fetchall())

    def _one(self, sql: str, args: Sequence[Any] = ()) -> tuple[Any, ...]:
        rows = self._all(sql, args)
        if not rows:
            raise IndexStoreError(f"{self.location}: the lateseg tables are damaged ({sql[:40]})")
        return rows[0]

    def _write(self, body: Callable[[Any], T]) -> T:
        """``body(connection)`` in one transaction, run again on a conflict, a deadlock
        or a lost connection; any other error rolls it back and is raised."""
        if self.readonly:
            raise IndexStoreError(f"{self.location} is open read-only")
        pg = self._pg
        for attempt in range(RETRIES):
            try:
                with self.db.transaction():
                    return body(self.db)
            except (pg.errors.SerializationFailure, pg.errors.DeadlockDetected):
                if attempt == RETRIES - 1:
                    raise
                time.sleep(0.05 * 2**attempt)
            except pg.OperationalError:
                if not self.db.broken or attempt == RETRIES - 1:
                    raise
                self._reconnect()
        raise AssertionError("unreachable")

    def _has_tables(self) -> bool:
        row = self._all("SELECT to_regclass('lateseg_meta') IS NOT NULL")[0]
        return bool(row[0])

    def _create(self) -> None:
        def create(db: Any) -> None:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
            db.execute(TABLES)
            db.execute(
                "INSERT INTO lateseg_meta VALUES ('schema', %s), ('index_id', %s) "
                "ON CONFLICT DO NOTHING",
                (str(SCHEMA_VERSION), uuid.uuid4().hex),
            )

        self._write(create)

    def close(self) -> None:
        self.db.close()

    def reread_version(self) -> bool:
        return False

    def migrate(self, vectors: Any) -> list[str]:
        raise IndexStoreError(f"{self.location} needs no migration")

    # -- the manifest: a row of lateseg_meta -----------------------------------------
    def read_manifest(self, *, device: str | None = None) -> Manifest | None:
        rows = self._all("SELECT value, octet_length(value) FROM lateseg_meta WHERE key='manifest'")
        if not rows:
            return None
        if rows[0][1] > MAX_MANIFEST_BYTES:
            raise IndexStoreError(f"the manifest at {self.location} is over 1 MiB")
        return decode_manifest(rows[0][0].encode(), f"{self.location} (manifest)", device=device)

    def write_manifest(self, manifest: Manifest) -> None:
        self._write(
            lambda db: db.execute(
                "INSERT INTO lateseg_meta VALUES ('manifest', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (manifest_json(manifest),),
            )
        )

    # -- identity, counters, snapshots ---------------------------------------------
    def index_id(self) -> str:
        rows = self._all("SELECT value FROM lateseg_meta WHERE key='index_id'")
        return str(rows[0][0]) if rows else ""

    def _counters(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self._all("SELECT name, value FROM lateseg_counters")}

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one committed state (a repeatable-read transaction)."""
        if self._snapshots:
            yield
            return
        with self.db.transaction():
            self.db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            self._snapshots += 1
            try:
                yield
            finally:
                self._snapshots -= 1


def _text(value: str) -> str:
    """Text as PostgreSQL stores it: NUL is the one character it refuses, shown as
    U+FFFD (one character for one, so every offset stays)."""
    return value.replace("\0", "\ufffd") if "\0" in value else value
