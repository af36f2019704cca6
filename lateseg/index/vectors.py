"""FAISS vectors over normalised embeddings, with explicit IDs (the docstore's chunk IDs).

In an index folder this is a cache: the docstore holds every vector, and
:mod:`lateseg.index.cache` saves and checks the FAISS file. Four kinds:

* ``flat``: ``IndexIDMap2(IndexFlatIP)``, exact; the default for small corpora.
* ``hnsw``: ``IndexIDMap2(IndexHNSWFlat)``, approximate graph search, what ``auto``
  switches to from :data:`APPROX_THRESHOLD` vectors. FAISS cannot remove nodes from an
  HNSW graph, so a removed vector becomes a *tombstone*: its entry in the ID map is set
  to -1, searches skip it (an ``IDSelector`` inside the graph walk, so k results still
  come back), and the graph is rebuilt once tombstones pass :data:`TOMBSTONE_SHARE`.
  Tombstones live in the FAISS file too.
* ``ivf``: ``IndexIVFFlat`` with a hash-table direct map (true removal; needs training).
* ``ivfpq``: ``IndexIVFPQ``, the same with each vector stored as a product-quantised code
  of ``dim / 8`` bytes (48 for 384-d: 32 times less than float32), trained on a sample;
  for corpora whose vectors do not fit in memory. A policy of ``ivfpq`` keeps exact
  search until :data:`PQ_MIN_TRAIN` vectors exist to train it. Lossy in the cache only:
  rebuilding into another kind starts again from the docstore's exact vectors.

``lateseg index compact --vectors`` rebuilds one kind into another. Exact search runs
on a GPU when a GPU build of FAISS (the ``gpu`` extra) sees one; HNSW and IVF stay on the
CPU. The file is untrusted input: anything but these kinds is refused on open.
"""

from __future__ import annotations

import functools
import logging
import math
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.errors import ConfigError, IndexStoreError

log = logging.getLogger(__name__)

APPROX_THRESHOLD = 100_000  # ``auto`` switches exact search to HNSW from here
TOMBSTONE_SHARE = 0.2  # rebuild an HNSW graph once this share of its nodes is removed
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 64
HNSW_EF_SEARCH = 256
PQ_MIN_TRAIN = 10_000  # vectors an IVF-PQ index needs before it can be trained
PQ_TRAIN_SAMPLE = 200_000  # at most this many vectors train it
KINDS = ("flat", "hnsw", "ivf", "ivfpq")
POLICIES = ("auto", *KINDS)


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise ConfigError(f"vectors={policy!r}; choose one of {', '.join(POLICIES)}")
    return policy


@functools.cache
def gpu_count() -> int:
    """GPUs a GPU build of FAISS can use (0 with ``faiss-cpu`` or
    ``LATESEG_FAISS_GPU=0``); asked once per process."""
    import faiss

    if os.environ.get("LATESEG_FAISS_GPU", "1") == "0":
        return 0
    if not hasattr(faiss, "StandardGpuResources"):
        if _installed("faiss-gpu"):
            log.warning(
                "faiss-gpu is installed but faiss-cpu's files shadow it; run "
                "`pip install --force-reinstall --no-deps faiss-gpu` (make install-gpu)"
            )
        return 0
    try:
        return int(faiss.get_num_gpus())
    except Exception:  # a GPU build without a usable driver
        return 0


class VectorIndex:
    """The vectors of one index folder (``vectors.faiss``)."""

    def __init__(self, dim: int, path: Path | None = None, nprobe: int = 128) -> None:
        """An empty exact index, or the raw FAISS file at ``path`` when it exists (the
        format of index folders before version 2; :mod:`lateseg.index.cache` adds a
        header to the files it writes)."""
        import faiss

        self.dim = dim
        self.path = path
        self.nprobe = nprobe
        self.index: Any  # faiss stubs know neither id_map nor numpy IDs
        self._owner: Any = None
        self._rev_stale = False  # HNSW removals leave IndexIDMap2's ID -> row map stale
        if path is not None and path.exists():
            try:
                owner = faiss.read_index(str(path))
            except Exception as e:  # faiss raises RuntimeError with its C++ message
                raise IndexStoreError(f"{path} is not a readable FAISS index: {e}") from None
            self._adopt(owner, path)
        else:
            self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self._changed()

    @classmethod
    def wrap(cls, dim: int, index: Any, where: Path | str = "the FAISS index") -> VectorIndex:
        """A VectorIndex over a FAISS index read elsewhere, checked like a file."""
        out = cls(dim)
        out._adopt(index, where)
        out._changed()
        return out

    def _adopt(self, owner: Any, where: Path | str) -> None:
        """Take ``owner`` (a FAISS index read from untrusted bytes) if it is one of the
        kinds lateseg writes, of this dimension, ranking by inner product."""
        import faiss

        # The object read owns the C++ index; the downcast view must not outlive it.
        index = faiss.downcast_index(owner)
        if _kind_of(index) is None:
            inner = (
                f" over {type(faiss.downcast_index(index.index)).__name__}"
                if isinstance(index, faiss.IndexIDMap2)
                else ""
            )
            raise IndexStoreError(
                f"{where} holds a {type(index).__name__}{inner}, not a lateseg vector "
                "index (IndexIDMap2 over IndexFlatIP or IndexHNSWFlat, IndexIVFFlat or "
                "IndexIVFPQ)"
            )
        if index.d != self.dim:
            raise IndexStoreError(
                f"{where} holds {index.d}-d vectors but the embedder gives {self.dim}-d"
            )
        if index.metric_type != faiss.METRIC_INNER_PRODUCT:
            raise IndexStoreError(f"{where} does not rank by inner product")
        self._owner = owner
        self.index = index

    def _changed(self) -> None:
        """Drop what is derived from the index (after any change to it)."""
        self._idset: set[int] | None = None  # cache of ids(), built on first use
        self._dead: int | None = None  # cache of tombstones()
        self._gpu: Any = None  # (resources, GPU index, row -> ID), built on first search
        kind = _kind_of(self.index)
        assert kind is not None
        self._kind = kind

    @property
    def kind(self) -> str:
        return self._kind

    def __len__(self) -> int:
        return int(self.index.ntotal) - self.tombstones()

    def tombstones(self) -> int:
        """Removed HNSW nodes still in the graph (0 for the other kinds)."""
        if self.kind != "hnsw":
            return 0
        if self._dead is None:
            self._dead = int(np.count_nonzero(self._id_map() == -1))
        return self._dead

    def _id_map(self) -> np.ndarray:
        import faiss

        return faiss.vector_to_array(self.index.id_map).astype(np.int64)

    def ids(self) -> np.ndarray:
        import faiss

        if not self.kind.startswith("ivf"):
            ids = self._id_map()
            return ids[ids >= 0]
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
        if self._rev_stale:
            self.index.construct_rev_map()
            self._rev_stale = False
        return np.vstack([self.index.reconstruct(int(i)) for i in ids]).astype(np.float32)

    def all_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """Every live ``(ids [n], vectors [n, dim])``, in no particular order."""
        import faiss

        if self.kind in ("flat", "hnsw"):
            inner: Any = faiss.downcast_index(self.index.index)
            flat: Any = inner if self.kind == "flat" else faiss.downcast_index(inner.storage)
            n = int(flat.ntotal)
            data = faiss.rev_swig_ptr(flat.get_xb(), n * self.dim).reshape(n, self.dim)
            ids = self._id_map()
            live = ids >= 0
            return ids[live], np.array(data[live], dtype=np.float32)
        ids = self.ids()
        return ids, self.vectors(ids.tolist())

    def stored_form(self, vectors: np.ndarray) -> np.ndarray:
        """What this index stores for ``vectors`` ``[n, dim]``: the vectors themselves,
        or for IVF-PQ their decoded product-quantised codes."""
        x = np.ascontiguousarray(vectors, dtype=np.float32)
        if self.kind != "ivfpq" or not len(x):
            return x
        return np.asarray(self.index.sa_decode(self.index.sa_encode(x)), dtype=np.float32)

    def add(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        if len(ids):
            self.index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32), np.asarray(ids, dtype=np.int64)
            )
            idset = self._idset
            self._changed()
            if idset is not None:
                idset.update(int(i) for i in ids)
                self._idset = idset

    def remove(self, ids: Sequence[int]) -> None:
        import faiss

        if not len(ids):
            return
        wanted = np.asarray(ids, dtype=np.int64)
        if self.kind == "hnsw":
            id_map = self._id_map()
            id_map[np.isin(id_map, wanted)] = -1
            faiss.copy_array_to_vector(id_map, self.index.id_map)
            # Rebuilding the ID -> row map is O(n); only reconstruct() reads it, so it is
            # rebuilt there, once after any number of removals.
            self._rev_stale = True
        else:
            self.index.remove_ids(wanted)
        idset = self._idset
        self._changed()
        if idset is not None:
            idset.difference_update(int(i) for i in ids)
            self._idset = idset

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores and IDs ``[q, k]`` (ID -1 where fewer than k vectors exist)."""
        import faiss

        k = max(1, min(k, len(self))) if len(self) else 1
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        kind = self.kind
        if kind.startswith("ivf"):
            self.index.nprobe = min(self.nprobe, self.index.nlist)
        if kind == "hnsw":
            params = faiss.SearchParametersHNSW(  # type: ignore[attr-defined]
                efSearch=max(HNSW_EF_SEARCH, k)
            )
            if self.tombstones():
                # Tombstones have ID -1; the selector keeps the graph walk off them.
                dead = faiss.IDSelectorBatch(np.array([-1], dtype=np.int64))
                params.sel = faiss.IDSelectorNot(dead)
                params._keep = dead  # the C++ selector must outlive the search
            return self.index.search(queries, k, params=params)
        if kind == "flat" and len(self) and gpu_count():
            return self._gpu_search(queries, k)
        return self.index.search(queries, k)

    def _gpu_search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        import faiss

        if self._gpu is None:
            res = faiss.StandardGpuResources()  # type: ignore[attr-defined]
            gpu = faiss.GpuIndexFlatIP(res, self.dim)  # type: ignore[attr-defined]
            flat: Any = faiss.downcast_index(self.index.index)
            gpu.add(faiss.rev_swig_ptr(flat.get_xb(), flat.ntotal * self.dim).reshape(-1, self.dim))
            self._gpu = (res, gpu, self._id_map())
        _, gpu, row_ids = self._gpu
        scores, rows = gpu.search(queries, k)
        return scores, np.where(rows >= 0, row_ids[np.maximum(rows, 0)], -1)

    def rebuild(
        self,
        kind: str = "auto",
        source: Callable[[], Iterable[tuple[np.ndarray, np.ndarray]]] | None = None,
        count: int | None = None,
    ) -> str:
        """Rebuild in memory as ``kind`` (``auto``: HNSW from :data:`APPROX_THRESHOLD`
        vectors, else exact); returns the kind built.

        The vectors come from ``source()``, batches of ``(ids, vectors)`` (``count`` in
        all; read twice for IVF kinds, which train on a sample first), or else from the
        index itself.
        """
        import faiss

        if source is None:
            ids = self.ids()
            data = self.vectors(ids.tolist())
            count = len(ids)

            def source() -> Iterable[tuple[np.ndarray, np.ndarray]]:
                return [(ids, data)]

        n = int(count or 0)
        if check_policy(kind) == "auto":
            kind = "hnsw" if n >= APPROX_THRESHOLD else "flat"
        if kind == "flat":
            index: Any = faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))
        elif kind == "hnsw":
            graph = faiss.IndexHNSWFlat(self.dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
            graph.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
            index = faiss.IndexIDMap2(graph)  # the wrapper keeps ``graph`` alive
        else:
            if n == 0:
                raise ConfigError("an empty index cannot be trained as IVF; ingest first")
            if kind == "ivfpq" and n < PQ_MIN_TRAIN:
                raise ConfigError(
                    f"IVF-PQ needs at least {PQ_MIN_TRAIN:,} vectors to train its codebooks; "
                    f"this index has {n:,} (use flat, hnsw or ivf)"
                )
            nlist = max(1, min(int(4 * math.sqrt(n)), n // 39 or 1))
            quantizer = faiss.IndexFlatIP(self.dim)
            if kind == "ivf":
                index = faiss.IndexIVFFlat(quantizer, self.dim, nlist, faiss.METRIC_INNER_PRODUCT)
                cap = 256 * nlist
            else:
                index = faiss.IndexIVFPQ(
                    quantizer, self.dim, nlist, pq_bytes(self.dim), 8, faiss.METRIC_INNER_PRODUCT
                )
                cap = PQ_TRAIN_SAMPLE
            index.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]
            rng = np.random.default_rng(0)
            share = min(1.0, cap / n)
            sample = [data[rng.random(len(data)) < share] for _, data in source()]
            index.train(np.ascontiguousarray(np.concatenate(sample)))
        for ids, data in source():
            if len(ids):
                index.add_with_ids(np.ascontiguousarray(data, dtype=np.float32), ids)
        self.index = index
        self._owner = None
        self._rev_stale = False
        self._changed()
        return kind

    def apply(self, policy: str) -> str | None:
        """Rebuild as the index's vector policy asks: ``auto`` moves exact search to HNSW
        once it reaches :data:`APPROX_THRESHOLD` vectors (never back: that would thrash at
        the threshold); a named kind is kept. An HNSW graph past :data:`TOMBSTONE_SHARE`
        removed nodes is rebuilt. Returns the kind built, or None."""
        check_policy(policy)
        want = self.kind
        if policy == "auto" and want == "flat" and len(self) >= APPROX_THRESHOLD:
            want = "hnsw"
        elif policy != "auto":
            want = policy
        if want == "ivfpq" and self.kind != "ivfpq" and len(self) < PQ_MIN_TRAIN:
            want = self.kind  # not enough vectors to train the codebooks yet
        if want != self.kind:
            log.info("rebuilding %d vectors as %s", len(self), want)
            return self.rebuild(want)
        if want == "hnsw" and self.tombstones() > TOMBSTONE_SHARE * self.index.ntotal:
            log.info("rebuilding the HNSW graph without %d removed nodes", self.tombstones())
            return self.rebuild("hnsw")
        return None

    def save(self) -> None:
        """Write the raw FAISS file at ``path`` atomically (a temporary file renamed
        over the old one). Index folders write :mod:`lateseg.index.cache` files."""
        import faiss

        if self.path is None:
            raise IndexStoreError("this vector index has no file path to save to")
        tmp = self.path.with_suffix(".tmp")
        faiss.write_index(self.index, str(tmp))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


@functools.cache
def _installed(dist: str) -> bool:
    from importlib.metadata import PackageNotFoundError, version

    try:
        version(dist)
    except PackageNotFoundError:
        return False
    return True


def pq_bytes(dim: int) -> int:
    """Bytes per IVF-PQ code: one 8-bit sub-quantizer per 8 dimensions (a divisor of
    ``dim``)."""
    m = max(1, dim // 8)
    while dim % m:
        m -= 1
    return m


def _kind_of(index: Any) -> str | None:
    import faiss

    if isinstance(index, faiss.IndexIVFPQ):
        return "ivfpq"
    if isinstance(index, faiss.IndexIVFFlat):
        return "ivf"
    if isinstance(index, faiss.IndexIDMap2):
        inner = faiss.downcast_index(index.index)
        if isinstance(inner, faiss.IndexHNSWFlat):
            return "hnsw"
        if type(inner) is faiss.IndexFlatIP:
            return "flat"
    return None
