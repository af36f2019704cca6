"""KV compression judged on answers, not needles: of the questions the full cache answers
right, the share a compressed cache still answers right (*retention*), per press and
budget, on the contract and licence questions.

    python bench/kv_answers.py [--sets contracts licenses] [--limit N]
        [--presses lateseg chunkkv-fixed snapkv keydiff streaming]
        [--budgets 0.1 0.25 0.5 128 512] [--variants] [--groups 3 6]

Each question gets its ``k`` passages as ``ask`` retrieves them and the prompt ``generate``
renders (SmolLM2-135M-Instruct, CPU); the prompt is prefilled once with the question as
the observation window, and every press x budget compresses a shallow copy of that cache
and decodes greedily (at most 40 new tokens). Budgets under 1 are shares of the prompt,
others tokens. Reported per press and budget: accuracy (the gold value is in the answer,
as ``bench/answers.py`` grades), retention, agreement (the same answer text as the full
cache), the KV bytes kept, compression time and decode speed.

``--variants`` adds the diagnosis, for the lateseg press at each budget: the whole
preamble (system prompt and the "Passages:" line) kept as sinks instead of 4 tokens;
chunks of at most 16 or 64 tokens instead of 32; and the question also placed before the
passages (so prefill reads them knowing it; its own full-cache row beside it).
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


def run_question(gen: Any, question: str, hits: list, runs: list, answer: Any) -> list[dict]:
    """Every run of one question: the full cache first, then each config."""
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
                prefilled[first] = (prompt, window, cache, logits, obs, time.perf_counter() - t0)
        prompt, window, cache, logits, obs, prefill_s = prefilled[first]
        work = shallow_copy(cache)
        stats: dict[str, Any] = {"ratio": 1.0, "compress_ms": 0.0}
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
            text, made, secs, _ = gen.decode(work, logits, len(prompt.ids), None)
        rows.append(
            {
                "label": label,
                "press": press,
                "budget": budget,
                "prompt_tokens": len(prompt.ids),
                "text": text,
                "correct": bool(correct(text, answer)),
                "bytes_ratio": stats["ratio"],
                "compress_ms": stats["compress_ms"],
                "prefill_s": prefill_s,
                "decode_tps": made / secs if secs > 0 else None,
            }
        )
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
    records = [r for r in records if r.get("answer")][: args.limit]
    runs = configs(args.presses, args.budgets, args.variants, preamble_tokens(gen), args.groups)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, Pipeline.open(Path(tmp) / "index") as pipe:
        pipe.ingest(paths, progress=False)
        for n, rec in enumerate(records, 1):
            hits = pipe.retriever.search(rec["question"], args.k)
            got = run_question(gen, rec["question"], hits, runs, rec["answer"])
            for r in got:
                r["id"] = rec["id"]
            rows += got
            full = got[0]
            print(
                f"[{name} {n}/{len(records)}] {rec['id']}: full {'ok' if full['correct'] else '-'}"
                f" ({full['prompt_tokens']} tokens); "
                + " ".join(f"{r['label']}@{r['budget']}={int(r['correct'])}" for r in got[1:6]),
                file=sys.stderr,
                flush=True,
            )
    return {"questions": len(records), "rows": rows, "summary": summarise(rows)}


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    full = {r["id"]: r for r in rows if r["label"] == "full"}
    right = {i for i, r in full.items() if r["correct"]}
    keys = list(dict.fromkeys((r["label"], r["budget"]) for r in rows))
    out = []
    for label, budget in keys:
        sel = [r for r in rows if r["label"] == label and r["budget"] == budget]
        kept = [r for r in sel if r["id"] in right]
        tps = [
            r["decode_tps"] / full[r["id"]]["decode_tps"]
            for r in sel
            if r["decode_tps"] and full[r["id"]]["decode_tps"]
        ]
        out.append(
            {
                "label": label,
                "budget": budget,
                "questions": len(sel),
                "accuracy": statistics.mean(r["correct"] for r in sel),
                "full_right": len(right),
                "retention": statistics.mean(r["correct"] for r in kept) if kept else None,
                "agreement": statistics.mean(
                    " ".join(r["text"].split()) == " ".join(full[r["id"]]["text"].split())
                    for r in sel
                ),
                "bytes_ratio": statistics.mean(r["bytes_ratio"] for r in sel),
                "compress_ms": statistics.mean(r["compress_ms"] for r in sel),
                "decode_vs_full": statistics.mean(tps) if tps else None,
            }
        )
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# KV compression judged on answers",
        "",
        f"`python bench/kv_answers.py {report['argv']}` ({report['when']}; SmolLM2-135M-Instruct, "
        f"{report['cpu']}; k={report['k']}, {report['minutes']:.0f} min). Retention: of the "
        "questions the full cache answers right, the share still right; agreement: the "
        "same answer text as the full cache. Budgets under 1 are shares of the prompt.",
        "",
    ]
    for name, res in report["sets"].items():
        s = res["summary"]
        full = next(x for x in s if x["label"] == "full")
        lines += [
            f"## {name}: {res['questions']} questions, the full cache right on "
            f"{full['full_right']} ({pct(full['accuracy'])})",
            "",
            "| method | budget | accuracy | retention | agreement | KV kept | compress ms "
            "| decode vs full |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for x in s:
            if x["label"] == "full":
                continue
            speed = x["decode_vs_full"]
            lines.append(
                f"| {x['label']} | {x['budget']} | {pct(x['accuracy'])} | {pct(x['retention'])} "
                f"| {pct(x['agreement'])} | {pct(x['bytes_ratio'])} | {x['compress_ms']:.0f} "
                f"| {'-' if speed is None else f'{speed:.2f}x'} |"
            )
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
