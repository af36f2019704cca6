"""Sparse prefill against dense SDPA: prefill time and needle answers at 2k, 4k and 8k
tokens on CPU (SmolLM2-135M-Instruct).

    python bench/prefill.py [--lengths 2000 4000 7500] [--depths 3] [--budget 1024]
        [--kv-budget 128] [--out prefill]

Each case is a license haystack (``bench/kv.py``) with a 4-digit code at a depth; the
prompt is prefilled densely and sparsely (MInference-style, :mod:`lateseg.kv.sparse`,
every layer, ``min_tokens=0`` so that short prompts are measured too), each timed on its
own, and answered greedily (16 tokens); the sparse prefill is also compressed to
``--kv-budget`` tokens by the lateseg press from the same observation window (sparse
prefill, then ChunkKV). Reported per length: the prefill seconds of each and their
ratio, the density (share of causal query-key pairs computed), the shapes the heads took,
needle accuracy, and teacher-forced top-1 agreement with the dense answer. Also, per
length, attention alone (one layer's dense SDPA against the sparse kernel and its plan
on the same queries and keys), which says where the time goes. Writes
``bench/results/{out}.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools

import numpy as np
import torch

from bench.cold_start import cpu
from bench.kv import QUESTION, haystack, with_needle
from bench.kv_answers import agreement, greedy
from lateseg.generate.local import LocalGenerator
from lateseg.kv.compress import KVConfig, compress, shallow_copy
from lateseg.kv.sparse import SparsePrefill
from lateseg.kv.sparse_attention import attend, plan
from lateseg.types import Hit

OUT = Path(__file__).resolve().parent / "results"


def timed_prefill(gen: LocalGenerator, ids: list[int], window: int) -> tuple[Any, Any, Any, float]:
    with torch.inference_mode():
        t0 = time.perf_counter()
        cache, logits, obs = gen.prefill(ids, window)
        return cache, logits, obs, time.perf_counter() - t0


def attention_only(n: int, settings: SparsePrefill, repeats: int = 2) -> dict[str, float]:
    """One SmolLM2-shaped layer (9 query heads, 3 KV heads, 64 dims) on random queries
    and keys of ``n`` tokens: dense SDPA against the plan and the sparse kernel (ms)."""
    g = torch.Generator().manual_seed(n)
    q = torch.randn(1, 9, n, 64, generator=g)
    k = torch.randn(1, 3, n, 64, generator=g)
    v = torch.randn(1, 3, n, 64, generator=g)
    out: dict[str, list[float]] = {"dense_ms": [], "plan_ms": [], "kernel_ms": []}
    with torch.inference_mode():
        for _ in range(repeats + 1):  # the first round warms up
            t0 = time.perf_counter()
            torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=True, scale=0.125, enable_gqa=True
            )
            t1 = time.perf_counter()
            p = plan(q[0], k[0].repeat_interleave(3, 0), settings, 0.125, None)
            t2 = time.perf_counter()
            attend(q, k, v, settings, 0.125, None, p)
            t3 = time.perf_counter()
            out["dense_ms"].append(1000 * (t1 - t0))
            out["plan_ms"].append(1000 * (t2 - t1))
            out["kernel_ms"].append(1000 * (t3 - t2))
    return {key: statistics.median(vals[1:]) for key, vals in out.items()}


def run_case(
    dense: LocalGenerator, sparse: LocalGenerator, doc: str, code: int, kv_budget: int
) -> dict[str, Any]:
    hit = Hit(source="/haystack.txt", start=0, end=len(doc), text=doc, score=1.0)
    prompt = dense.render(dense.prompt(QUESTION, [hit]))
    n = len(prompt.ids)
    window = n - prompt.tail_token
    row: dict[str, Any] = {"prompt_tokens": n}
    cache, logits, _, row["dense_s"] = timed_prefill(dense, prompt.ids, window)
    with torch.inference_mode():
        ref = greedy(dense, shallow_copy(cache), logits, n, 16)
    row["dense_ok"] = str(code) in dense.tokenizer.decode(ref)
    del cache
    cache, logits, obs, row["sparse_s"] = timed_prefill(sparse, prompt.ids, window)
    row["sparse"] = sparse.last_sparse
    with torch.inference_mode():
        mine = greedy(sparse, shallow_copy(cache), logits, n, 16)
        row["sparse_ok"] = str(code) in sparse.tokenizer.decode(mine)
        row["agreement"] = agreement(sparse, shallow_copy(cache), logits, n, ref)
        config = KVConfig.of("lateseg", kv_budget)
        done = compress(
            cache, obs, config, text=prompt.text, offsets=prompt.offsets, window_tokens=window
        )
        kept = greedy(sparse, cache, logits, n, 16)
    row["sparse_kv_ok"] = str(code) in sparse.tokenizer.decode(kept)
    row["kv_compress_ms"] = done.compress_s * 1000
    return row


def summarise(rows: list[dict[str, Any]], lengths: Sequence[int]) -> list[dict[str, Any]]:
    out = []
    for length in lengths:
        sel = [r for r in rows if r["length"] == length]
        heads: dict[str, int] = {}
        for r in sel:
            for p, c in r["sparse"]["heads"].items():
                heads[p] = heads.get(p, 0) + c
        out.append(
            {
                "length": length,
                "cases": len(sel),
                "prompt_tokens": statistics.mean(r["prompt_tokens"] for r in sel),
                "dense_s": statistics.mean(r["dense_s"] for r in sel),
                "sparse_s": statistics.mean(r["sparse_s"] for r in sel),
                "speedup": statistics.mean(r["dense_s"] / r["sparse_s"] for r in sel),
                "density": statistics.mean(r["sparse"]["density"] for r in sel),
                "heads": heads,
                "dense_acc": statistics.mean(r["dense_ok"] for r in sel),
                "sparse_acc": statistics.mean(r["sparse_ok"] for r in sel),
                "sparse_kv_acc": statistics.mean(r["sparse_kv_ok"] for r in sel),
                "agreement": statistics.mean(r["agreement"] for r in sel),
                "attention": sel[0]["attention"],
            }
        )
    return out


def crossover(summary: list[dict[str, Any]]) -> str:
    """Where the sparse prefill starts to be faster, from the measured lengths."""
    pts = [(s["prompt_tokens"], s["speedup"]) for s in summary]
    for (n0, s0), (n1, s1) in itertools.pairwise(pts):
        if s0 < 1 <= s1:
            at = n0 + (1 - s0) * (n1 - n0) / (s1 - s0)
            return f"about {at:,.0f} tokens (interpolated between {n0:,.0f} and {n1:,.0f})"
    if pts and pts[0][1] >= 1:
        return f"at or below {pts[0][0]:,.0f} tokens"
    return f"not within the lengths measured (up to {pts[-1][0]:,.0f} tokens)"


def markdown(report: dict[str, Any]) -> str:
    a = report["args"]
    lines = [
        "# Sparse prefill (MInference-style) against dense SDPA",
        "",
        f"`python bench/prefill.py {report['argv']}` ({report['when']}; SmolLM2-135M-Instruct, "
        f"{report['cpu']}; {report['minutes']:.0f} min). A 4-digit code at {a['depths']} "
        f"depths of license haystacks; sparse prefill with a budget of {a['budget']} keys per "
        "query in blocks of "
        f"{a['block']}, every layer; greedy answers of 16 tokens.",
        "",
        "| tokens | dense prefill s | sparse prefill s | speed-up | density | heads "
        "(A / VS / block) | needle dense | needle sparse | sparse + lateseg KV "
        f"{a['kv_budget']} | top-1 agreement |",
        "| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for s in report["summary"]:
        h = s["heads"]
        lines.append(
            f"| {s['prompt_tokens']:,.0f} | {s['dense_s']:.2f} | {s['sparse_s']:.2f} "
            f"| {s['speedup']:.2f}x | {100 * s['density']:.0f}% "
            f"| {h.get('a-shape', 0)} / {h.get('vertical-slash', 0)} / {h.get('block-sparse', 0)} "
            f"| {s['dense_acc']:.2f} | {s['sparse_acc']:.2f} | {s['sparse_kv_acc']:.2f} "
            f"| {100 * s['agreement']:.0f}% |"
        )
    lines += [
        "",
        "Attention alone, one layer of this model's shape on random queries and keys (ms):",
        "",
        "| tokens | dense SDPA | plan | sparse kernel | plan + kernel vs dense |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in report["summary"]:
        t = s["attention"]
        ratio = t["dense_ms"] / (t["plan_ms"] + t["kernel_ms"])
        lines.append(
            f"| {s['length']:,} | {t['dense_ms']:.0f} | {t['plan_ms']:.0f} "
            f"| {t['kernel_ms']:.0f} | {ratio:.2f}x |"
        )
    lines += ["", f"Crossover (whole prefill): {report['crossover']}.", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[2000, 4000, 7500])
    ap.add_argument("--depths", type=int, default=3)
    ap.add_argument("--budget", type=int, default=SparsePrefill().budget)
    ap.add_argument("--block", type=int, default=SparsePrefill().block)
    ap.add_argument("--kv-budget", type=int, default=128)
    ap.add_argument("--out", default="prefill")
    args = ap.parse_args(argv)
    t_all = time.perf_counter()
    settings = SparsePrefill(budget=args.budget, block=args.block, min_tokens=0)
    dense = LocalGenerator(max_new_tokens=16)
    dense.load()
    sparse = dense.with_prefill(settings)
    for gen in (dense, sparse):  # the first forward of a process pays for warming up
        timed_prefill(gen, list(range(100, 1100)), 8)
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []
    for length in args.lengths:
        hay = haystack(dense, length)
        attention = attention_only(length, settings)
        for d in range(args.depths):
            code = int(rng.integers(1000, 10000))
            doc, _ = with_needle(hay, (d + 0.5) / args.depths, code)
            row = run_case(dense, sparse, doc, code, args.kv_budget)
            row.update(length=length, depth=(d + 0.5) / args.depths, attention=attention)
            rows.append(row)
            print(
                f"{row['prompt_tokens']} tokens: dense {row['dense_s']:.1f} s "
                f"({'ok' if row['dense_ok'] else 'miss'}), sparse {row['sparse_s']:.1f} s "
                f"({'ok' if row['sparse_ok'] else 'miss'}; density "
                f"{row['sparse']['density']:.2f}), agreement {row['agreement']:.2f}",
                file=sys.stderr,
                flush=True,
            )
    summary = summarise(rows, args.lengths)
    report = {
        "argv": " ".join(sys.argv[1:] if argv is None else argv),
        "args": vars(args),
        "when": time.strftime("%Y-%m-%d"),
        "cpu": cpu(),
        "minutes": (time.perf_counter() - t_all) / 60,
        "summary": summary,
        "crossover": crossover(summary),
        "rows": rows,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.out}.json").write_text(json.dumps(report, indent=2) + "\n")
    md = markdown(report)
    (OUT / f"{args.out}.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
