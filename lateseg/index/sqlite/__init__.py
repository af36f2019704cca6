"""SQLite store: the embedded default docstore of an index folder (``docstore.sqlite``),
built in parts: the schema, opening, migrating and transactions
(:mod:`~lateseg.index.sqlite.schema`), the rows and change log
(:mod:`~lateseg.index.sqlite.store`), lexical search (:mod:`~lateseg.index.sqlite.lexical`:
FTS5 BM25) and integrity (:mod:`~lateseg.index.sqlite.integrity`). The PostgreSQL store
(:mod:`lateseg.index.postgres`) has the same shape.
"""

from __future__ import annotations

from lateseg.index.sqlite.store import DocStore

__all__ = ["DocStore"]
