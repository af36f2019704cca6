"""PostgreSQL store: one index shared by many writers and many machines.

The same shape as the SQLite store (:mod:`lateseg.index.store`): documents, chunks, their
vectors (``bytea``, float32) and the lexical index (a ``tsvector`` column computed by the
server, under a GIN index) change together, one transaction per document, and every write
appends a row to the change log, from which each process brings its FAISS cache (a file in
a local folder on its own machine) up to date before it searches.

Many writers at once: encoding happens outside the database, and each document's
transaction first locks the log's sequence row, so the short transactions that write rows
are ordered by the server and the log is gapless in commit order (a reader that sees
change *n* sees every change before it). A transaction that fails on a conflict, a
deadlock or a lost connection (a server restart) is retried on a new connection; writing
a document twice is harmless (the second write replaces the first), so a retry after a
commit whose answer was lost loses nothing either.

Every table is named ``lateseg_*``, in the connection's schema: an index can share a
database with other tables, and several indexes can share one database in several schemas
(``?options=-csearch_path%3Dteam_a`` in the URL).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from lateseg.errors import IndexStoreError
from lateseg.index.base import (
    Change,
    LogState,
    box_blob_fits,
    check_same_file,
    decode_boxes,
    document_from_row,
    document_summary,
    encode_boxes,
    id_array,
    matrix,
    query_words,
    span_mismatches,
    vector_blobs,
)
from lateseg.index.manifest import MAX_MANIFEST_BYTES, Manifest, decode_manifest, manifest_json
from lateseg.types import Chunk, Document, LineBox

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


class PgStore:
    """The :class:`~lateseg.index.base.Store` on a PostgreSQL server at ``url``.

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

    # -- the change log ------------------------------------------------------------
    def index_id(self) -> str:
        rows = self._all("SELECT value FROM lateseg_meta WHERE key='index_id'")
        return str(rows[0][0]) if rows else ""

    def log_state(self) -> LogState:
        c = self._counters()
        return LogState(c.get("seq", 0), c.get("log_start", 1), c.get("vectors", 0))

    def _counters(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self._all("SELECT name, value FROM lateseg_counters")}

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
        :meth:`lateseg.index.store.DocStore.replace_document`)."""
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

    def lexical(
        self, query: str, k: int, *, source: str | None = None, kind: str | None = None
    ) -> list[tuple[int, float]]:
        """Up to ``k`` ``(chunk_id, score)`` by PostgreSQL's ``ts_rank`` (term frequency,
        divided by 1 + log of the chunk's length; not BM25), over any content word."""
        words = query_words(query)
        if not words:
            return []
        match = " | ".join(f"'{w}'" for w in words)  # \w+ only: no quote, no operator
        where, extra = _document_filter(source, kind)
        rows = self._all(
            "SELECT c.id, ts_rank(c.words, q, 1) AS score FROM lateseg_chunks c "
            "JOIN lateseg_documents d ON d.id=c.doc_id, "
            f"to_tsquery('{TEXT_CONFIG}', %s) q WHERE c.words @@ q{where} "
            "ORDER BY score DESC, c.id LIMIT %s",
            [match, *extra, int(k)],
        )
        return [(int(r[0]), float(r[1])) for r in rows]

    def phrase_sources(self, phrase: str, limit: int = 50) -> list[str]:
        words = [w for w in phrase.lower().split() if w]
        if not words:
            return []
        rows = self._all(
            "SELECT DISTINCT d.source FROM lateseg_chunks c JOIN lateseg_documents d "
            f"ON d.id=c.doc_id WHERE c.words @@ phraseto_tsquery('{TEXT_CONFIG}', %s) LIMIT %s",
            (_text(" ".join(words)), int(limit)),
        )
        return [str(r[0]) for r in rows]

    def chunk_filter(self, ids: Sequence[int], *, source: str | None, kind: str | None) -> set[int]:
        if not ids:
            return set()
        where, extra = _document_filter(source, kind)
        rows = self._all(
            "SELECT c.id FROM lateseg_chunks c JOIN lateseg_documents d ON d.id=c.doc_id "
            f"WHERE c.id = ANY(%s){where}",
            [[int(i) for i in ids], *extra],
        )
        return {int(r[0]) for r in rows}

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

    # -- integrity and upkeep --------------------------------------------------------
    def problems(self, dim: int, *, deep_text_check: bool = False) -> list[str]:
        """Chunk text against document text, a vector of ``dim`` floats for every chunk,
        the counters against the rows, and a gapless change log (the server keeps its
        own pages consistent; ``deep_text_check`` has nothing to add here)."""
        out = []
        with self.snapshot():
            docs = self._all("SELECT id, text FROM lateseg_documents ORDER BY id")
            spans: dict[str, list[tuple[int, int, str]]] = {d: [] for d, _ in docs}
            for doc_id, start, end, text in self._all(
                'SELECT doc_id, start, "end", text FROM lateseg_chunks'
            ):
                spans[doc_id].append((start, end, text))
            if bad := span_mismatches((text, spans[d]) for d, text in docs):
                out.append(f"{bad} chunks whose text differs from their document's span")
            lacking, wrong, n, top, nchanges = self._one(
                "SELECT (SELECT COUNT(*) FROM lateseg_chunks c LEFT JOIN lateseg_vectors v "
                "ON v.chunk_id=c.id WHERE v.chunk_id IS NULL), "
                "(SELECT COUNT(*) FROM lateseg_vectors WHERE octet_length(vector) != %s), "
                "(SELECT COUNT(*) FROM lateseg_vectors), (SELECT MAX(chunk_id) FROM "
                "lateseg_vectors), (SELECT COUNT(*) FROM lateseg_changes)",
                (4 * dim,),
            )
            c = self._counters()
        if lacking:
            out.append(f"{lacking} chunks have no vector in the store")
        if wrong:
            out.append(f"{wrong} stored vectors are not {dim} float32 values")
        if c["vectors"] != n:
            out.append(f"the vector counter says {c['vectors']}, the store holds {n}")
        if top is not None and top >= c["next_chunk_id"]:
            out.append(f"chunk ID {top} is not below the next ID counter {c['next_chunk_id']}")
        if nchanges != c["seq"] - c["log_start"] + 1:
            out.append(
                f"the change log holds {nchanges} changes; its counters say "
                f"{c['log_start']}-{c['seq']}"
            )
        return out

    def compact(self) -> None:
        if self.readonly:
            raise IndexStoreError(f"{self.location} is open read-only")
        for table in TABLE_NAMES:
            self.db.execute(f"VACUUM (ANALYZE) {table}")

    def disk_bytes(self) -> dict[str, int]:
        """The lateseg tables' size on the server (with their indexes and TOAST)."""
        row = self._one(
            "SELECT COALESCE(SUM(pg_total_relation_size(to_regclass(t))), 0) "
            "FROM unnest(%s::text[]) t",
            (list(TABLE_NAMES),),
        )
        return {"postgresql": int(row[0])}


_CHUNK_KEYS = ("id", "doc_id", "start", "end", "text", "section", "page", "source", "kind",
               "file_hash")  # fmt: skip


def _text(value: str) -> str:
    """Text as PostgreSQL stores it: NUL is the one character it refuses, shown as
    U+FFFD (one character for one, so every offset stays)."""
    return value.replace("\0", "\ufffd") if "\0" in value else value


def _document_filter(source: str | None, kind: str | None) -> tuple[str, list[Any]]:
    """SQL conditions on the joined ``d`` row: a source glob (as SQLite's GLOB: ``*``,
    ``?``, ``[...]``, case-sensitive) and a kind."""
    sql, args = "", []
    if source is not None:
        regex = glob_regex(source)
        sql += " AND FALSE" if regex is None else " AND d.source ~ %s"
        args += [] if regex is None else [regex]
    if kind is not None:
        sql += " AND d.kind = %s"
        args.append(kind)
    return sql, args


def glob_regex(glob: str) -> str | None:
    """A POSIX regular expression (PostgreSQL's ``~``) matching what SQLite's ``GLOB``
    matches, or None where GLOB matches nothing (a set never closed, or one that holds
    no character). ``*`` is any text, ``?`` one character, ``[...]`` one of a set
    (``a-z`` ranges by code point, ``^`` first inverts, ``]`` first is a member);
    everything else is literal, and the whole name must match."""
    out, i = ["^"], 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            parsed = _glob_set(glob, i + 1)
            if parsed is None:
                return None
            part, i = parsed
            if part is None:
                return None
            out.append(part)
        else:
            out.append(_literal(ch))
        i += 1
    return "".join(out) + "$"


def _glob_set(glob: str, i: int) -> tuple[str | None, int] | None:
    """The set starting at ``glob[i]`` (after its ``[``), read as SQLite reads it: the
    bracket expression (None: it holds no character) and the index of its ``]``; None
    when it is never closed."""
    invert = i < len(glob) and glob[i] == "^"
    i += invert
    members: list[str] = []
    if i < len(glob) and glob[i] == "]":
        members.append("\\]")
        i += 1
    prior = ""
    while i < len(glob) and glob[i] != "]":
        c = glob[i]
        if c == "-" and prior and i + 1 < len(glob) and glob[i + 1] != "]":
            hi = glob[i + 1]
            if prior <= hi:
                members[-1] = f"{_literal(prior)}-{_literal(hi)}"
            # (a reversed range holds nothing: the lone prior character stays)
            prior = ""
            i += 2
            continue
        members.append(_literal(c))
        prior = c
        i += 1
    if i >= len(glob):
        return None
    if not members:
        return (".", i) if invert else (None, i)
    return f"[{'^' if invert else ''}{''.join(members)}]", i


def _literal(ch: str) -> str:
    """``ch`` matched literally, in or out of a bracket expression (a backslash before
    a character that is not a letter or digit is that character)."""
    return ch if ch.isalnum() else "\\" + ch
