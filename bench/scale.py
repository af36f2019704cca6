"""Scale-out measurements for the Ray engine, in one run on this machine:

1. ingest throughput (chunks/s and document tokens/s), the local engine against the Ray
   engine on a local Ray cluster of the same CPUs, same corpus, same index contents;
2. the single writer alone: chunks/s that one process writes into an index (SQLite rows
   + FAISS vectors + saves), fed with precomputed chunks, i.e. the ceiling of any number
   of encoders feeding it;
3. vector memory per million chunks: exact (flat), HNSW and IVF-PQ, from serialized
   index sizes at ``--vectors`` vectors of 384 dimensions.

Then ``bench/results/scale.md`` puts these together with the encoder's GPU throughput
(``bench/results/encoder_h200.json``, measured on an H200 in bf16) into an estimate for
one billion tokens.

    python bench/scale.py [--files 60] [--vectors 200000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results"


def corpus(n_files: int, folder: Path) -> list[Path]:
    """The sample contracts and repository plus the first ``n_files`` standard-library
    modules (sorted by path), copied so both engines read the same bytes."""
    folder.mkdir(parents=True)
    std = Path(sysconfig.get_paths()["stdlib"])
    picked = sorted(p for p in std.glob("*.py"))[:n_files]
    for p in picked:
        shutil.copy(p, folder / p.name)
    return [ROOT / "data" / "contracts", ROOT / "data" / "sample_repo", folder]


def ingest(paths: list[Path], index: Path, engine: str) -> dict[str, Any]:
    from lateseg import Pipeline

    with Pipeline.open(index) as pipe:
        t0 = time.perf_counter()
        report = pipe.ingest(paths, progress=False, engine=engine)
        dt = time.perf_counter() - t0
        tokens = sum(
            len(pipe.encoder.tokenize(pipe.index.store.document(s).text))
            for s in pipe.index.store.sources()
        )
    return {
        "engine": engine,
        "files": len(report.added),
        "chunks": report.chunks,
        "tokens": tokens,
        "seconds": round(dt, 1),
        "chunks_per_s": round(report.chunks / dt, 1),
        "tokens_per_s": round(tokens / dt),
    }


def writer(source_index: Path, repeats: int) -> dict[str, Any]:
    """Write the documents and chunks of ``source_index`` ``repeats`` times into a new
    index with random unit vectors: what the single writer sustains."""
    from lateseg import Pipeline

    with Pipeline.open(source_index) as src:
        store = src.index.store
        docs = [store.document(s) for s in store.sources()]
        rows = store.chunk_rows(sorted(store.all_chunk_ids()))
        by_doc: dict[str, list[Any]] = {}
        for r in rows.values():
            by_doc.setdefault(r["doc_id"], []).append(r)
        dim = src.index.vectors.dim
    from lateseg.types import Chunk, Document

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp, Pipeline.open(Path(tmp) / "w") as dst:
        t0 = time.perf_counter()
        written = 0
        with dst.index.writer() as w:
            for rep in range(repeats):
                for d in docs:
                    assert d is not None
                    doc = Document(f"{d.source}#{rep}", d.text, d.kind, d.structure, d.meta)
                    chunks = [
                        Chunk(doc.id, r["start"], r["end"], r["text"], r["section"], r["page"])
                        for r in sorted(by_doc[d.id], key=lambda r: r["start"])
                    ]
                    vecs = rng.standard_normal((len(chunks), dim)).astype(np.float32)
                    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                    written += w.add(doc, "x", chunks, vecs)  # the cache saved as ingest saves it
        dt = time.perf_counter() - t0
    return {"chunks": written, "seconds": round(dt, 2), "chunks_per_s": round(written / dt)}


def vector_memory(n: int, dim: int = 384) -> list[dict[str, Any]]:
    import faiss

    from lateseg.index.vectors import VectorIndex

    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 32)).astype(np.float32) @ rng.standard_normal((32, dim))
    x = (x + 0.1 * rng.standard_normal((n, dim))).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        vi = VectorIndex(dim, Path(tmp) / "v.faiss")
        vi.add(list(range(n)), x)
        for kind in ("flat", "hnsw", "ivfpq"):
            t0 = time.perf_counter()
            vi.rebuild(kind)
            build = time.perf_counter() - t0
            size = len(faiss.serialize_index(vi.index))
            out.append(
                {
                    "kind": kind,
                    "vectors": n,
                    "build_s": round(build, 1),
                    "bytes_per_vector": round(size / n, 1),
                    "gb_per_million": round(size / n * 1e6 / 1e9, 3),
                }
            )
            print(out[-1], flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=60, help="standard-library modules added")
    ap.add_argument("--vectors", type=int, default=200_000)
    ap.add_argument("--out", type=Path, default=OUT / "scale.json")
    args = ap.parse_args()
    import ray

    result: dict[str, Any] = {"cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        paths = corpus(args.files, Path(tmp) / "stdlib")
        result["local"] = ingest(paths, Path(tmp) / "local", "local")
        print(result["local"], flush=True)
        t0 = time.perf_counter()
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
        result["ray_start_s"] = round(time.perf_counter() - t0, 1)
        try:
            result["ray"] = ingest(paths, Path(tmp) / "ray", "ray")
        finally:
            ray.shutdown()
        print(result["ray"], flush=True)
        result["ray_over_local"] = round(
            result["ray"]["chunks_per_s"] / result["local"]["chunks_per_s"], 3
        )
        result["writer"] = writer(Path(tmp) / "local", repeats=20)
        print(result["writer"], flush=True)
    result["vector_memory"] = vector_memory(args.vectors)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
