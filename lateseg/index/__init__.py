"""One index folder: ``manifest.json`` + ``docstore.sqlite`` + ``vectors.faiss``.

The docstore is the source of truth; vectors are saved atomically after ingest batches.
On open the two are reconciled: vectors without rows are dropped, and documents whose
chunks lack vectors (an ingest killed before the vectors were saved) are removed so the
next ingest adds them again. Reconciling needs the write lock: while another process is
ingesting, its rows that have no saved vectors yet are work in progress, not damage, so
a reader leaves them alone (and its searches skip chunks without vectors).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from pathlib import Path
from typing import Any

from lateseg.errors import IndexStoreError
from lateseg.index.store import DocStore

log = logging.getLogger(__name__)

FORMAT = "lateseg-index"
FORMAT_VERSION = 1


def read_manifest(folder: Path) -> dict[str, Any] | None:
    path = folder / "manifest.json"
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as e:
        raise IndexStoreError(f"{path} is not a readable manifest: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise IndexStoreError(f"{folder} is not a lateseg index (manifest format differs)")
    if manifest.get("version") != FORMAT_VERSION:
        raise IndexStoreError(
            f"{folder} has index format {manifest.get('version')}; this lateseg reads "
            f"{FORMAT_VERSION}. Re-index into a new folder."
        )
    return manifest


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    tmp = folder / "manifest.json.tmp"
    tmp.write_text(
        json.dumps(
            {"format": FORMAT, "version": FORMAT_VERSION, **manifest}, indent=2, sort_keys=True
        ),
        "utf-8",
    )
    os.replace(tmp, folder / "manifest.json")


class Index:
    """Docstore + vectors of one folder, kept consistent with each other."""

    def __init__(
        self, folder: Path, dim: int, *, repair: bool = True, policy: str = "auto"
    ) -> None:
        from lateseg.index.vectors import VectorIndex, check_policy

        self.folder = folder
        self.policy = check_policy(policy)  # the manifest's "vectors": auto|flat|hnsw|ivf
        self.store = DocStore(folder / "docstore.sqlite")
        self.vectors = VectorIndex(dim, folder / "vectors.faiss")
        self._lock_file: Any = None
        if repair:
            self.repair_if_idle()

    def repair_if_idle(self) -> bool:
        """Reconcile, unless another process is writing (then its unsaved rows are work
        in progress). Returns whether it reconciled."""
        try:
            self.lock()
        except IndexStoreError:
            log.info("%s is being written by another process; not reconciling", self.folder)
            return False
        try:
            self.reconcile()
        finally:
            self.unlock()
        return True

    def save_vectors(self) -> None:
        """Save the vectors (atomically), first rebuilt as the policy asks (see
        :meth:`VectorIndex.apply`)."""
        self.vectors.apply(self.policy)
        self.vectors.save()

    def problems(self) -> list[str]:
        """What is inconsistent, without changing anything (``lateseg index verify``)."""
        out = []
        rows = self.store.all_chunk_ids()
        vec_ids = set(self.vectors.ids().tolist())
        if missing := len(rows.keys() - vec_ids):
            out.append(f"{missing} chunks have no vector")
        if stray := len(vec_ids - rows.keys()):
            out.append(f"{stray} vectors have no chunk")
        out += self.store.problems()
        return out

    def stats(self) -> dict[str, Any]:
        docs, chunks = self.store.counts()
        files = ("docstore.sqlite", "docstore.sqlite-wal", "vectors.faiss")
        return {
            "folder": str(self.folder),
            "documents": docs,
            "chunks": chunks,
            "vectors": len(self.vectors),
            "vector_index": self.vectors.kind,
            "vector_policy": self.policy,
            "removed_not_compacted": self.vectors.tombstones(),
            "documents_by_kind": self.store.kinds(),
            "bytes": {
                f: (self.folder / f).stat().st_size for f in files if (self.folder / f).is_file()
            },
        }

    def compact(self, vectors: str | None = None) -> dict[str, Any]:
        """Repair, then reclaim space: SQLite VACUUM, FTS merge, vectors rewritten
        (rebuilt without removed HNSW nodes; as ``vectors`` = ``auto``/``flat``/``hnsw``/
        ``ivf`` when given, which also becomes the index's policy). Returns the folder's
        size in bytes before and after, and the vector index kind."""

        def size() -> int:
            return sum(p.stat().st_size for p in self.folder.iterdir() if p.is_file())

        before = size()
        self.lock()
        try:
            self.reconcile()
            self.store.compact()
            if vectors is not None:
                self.set_policy(vectors)
                self.vectors.rebuild(vectors)
            elif self.vectors.tombstones():
                self.vectors.rebuild(self.vectors.kind)
            self.vectors.save()
        finally:
            self.unlock()
        return {"bytes_before": before, "bytes_after": size(), "vectors": self.vectors.kind}

    def reconcile(self) -> None:
        """Make vectors and rows agree (see module docstring)."""
        rows = self.store.all_chunk_ids()
        vec_ids = set(self.vectors.ids().tolist())
        orphan_docs = sorted({doc for cid, doc in rows.items() if cid not in vec_ids})
        if orphan_docs:
            log.warning(
                "removing %d documents whose vectors were never saved; "
                "the next ingest adds them again",
                len(orphan_docs),
            )
            self.store.remove_documents(orphan_docs)
            rows = self.store.all_chunk_ids()
        # Includes the vectors the removed documents did have.
        stray = sorted(vec_ids - rows.keys())
        if stray:
            log.warning("dropping %d vectors without chunk rows", len(stray))
            self.vectors.remove(stray)
        if stray or orphan_docs:
            self.save_vectors()

    def set_policy(self, policy: str) -> None:
        """Record the vector policy in the manifest (applied at the next save)."""
        from lateseg.index.vectors import check_policy

        manifest = read_manifest(self.folder)
        if manifest is None:
            raise IndexStoreError(f"{self.folder} has no manifest")
        manifest["vectors"] = self.policy = check_policy(policy)
        write_manifest(
            self.folder, {k: v for k, v in manifest.items() if k not in ("format", "version")}
        )

    def lock(self) -> None:
        """Take the single-writer lock, or raise if another process is writing."""
        if self._lock_file is not None:
            return
        f = open(self.folder / "write.lock", "w")  # noqa: SIM115 - held until unlock()
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise IndexStoreError(
                f"{self.folder} is being written by another process; wait for it to finish"
            ) from None
        self._lock_file = f

    def unlock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    def close(self) -> None:
        self.unlock()
        self.store.close()
