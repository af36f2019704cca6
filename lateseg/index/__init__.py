"""One index folder: ``manifest.json`` + ``docstore.sqlite`` + ``vectors.faiss``.

The docstore is the source of truth; vectors are saved atomically after ingest batches.
On open the two are reconciled: vectors without rows are dropped, and documents whose
chunks lack vectors (an ingest killed before the vectors were saved) are removed so the
next ingest adds them again.
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

    def __init__(self, folder: Path, dim: int) -> None:
        from lateseg.index.vectors import VectorIndex

        self.folder = folder
        self.store = DocStore(folder / "docstore.sqlite")
        self.vectors = VectorIndex(dim, folder / "vectors.faiss")
        self._lock_file: Any = None
        self.reconcile()

    def reconcile(self) -> None:
        """Make vectors and rows agree (see module docstring)."""
        rows = self.store.all_chunk_ids()
        vec_ids = set(self.vectors.ids().tolist())
        stray = sorted(vec_ids - rows.keys())
        orphan_docs = sorted({doc for cid, doc in rows.items() if cid not in vec_ids})
        if stray:
            log.warning("dropping %d vectors without chunk rows", len(stray))
            self.vectors.remove(stray)
        if orphan_docs:
            log.warning(
                "removing %d documents whose vectors were never saved; "
                "the next ingest adds them again",
                len(orphan_docs),
            )
            self.store.remove_documents(orphan_docs)
        if stray or orphan_docs:
            self.vectors.save()

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
