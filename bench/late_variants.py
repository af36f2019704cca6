"""Variant study (issue 4): why late chunking lost to naive vectors, and what fixes it.

    python bench/late_variants.py [--sets sample_qa licenses stdlib]
    python bench/late_variants.py --windows 128 --overlaps 32 16 8 --sizes 96/160 \
        --weights 1 0.75 0.5 --out late_overlap          # issue 16's pass-cutting grid

For each set, documents are late-encoded with two window sizes (128 tokens, the prose
default, and 254, MiniLM's whole trained length and the code default; 32 tokens of
overlap), cut into dynamic chunks of two sizes (target/max 96/160, the prose default,
and 160/256, the code default; here one window and one size serve every document), and
each chunk vector is
``normalise(w * late + (1 - w) * naive)`` for late weights w = 1, 0.5, 0.25, 0, where
``late`` is pooled from the whole-document token embeddings and ``naive`` is the chunk
embedded alone. Scored with ``bench/retrieval.py``'s metrics (exact search, same model).
Writes ``bench/results/late_variants.{json,md}``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import retrieval as R  # noqa: E402

from lateseg.encode.config import EncoderConfig  # noqa: E402
from lateseg.encode.late import LateEncoder  # noqa: E402
from lateseg.segment import DynamicChunker, DynamicConfig  # noqa: E402

WINDOWS = (128, 254)
SIZES = {
    "96/160": DynamicConfig(min_tokens=24, target_tokens=96, max_tokens=160),
    "160/256": DynamicConfig(min_tokens=32, target_tokens=160, max_tokens=256),
}
WEIGHTS = (1.0, 0.5, 0.25, 0.0)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=list(R.SETS), choices=list(R.SETS))
    ap.add_argument("--windows", nargs="+", type=int, default=list(WINDOWS))
    ap.add_argument("--overlaps", nargs="+", type=int, default=[32])
    ap.add_argument("--sizes", nargs="+", choices=list(SIZES), default=list(SIZES))
    ap.add_argument("--weights", nargs="+", type=float, default=list(WEIGHTS))
    ap.add_argument("--out", default="late_variants", help="results file stem")
    args = ap.parse_args(argv)
    naive_enc = LateEncoder()
    cache: dict[str, np.ndarray] = {}

    def naive(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, naive_enc.embed_texts(missing), strict=True))
        return np.vstack([cache[t] for t in texts])

    rows = []
    for name, es in R.available_sets(args.sets):
        tokens = sum(len(naive_enc.tokenize(d.text)) for d in es.docs)
        qvecs = naive_enc.embed_queries([q.question for q in es.queries])
        for window, overlap in itertools.product(args.windows, args.overlaps):
            enc = LateEncoder(EncoderConfig(window=window, code_window=window, overlap=overlap))
            encoded = [enc.encode_document(d.text) for d in es.docs]
            # tokens the forward passes read: every window's, overlaps counted twice
            late_tokens = sum(e - s for d in es.docs for s, e in enc._plan(d.text, False).windows)
            for size in args.sizes:
                cfg = SIZES[size]
                chunker = DynamicChunker(cfg, code=cfg)
                doc_ix, spans, late, naive_tokens = [], [], [], 0
                for i, (d, tok) in enumerate(zip(es.docs, encoded, strict=True)):
                    s = [(c.start, c.end) for c in chunker.chunk(d, tok)]
                    if s:
                        doc_ix += [i] * len(s)
                        spans += s
                        late.append(tok.pool(s))
                        naive_tokens += sum(b - a for a, b in (tok.token_range(*x) for x in s))
                arr = np.asarray(spans)
                nv = naive([es.docs[i].text[a:b] for i, (a, b) in zip(doc_ix, spans, strict=True)])
                lv = np.vstack(late)
                for w in args.weights:
                    vecs = R.normalise(w * lv + (1 - w) * nv)
                    ch = R.Chunked(np.asarray(doc_ix), arr[:, 0], arr[:, 1], vecs, 1.0)
                    summary = R.evaluate(ch, qvecs, es, tokens)["summary"]
                    cost = (late_tokens + (naive_tokens if w < 1.0 else 0)) / tokens
                    row = {
                        "set": name,
                        "window": window,
                        "overlap": overlap,
                        "size": size,
                        "late_weight": w,
                        "passes": round(cost, 3),
                    }
                    rows.append({**row, "chunks": len(spans), **summary})
                    R.log(f"{row}: {summary}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.out}.json").write_text(json.dumps(rows, indent=2) + "\n")
    metrics = [k for k in rows[0] if k.startswith(("recall@", "hit@", "MRR@"))]
    lines = [
        "# Late chunking variants: window x chunk size x late weight",
        "",
        "Vector = normalise(w * late + (1 - w) * naive). Window: tokens per late-encoding "
        "window; overlap: tokens adjacent windows share. Size: dynamic chunks' target/max "
        "tokens. Passes: tokens the model reads per document token (the windows, plus each "
        "chunk again when w < 1).",
        "",
        "| set | window | overlap | size | late w | passes | chunks | "
        + " | ".join(metrics)
        + " |",
        "|---|---:|---:|---|---:|---:|---:|" + "---:|" * len(metrics),
    ]
    for r in rows:
        cells = " | ".join(f"{r[m]:.3f}" for m in metrics)
        lines.append(
            f"| {r['set']} | {r['window']} | {r['overlap']} | {r['size']} | "
            f"{r['late_weight']:.2f} | {r['passes']:.2f} | {r['chunks']} | {cells} |"
        )
    cmd = " ".join(["python bench/late_variants.py", *(argv or sys.argv[1:])])
    lines += ["", f"Command: `{cmd}`", ""]
    (out / f"{args.out}.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
