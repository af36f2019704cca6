"""PostgreSQL store: one index shared by many writers and many machines.

The same shape as the SQLite store (:mod:`lateseg.index.sqlite.store`): documents, chunks, their
vectors (``bytea``, float32) and the lexical index (a ``tsvector`` column computed by the
server, under a GIN index) change together, one transaction per document, and every write
appends a row to the change log, from which each process brings its FAISS cache (a file in
a local folder on its own machine) up to date before it searches.

This module is the entry point: what an index location's URL opens (:class:`PgStore`) and
how a location is told from a folder. The store is built in parts, as the SQLite one is:
the schema, connections and transactions (:mod:`lateseg.index.postgres.schema`), the rows and
the change log (:mod:`lateseg.index.postgres.store`), lexical search and filters
(:mod:`lateseg.index.postgres.lexical`) and integrity (:mod:`lateseg.index.postgres.integrity`).
"""

from __future__ import annotations

from lateseg.index.postgres.schema import is_store_url, shown_url
from lateseg.index.postgres.store import PgStore

__all__ = ["PgStore", "is_store_url", "shown_url"]
