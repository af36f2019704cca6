"""Hybrid (dense + BM25, scaled scores fused: lateseg.retrieve.fusion) vs dense vs lexical
retrieval, and ``auto``, the default, which picks one of them per question.

    python bench/hybrid.py [--sets sample_qa licenses stdlib]

Each set's corpus is ingested into a fresh lateseg index (default settings), and every
query is run through ``Pipeline.search`` in each mode. Metrics as in
``bench/retrieval.py``: recall of gold characters within a 1,000 / 2,000-character
budget of ranked chunks, hit@5 and MRR@10 (a chunk covering >= 50% of the gold span).
Writes ``bench/results/hybrid.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import retrieval as R  # noqa: E402

from lateseg.pipeline import Pipeline  # noqa: E402

MODES: dict[str, dict[str, Any]] = {
    "auto (default)": {"mode": "auto"},
    "dense": {"mode": "dense"},
    "lexical (BM25)": {"mode": "lexical"},
    "hybrid 1:1": {"mode": "hybrid"},
    "hybrid 2:1 dense": {"mode": "hybrid", "weights": (2.0, 1.0)},
    "hybrid 1:2 lexical": {"mode": "hybrid", "weights": (1.0, 2.0)},
}
BUDGETS = (1000, 2000)


def score(hits: list[Any], gold_source: str, start: int, end: int) -> dict[str, float]:
    length = end - start
    out: dict[str, float] = {}
    for budget in BUDGETS:
        left, got = budget, 0
        for h in hits:
            if left <= 0:
                break
            take_end = h.start + min(h.end - h.start, left)
            left -= h.end - h.start
            if h.source == gold_source:
                got += max(0, min(take_end, end) - max(h.start, start))
        out[f"recall@{budget}"] = got / length
    covers = [
        h.source == gold_source and min(h.end, end) - max(h.start, start) >= 0.5 * length
        for h in hits
    ]
    out["hit@5"] = float(any(covers[:5]))
    first = next((i for i, c in enumerate(covers[:10]) if c), None)
    out["MRR@10"] = 0.0 if first is None else 1.0 / (first + 1)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=list(R.SETS), choices=list(R.SETS))
    args = ap.parse_args(argv)
    report: dict[str, Any] = {"sets": {}}
    for name, es in R.available_sets(args.sets):
        with tempfile.TemporaryDirectory() as tmp, Pipeline.open(Path(tmp) / "idx") as pipe:
            t0 = time.perf_counter()
            rep = pipe.ingest([Path(d.source) for d in es.docs], progress=False)
            R.log(f"[{name}] ingest {time.perf_counter() - t0:.0f}s: {rep.summary()}")
            rows: dict[str, Any] = {}
            for label, kw in MODES.items():
                per = []
                t0 = time.perf_counter()
                for q in es.queries:
                    hits = pipe.search(q.question, k=20, **kw)
                    per.append(score(hits, es.docs[q.doc].source, q.start, q.end))
                ms = 1000 * (time.perf_counter() - t0) / max(len(es.queries), 1)
                rows[label] = {k: float(np.mean([p[k] for p in per])) for k in per[0]}
                rows[label]["ms/query"] = ms
                R.log(f"  {label}: {rows[label]}")
        report["sets"][name] = {"queries": len(es.queries), "modes": rows}
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "hybrid.json").write_text(json.dumps(report, indent=2) + "\n")
    metrics = [f"recall@{b}" for b in BUDGETS] + ["hit@5", "MRR@10", "ms/query"]
    lines = ["# Hybrid vs dense vs lexical retrieval (lateseg defaults, k=20)", ""]
    for name, res in report["sets"].items():
        lines += [
            f"## {name}: {res['queries']} queries",
            "",
            "| mode | " + " | ".join(metrics) + " |",
            "|---|" + "---:|" * len(metrics),
        ]
        for label, r in res["modes"].items():
            lines.append(f"| {label} | " + " | ".join(f"{r[m]:.3f}" for m in metrics) + " |")
        lines.append("")
    cmd = " ".join(["python bench/hybrid.py", *(argv or sys.argv[1:])])
    lines += [f"Command: `{cmd}` (2 CPUs; ms/query includes query embedding).", ""]
    (out / "hybrid.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
