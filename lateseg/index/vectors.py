"""FAISS vectors: exact inner product over normalised vectors, with explicit IDs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.errors import IndexStoreError


class VectorIndex:
    """An ``IndexIDMap2(IndexFlatIP)``; IDs are the docstore's chunk IDs."""

    def __init__(self, dim: int, path: Path) -> None:
        import faiss

        self.dim = dim
        self.path = path
        self.index: Any  # faiss.IndexIDMap2; its stubs don't know id_map or numpy IDs
        if path.exists():
            try:
                index = faiss.read_index(str(path))
            except Exception as e:  # faiss raises RuntimeError with its C++ message
                raise IndexStoreError(f"{path} is not a readable FAISS index: {e}") from None
            if index.d != dim:
                raise IndexStoreError(
                    f"{path} holds {index.d}-d vectors but the embedder gives {dim}-d"
                )
            self.index = index
        else:
            self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self._idset: set[int] | None = None  # cache of ids(), built on first use

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def ids(self) -> np.ndarray:
        import faiss

        return faiss.vector_to_array(self.index.id_map).astype(np.int64)

    def contains(self, ids: Sequence[int]) -> set[int]:
        """The IDs among ``ids`` that have a vector."""
        if self._idset is None:
            self._idset = set(self.ids().tolist())
        return {i for i in ids if i in self._idset}

    def add(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        if len(ids):
            self.index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32), np.asarray(ids, dtype=np.int64)
            )
            if self._idset is not None:
                self._idset.update(int(i) for i in ids)

    def remove(self, ids: Sequence[int]) -> None:
        if len(ids):
            self.index.remove_ids(np.asarray(ids, dtype=np.int64))
            if self._idset is not None:
                self._idset.difference_update(int(i) for i in ids)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores and IDs ``[q, k]`` (ID -1 where fewer than k vectors exist)."""
        k = max(1, min(k, len(self))) if len(self) else 1
        return self.index.search(np.ascontiguousarray(queries, dtype=np.float32), k)

    def save(self) -> None:
        """Write atomically: a temporary file renamed over the old one."""
        import faiss

        tmp = self.path.with_suffix(".tmp")
        faiss.write_index(self.index, str(tmp))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
