"""PostgreSQL store, part 2: lexical search (a ``tsvector`` column the server computes
from each chunk's text, under a GIN index) and the filters on a chunk's document (a
source glob, a kind) that every search takes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lateseg.index.base import query_words
from lateseg.index.postgres.glob import glob_regex
from lateseg.index.postgres.schema import TEXT_CONFIG, PgBase, _text


class PgLexical(PgBase):
    """Word search and document filters over the lateseg tables."""

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
