"""Variant study for issue 4: how much of a chunk vector should be late (contextual)?

    python bench/late_mix.py

For dynamic chunks at two sizes (target/max tokens 160/256, the default, and 96/160),
each chunk vector is ``normalise(w * late + (1 - w) * naive)`` for w in 0, .25, .5, .75,
1, where ``late`` is pooled from the whole-document token embeddings and ``naive`` is the
chunk embedded alone. Scored with ``bench/retrieval.py``'s metrics on the sample and
license sets. Writes ``bench/results/late_mix.{json,md}``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import retrieval as R  # noqa: E402

from lateseg.encode.late import LateEncoder  # noqa: E402
from lateseg.segment import DynamicChunker, DynamicConfig  # noqa: E402

SIZES = {
    "160/256": DynamicConfig(),
    "96/160": DynamicConfig(min_tokens=24, target_tokens=96, max_tokens=160),
}
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def main() -> int:
    enc = LateEncoder()
    sets = [
        R.sample_qa_set(ROOT / "data" / "eval" / "sample_qa.jsonl"),
        R.licenses_set(ROOT / "data" / "eval" / "licenses_qa.jsonl"),
    ]
    rows = []
    for es in sets:
        tokens = sum(len(enc.tokenize(d.text)) for d in es.docs)
        qvecs = enc.embed_queries([q.question for q in es.queries])
        encoded = [enc.encode_document(d.text) for d in es.docs]
        for size, cfg in SIZES.items():
            chunker = DynamicChunker(cfg)
            late_parts, naive_parts = [], []
            for doc, tok in zip(es.docs, encoded, strict=True):
                spans = [(c.start, c.end) for c in chunker.chunk(doc, tok)]
                late_parts.append(R.DocChunks(spans, tok.pool(spans) if spans else None, 0.0))
                naive_parts.append(R.DocChunks(spans, None, 0.0))
            late = R.assemble(enc, es.docs, late_parts)
            naive = R.assemble(enc, es.docs, naive_parts)
            for w in WEIGHTS:
                vecs = R.normalise(w * late.vecs + (1 - w) * naive.vecs)
                mixed = R.Chunked(late.doc, late.start, late.end, vecs, 1.0)
                summary = R.evaluate(mixed, qvecs, es, tokens)["summary"]
                rows.append({"set": es.name, "size": size, "late_weight": w, **summary})
                R.log(f"{es.name} {size} w={w}: {summary}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "late_mix.json").write_text(json.dumps(rows, indent=2))
    metrics = [k for k in rows[0] if k not in {"set", "size", "late_weight"}]
    lines = [
        "# Late vs naive chunk vectors (dynamic chunks)",
        "",
        "| set | target/max tokens | late weight | " + " | ".join(metrics) + " |",
        "|---|---|---|" + "---|" * len(metrics),
    ]
    for r in rows:
        cells = " | ".join(f"{r[m]:.3f}" for m in metrics)
        lines.append(f"| {r['set']} | {r['size']} | {r['late_weight']:.2f} | {cells} |")
    lines += ["", "Command: `python bench/late_mix.py`", ""]
    (out / "late_mix.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
