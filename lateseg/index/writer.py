"""The writes of one :meth:`lateseg.index.Index.writer` block (:class:`Writer`): each a
committed store transaction, applied to the vector cache at once, with the cache saved
now and then."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from lateseg.errors import InvariantError
from lateseg.index.base import Change, Store
from lateseg.types import DOC_ID, DOC_ID_LENGTH, Chunk, Document

# The cache is saved every SAVE_EVERY written documents, but a save (a rewrite of the
# whole file, O(index size)) waits until SAVE_WAIT times its own duration has passed
# since the last one, so saving takes at most a tenth of the writer's time even when the
# index is many gigabytes. Saving only shortens the catch-up of the next process to
# open the index; nothing is lost between saves.
SAVE_EVERY = 50
SAVE_WAIT = 9.0


class Cached(Protocol):
    """What a :class:`Writer` writes to (a :class:`lateseg.index.Index` under its write
    lock): the store, and the vector cache that every committed change is applied to."""

    store: Store
    dim: int

    @property
    def mutex(self) -> AbstractContextManager[Any]:
        """Held across a store write and its application to the cache."""
        ...

    def applied(self, change: Change, vectors: np.ndarray) -> None:
        """Apply the change just committed (its added chunks' ``vectors``) to the cache."""
        ...

    def save(self) -> None:
        """Save the cache file."""
        ...


class Writer:
    """Writes of one :meth:`Index.writer` block: each one a committed transaction,
    applied to the cache at once."""

    def __init__(self, index: Cached) -> None:
        self.index = index
        self.written = 0
        self._next_save = 0.0

    def add(
        self,
        doc: Document,
        digest: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        path: bytes | None = None,
    ) -> int:
        """Replace ``doc.source``'s document with ``doc``, its chunks and their vectors
        (one transaction); returns the number of chunks. The stored document's meta
        says when it was written (``indexed_at``, UTC, ISO 8601: ``lateseg index list``)."""
        if len(doc.id) != DOC_ID_LENGTH or not DOC_ID.fullmatch(doc.id):
            raise InvariantError(
                f"document ID {doc.id[:40]!r} is not {DOC_ID_LENGTH} hex digits (leave "
                "Document.id empty: it is made from the source and text)"
            )
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        doc = dataclasses.replace(doc, meta={**doc.meta, "indexed_at": stamp})
        index = self.index
        with index.mutex:
            change = index.store.replace_document(doc, digest, chunks, vectors, path)
            index.applied(change, np.asarray(vectors, dtype=np.float32))
        self._saved_now_and_then()
        return len(chunks)

    def remove(self, sources: Sequence[str]) -> list[str]:
        """Remove the documents of ``sources`` (one transaction); the sources that were
        indexed."""
        index = self.index
        with index.mutex:
            known = [s for s in dict.fromkeys(sources) if index.store.file_hash(s) is not None]
            change = index.store.remove_sources(known)
            if change is not None:
                index.applied(change, np.zeros((0, index.dim), np.float32))
        return known

    def _saved_now_and_then(self) -> None:
        self.written += 1
        if self.written % SAVE_EVERY == 0 and time.perf_counter() >= self._next_save:
            t0 = time.perf_counter()
            self.index.save()
            done = time.perf_counter()
            self._next_save = done + SAVE_WAIT * (done - t0)
