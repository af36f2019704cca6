"""Index format 1 → 2, the store's part: the vectors of a format-1 folder (kept only in
its raw FAISS file) written into the docstore, and the documents whose vectors were never
saved encoded again (or else removed, for the next ingest to add)."""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

from lateseg.index.base import Store
from lateseg.index.vectors import VectorIndex
from lateseg.types import Chunk, Document

log = logging.getLogger(__name__)

#: Encodes a stored document again: its chunks and their vectors ``[n, dim]``.
Reencode = Callable[[Document], tuple[list[Chunk], np.ndarray]]


def vectors_into_store(store: Store, old: VectorIndex, reencode: Reencode | None) -> None:
    """Under the write lock: move ``old``'s vectors into ``store`` (which then holds the
    format-2 schema) and encode again with ``reencode`` what ``old`` lacks."""

    def take(ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        present = sorted(old.contains(ids))
        return np.asarray(present, dtype=np.int64), old.vectors(present)

    lacking = store.migrate(take)
    docs = store.documents_by_id(lacking)
    if docs and reencode is not None:
        log.warning("encoding %d documents whose vectors were never saved", len(docs))
        for doc in docs:
            chunks, vecs = reencode(doc)
            store.replace_document(doc, store.file_hash(doc.source) or "", chunks, vecs)
    elif docs:
        log.warning(
            "removing %d documents whose vectors were never saved; the next ingest adds them again",
            len(docs),
        )
        store.remove_sources([d.source for d in docs])
