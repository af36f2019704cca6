"""Index on a real codebase: ingest throughput, search latency, incremental re-ingest.

    python bench/index_real.py [--files 150]

Copies ``--files`` Python files of the standard library (every k-th of the sorted list,
tests left out, so every package is represented) to a scratch folder and:

1. ingests them into a fresh index (default settings): seconds, chunks/s, files/s;
2. searches 100 questions (the docstrings of ``data/eval/stdlib_code.jsonl``) in each
   mode, one at a time: p50 / p95 ms (query embedding included);
3. re-ingests unchanged (hash check only), then after touching 1% of the files (a line
   appended), and compares with the full ingest: the incremental / full time ratio.

Writes ``bench/results/index_real.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from lateseg.pipeline import Pipeline

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results"


def pick_files(n: int) -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(
        p
        for p in stdlib.rglob("*.py")
        if not {"test", "tests", "idlelib", "site-packages"} & set(p.relative_to(stdlib).parts)
    )
    step = max(1, len(files) // n)
    return files[::step][:n]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=150)
    args = ap.parse_args(argv)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    questions = [
        json.loads(line)["question"]
        for line in (ROOT / "data" / "eval" / "stdlib_code.jsonl").read_text().splitlines()
        if line.strip()
    ][:100]
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "stdlib"
        for f in pick_files(args.files):
            dest = corpus / f.relative_to(stdlib)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, dest)
        n_files = sum(1 for _ in corpus.rglob("*.py"))
        with Pipeline.open(Path(tmp) / "idx") as pipe:
            pipe.encoder.encode_document("Warm-up.")  # model loading is not ingest time
            t0 = time.perf_counter()
            full = pipe.ingest([corpus], progress=False)
            t_full = time.perf_counter() - t0
            docs, chunks = pipe.index.store.counts()
            report["full_ingest"] = {
                "files": n_files,
                "documents": docs,
                "chunks": chunks,
                "failed": len(full.failed),
                "seconds": t_full,
                "chunks_per_s": chunks / t_full,
                "files_per_s": docs / t_full,
            }
            print(report["full_ingest"], flush=True)
            latency = {}
            for mode in ("dense", "lexical", "hybrid"):
                lat = []
                for q in questions:
                    t0 = time.perf_counter()
                    pipe.search(q, k=10, mode=mode)
                    lat.append(1000 * (time.perf_counter() - t0))
                latency[mode] = {
                    "p50_ms": float(np.percentile(lat, 50)),
                    "p95_ms": float(np.percentile(lat, 95)),
                }
            report["search"] = latency
            print(latency, flush=True)
            t0 = time.perf_counter()
            same = pipe.ingest([corpus], progress=False)
            t_same = time.perf_counter() - t0
            k = max(1, round(n_files / 100))  # 1% of the files, spread over the tree
            touched = sorted(corpus.rglob("*.py"))[:: max(1, n_files // k)][:k]
            for f in touched:
                with open(f, "a", encoding="utf-8") as fh:
                    fh.write("\n# touched by bench/index_real.py\n")
            t0 = time.perf_counter()
            inc = pipe.ingest([corpus], progress=False)
            t_inc = time.perf_counter() - t0
            report["reingest"] = {
                "unchanged_seconds": t_same,
                "unchanged_files": len(same.unchanged),
                "touched_files": len(touched),
                "updated_files": len(inc.updated),
                "incremental_seconds": t_inc,
                "incremental_over_full": t_inc / t_full,
            }
            print(report["reingest"], flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "index_real.json").write_text(json.dumps(report, indent=2) + "\n")
    fi, rs = report["full_ingest"], report["reingest"]
    assert isinstance(fi, dict) and isinstance(rs, dict)
    lines = [
        f"# Index on the Python standard library ({fi['files']} files)",
        "",
        f"Full ingest: {fi['documents']} documents, {fi['chunks']:,} chunks in "
        f"{fi['seconds']:.1f} s = **{fi['chunks_per_s']:.1f} chunks/s**, "
        f"{fi['files_per_s']:.2f} files/s ({fi['failed']} failed).",
        "",
        "| search mode | p50 ms | p95 ms |",
        "|---|---:|---:|",
    ]
    for mode, v in latency.items():
        lines.append(f"| {mode} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} |")
    lines += [
        "",
        f"Re-ingest unchanged: {rs['unchanged_seconds']:.2f} s ({rs['unchanged_files']} files "
        f"skipped by hash). After touching {rs['touched_files']} files (1%): "
        f"{rs['incremental_seconds']:.2f} s, {rs['updated_files']} updated = "
        f"**{rs['incremental_over_full']:.3f}x** the full ingest.",
        "",
        f"Command: `python bench/index_real.py --files {args.files}` (2 CPUs).",
        "",
    ]
    (OUT / "index_real.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
