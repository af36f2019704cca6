"""Move an index to another embedder (or chunker): every stored document encoded again
into a new index, the old one only read.

The documents are taken from the old index's store, not from their files (which may
have moved or changed since): the same text, structure, meta and line boxes, under the
same source, with the same file hash and file name, so a later ``lateseg ingest`` of the
same folders into the new index finds them unchanged.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from lateseg.encode.late import LateEncoder
from lateseg.errors import IndexStoreError
from lateseg.index import Index
from lateseg.scale.encoding import encode_document
from lateseg.segment import Chunker


def reindex(
    old: Index,
    new: Index,
    encoder: LateEncoder,
    chunker: Chunker,
    progress: Callable[[str], None] | None = None,
) -> dict[str, int]:
    """Encode every document of ``old`` with ``encoder`` and ``chunker`` into ``new``
    (which must hold no documents); ``progress(source)`` after each. Returns the counts
    written: ``documents`` and ``chunks``."""
    if new.store.counts()[0]:
        raise IndexStoreError(f"{new.location} already holds documents; reindex into a new one")
    paths = dict(old.store.source_paths())
    documents = chunks = 0
    with new.writer() as writer:
        for source in old.store.sources():
            doc = old.store.document(source)
            digest = old.store.file_hash(source)
            if doc is None or digest is None:  # removed meanwhile by another writer
                continue
            lines = old.store.line_boxes(doc.id, len(doc.text))
            if lines:
                doc = dataclasses.replace(doc, lines=tuple(lines))
            pieces, vectors = encode_document(encoder, chunker, doc)
            path = paths.get(source, source)
            name = os.fsencode(path) if os.path.isabs(path) else None
            chunks += writer.add(doc, digest, pieces, vectors, name)
            documents += 1
            if progress is not None:
                progress(source)
    return {"documents": documents, "chunks": chunks}
