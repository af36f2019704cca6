"""One index folder: ``manifest.json`` + ``docstore.sqlite`` + ``vectors.faiss``.

The docstore is the one source of truth: documents, chunks and their vectors are
written together, one transaction per document, so the folder is consistent at every
instant (SQLite's atomic commit). ``vectors.faiss`` is a cache of the vectors for
search; it records the last change it includes, and any process brings its copy up to
date from the docstore's change log before it searches or writes
(:meth:`Index.refresh`). A missing, stale, foreign or damaged cache file is rebuilt
from the docstore, with a notice; it is never "repaired" by deleting documents.

Writes go through :meth:`Index.writer` only: it takes the single-writer lock
(:mod:`lateseg.index.lock`), migrates a format-1 folder (:mod:`lateseg.index.migrate`),
catches up with the log (so no process ever writes back a stale copy), writes (a
:class:`~lateseg.index.writer.Writer`, which saves the cache now and then: saving
concerns the cache only, durability is the store's) and unlocks. Readers take no lock and
never modify the folder, so a read-only index opens for search.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.errors import IndexStoreError
from lateseg.index.base import Change, Store
from lateseg.index.cache import CacheError, is_cache_file, load_cache, save_cache
from lateseg.index.lock import WriteLock, take_write_lock, writer_at_work
from lateseg.index.manifest import Manifest, read_manifest, write_manifest
from lateseg.index.migrate import Reencode, vectors_into_store
from lateseg.index.stores import open_store
from lateseg.index.vectors import APPROX_THRESHOLD, PQ_MIN_TRAIN, VectorIndex, check_policy
from lateseg.index.writer import Writer

log = logging.getLogger(__name__)

__all__ = ["Index", "Manifest", "Writer", "read_manifest", "write_manifest"]

VECTORS = "vectors.faiss"
# Changes kept in the log behind the saved cache, so a long-lived process that fell a
# little behind catches up from the log instead of reloading the whole file.
LOG_KEEP = 10_000


class Index:
    """Store + vector cache. ``writable=False`` never writes (a folder that cannot be
    written opens that way too).

    ``folder`` holds the vector cache (and, for the SQLite store, everything: the store
    is then ``folder/docstore.sqlite``); ``store`` is another :class:`~lateseg.index.base.Store`
    (PostgreSQL), whose cache lives in ``folder`` on this machine."""

    def __init__(
        self,
        folder: Path,
        manifest: Manifest,
        *,
        writable: bool = True,
        store: Store | None = None,
    ) -> None:
        self.folder = folder
        self.manifest = manifest
        self.dim = manifest.dim
        self.store: Store = store or open_store(folder, writable=writable)
        #: Where the index is, for messages: a folder, or a URL without its password.
        self.location = self.store.location
        #: Encodes documents again during a migration (set by the Pipeline).
        self.reencode: Reencode | None = None
        self._wanted_policy: str | None = None
        self._lock: WriteLock | None = None
        self.mutex = threading.RLock()  # the cache and the connection, across threads
        self._seq: int | None = None  # the last change the in-memory cache includes
        self._disk_seq: int | None = None  # the last change the file on disk includes
        self.notice: str | None = None  # why the cache was rebuilt, if it was
        self._pinned = threading.local()  # inside caught_up(): no further refreshes
        self.vectors = self._load()

    # -- the cache -------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self.folder / VECTORS

    @property
    def policy(self) -> str:
        """The vector policy (the manifest's ``vectors``, or one given at open and not
        written yet)."""
        return self._wanted_policy or self.manifest.vectors

    def _load(self) -> VectorIndex:
        """The cache from the file and the change log, else rebuilt from the docstore."""
        if self.store.legacy:
            # Format 1: the raw FAISS file is all there is; read it as it is.
            self._seq = self._disk_seq = None
            path = self.path
            if path.exists() and not is_cache_file(path):
                return VectorIndex(self.dim, path)
            return VectorIndex(self.dim)
        index_id = self.store.index_id()
        reason = None
        for _ in range(3):  # a writer may save a newer file (and trim the log) meanwhile
            try:
                vectors, header = load_cache(self.path, self.dim, index_id)
            except CacheError as e:
                reason = e
                break
            with self.store.snapshot():
                state = self.store.log_state()
                if header.seq > state.seq:
                    reason = CacheError("ahead", f"{self.path} is ahead of the docstore")
                    break
                if header.seq + 1 < state.log_start:
                    reason = CacheError("old", f"{self.path} is older than the change log")
                    continue
                self._apply(vectors, header.seq)
            self._seq = state.seq
            self._disk_seq = header.seq
            if len(vectors) == state.vectors:
                self.notice = None
                return vectors
            reason = CacheError("damaged", f"{self.path} disagrees with the docstore")
            break
        assert reason is not None
        if reason.reason != "missing" or self.store.log_state().vectors:
            self.notice = f"{reason}; rebuilt the vector cache from the docstore"
            # A server's index seen first from this machine (or this cache folder) has
            # no cache here yet: expected, not a fault.
            first_here = reason.reason == "missing" and self.store.concurrent_writers
            (log.info if first_here else log.warning)("%s", self.notice)
        self._disk_seq = None
        return self._rebuild()

    def _rebuild(self, kind: str | None = None) -> VectorIndex:
        """A new cache of every vector in the docstore, as ``kind`` (default: what the
        policy asks for this many vectors)."""
        vectors = VectorIndex(self.dim)
        with self.store.snapshot():
            state = self.store.log_state()
            want = kind or self._kind_for(state.vectors)
            vectors.rebuild(
                want if want != "ivfpq" or state.vectors >= PQ_MIN_TRAIN else "flat",
                lambda: self.store.iter_vectors(self.dim),
                state.vectors,
            )
            self._seq = state.seq
        return vectors

    def _kind_for(self, n: int) -> str:
        policy = self.policy
        if policy == "auto":
            return "hnsw" if n >= APPROX_THRESHOLD else "flat"
        return policy

    def _apply(self, vectors: VectorIndex, since: int) -> None:
        """Inside a snapshot: apply the logged changes after ``since`` to ``vectors``."""
        removed: set[int] = set()
        added: dict[int, None] = {}
        for change in self.store.changes_since(since):
            for cid in change.removed.tolist():
                if cid in added:
                    del added[cid]
                else:
                    removed.add(cid)
            added.update(dict.fromkeys(range(change.first_id, change.first_id + change.added)))
        ids, data = self.store.vectors_of(list(added), self.dim)
        vectors.remove(sorted(removed))
        vectors.add(ids.tolist(), data)

    def refresh(self) -> None:
        """Bring the cache up to the docstore's last committed change (cheap when
        nothing changed: one read of the counters; none inside :meth:`caught_up`)."""
        if getattr(self._pinned, "on", False):
            return
        with self.mutex:
            if self.store.legacy:
                if self.store.reread_version() and not self.store.legacy:
                    self.vectors = self._load()  # another process migrated it
                return
            state = self.store.log_state()
            if state.seq == self._seq:
                return
            assert self._seq is not None
            with self.store.snapshot():
                state = self.store.log_state()
                usable = state.log_start <= self._seq + 1 <= state.seq + 1
                if usable:
                    self._apply(self.vectors, self._seq)
                    self._seq = state.seq
            if not usable or len(self.vectors) != state.vectors:
                self.vectors = self._load()

    @contextmanager
    def caught_up(self) -> Iterator[None]:
        """Refresh once, then read without checking the log again in this thread until
        the block ends: the several reads of one search see the state at its start (one
        round trip to a server's log instead of one per read)."""
        self.refresh()
        if getattr(self._pinned, "on", False):
            yield
            return
        self._pinned.on = True
        try:
            yield
        finally:
            self._pinned.on = False

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores and chunk IDs ``[q, k]`` from the up-to-date cache (ID -1: none)."""
        with self.mutex:
            self.refresh()
            return self.vectors.search(queries, k)

    def count(self) -> int:
        """Vectors in the up-to-date cache."""
        with self.mutex:
            self.refresh()
            return len(self.vectors)

    def file_hash(self, source: str) -> str | None:
        """The content hash ``source`` was indexed with, or None when it is not indexed
        (read under the writer's lock, it cannot change before the write)."""
        return self.store.file_hash(source)

    def source_paths(self) -> list[tuple[str, str]]:
        """(source, file path) of every indexed document (what ``prune`` compares)."""
        return self.store.source_paths()

    def contains(self, ids: Sequence[int]) -> set[int]:
        """The IDs among ``ids`` that have a vector in the cache."""
        with self.mutex:
            return self.vectors.contains(ids)

    def applied(self, change: Change, vectors: np.ndarray) -> None:
        """Under the write lock: apply ``change``, just committed by this process, to the
        cache (``vectors``: its added chunks')."""
        assert self._seq is not None
        if change.seq != self._seq + 1:
            # Another writer's changes came in between (a store with concurrent
            # writers): catch up from the log, which holds this change too.
            self.refresh()
            return
        self.vectors.remove(change.removed.tolist())
        self.vectors.add(list(range(change.first_id, change.first_id + change.added)), vectors)
        self._seq = change.seq

    def save(self) -> None:
        """Under the write lock: save the cache (first rebuilt as the policy asks, see
        :meth:`VectorIndex.apply`) and trim the change log it makes unnecessary."""
        with self.mutex:
            self._require_lock()
            if self.store.legacy or self._seq is None:
                return
            self.vectors.apply(self.policy)
            save_cache(self.path, self.vectors, self.store.index_id(), self._seq)
            self._disk_seq = self._seq
            if self._seq - LOG_KEEP >= self.store.log_state().log_start:
                self.store.forget_changes(self._seq - LOG_KEEP)

    # -- writing ---------------------------------------------------------------------
    @contextmanager
    def writer(self) -> Iterator[Writer]:
        """The one way to write: lock, migrate a format-1 folder, catch up, write (the
        :class:`Writer`), save the cache if it changed, unlock."""
        self.lock()
        try:
            with self.mutex:
                if self.store.legacy:
                    self._migrate()
                if self._wanted_policy is not None:
                    self._write_policy(self._wanted_policy)
                self.refresh()
            try:
                yield Writer(self)
            finally:
                with self.mutex:
                    if self._seq != self._disk_seq:
                        self.save()
        finally:
            self.unlock()

    def _migrate(self) -> None:
        """Format 1 → 2: vectors into the docstore (:mod:`lateseg.index.migrate`), then a
        new cache file and manifest."""
        kind = self.vectors.kind
        vectors_into_store(self.store, self.vectors, self.reencode)
        log.info("migrated %s to index format 2 (vectors in the docstore)", self.folder)
        self.vectors = self._rebuild(kind)
        self.save()
        self.manifest = dataclasses.replace(self.manifest, dim=self.dim, version=2)
        self.store.write_manifest(self.manifest)

    def set_policy(self, policy: str) -> None:
        """Keep ``policy`` as the vector policy: written to the manifest (and applied to
        the cache) at the next write."""
        self._wanted_policy = check_policy(policy)
        if self._lock is not None:
            self._write_policy(self._wanted_policy)

    def _write_policy(self, policy: str) -> None:
        if policy != self.manifest.vectors:
            m = self.manifest
            self.manifest = dataclasses.replace(m, vectors=policy)
            self.store.write_manifest(self.manifest)
        self._wanted_policy = None

    def lock(self) -> None:
        """Take the single-writer lock, or raise if another process is writing."""
        if self._lock is not None:
            return
        if self.store.readonly:
            raise IndexStoreError(
                f"{self.location} is read-only here; it can be searched, not written"
            )
        if self.store.concurrent_writers:  # the store orders the writes itself
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock = WriteLock()
            return
        self._lock = take_write_lock(self.folder)

    def unlock(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _require_lock(self) -> None:
        if self._lock is None:
            raise IndexStoreError("writing needs the write lock (use Index.writer())")

    # -- maintenance -----------------------------------------------------------------
    def problems(self) -> list[str]:
        """What is inconsistent, changing nothing (``lateseg index verify``): SQLite and
        text-index integrity, a vector for every chunk, and the cache file against the
        docstore, vector for vector."""
        with self.mutex:
            out = self.store.problems(self.dim, deep_text_check=self._idle())
            if self.store.legacy:
                return out + self._legacy_problems()
            try:
                vectors, header = load_cache(self.path, self.dim, self.store.index_id())
            except CacheError as e:
                if e.reason != "missing":
                    out.append(f"{e} (it is rebuilt on open; `lateseg index compact` saves it)")
                return out
            with self.store.snapshot():
                state = self.store.log_state()
                if not state.log_start <= header.seq + 1 <= state.seq + 1:
                    return [
                        *out,
                        f"{self.path} is from change {header.seq}, which the "
                        f"docstore's log (changes {state.log_start}-{state.seq}) cannot "
                        "bring up to date (it is rebuilt on open)",
                    ]
                self._apply(vectors, header.seq)
                out += self._compare(vectors)
            return out

    def _idle(self) -> bool:
        """Whether no other process is writing (this one holds the lock, or the lock is
        free: probed without creating or changing anything)."""
        if self._lock is not None or self.store.concurrent_writers:
            return True
        return not writer_at_work(self.folder)

    def _compare(self, vectors: VectorIndex) -> list[str]:
        """Inside a snapshot: the cache ``vectors`` against the docstore's vectors."""
        ids, data = vectors.all_vectors()
        order = np.argsort(ids)
        ids, data = ids[order], data[order]
        parts = list(self.store.iter_vectors(self.dim))
        db_ids = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        out = []
        if missing := len(np.setdiff1d(db_ids, ids)):
            out.append(f"{missing} chunks have no vector in {VECTORS}")
        if stray := len(np.setdiff1d(ids, db_ids)):
            out.append(f"{stray} vectors in {VECTORS} have no chunk")
        if not missing and not stray and len(ids):
            db = vectors.stored_form(np.concatenate([p[1] for p in parts]))
            if differ := int(np.count_nonzero(np.abs(db - data).max(axis=1) > 1e-5)):
                out.append(f"{differ} vectors in {VECTORS} differ from the docstore's")
        return out

    def _legacy_problems(self) -> list[str]:
        rows = self.store.all_chunk_ids()
        vec_ids = set(self.vectors.ids().tolist())
        out = []
        if missing := len(rows.keys() - vec_ids):
            out.append(f"{missing} chunks have no vector (index format 1; any write migrates it)")
        if stray := len(vec_ids - rows.keys()):
            out.append(f"{stray} vectors have no chunk")
        return out

    def stats(self) -> dict[str, Any]:
        self.refresh()
        docs, chunks = self.store.counts()
        state = self.store.log_state()
        return {
            "folder": str(self.folder),
            "location": self.location,
            "format": 1 if self.store.legacy else 2,
            "documents": docs,
            "chunks": chunks,
            "vectors": len(self.vectors),
            "vector_index": self.vectors.kind,
            "vector_policy": self.policy,
            "vector_precision": self.manifest.precision,
            "removed_not_compacted": self.vectors.tombstones(),
            "changes": state.seq,
            "cache_changes_behind": None if self._disk_seq is None else state.seq - self._disk_seq,
            "documents_by_kind": self.store.kinds(),
            "bytes": self._bytes(),
        }

    def compact(self, vectors: str | None = None) -> dict[str, Any]:
        """Reclaim space: SQLite VACUUM, FTS merge, and the vector cache rebuilt from the
        docstore (as ``vectors`` = ``auto``/``flat``/``hnsw``/``ivf``/``ivfpq`` when
        given, which also becomes the index's policy; else as the kind it is) and saved.
        Returns the folder's size in bytes before and after, and the vector index kind."""

        def size() -> int:
            return sum(self._bytes().values())

        before = size()
        with self.writer(), self.mutex:
            self.store.compact()
            if vectors is not None:
                self.set_policy(vectors)
                kind = self._kind_for(self.store.log_state().vectors)
            else:
                kind = self.vectors.kind
            self.vectors = self._rebuild(kind)
            self._disk_seq = None  # saved when the writer closes
        return {"bytes_before": before, "bytes_after": size(), "vectors": self.vectors.kind}

    def _bytes(self) -> dict[str, int]:
        """The store's size on disk and the cache file's."""
        out = self.store.disk_bytes()
        if self.path.is_file():
            out[VECTORS] = self.path.stat().st_size
        return out

    def close(self) -> None:
        self.unlock()
        self.store.close()
