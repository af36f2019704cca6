"""Vector index kinds side by side on synthetic vectors: exact (flat) vs HNSW vs IVF.

    python bench/vector_index.py [--n 1000000] [--dim 384] [--queries 200] [--latent D]

Seeded random unit vectors (Gaussian, normalised), inner product; with ``--latent D``
they are instead drawn from a D-dimensional Gaussian, projected to ``--dim`` by a fixed
random matrix, plus 5% noise: low intrinsic dimension, as real embeddings have. For each
index: build time, memory (the serialised index size), single-query search latency p50/p95 (one
query at a time, as an interactive search runs) and recall@10 against the exact answer.
Also reports how concentrated the similarities are: for random high-dimensional vectors
the 10th-nearest neighbour is barely closer than a typical vector, which is what makes
approximate search hard on them. The last row is lateseg's own ``hnsw`` kind
(``lateseg.index.vectors``) with 10% of its vectors removed as tombstones.
Writes ``bench/results/vector_index.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np

OUT = Path(__file__).resolve().parent / "results"


def unit(
    rng: np.random.Generator, n: int, dim: int, project: np.ndarray | None = None
) -> np.ndarray:
    if project is None:
        x = rng.standard_normal((n, dim), dtype=np.float32)
    else:
        z = rng.standard_normal((n, project.shape[0]), dtype=np.float32)
        x = z @ project + 0.05 * rng.standard_normal((n, dim), dtype=np.float32)
    faiss.normalize_L2(x)
    return x


def measure(index: Any, queries: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    lat, found = [], []
    for q in queries:
        t0 = time.perf_counter()
        _, ids = index.search(q[None, :], 10)
        lat.append(1000 * (time.perf_counter() - t0))
        found.append(ids[0])
    recall = float(np.mean([len(set(f) & set(t)) / 10 for f, t in zip(found, truth, strict=True)]))
    return {
        "p50_ms": float(np.percentile(lat, 50)),
        "p95_ms": float(np.percentile(lat, 95)),
        "recall@10": recall,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--latent", type=int, default=None, help="intrinsic dimension")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    project = None
    if args.latent:
        project = rng.standard_normal((args.latent, args.dim), dtype=np.float32)
        project /= np.sqrt(args.latent)
    x = unit(rng, args.n, args.dim, project)
    queries = unit(rng, args.queries, args.dim, project)
    print(f"{args.n} x {args.dim}, {faiss.omp_get_max_threads()} threads", flush=True)

    def flat() -> Any:
        index = faiss.IndexFlatIP(args.dim)
        index.add(x)
        return index

    def hnsw(m: int) -> Callable[[], Any]:
        def build() -> Any:
            index = faiss.IndexHNSWFlat(args.dim, m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = 40
            index.add(x)
            return index

        return build

    def ivf() -> Any:
        nlist = int(4 * np.sqrt(args.n))
        index = faiss.IndexIVFFlat(
            faiss.IndexFlatIP(args.dim), args.dim, nlist, faiss.METRIC_INNER_PRODUCT
        )
        index.train(x[rng.choice(args.n, min(args.n, 64 * nlist), replace=False)])
        index.add(x)
        return index

    rows: list[dict[str, Any]] = []
    truth = None
    for name, build, settings in [
        ("flat (exact)", flat, [("", None)]),
        ("HNSW M=32", hnsw(32), [("efSearch=64", 64), ("efSearch=256", 256)]),
        ("IVF-Flat", ivf, [("nprobe=16", 16), ("nprobe=128", 128)]),
    ]:
        t0 = time.perf_counter()
        index = build()
        built = time.perf_counter() - t0
        size = int(faiss.serialize_index(index).nbytes)
        if truth is None:
            _, truth = index.search(queries, 10)
            sims, _ = index.search(queries, 10)
            sample = queries @ x[rng.choice(args.n, 1000, replace=False)].T
            concentration = {
                "mean_top1_cos": float(sims[:, 0].mean()),
                "mean_top10_cos": float(sims[:, 9].mean()),
                "p99_random_pair_cos": float(np.percentile(sample, 99)),
            }
        for label, value in settings:
            if name.startswith("HNSW") and value:
                index.hnsw.efSearch = value
            if name.startswith("IVF") and value:
                index.nprobe = value
            row = {"index": name, "setting": label, "build_s": built, "bytes": size}
            row.update(measure(index, queries, truth))
            rows.append(row)
            print(json.dumps(row), flush=True)
        del index

    # The library's own HNSW kind after 10% of the vectors were removed (tombstones that
    # the search skips), against exact search over the vectors still live.
    from lateseg.index.vectors import HNSW_EF_SEARCH, VectorIndex

    with tempfile.TemporaryDirectory() as tmp:
        lib = VectorIndex(args.dim, Path(tmp) / "v.faiss")
        lib.add(list(range(args.n)), x)
        t0 = time.perf_counter()
        lib.rebuild("hnsw")
        built = time.perf_counter() - t0
        dead = rng.choice(args.n, args.n // 10, replace=False)
        lib.remove(dead.tolist())
        live = np.setdiff1d(np.arange(args.n), dead)
        exact = faiss.IndexFlatIP(args.dim)
        exact.add(x[live])
        live_truth = live[exact.search(queries, 10)[1]]
        row = {
            "index": "lateseg hnsw, 10% removed",
            "setting": f"efSearch={HNSW_EF_SEARCH}",
            "build_s": built,
            "bytes": int(faiss.serialize_index(lib.index).nbytes),
        }
        row.update(measure(lib, queries, live_truth))
        rows.append(row)
        print(json.dumps(row), flush=True)
    report = {"n": args.n, "dim": args.dim, "queries": args.queries, "rows": rows}
    report["similarity_concentration"] = concentration
    OUT.mkdir(parents=True, exist_ok=True)
    stem = "vector_index" + (f"_latent{args.latent}" if args.latent else "")
    (OUT / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    data = f"latent-{args.latent}" if args.latent else "random"
    lines = [
        f"# Vector indexes: {args.n:,} {data} {args.dim}-d unit vectors, inner product",
        "",
        "| index | setting | build s | size MB | p50 ms | p95 ms | recall@10 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['index']} | {r['setting']} | {r['build_s']:.1f} | {r['bytes'] / 1e6:.0f} | "
            f"{r['p50_ms']:.2f} | {r['p95_ms']:.2f} | {r['recall@10']:.3f} |"
        )
    c = concentration
    lines += [
        "",
        f"Similarity concentration: mean cosine of the nearest neighbour {c['mean_top1_cos']:.3f},"
        f" of the 10th {c['mean_top10_cos']:.3f}; 99th percentile of a random pair "
        f"{c['p99_random_pair_cos']:.3f}.",
        "",
        f"Command: `python bench/vector_index.py --n {args.n} --dim {args.dim} --queries "
        f"{args.queries}{f' --latent {args.latent}' if args.latent else ''}` "
        f"({faiss.omp_get_max_threads()} threads; single-query latency).",
        "",
    ]
    (OUT / f"{stem}.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
