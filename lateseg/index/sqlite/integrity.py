"""SQLite store, part 3: what ``lateseg index verify`` checks (SQLite's own integrity, the
text index against the chunks, chunk text against document text, a vector for every
chunk, the counters) and what ``index compact`` does."""

from __future__ import annotations

import sqlite3

from lateseg.index.base import span_mismatches
from lateseg.index.sqlite.schema import SqliteBase


class SqliteIntegrity(SqliteBase):
    """Integrity checks and compaction of the docstore."""

    def problems(self, dim: int, *, deep_text_check: bool = False) -> list[str]:
        """SQLite and text-index integrity, chunk text against document text, and (at
        the current schema) a vector of ``dim`` floats for every chunk.

        The text index is checked row for row (one entry per chunk); ``deep_text_check``
        also runs FTS5's own token-level check, which SQLite runs as a write statement,
        so only a writable connection with no other writer at work can ask for it.
        """
        with self.snapshot():  # one committed state, though a writer commits meanwhile
            out, deep = self._checks(dim)
        if deep and deep_text_check and not self.readonly:
            try:  # a write statement: after the read transaction, never inside it
                self.db.execute(
                    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)"
                )
            except sqlite3.DatabaseError as e:
                out.append(f"text index out of step with chunks: {e}")
        return out

    def _checks(self, dim: int) -> tuple[list[str], bool]:
        """Inside a snapshot: the problems found, and whether FTS5's own token-level check
        can add anything (the text index is there and row for row in step)."""
        out = []
        deep = False
        check = self.db.execute("PRAGMA integrity_check").fetchall()
        if check != [("ok",)]:
            out.append("sqlite integrity: " + "; ".join(str(r[0]) for r in check[:5]))
        if self.has_fts:
            missing, stray = self.db.execute(
                "SELECT (SELECT COUNT(*) FROM chunks WHERE id NOT IN "
                "(SELECT id FROM chunks_fts_docsize)), (SELECT COUNT(*) FROM "
                "chunks_fts_docsize WHERE id NOT IN (SELECT id FROM chunks))"
            ).fetchone()
            if missing or stray:
                out.append(
                    f"text index out of step with chunks: {missing} chunks missing, "
                    f"{stray} entries without a chunk"
                )
            deep = not (missing or stray)
        bad = span_mismatches(
            (text, self.db.execute('SELECT start, "end", text FROM chunks WHERE doc_id=?', (i,)))
            for i, text in self.db.execute("SELECT id, text FROM documents")
        )
        if bad:
            out.append(f"{bad} chunks whose text differs from their document's span")
        if self.legacy:
            return out, deep
        lacking = self.db.execute(
            "SELECT COUNT(*) FROM chunks c LEFT JOIN vectors v ON v.chunk_id=c.id "
            "WHERE v.chunk_id IS NULL"
        ).fetchone()[0]
        if lacking:
            out.append(f"{lacking} chunks have no vector in the docstore")
        wrong = self.db.execute(
            "SELECT COUNT(*) FROM vectors WHERE length(vector) != ?", (4 * dim,)
        ).fetchone()[0]
        if wrong:
            out.append(f"{wrong} stored vectors are not {dim} float32 values")
        c = self._counters()
        n, top = self.db.execute("SELECT COUNT(*), MAX(chunk_id) FROM vectors").fetchone()
        if c["vectors"] != n:
            out.append(f"the vector counter says {c['vectors']}, the docstore holds {n}")
        if top is not None and top >= c["next_chunk_id"]:
            out.append(f"chunk ID {top} is not below the next ID counter {c['next_chunk_id']}")
        return out, deep

    def compact(self) -> None:
        self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
