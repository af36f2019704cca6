"""The vector index kinds on their own: real FAISS, seeded random unit vectors."""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from lateseg.errors import ConfigError, IndexStoreError
from lateseg.index import vectors as vmod
from lateseg.index.vectors import VectorIndex

DIM = 32


def _data(n, seed=0):
    x = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _exact(x, ids, q, k):
    order = np.argsort(-(q @ x.T), axis=1)[:, :k]
    return ids[order]


@pytest.fixture
def hnsw(tmp_path):
    vi = VectorIndex(DIM, tmp_path / "v.faiss")
    x, ids = _data(600), np.arange(600, dtype=np.int64) * 3 + 5
    vi.add(ids.tolist(), x)
    assert vi.rebuild("hnsw") == "hnsw"
    return vi, x, ids


def test_hnsw_removal_leaves_tombstones_that_searches_skip(hnsw, tmp_path):
    vi, x, ids = hnsw
    gone = ids[:100]
    vi.remove(gone.tolist())
    assert vi.tombstones() == 100 and len(vi) == 500 and vi.index.ntotal == 600
    assert set(vi.ids().tolist()) == set(ids[100:].tolist())
    # Queries at the removed vectors themselves: every answer is live, and k come back.
    _, found = vi.search(x[:100], 10)
    assert (found >= 0).all() and not np.isin(found, gone).any()
    want = _exact(x[100:], ids[100:], x[:100], 10)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, want, strict=True)])
    assert recall >= 0.95
    with pytest.raises(RuntimeError):
        vi.vectors([int(gone[0])])
    # Tombstones are in the one file: they survive a reopen.
    vi.save()
    again = VectorIndex(DIM, tmp_path / "v.faiss")
    assert again.kind == "hnsw" and again.tombstones() == 100 and len(again) == 500
    _, found2 = again.search(x[:100], 10)
    assert not np.isin(found2, gone).any()
    # Re-adding a removed ID works (a changed chunk that kept its ID).
    again.add([int(gone[0])], x[:1])
    assert again.contains([int(gone[0])]) == {int(gone[0])}
    assert again.search(x[:1], 1)[1][0, 0] == gone[0]


def test_hnsw_is_rebuilt_once_tombstones_pass_the_share(hnsw):
    vi, x, ids = hnsw
    vi.remove(ids[:100].tolist())  # 1/6 of the nodes: under the share
    assert vi.apply("auto") is None and vi.tombstones() == 100
    vi.remove(ids[100:150].tolist())  # 150/600 = 25 %
    assert vi.apply("auto") == "hnsw"
    assert vi.tombstones() == 0 and vi.index.ntotal == 450
    assert set(vi.ids().tolist()) == set(ids[150:].tolist())
    np.testing.assert_allclose(vi.vectors([int(ids[200])])[0], x[200], atol=1e-6)


def test_auto_policy_switches_to_hnsw_at_the_threshold_and_named_kinds_stay(tmp_path, monkeypatch):
    monkeypatch.setattr(vmod, "APPROX_THRESHOLD", 300)
    vi = VectorIndex(DIM, tmp_path / "v.faiss")
    x = _data(400)
    vi.add(list(range(299)), x[:299])
    assert vi.apply("auto") is None and vi.kind == "flat"
    vi.add([299], x[299:300])
    assert vi.apply("auto") == "hnsw" and vi.kind == "hnsw"
    vi.remove(list(range(250)))  # below the threshold again: no switch back
    assert vi.apply("auto") == "hnsw"  # (the tombstones are over the share)
    assert vi.kind == "hnsw" and len(vi) == 50
    assert vi.apply("flat") == "flat" and vi.kind == "flat" and len(vi) == 50
    vi.add(list(range(300, 400)), x[300:])
    assert vi.apply("flat") is None and vi.kind == "flat"  # pinned past the threshold
    assert vi.apply("ivf") == "ivf" and sorted(vi.ids().tolist()) == list(range(250, 400))
    with pytest.raises(ConfigError, match="choose one of"):
        vi.apply("annoy")


def test_exact_kinds_agree_and_other_faiss_files_are_refused(tmp_path):
    x, ids = _data(200), np.arange(200, dtype=np.int64)
    vi = VectorIndex(DIM, tmp_path / "v.faiss")
    vi.add(ids.tolist(), x)
    q = _data(5, seed=1)
    exact = vi.search(q, 5)[1]
    np.testing.assert_array_equal(exact, _exact(x, ids, q, 5))
    if not hasattr(faiss, "StandardGpuResources"):  # faiss-cpu: exact search on the CPU
        assert vmod.gpu_count() == 0
    for foreign, reason in [
        (faiss.IndexIDMap2(faiss.IndexFlatL2(DIM)), "IndexIDMap2 over IndexFlatL2"),
        (faiss.IndexHNSWFlat(DIM, 16), "IndexHNSWFlat"),
    ]:
        faiss.write_index(foreign, str(tmp_path / "f.faiss"))
        with pytest.raises(IndexStoreError, match=reason):
            VectorIndex(DIM, tmp_path / "f.faiss")
    l2 = faiss.IndexIDMap2(faiss.IndexHNSWFlat(DIM, 16))  # an HNSW graph ranked by L2
    faiss.write_index(l2, str(tmp_path / "l2.faiss"))
    with pytest.raises(IndexStoreError, match="inner product"):
        VectorIndex(DIM, tmp_path / "l2.faiss")


def test_ivfpq_trains_on_enough_vectors_finds_the_nearest_and_removes(tmp_path, monkeypatch):
    dim, n = 64, vmod.PQ_MIN_TRAIN + 2000
    rng = np.random.default_rng(0)
    # Vectors with structure (8 latent dimensions), as embeddings have; random ones
    # have no near neighbours for a quantizer to keep.
    x = rng.standard_normal((n, 8)).astype(np.float32) @ rng.standard_normal((8, dim))
    x = (x + 0.1 * rng.standard_normal((n, dim))).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    ids = np.arange(n, dtype=np.int64) * 2 + 1
    vi = VectorIndex(dim, tmp_path / "v.faiss")
    vi.add(ids[:500].tolist(), x[:500])
    assert vi.apply("ivfpq") is None and vi.kind == "flat"  # too few to train: stays exact
    with pytest.raises(ConfigError, match="at least 10,000 vectors"):
        vi.rebuild("ivfpq")
    vi.add(ids[500:].tolist(), x[500:])
    assert vi.apply("ivfpq") == "ivfpq" and vi.kind == "ivfpq" and len(vi) == n
    q = x[rng.choice(n, 50, replace=False)] + 0.05 * rng.standard_normal((50, dim))
    q = (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)
    found = vi.search(q, 10)[1]
    truth = _exact(x, ids, q, 1)[:, 0]
    assert np.mean([t in row for t, row in zip(truth, found, strict=True)]) >= 0.95
    vi.remove(ids[:1000].tolist())
    assert len(vi) == n - 1000
    assert not set(vi.search(q, 10)[1].ravel().tolist()) & set(ids[:1000].tolist())
    vi.save()
    again = VectorIndex(dim, tmp_path / "v.faiss")
    assert again.kind == "ivfpq" and len(again) == n - 1000
    assert vmod.pq_bytes(384) == 48 and vmod.pq_bytes(dim) == 8
