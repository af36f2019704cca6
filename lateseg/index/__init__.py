"""Index storage: one index folder (``manifest.json`` + ``docstore.sqlite`` +
``vectors.faiss``) or a PostgreSQL location, as :class:`~lateseg.index.index.Index`.

The store (:mod:`lateseg.index.sqlite`, :mod:`lateseg.index.postgres`, both the
Protocols of :mod:`lateseg.index.base`) is the one source of truth; the FAISS vectors
(:mod:`~lateseg.index.vectors`, cached as :mod:`~lateseg.index.cache`) are derived from
it; :mod:`~lateseg.index.manifest` says what the index was built with; writes take the
folder's lock (:mod:`~lateseg.index.lock`) through a :class:`~lateseg.index.writer.Writer`.

Storage only: nothing here encodes, chunks, parses files or ranks. Opening a folder with
its encoder and chunker is :mod:`lateseg.open_index`; search is :mod:`lateseg.retrieve`.
May import :mod:`lateseg.errors`, :mod:`lateseg.types`, :mod:`lateseg.text`,
:mod:`lateseg.validate` and the configuration records of :mod:`lateseg.encode.config`.
"""

from __future__ import annotations

from lateseg.index.index import VECTORS, Index
from lateseg.index.manifest import Manifest, read_manifest, write_manifest
from lateseg.index.writer import Writer

__all__ = ["VECTORS", "Index", "Manifest", "Writer", "read_manifest", "write_manifest"]
