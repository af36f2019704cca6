"""SQLite store, part 2: lexical search (FTS5 BM25 with Porter stemming, kept in step
with the chunks by triggers) and the filters on a chunk's document (a source glob, a
kind) that every search takes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lateseg.errors import IndexStoreError
from lateseg.index.base import query_words
from lateseg.index.sqlite.schema import SqliteBase
from lateseg.text.words import terms


def fts_query(text: str) -> str | None:
    """An FTS5 query matching any content word of ``text`` (quoted: no operators are
    taken from user input), or None when there is none."""
    words = query_words(text)
    return " OR ".join(f'"{w}"' for w in words) if words else None


class SqliteLexical(SqliteBase):
    """Word search and document filters over the docstore."""

    def lexical(
        self, query: str, k: int, *, source: str | None = None, kind: str | None = None
    ) -> list[tuple[int, float]]:
        """Up to ``k`` ``(chunk_id, score)`` by BM25 (higher is better), optionally only
        chunks of sources matching the glob ``source`` or of documents of ``kind``."""
        if not self.has_fts:
            raise IndexStoreError(
                f"{self.path} predates lexical search; any ingest into it (or `lateseg "
                "index compact`) adds the text index"
            )
        match = fts_query(query)
        if match is None:
            return []
        sql = (
            "SELECT f.rowid, -bm25(chunks_fts) FROM chunks_fts f "
            "JOIN chunks c ON c.id=f.rowid JOIN documents d ON d.id=c.doc_id "
            "WHERE chunks_fts MATCH ?"
        )
        where, extra = _document_filter(source, kind)
        sql += where + " ORDER BY bm25(chunks_fts) LIMIT ?"
        args: list[Any] = [match, *extra, k]
        return [(int(r[0]), float(r[1])) for r in self.db.execute(sql, args)]

    def phrase_sources(self, phrase: str, limit: int = 50) -> list[str]:
        """The sources (at most ``limit``) with a chunk holding ``phrase``'s words in a
        row (FTS5 phrase match, stemmed; only its words are used, no operators)."""
        words = terms(phrase)
        if not words or not self.has_fts:
            return []
        sql = (
            "SELECT DISTINCT d.source FROM chunks_fts f JOIN chunks c ON c.id=f.rowid "
            "JOIN documents d ON d.id=c.doc_id WHERE chunks_fts MATCH ? LIMIT ?"
        )
        return [r[0] for r in self.db.execute(sql, ('"' + " ".join(words) + '"', int(limit)))]

    def chunk_filter(self, ids: Sequence[int], *, source: str | None, kind: str | None) -> set[int]:
        """The IDs among ``ids`` whose document matches the source glob and kind."""
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        sql = f"SELECT c.id FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE c.id IN ({marks})"
        where, extra = _document_filter(source, kind)
        return {int(r[0]) for r in self.db.execute(sql + where, [*ids, *extra])}


def _document_filter(source: str | None, kind: str | None) -> tuple[str, list[Any]]:
    """SQL conditions on the joined ``documents d`` row: source glob and kind."""
    sql, args = "", []
    if source is not None:
        sql += " AND d.source GLOB ?"
        args.append(source)
    if kind is not None:
        sql += " AND d.kind=?"
        args.append(kind)
    return sql, args
