"""Scale-out measurements for the Ray engine, in one run on this machine:

1. ingest throughput (chunks/s and document tokens/s), the local engine against the Ray
   engine on a local Ray cluster of the same CPUs, same corpus, same index contents;
2. the single writer alone: chunks/s that one process writes into an index (SQLite rows
   + FAISS vectors + saves), fed with precomputed chunks, i.e. the ceiling of any number
   of encoders feeding it;
3. vector memory per million chunks: exact (flat), HNSW and IVF-PQ, from serialized
   index sizes at ``--vectors`` vectors of 384 dimensions.

4. with ``--stores``, instead of the above: each store (SQLite in a folder, PostgreSQL on a
   throwaway local server started here, ``tests/pg_cluster.py``, fsync on) loaded with
   ``--chunks`` synthetic chunks (random 384-d vectors, text of words drawn from real text)
   through the index's own writer: rows/s with one writer and with two writer processes
   at once (PostgreSQL), the time a cold cache takes to catch up (no cache file: rebuilt
   from the store), and search latency p50/p95 (dense and lexical, through the
   Retriever, query vectors given) → ``bench/results/scale_stores.{json,md}``.

5. with ``--ray-writers``: Ray ingest of the ``--files`` corpus into a PostgreSQL index
   whose encoder actors write their own documents, with 1, 2 and 4 actors, and into a
   folder (the driver writes) → ``bench/results/scale_ray_writers.json``.

Then ``bench/results/scale.md`` puts these together with the encoder's GPU throughput
(``bench/results/encoder_h200.json``, measured on an H200 in bf16) into an estimate for
one billion tokens.

    python bench/scale.py [--files 60] [--vectors 200000]
    python bench/scale.py --stores [--chunks 1000000]
    python bench/scale.py --ray-writers [--files 60]
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


def ingest(
    paths: list[Path],
    index: Any,
    engine: str,
    workers: int | None = None,
    cache: Path | None = None,
) -> dict[str, Any]:
    from lateseg import Pipeline

    with Pipeline.open(index, cache_dir=cache) as pipe:
        t0 = time.perf_counter()
        report = pipe.ingest(paths, progress=False, engine=engine, workers=workers)
        dt = time.perf_counter() - t0
        tokens = sum(
            len(pipe.encoder.tokenize(pipe.index.store.document(s).text))
            for s in pipe.index.store.sources()
        )
    return {
        "engine": engine,
        "workers": workers,
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


# -- the stores at a million chunks ---------------------------------------------------
DOC_CHUNKS = 100  # chunks per synthetic document (one transaction each)
LICENSES = Path("/usr/share/common-licenses")


def _synthetic(n_docs: int, first: int, seed: int, dim: int = 384) -> Any:
    """Documents of DOC_CHUNKS chunks of random words, with random unit
    vectors: ``(doc, chunks, vectors)`` one document at a time."""
    from lateseg.types import Chunk, Document

    # Words drawn from real running text (Debian's licence texts), so their frequencies
    # are a natural language's and the lexical index sees common and rare words.
    texts = [p.read_text(errors="replace") for p in sorted(LICENSES.glob("*")) if p.is_file()]
    words = re.findall(r"[A-Za-z]{2,}", " ".join(texts)) or [f"w{i}" for i in range(50_000)]
    rng = np.random.default_rng(seed)
    for d in range(first, first + n_docs):
        picks = rng.integers(0, len(words), size=(DOC_CHUNKS, 90))
        texts = [" ".join(words[i] for i in row) + "." for row in picks]
        text = " ".join(texts)
        doc = Document(f"/synthetic/{d:07d}.txt", text, "text")
        chunks, pos = [], 0
        for t in texts:
            chunks.append(Chunk(doc.id, pos, pos + len(t), t))
            pos += len(t) + 1
        vecs = rng.standard_normal((DOC_CHUNKS, dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        yield doc, chunks, vecs


def _load(
    location: Any, cache: Path | None, n_docs: int, first: int, seed: int
) -> tuple[int, float]:
    """Write ``n_docs`` synthetic documents through the index's writer: chunks written,
    and the seconds spent in the writer (making the synthetic rows is not counted)."""
    from lateseg import Pipeline

    cache = cache if isinstance(location, str) else None  # a folder holds its own cache
    with Pipeline.open(location, vectors="flat", cache_dir=cache) as pipe:
        written, writing = 0, 0.0
        with pipe.index.writer() as w:
            for doc, chunks, vecs in _synthetic(n_docs, first, seed):
                t0 = time.perf_counter()  # the writer's time, not making the rows
                written += w.add(doc, "x", chunks, vecs)
                writing += time.perf_counter() - t0
    return written, writing


def _load_in_process(args: tuple[Any, ...]) -> tuple[int, float]:
    return _load(*args)


def _percentiles(times: list[float]) -> dict[str, float]:
    ms = np.asarray(times) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 2),
            "p95_ms": round(float(np.percentile(ms, 95)), 2)}  # fmt: skip


def store_scale(location: Any, cache: Path, n_chunks: int, two_writers: bool) -> dict[str, Any]:
    """Load one store and measure it (see the module's docstring, item 4)."""
    import multiprocessing

    from lateseg import Pipeline
    from lateseg.index import VECTORS
    from lateseg.retrieve.retriever import Retriever

    out: dict[str, Any] = {}
    n_docs = n_chunks // DOC_CHUNKS
    where = cache if isinstance(location, str) else None  # a folder holds its own cache
    Pipeline.open(location, vectors="flat", cache_dir=where).close()  # the manifest
    if two_writers:  # half by two processes at once, the rest by one
        half = n_docs // 2
        t0 = time.perf_counter()
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(2) as pool:
            jobs = [(location, cache.with_name(cache.name + str(i)), half // 2,
                     i * (half // 2), 100 + i) for i in range(2)]  # fmt: skip
            parts = pool.map(_load_in_process, jobs)
        dt = time.perf_counter() - t0
        done = sum(n for n, _ in parts)
        # Both write at once; each one's writer seconds, the longer of the two.
        busy = max(w for _, w in parts)
        out["two_writers"] = {"chunks": done, "wall_s": round(dt, 1), "writer_s": round(busy, 1),
                              "chunks_per_s": round(done / busy)}  # fmt: skip
        print("two writers", out["two_writers"], flush=True)
        first, rest = 2 * (half // 2), n_docs - 2 * (half // 2)
    else:
        first, rest = 0, n_docs
    t0 = time.perf_counter()
    done, busy = _load(location, cache, rest, first, 7)
    dt = time.perf_counter() - t0
    out["one_writer"] = {"chunks": done, "wall_s": round(dt, 1), "writer_s": round(busy, 1),
                         "chunks_per_s": round(done / busy)}  # fmt: skip
    print("one writer", out["one_writer"], flush=True)
    with Pipeline.open(location, readonly=True, cache_dir=where) as pipe:
        out["chunks"] = pipe.index.store.counts()[1]
        out["store_bytes"] = sum(pipe.index.store.disk_bytes().values())
    (cache / VECTORS).unlink()
    t0 = time.perf_counter()
    with Pipeline.open(location, readonly=True, cache_dir=where) as pipe:
        out["cold_cache_s"] = round(time.perf_counter() - t0, 1)  # rebuilt from the store
        rng = np.random.default_rng(1)
        queries = rng.standard_normal((200, 384)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        it = iter(queries)
        retriever = Retriever(pipe.index, lambda _q: next(it)[None, :])
        retriever.search("warm up", 5)
        dense = []
        for _ in range(199):
            t0 = time.perf_counter()
            retriever.search("q", 5)
            dense.append(time.perf_counter() - t0)
        out["dense"] = _percentiles(dense)
        _, chunks, _ = next(_synthetic(1, 0, 3))  # one document's words, made once
        words = [c.text.split()[:3] for c in chunks[:50]]
        lexical = []
        for ws in words:
            t0 = time.perf_counter()
            retriever.search(" ".join(ws), 5, mode="lexical")
            lexical.append(time.perf_counter() - t0)
        out["lexical"] = _percentiles(lexical)
    print(out, flush=True)
    return out


def stores(n_chunks: int) -> dict[str, Any]:
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from pg_cluster import Cluster

    result: dict[str, Any] = {"chunks": n_chunks, "cpus": os.cpu_count(), "cpu": _cpu()}
    with tempfile.TemporaryDirectory(dir=os.environ.get("LATESEG_BENCH_TMP")) as tmp:
        folder = Path(tmp) / "idx"
        result["sqlite"] = store_scale(folder, folder, n_chunks, two_writers=False)
        shutil.rmtree(folder)
        with Cluster(durable=True) as cluster:
            url = cluster.database()
            result["postgresql"] = store_scale(url, Path(tmp) / "pgcache", n_chunks, True)
    lite, pg = result["sqlite"], result["postgresql"]
    result["pg_over_sqlite"] = {
        "dense_p50": round(pg["dense"]["p50_ms"] / lite["dense"]["p50_ms"], 2),
        "lexical_p50": round(pg["lexical"]["p50_ms"] / lite["lexical"]["p50_ms"], 2),
    }
    return result


def _cpu() -> str:
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    keep = sorted(f for f in flags if f.startswith(("avx2", "avx512", "amx")))
    return " ".join(keep)


def write_stores_md(r: dict[str, Any], path: Path) -> None:
    rows = []
    for name in ("sqlite", "postgresql"):
        s = r[name]
        two = s.get("two_writers")
        rows.append(
            f"| {name} | {s['one_writer']['chunks_per_s']:,} | {two['chunks_per_s']:,} | "
            if two
            else f"| {name} | {s['one_writer']['chunks_per_s']:,} | n/a (one writer at a time) | "
        )
        rows[-1] += (
            f"{s['cold_cache_s']} | {s['dense']['p50_ms']} / {s['dense']['p95_ms']} | "
            f"{s['lexical']['p50_ms']} / {s['lexical']['p95_ms']} | "
            f"{s['store_bytes'] / 1e9:.2f} |"
        )
    path.write_text(
        f"# The stores at {r['chunks']:,} chunks\n\n"
        f"`python bench/scale.py --stores --chunks {r['chunks']}` (`scale_stores.json`), "
        f"{r['cpus']} CPUs ({r['cpu']}). Synthetic chunks of 90 words drawn from "
        "Debian's licence texts with random 384-d unit vectors, 100 per document, "
        "written through `Index.writer()` (rows, vectors, change log; the FAISS cache "
        "kept flat and saved as ingest saves "
        "it). PostgreSQL 15 runs on this machine (a throwaway cluster, fsync on, default "
        "settings, a Unix socket); SQLite is the folder index. Search goes through the "
        "Retriever with given query vectors (no model), k = 5, over 199 dense and 50 "
        "lexical queries; both stores search the same flat FAISS cache, so the difference "
        "is the store's share (the change-log check and the rows of the hits).\n\n"
        "| store | chunks/s, one writer | chunks/s, two writers at once | cold cache "
        "catch-up (s) | dense p50 / p95 (ms) | lexical p50 / p95 (ms) | store on disk "
        "(GB) |\n|---|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n\n"
        f"PostgreSQL over SQLite, p50: dense {r['pg_over_sqlite']['dense_p50']}x, lexical "
        f"{r['pg_over_sqlite']['lexical_p50']}x. Lexical ranking differs by store (SQLite: "
        "FTS5 BM25; PostgreSQL: ts_rank over a GIN-indexed tsvector).\n"
    )


def ray_writers(n_files: int) -> dict[str, Any]:
    """Ray ingest into a PostgreSQL index whose actors write their documents themselves,
    with 1, 2 and 4 encoder actors, beside Ray into a folder (the driver writes)."""
    import sys

    import ray

    sys.path.insert(0, str(ROOT / "tests"))
    from pg_cluster import Cluster

    result: dict[str, Any] = {"cpus": os.cpu_count(), "cpu": _cpu(), "runs": []}
    with tempfile.TemporaryDirectory() as tmp, Cluster(durable=True) as cluster:
        paths = corpus(n_files, Path(tmp) / "stdlib")
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
        try:
            ingest(paths[:1], Path(tmp) / "warm", "ray")  # workers' imports, the model files
            for actors in (1, 2, 4):
                run = ingest(paths, cluster.database(), "ray", actors, Path(tmp) / f"c{actors}")
                result["runs"].append({"store": "postgresql (actors write)", **run})
                print(result["runs"][-1], flush=True)
            run = ingest(paths, Path(tmp) / "folder", "ray", 1)
            result["runs"].append({"store": "folder (the driver writes)", **run})
            print(result["runs"][-1], flush=True)
        finally:
            ray.shutdown()
    return result


def write_ray_writers_md(r: dict[str, Any], files: int, path: Path) -> None:
    rows = "\n".join(
        f"| {x['store']} | {x['workers']} | {x['seconds']} | {x['chunks_per_s']} | "
        f"{x['tokens_per_s']:,} |"
        for x in r["runs"]
    )
    first = r["runs"][0]
    path.write_text(
        "# Ray ingest with the actors writing a PostgreSQL index\n\n"
        f"`python bench/scale.py --ray-writers --files {files}` (`scale_ray_writers.json`), "
        f"one local Ray cluster of {r['cpus']} CPUs ({r['cpu']}), the PostgreSQL server on "
        f"the same machine (fsync on). Corpus: {first['files']} files, {first['chunks']:,} "
        f"chunks, {first['tokens']:,} document tokens (the sample data and {files} "
        "standard-library modules). Each run is a new index, after a warm-up ingest of one "
        "folder.\n\n"
        "| index | encoder actors | seconds | chunks/s | tokens/s |\n"
        "|---|---:|---:|---:|---:|\n" + rows + "\n\n"
        "On 2 cores more actors only divide the same CPUs (each actor gets "
        "fewer threads; Ray's own processes and the server share them too): the "
        "numbers say what the actors' own writes cost, not what more machines give. "
        "Written by the actors, the vectors no longer travel back to the driver.\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=60, help="standard-library modules added")
    ap.add_argument("--vectors", type=int, default=200_000)
    ap.add_argument("--out", type=Path, default=OUT / "scale.json")
    ap.add_argument(
        "--stores", action="store_true", help="measure SQLite and PostgreSQL instead (item 4)"
    )
    ap.add_argument("--chunks", type=int, default=1_000_000, help="--stores: chunks loaded")
    ap.add_argument(
        "--ray-writers",
        action="store_true",
        help="measure Ray ingest into PostgreSQL with 1, 2 and 4 actors writing instead",
    )
    args = ap.parse_args()
    if args.ray_writers:
        r = ray_writers(args.files)
        (OUT / "scale_ray_writers.json").write_text(json.dumps(r, indent=1) + "\n")
        write_ray_writers_md(r, args.files, OUT / "scale_ray_writers.md")
        return
    if args.stores:
        r = stores(args.chunks)
        (OUT / "scale_stores.json").write_text(json.dumps(r, indent=1) + "\n")
        write_stores_md(r, OUT / "scale_stores.md")
        print((OUT / "scale_stores.md").read_text())
        return
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
