"""FAISS vectors over normalised embeddings, with explicit IDs (the docstore's chunk IDs).

Two kinds: ``flat`` (``IndexIDMap2(IndexFlatIP)``: exact, the default) and ``ivf``
(``IndexIVFFlat`` with a hash-table direct map: approximate, for large corpora; it
supports removal, which updates need, unlike HNSW). ``lateseg index compact --vectors``
rebuilds one kind into the other; ``auto`` picks IVF from :data:`IVF_THRESHOLD` vectors.
The file is untrusted input: anything but these two kinds is refused on open.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.errors import ConfigError, IndexStoreError

IVF_THRESHOLD = 200_000
KINDS = ("auto", "flat", "ivf")


class VectorIndex:
    """The vectors of one index folder (``vectors.faiss``)."""

    def __init__(self, dim: int, path: Path, nprobe: int = 128) -> None:
        import faiss

        self.dim = dim
        self.path = path
        self.nprobe = nprobe
        self.index: Any  # faiss stubs know neither id_map nor numpy IDs
        self._owner: Any = None
        if path.exists():
            try:
                # The object read owns the C++ index; the downcast view must not outlive it.
                self._owner = faiss.read_index(str(path))
            except Exception as e:  # faiss raises RuntimeError with its C++ message
                raise IndexStoreError(f"{path} is not a readable FAISS index: {e}") from None
            index = faiss.downcast_index(self._owner)
            if not isinstance(index, (faiss.IndexIDMap2, faiss.IndexIVFFlat)):
                raise IndexStoreError(
                    f"{path} holds a {type(index).__name__}, not a lateseg vector index "
                    "(IndexIDMap2 over IndexFlatIP, or IndexIVFFlat)"
                )
            if index.d != dim:
                raise IndexStoreError(
                    f"{path} holds {index.d}-d vectors but the embedder gives {dim}-d"
                )
            self.index = index
        else:
            self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self._idset: set[int] | None = None  # cache of ids(), built on first use

    @property
    def kind(self) -> str:
        import faiss

        return "ivf" if isinstance(self.index, faiss.IndexIVFFlat) else "flat"

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def ids(self) -> np.ndarray:
        import faiss

        if self.kind == "flat":
            return faiss.vector_to_array(self.index.id_map).astype(np.int64)
        lists = self.index.invlists
        parts = [
            faiss.rev_swig_ptr(lists.get_ids(i), lists.list_size(i)).copy()
            for i in range(self.index.nlist)
            if lists.list_size(i)
        ]
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    def contains(self, ids: Sequence[int]) -> set[int]:
        """The IDs among ``ids`` that have a vector."""
        if self._idset is None:
            self._idset = set(self.ids().tolist())
        return {i for i in ids if i in self._idset}

    def vectors(self, ids: Sequence[int]) -> np.ndarray:
        """The stored vectors ``[len(ids), dim]`` of ``ids``."""
        if not len(ids):
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self.index.reconstruct(int(i)) for i in ids]).astype(np.float32)

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
        if self.kind == "ivf":
            self.index.nprobe = min(self.nprobe, self.index.nlist)
        return self.index.search(np.ascontiguousarray(queries, dtype=np.float32), k)

    def rebuild(self, kind: str = "auto") -> str:
        """Rebuild in memory as ``kind`` (``auto``: IVF from :data:`IVF_THRESHOLD`
        vectors, else flat) from the stored vectors; returns the kind built."""
        import faiss

        if kind not in KINDS:
            raise ConfigError(f"vectors={kind!r}; choose one of {', '.join(KINDS)}")
        if kind == "auto":
            kind = "ivf" if len(self) >= IVF_THRESHOLD else "flat"
        ids = self.ids()
        data = self.vectors(ids.tolist())
        if kind == "flat":
            index: Any = faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))
        else:
            if len(ids) == 0:
                raise ConfigError("an empty index cannot be trained as IVF; ingest first")
            nlist = max(1, min(int(4 * math.sqrt(len(ids))), len(ids) // 39 or 1))
            index = faiss.IndexIVFFlat(
                faiss.IndexFlatIP(self.dim), self.dim, nlist, faiss.METRIC_INNER_PRODUCT
            )
            index.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]
            rng = np.random.default_rng(0)
            sample = data[rng.choice(len(data), min(len(data), 256 * nlist), replace=False)]
            index.train(sample)
        if len(ids):
            index.add_with_ids(np.ascontiguousarray(data), ids)
        self.index = index
        self._idset = None
        return kind

    def save(self) -> None:
        """Write atomically: a temporary file renamed over the old one."""
        import faiss

        tmp = self.path.with_suffix(".tmp")
        faiss.write_index(self.index, str(tmp))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
