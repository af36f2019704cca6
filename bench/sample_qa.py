"""Retrieval and answer quality on the bundled sample questions, chunkers side by side.

    python bench/sample_qa.py [--generate] [--k 5]

For every question in ``data/eval/sample_qa.jsonl`` it searches an index of
``data/contracts`` + ``data/sample_repo`` built with each chunker and records whether
the gold span (whitespace-collapsed) lies inside the top hit (hit@1) or any of the top k
(recall@k), and whether the extractive answer's citations contain it. ``--generate``
also runs the local generator and checks its citations. Writes
``bench/results/sample_qa.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
OUT = ROOT / "bench" / "results"


def squash(text: str) -> str:
    return " ".join(text.split())


def contains_gold(hits, gold: str) -> bool:
    g = squash(gold)
    return any(g in squash(h.text) for h in hits)


def evaluate(pipe, questions, k: int, generate: bool) -> dict:
    from lateseg.answer.extractive import extractive_answer

    rows = []
    for q in questions:
        hits = pipe.search(q["question"], k=k)
        right_source = [h for h in hits if h.source.endswith(q["source"])]
        row = {
            "id": q["id"],
            "hit@1": contains_gold(hits[:1], q["gold"]),
            f"recall@{k}": contains_gold(right_source, q["gold"]),
            "extractive_cites_gold": contains_gold(
                extractive_answer(q["question"], hits, pipe.encoder).citations, q["gold"]
            ),
        }
        if generate:
            ans = pipe.ask(q["question"], k=k)
            row["generated"] = ans.text
            row["generated_cites_gold"] = contains_gold(ans.citations, q["gold"])
            row["cited_by"] = ans.cited_by
        rows.append(row)
    keys = [key for key in rows[0] if isinstance(rows[0][key], bool)]
    return {"summary": {key: sum(r[key] for r in rows) / len(rows) for key in keys}, "rows": rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--generate", action="store_true", help="also run the local generator")
    args = ap.parse_args()

    from lateseg.pipeline import Pipeline
    from lateseg.segment import DynamicChunker, FixedChunker

    lines = (DATA / "eval" / "sample_qa.jsonl").read_text("utf-8").splitlines()
    questions = [json.loads(line) for line in lines if line.strip()]
    chunkers = {
        "dynamic (default)": DynamicChunker(),
        "fixed-256": FixedChunker(256),
        "fixed-128": FixedChunker(128),
    }
    results = {}
    encoder = None
    with tempfile.TemporaryDirectory() as tmp:
        for name, chunker in chunkers.items():
            pipe = Pipeline.open(Path(tmp) / name.split()[0], chunker=chunker)
            if encoder is not None:
                pipe.encoder = encoder
            encoder = pipe.encoder
            t0 = time.perf_counter()
            report = pipe.ingest([DATA / "contracts", DATA / "sample_repo"], progress=False)
            ingest_s = time.perf_counter() - t0
            res = evaluate(pipe, questions, args.k, args.generate and name.startswith("dynamic"))
            res["chunks"] = report.chunks
            res["ingest_seconds"] = round(ingest_s, 2)
            results[name] = res
            pipe.close()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "sample_qa.json").write_text(json.dumps(results, indent=2))
    metrics = list(results["dynamic (default)"]["summary"])
    lines_md = [
        f"# Sample QA ({len(questions)} questions, k={args.k})",
        "",
        "| chunker | chunks | " + " | ".join(metrics) + " |",
        "|---|---|" + "---|" * len(metrics),
    ]
    for name, res in results.items():
        cells = [f"{res['summary'].get(m, float('nan')):.2f}" for m in metrics]
        lines_md.append(f"| {name} | {res['chunks']} | " + " | ".join(cells) + " |")
    lines_md += [
        "",
        "Command: `python bench/sample_qa.py" + (" --generate" if args.generate else "") + "`",
        "",
    ]
    (OUT / "sample_qa.md").write_text("\n".join(lines_md))
    print("\n".join(lines_md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
