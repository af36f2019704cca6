"""PostgreSQL store, part 3: what ``lateseg index verify`` checks (chunk text against
document text, a vector for every chunk, the counters against the rows, a gapless change
log), what ``index compact`` does, and the tables' size."""

from __future__ import annotations

from lateseg.errors import IndexStoreError
from lateseg.index.base import span_mismatches
from lateseg.index.postgres.schema import TABLE_NAMES, PgBase


class PgIntegrity(PgBase):
    """Integrity checks and upkeep of the lateseg tables."""

    def problems(self, dim: int, *, deep_text_check: bool = False) -> list[str]:
        """Chunk text against document text, a vector of ``dim`` floats for every chunk,
        the counters against the rows, and a gapless change log (the server keeps its
        own pages consistent; ``deep_text_check`` has nothing to add here)."""
        out = []
        with self.snapshot():
            docs = self._all("SELECT id, text FROM lateseg_documents ORDER BY id")
            spans: dict[str, list[tuple[int, int, str]]] = {d: [] for d, _ in docs}
            for doc_id, start, end, text in self._all(
                'SELECT doc_id, start, "end", text FROM lateseg_chunks'
            ):
                spans[doc_id].append((start, end, text))
            if bad := span_mismatches((text, spans[d]) for d, text in docs):
                out.append(f"{bad} chunks whose text differs from their document's span")
            lacking, wrong, n, top, nchanges = self._one(
                "SELECT (SELECT COUNT(*) FROM lateseg_chunks c LEFT JOIN lateseg_vectors v "
                "ON v.chunk_id=c.id WHERE v.chunk_id IS NULL), "
                "(SELECT COUNT(*) FROM lateseg_vectors WHERE octet_length(vector) != %s), "
                "(SELECT COUNT(*) FROM lateseg_vectors), (SELECT MAX(chunk_id) FROM "
                "lateseg_vectors), (SELECT COUNT(*) FROM lateseg_changes)",
                (4 * dim,),
            )
            c = self._counters()
        if lacking:
            out.append(f"{lacking} chunks have no vector in the store")
        if wrong:
            out.append(f"{wrong} stored vectors are not {dim} float32 values")
        if c["vectors"] != n:
            out.append(f"the vector counter says {c['vectors']}, the store holds {n}")
        if top is not None and top >= c["next_chunk_id"]:
            out.append(f"chunk ID {top} is not below the next ID counter {c['next_chunk_id']}")
        if nchanges != c["seq"] - c["log_start"] + 1:
            out.append(
                f"the change log holds {nchanges} changes; its counters say "
                f"{c['log_start']}-{c['seq']}"
            )
        return out

    def compact(self) -> None:
        if self.readonly:
            raise IndexStoreError(f"{self.location} is open read-only")
        for table in TABLE_NAMES:
            self.db.execute(f"VACUUM (ANALYZE) {table}")

    def disk_bytes(self) -> dict[str, int]:
        """The lateseg tables' size on the server (with their indexes and TOAST)."""
        row = self._one(
            "SELECT COALESCE(SUM(pg_total_relation_size(to_regclass(t))), 0) "
            "FROM unnest(%s::text[]) t",
            (list(TABLE_NAMES),),
        )
        return {"postgresql": int(row[0])}
