"""KV compression judged on answers, not needles: how far a compressed cache still gives
the full cache's answer, per press and budget, on the contract and licence questions.

    python bench/kv_answers.py [--sets contracts licenses] [--limit N]
        [--presses lateseg chunkkv-fixed snapkv keydiff streaming]
        [--budgets 0.1 0.25 0.5 128 512] [--variants] [--groups 3 6] [--decode]

Each question gets its ``k`` passages as ``ask`` retrieves them and the prompt ``generate``
renders (SmolLM2-135M-Instruct, CPU); the prompt is prefilled once with the question as
the observation window, and the full cache's first 32 answer tokens are decoded greedily.
Every press x budget then compresses a shallow copy of that cache and is fed those tokens
(teacher forcing): its **agreement** is the share of them it would have chosen itself,
a per-token measure that needs no gold value and is not at the mercy of the handful of
questions a 135M model answers right. Budgets under 1 are shares of the prompt, others
tokens. Also reported: the KV bytes kept and the compression time.

``--decode`` also decodes every run (at most 40 new tokens) and grades it as
``bench/answers.py`` does: accuracy, and **retention** (of the questions the full cache
answers right, the share still right), with decode speed (``kv_answers_decoded.md``).

``--variants`` adds the diagnosis, for the lateseg press at each budget: the whole
preamble (system prompt and the "Passages:" line) kept as sinks instead of 4 tokens;
chunks of at most 16 or 64 tokens instead of 32; and the question also placed before the
passages (so prefill reads them knowing it; measured against its own full cache).
``--groups G ...`` adds the lateseg press with one choice shared by groups of G layers
(layer-wise index reuse). Writes ``bench/results/kv_answers.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import correct, pct, set_inputs  # noqa: E402
from bench.cold_start import cpu  # noqa: E402

OUT = ROOT / "bench" / "results" / "kv_answers.md"
PRESSES = ("lateseg", "chunkkv-fixed", "snapkv", "keydiff", "streaming")
BUDGETS = (0.1, 0.25, 0.5, 128, 512)


def budget_arg(text: str) -> int | float:
    from lateseg.kv.compress import parse_budget

    return parse_budget(text)


def configs(
    presses: Sequence[str],
    budgets: Sequence[int | float],
    variants: bool,
    sinks: int,
    groups: Sequence[int] = (),
):
    """(label, press, budget, KVConfig, question first) for every run of a question."""
    from lateseg.kv.compress import KVConfig

    out = [("full, question first too", "full", None, None, True)] if variants else []
    for budget in budgets:
        for name in presses:
            out.append((name, name, budget, KVConfig.of(name, budget), False))
        for g in groups:  # layer-wise index reuse: one choice per group of g layers
            shared = KVConfig.of("lateseg", budget, layer_group=g)
            out.append((f"lateseg, layer groups of {g}", "lateseg", budget, shared, False))
        if variants:
            out += [
                ("lateseg, preamble kept", "lateseg", budget,
                 KVConfig.of("lateseg", budget, sinks=sinks), False),
                ("lateseg, chunks <= 16", "lateseg", budget,
                 KVConfig.of("lateseg", budget, max_chunk=16), False),
                ("lateseg, chunks <= 64", "lateseg", budget,
                 KVConfig.of("lateseg", budget, max_chunk=64), False),
                ("lateseg, question first too", "lateseg", budget,
                 KVConfig.of("lateseg", budget), True),
            ]  # fmt: skip
    return out


REFERENCE_TOKENS = 32


def greedy(gen: Any, cache: Any, logits: Any, position: int, n: int) -> list[int]:
    """The first ``n`` tokens greedy decoding makes from ``cache`` (up to the end token)."""
    out = [int(logits.argmax())]
    end = gen.tokenizer.eos_token_id
    while len(out) < n and out[-1] != end:
        logits = gen.feed([out[-1]], cache, position + len(out) - 1)
        out.append(int(logits.argmax()))
    return out


def agreement(gen: Any, cache: Any, logits: Any, position: int, ref: list[int]) -> float:
    """Teacher-forced top-1 agreement: fed the full cache's answer ``ref``, the share of
    its tokens this cache would have chosen itself (1.0 for the full cache)."""
    import torch

    preds = [int(logits.argmax())]
    if len(ref) > 1:
        x = torch.tensor([ref[:-1]], device=gen.device)
        pos = torch.arange(position, position + len(ref) - 1, device=gen.device)[None]
        out = gen.model(input_ids=x, cache=cache, position_ids=pos, use_cache=True)
        preds += out.logits[0].argmax(-1).tolist()
    return sum(p == r for p, r in zip(preds, ref, strict=True)) / len(ref)


def run_question(
    gen: Any, question: str, hits: list, runs: list, answer: Any, decode: bool
) -> list[dict]:
    """Every run of one question: the full cache first, then each config; each scored
    by its agreement with the full cache's answer and, with ``decode``, by its own."""
    import torch

    from lateseg.errors import ConfigError
    from lateseg.kv.compress import compress, shallow_copy

    rows = []
    prefilled: dict[bool, tuple] = {}
    for label, press, budget, config, first in [("full", "full", None, None, False), *runs]:
        if first not in prefilled:
            shown, _ = gen.fitted(hits)
            messages = gen.prompt(question, shown)
            if first:  # the question also before the passages: prefill reads them knowing it
                messages[1]["content"] = f"Question: {question}\n\n" + messages[1]["content"]
            prompt = gen.render(messages)
            window = len(prompt.ids) - prompt.tail_token
            with torch.inference_mode():
                t0 = time.perf_counter()
                cache, logits, obs = gen.prefill(prompt.ids, window)
                seconds = time.perf_counter() - t0
                ref = greedy(gen, shallow_copy(cache), logits, len(prompt.ids), REFERENCE_TOKENS)
            prefilled[first] = (prompt, window, cache, logits, obs, seconds, ref)
        prompt, window, cache, logits, obs, prefill_s, ref = prefilled[first]
        work = shallow_copy(cache)
        stats: dict[str, Any] = {"ratio": 1.0, "compress_ms": 0.0}
        row: dict[str, Any] = {"label": label, "press": press, "budget": budget}
        with torch.inference_mode():
            if config is not None:
                try:
                    done = compress(
                        work, obs, config, text=prompt.text, offsets=prompt.offsets,
                        window_tokens=window,
                    )  # fmt: skip
                except ConfigError:  # a budget under the tokens always kept: not run
                    continue
                stats = done.stats()
            n = len(prompt.ids)
            row["agreement"] = agreement(gen, shallow_copy(work), logits, n, ref)
            if decode:
                text, made, secs, _ = gen.decode(work, logits, n, None)
                row.update(
                    text=text,
                    correct=bool(correct(text, answer)) if answer else None,
                    decode_tps=made / secs if secs > 0 else None,
                )
        row.update(
            prompt_tokens=len(prompt.ids),
            bytes_ratio=stats["ratio"],
            compress_ms=stats["compress_ms"],
            prefill_s=prefill_s,
        )
        rows.append(row)
    return rows


def preamble_tokens(gen: Any) -> int:
    """Tokens before the first passage: the system prompt, the turn markers, "Passages:"."""
    from lateseg.types import Hit

    probe = Hit(source="/x.txt", start=0, end=4, text="PROBE", score=1.0)
    prompt = gen.render(gen.prompt("?", [probe]))
    at = prompt.text.index("Passages:") + len("Passages:")
    return next(i for i, (a, _) in enumerate(prompt.offsets) if a >= at)


def run_set(name: str, args: argparse.Namespace, gen: Any) -> dict[str, Any]:
    from lateseg.pipeline import Pipeline

    paths, records, _ = set_inputs(name)
    if args.decode:  # accuracy needs a gold value
        records = [r for r in records if r.get("answer")]
    records = records[: args.limit]
    runs = configs(args.presses, args.budgets, args.variants, preamble_tokens(gen), args.groups)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, Pipeline.open(Path(tmp) / "index") as pipe:
        pipe.ingest(paths, progress=False)
        for n, rec in enumerate(records, 1):
            hits = pipe.retriever.search(rec["question"], args.k)
            got = run_question(gen, rec["question"], hits, runs, rec.get("answer"), args.decode)
            for r in got:
                r["id"] = rec["id"]
            rows += got
            print(
                f"[{name} {n}/{len(records)}] {rec['id']} ({got[0]['prompt_tokens']} tokens): "
                + " ".join(f"{r['label']}@{r['budget']}={r['agreement']:.2f}" for r in got[1:6]),
                file=sys.stderr,
                flush=True,
            )
    return {"questions": len(records), "rows": rows, "summary": summarise(rows)}


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    full = {r["id"]: r for r in rows if r["label"] == "full"}
    decoded = all("correct" in r for r in rows)
    right = {i for i, r in full.items() if r.get("correct")}
    keys = list(dict.fromkeys((r["label"], r["budget"]) for r in rows))
    out = []
    for label, budget in keys:
        sel = [r for r in rows if r["label"] == label and r["budget"] == budget]
        item: dict[str, Any] = {
            "label": label,
            "budget": budget,
            "questions": len(sel),
            "agreement": statistics.mean(r["agreement"] for r in sel),
            "agreement_p10": float(np.percentile([r["agreement"] for r in sel], 10)),
            "bytes_ratio": statistics.mean(r["bytes_ratio"] for r in sel),
            "compress_ms": statistics.mean(r["compress_ms"] for r in sel),
        }
        if decoded:
            graded = [r for r in sel if r["correct"] is not None]
            kept = [r for r in sel if r["id"] in right]
            tps = [
                r["decode_tps"] / full[r["id"]]["decode_tps"]
                for r in sel
                if r["decode_tps"] and full[r["id"]]["decode_tps"]
            ]
            item.update(
                accuracy=statistics.mean(r["correct"] for r in graded) if graded else None,
                full_right=len(right),
                retention=statistics.mean(r["correct"] for r in kept) if kept else None,
                decode_vs_full=statistics.mean(tps) if tps else None,
            )
        out.append(item)
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# KV compression judged on answers",
        "",
        f"`python bench/kv_answers.py {report['argv']}` ({report['when']}; "
        f"SmolLM2-135M-Instruct, {report['cpu']}; k={report['k']}, "
        f"{report['minutes']:.0f} min). Agreement: fed the full cache's first "
        f"{REFERENCE_TOKENS} answer tokens, the share a compressed cache would have chosen "
        "itself (teacher-forced top-1; mean, and the 10th percentile over questions). "
        "Retention: of the questions the full cache answers right, the share still right "
        "(decoded runs only). Budgets under 1 are shares of the prompt.",
        "",
    ]
    for name, res in report["sets"].items():
        s = res["summary"]
        full = next(x for x in s if x["label"] == "full")
        decoded = "accuracy" in full
        head = f"## {name}: {res['questions']} questions"
        if decoded:
            head += f", the full cache right on {full['full_right']} ({pct(full['accuracy'])})"
        cols = "| method | budget | agreement | agreement p10 | KV kept | compress ms |"
        rule = "| --- | ---: | ---: | ---: | ---: | ---: |"
        if decoded:
            cols += " accuracy | retention | decode vs full |"
            rule += " ---: | ---: | ---: |"
        lines += [head, "", cols, rule]
        for x in s:
            if x["label"] == "full":
                continue
            line = (
                f"| {x['label']} | {x['budget']} | {pct(x['agreement'])} "
                f"| {pct(x['agreement_p10'])} | {pct(x['bytes_ratio'])} "
                f"| {x['compress_ms']:.0f} |"
            )
            if decoded:
                speed = x["decode_vs_full"]
                line += (
                    f" {pct(x['accuracy'])} | {pct(x['retention'])} "
                    f"| {'-' if speed is None else f'{speed:.2f}x'} |"
                )
            lines.append(line)
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["contracts", "licenses"])
    ap.add_argument("--presses", nargs="+", default=list(PRESSES))
    ap.add_argument("--budgets", nargs="+", type=budget_arg, default=list(BUDGETS))
    ap.add_argument("--variants", action="store_true", help="the diagnosis runs too")
    ap.add_argument(
        "--groups", nargs="*", type=int, default=[], help="lateseg with layer groups of G"
    )
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--limit", type=int, default=None, help="first N graded questions a set")
    ap.add_argument("--max-new-tokens", type=int, default=40)
    ap.add_argument(
        "--decode", action="store_true", help="also decode each run and grade its answer"
    )
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    from lateseg.generate.local import LocalGenerator

    gen = LocalGenerator(max_new_tokens=args.max_new_tokens)
    gen.load()
    t0 = time.perf_counter()
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d"),
        "argv": " ".join(argv if argv is not None else sys.argv[1:]),
        "cpu": cpu(),
        "k": args.k,
        "sets": {name: run_set(name, args, gen) for name in args.sets},
    }
    report["minutes"] = (time.perf_counter() - t0) / 60
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    text = markdown(report)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
