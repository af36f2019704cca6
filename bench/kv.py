"""KV-cache compression side by side: needle retrieval over real license haystacks.

    python bench/kv.py [--lengths 2000 4000 7500] [--depths 5] [--budgets 64 128 256 512]
                       [--methods lateseg ...] [--groups 1 3 6] [--out kv]

A short fact ("The secret access code for the vault is NNNN.", a seeded code per case) is
placed at a paragraph start at several depths of a haystack made of the texts in
/usr/share/common-licenses, cut to about the given number of generator tokens. Each case
is prefilled once (SmolLM2-135M-Instruct, CPU, query-aware: the question is the
observation window); every method and budget then compresses a shallow copy of that cache
and decodes greedily. Reported per method and budget: answer accuracy (the code appears
in the answer), needle retention (share of the needle's tokens kept, over layers and KV
heads), the KV bytes ratio, compression time as a share of prefill time, and decode
tokens/s relative to the full cache. ``--groups`` also runs each method with one choice
shared by groups of that many layers (layer-wise index reuse). Writes
``bench/results/{out}.{json,md}`` (``kv`` by default).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch

from bench.cold_start import cpu
from lateseg.generate.local import LocalGenerator
from lateseg.kv.chunks import token_span
from lateseg.kv.compress import METHODS, KVConfig, compress, shallow_copy
from lateseg.types import Hit

OUT = Path(__file__).resolve().parent / "results"
LICENSES = Path("/usr/share/common-licenses")
TEXTS = ["Apache-2.0", "GPL-3", "MPL-2.0", "LGPL-2.1", "GFDL-1.3", "Artistic"]
QUESTION = "What is the secret access code for the vault?"


def haystack(gen: LocalGenerator, tokens: int) -> str:
    text = "\n\n".join(
        (LICENSES / name).read_text() for name in TEXTS if (LICENSES / name).exists()
    )
    enc = gen.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    end = enc["offset_mapping"][min(tokens, len(enc["input_ids"])) - 1][1]
    return text[: text.rfind("\n\n", 0, end)]


def with_needle(text: str, depth: float, code: int) -> tuple[str, str]:
    needle = f"The secret access code for the vault is {code}."
    at = text.find("\n\n", int(len(text) * depth))
    at = len(text) if at < 0 else at
    return text[:at] + "\n\n" + needle + text[at:], needle


def run_case(
    gen: LocalGenerator,
    doc: str,
    needle: str,
    code: int,
    budgets: Sequence[int],
    methods: Sequence[str] = METHODS,
    groups: Sequence[int | None] = (None,),
) -> list[dict[str, Any]]:
    hit = Hit(source="/haystack.txt", start=0, end=len(doc), text=doc, score=1.0)
    prompt = gen.render(gen.prompt(QUESTION, [hit]))
    window = len(prompt.ids) - prompt.tail_token
    at = prompt.text.index(needle)
    first, last = token_span(prompt.offsets, at, at + len(needle))
    with torch.inference_mode():
        t0 = time.perf_counter()
        cache, logits, obs = gen.prefill(prompt.ids, window)
        prefill = time.perf_counter() - t0
    rows = []
    runs = [
        (method, budget, group)
        for method in ["full", *(m for m in methods if m != "full")]
        for budget in ([None] if method == "full" else budgets)
        for group in ((None,) if method == "full" else groups)
    ]
    for method, budget, group in runs:
        config = KVConfig.of(method, budget or len(prompt.ids), layer_group=group)
        work = shallow_copy(cache)
        with torch.inference_mode():
            done = compress(
                work,
                obs,
                config,
                text=prompt.text,
                offsets=prompt.offsets,
                window_tokens=window,
            )
            text, made, secs, _ = gen.decode(work, logits, len(prompt.ids), None)
        st = done.stats()
        rows.append(
            {
                "method": method if group is None else f"{method}, layer groups of {group}",
                "budget": budget,
                "prompt_tokens": len(prompt.ids),
                "correct": str(code) in text,
                "retention": done.retention(first, last),
                "bytes_ratio": st["ratio"],
                "compress_share": done.compress_s / prefill,
                "prefill_s": prefill,
                "decode_tps": made / secs if secs > 0 else None,
                "answer": text,
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[2000, 4000, 7500])
    ap.add_argument("--depths", type=int, default=5)
    ap.add_argument("--budgets", type=int, nargs="+", default=[64, 128, 256, 512])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument(
        "--groups",
        type=int,
        nargs="+",
        default=[None],
        help="layer group sizes (default: each press's own, 3 for lateseg, 1 for the others)",
    )
    ap.add_argument("--out", default="kv", help="results name under bench/results (kv)")
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    gen = LocalGenerator(max_new_tokens=16)
    gen.load()
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []
    t_all = time.perf_counter()
    for length in args.lengths:
        hay = haystack(gen, length)
        for d in range(args.depths):
            depth = (d + 0.5) / args.depths
            code = int(rng.integers(1000, 10000))
            doc, needle = with_needle(hay, depth, code)
            case = run_case(gen, doc, needle, code, args.budgets, args.methods, args.groups)
            for r in case:
                r.update(length=length, depth=depth)
            rows += case
            full = next(r for r in case if r["method"] == "full")
            print(
                f"{length} tokens, depth {depth:.1f}: full {'ok' if full['correct'] else 'miss'}"
                f" ({full['prompt_tokens']} tokens, {full['prefill_s']:.1f} s prefill); "
                + ", ".join(
                    f"{r['method']}@{r['budget']}={'ok' if r['correct'] else '-'}"
                    for r in case[1:]
                    if r["budget"] == 128
                ),
                flush=True,
            )
    summary = summarise(rows)
    report = {
        "lengths": args.lengths,
        "depths": args.depths,
        "budgets": args.budgets,
        "seconds": time.perf_counter() - t_all,
        "summary": summary,
        "rows": rows,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.out}.json").write_text(json.dumps(report, indent=2) + "\n")
    md = markdown(summary, args, len(rows), report["seconds"])
    (OUT / f"{args.out}.md").write_text(md)
    print(md)
    return 0


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    full_tps = {(r["length"], r["depth"]): r["decode_tps"] for r in rows if r["method"] == "full"}
    out = []
    keys = sorted({(r["method"], r["budget"] or 0) for r in rows}, key=lambda k: (k[1], k[0]))
    for method, budget in keys:
        sel = [r for r in rows if r["method"] == method and (r["budget"] or 0) == budget]
        tps = [
            r["decode_tps"] / full_tps[(r["length"], r["depth"])]
            for r in sel
            if r["decode_tps"] and full_tps[(r["length"], r["depth"])]
        ]
        out.append(
            {
                "method": method,
                "budget": budget or None,
                "cases": len(sel),
                "accuracy": float(np.mean([r["correct"] for r in sel])),
                "retention": float(np.mean([r["retention"] for r in sel])),
                "needle_whole": float(np.mean([r["retention"] == 1.0 for r in sel])),
                "bytes_ratio": float(np.mean([r["bytes_ratio"] for r in sel])),
                "compress_share": float(np.max([r["compress_share"] for r in sel])),
                "decode_speed_vs_full": float(np.mean(tps)) if tps else None,
            }
        )
    return out


def markdown(summary: list[dict[str, Any]], args: argparse.Namespace, n: int, secs: float) -> str:
    lines = [
        "# KV-cache compression: needle retrieval (SmolLM2-135M-Instruct, CPU)",
        "",
        "| method | budget | accuracy | needle retention | needle kept whole | KV bytes ratio "
        "| compression / prefill (max) | decode speed vs full |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summary:
        speed = s["decode_speed_vs_full"]
        lines.append(
            f"| {s['method']} | {s['budget'] or 'all'} | {s['accuracy']:.2f} | "
            f"{s['retention']:.2f} | {s['needle_whole']:.2f} | {s['bytes_ratio']:.3f} | "
            f"{100 * s['compress_share']:.1f}% | {f'{speed:.2f}x' if speed else '-'} |"
        )
    lines += [
        "",
        f"{n // len(summary)} cases each: haystacks of about {', '.join(map(str, args.lengths))} "
        f"tokens x {args.depths} depths; {secs / 60:.1f} min in all ({cpu()}). Layer groups: "
        "each press's own unless a row says (3 for lateseg, 1 for the others).",
        "",
        "Command: `python bench/kv.py --lengths "
        + " ".join(map(str, args.lengths))
        + f" --depths {args.depths} --budgets "
        + " ".join(map(str, args.budgets))
        + ("" if set(args.methods) == set(METHODS) else " --methods " + " ".join(args.methods))
        + ("" if args.groups == [None] else " --groups " + " ".join(map(str, args.groups)))
        + ("" if args.out == "kv" else f" --out {args.out}")
        + "`",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
