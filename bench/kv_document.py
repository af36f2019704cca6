"""Whole-document mode against retrieval: one contract prefilled once (as much as the
generator's window holds), compressed once without knowing the questions, asked all its
questions, as ``Pipeline.ask_many(document=...)`` does; against each question's own
prompt of its 5 retrieved passages (``ask``).

    python bench/kv_document.py [--sets contracts] [--budgets 0.1 0.25 0.5]
        [--presses lateseg chunkkv-fixed snapkv keydiff streaming] [--prefill sparse]

Per question the whole-document full cache decodes its answer (at most 40 tokens) and is
graded as ``bench/answers.py`` grades (the gold value in the text); so is the retrieval
prompt's. Each press x budget then compresses a shallow copy of the document's cache
(query-agnostic: the observation window is the context's last 32 tokens), is fed each
question, and is scored by teacher-forced top-1 agreement with the full document cache's
first 32 answer tokens (``bench/kv_answers.py``) and, with ``--decode``, graded too.
Also reported: the share of questions whose gold sentence lies inside the window, and
the prefill time per question (the document's prefill shared by its questions).
Writes ``bench/results/kv_document.{md,json}``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import correct, normalise, pct, set_inputs  # noqa: E402
from bench.cold_start import cpu  # noqa: E402
from bench.kv_answers import REFERENCE_TOKENS, agreement, budget_arg, greedy  # noqa: E402

OUT = ROOT / "bench" / "results" / "kv_document.md"
PRESSES = ("lateseg", "chunkkv-fixed", "snapkv", "keydiff", "streaming")
BUDGETS = (0.1, 0.25, 0.5)


def tail_of(gen: Any, question: str, shown: list) -> list[int]:
    prompt = gen.render(gen.prompt(question, shown))
    return prompt.ids[prompt.tail_token :]


def inside(gold: str | None, shown: list) -> bool | None:
    """Whether the gold sentence (its first 80 characters) is in the shown passages."""
    if not gold:
        return None
    text = normalise(" ".join(h.text for h in shown))
    return normalise(gold)[:80] in text


def run_document(
    gen: Any, pipe: Any, source: str, records: list[dict], args: argparse.Namespace
) -> list[dict[str, Any]]:
    import torch

    from lateseg.errors import ConfigError
    from lateseg.generate.agnostic import prefill_agnostic
    from lateseg.kv.compress import KVConfig, compress, shallow_copy

    passages = pipe.document_hits(source)
    shown, dropped = gen.fit(passages, gen.window_budget())
    shown = gen.arrange(shown)
    ctx = gen.render(gen.prompt("?", shown))
    ids = ctx.ids[: ctx.tail_token]
    n = len(ids)
    window = min(n, KVConfig().window)
    with torch.inference_mode():
        t0 = time.perf_counter()
        cache, _, obs = gen.prefill(ids, window)
        doc_prefill = time.perf_counter() - t0
    print(
        f"{source}: {n} tokens ({len(dropped)} of {len(passages)} chunks beyond the window), "
        f"prefill {doc_prefill:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    refs: dict[str, list[int]] = {}
    tails = {r["id"]: tail_of(gen, r["question"], shown) for r in records}
    for rec in records:
        tail = tails[rec["id"]]
        row: dict[str, Any] = {"id": rec["id"], "label": "whole document", "budget": None}
        with torch.inference_mode():
            work = shallow_copy(cache)
            logits = gen.feed(tail, work, n)
            refs[rec["id"]] = greedy(
                gen, shallow_copy(work), logits, n + len(tail), REFERENCE_TOKENS
            )
            text, _, _, _ = gen.decode(work, logits, n + len(tail), None)
        row.update(
            text=text, correct=correct(text, rec.get("answer")), agreement=1.0, bytes_ratio=1.0,
            in_window=inside(rec.get("gold"), shown), prompt_tokens=n + len(tail),
            prefill_s=doc_prefill / len(records), source=source,
        )  # fmt: skip
        rows.append(row)
        # The same question as `ask` puts it: its own 5 retrieved passages.
        hits = pipe.retriever.search(rec["question"], args.k)
        fitted, _ = gen.fitted(hits)
        prompt = gen.render(gen.prompt(rec["question"], fitted))
        with torch.inference_mode():
            t0 = time.perf_counter()
            rcache, rlogits, _ = gen.prefill(prompt.ids)
            secs = time.perf_counter() - t0
            rtext, _, _, _ = gen.decode(rcache, rlogits, len(prompt.ids), None)
        rows.append(
            {
                "id": rec["id"], "label": "retrieval (k=5)", "budget": None, "text": rtext,
                "correct": correct(rtext, rec.get("answer")), "agreement": None,
                "bytes_ratio": None, "in_window": inside(rec.get("gold"), fitted),
                "prompt_tokens": len(prompt.ids), "prefill_s": secs, "source": source,
            }
        )  # fmt: skip
    for budget in args.budgets:
        for name, observe in itertools.product(args.presses, args.observe):
            config = KVConfig.of(name, budget, observe=observe)
            comp = shallow_copy(cache)
            with torch.inference_mode():
                try:
                    if observe == "end":
                        done = compress(
                            comp, obs, config, text=ctx.text[: ctx.tail_char],
                            offsets=ctx.offsets[:n], window_tokens=window,
                        )  # fmt: skip
                    else:  # the probe prefills the document again with its request after
                        probed, made = prefill_agnostic(gen, shown, config)
                        assert probed.ids[:n] == ids
                        comp, done = made.cache, made.compressed
                except ConfigError:
                    continue
                label = name if len(args.observe) == 1 else f"{name}, scored by {observe}"
                for rec in records:
                    tail = tails[rec["id"]]
                    work = shallow_copy(comp)
                    logits = gen.feed(tail, work, n)
                    row = {
                        "id": rec["id"], "label": label, "budget": budget, "source": source,
                        "bytes_ratio": done.stats()["ratio"], "prompt_tokens": n + len(tail),
                        "agreement": agreement(
                            gen, shallow_copy(work), logits, n + len(tail), refs[rec["id"]]
                        ),
                    }  # fmt: skip
                    if args.decode:
                        text, _, _, _ = gen.decode(work, logits, n + len(tail), None)
                        row.update(text=text, correct=correct(text, rec.get("answer")))
                    rows.append(row)
    return rows


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    full = {r["id"]: r for r in rows if r["label"] == "whole document"}
    right = {i for i, r in full.items() if r.get("correct")}
    out = []
    for label, budget in dict.fromkeys((r["label"], r["budget"]) for r in rows):
        sel = [r for r in rows if r["label"] == label and r["budget"] == budget]
        graded = [r for r in sel if r.get("correct") is not None]
        kept = [r for r in sel if r["id"] in right and r.get("correct") is not None]
        agree = [r["agreement"] for r in sel if r["agreement"] is not None]
        windows = [r["in_window"] for r in sel if r.get("in_window") is not None]
        out.append(
            {
                "label": label, "budget": budget, "questions": len(sel),
                "accuracy": statistics.mean(r["correct"] for r in graded) if graded else None,
                "retention": statistics.mean(r["correct"] for r in kept) if kept else None,
                "agreement": statistics.mean(agree) if agree else None,
                "bytes_ratio": statistics.mean(r["bytes_ratio"] for r in sel)
                if sel[0]["bytes_ratio"] is not None else None,
                "in_window": statistics.mean(windows) if windows else None,
                "prefill_s": statistics.mean(r["prefill_s"] for r in sel)
                if "prefill_s" in sel[0] else None,
                "prompt_tokens": statistics.mean(r["prompt_tokens"] for r in sel),
            }
        )  # fmt: skip
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Whole-document mode against retrieval",
        "",
        f"`python bench/kv_document.py {report['argv']}` ({report['when']}; "
        f"SmolLM2-135M-Instruct, {report['cpu']}; {report['minutes']:.0f} min). "
        "Whole document: the contract's chunks in order, as many as the 8k window holds, "
        "prefilled once and asked every question (`ask_many(document=...)`); retrieval: "
        "each question's 5 best chunks (`ask`). Accuracy: the gold value in the decoded "
        "answer (at most 40 tokens). Agreement: fed the whole-document full cache's first "
        f"{REFERENCE_TOKENS} answer tokens, the share a compressed cache picks itself "
        "(query-agnostic compression: the questions come after). Budgets are shares of the "
        "document's tokens.",
        "",
    ]
    for name, res in report["sets"].items():
        lines += [
            f"## {name}: {res['questions']} questions over {res['documents']} documents "
            f"({res['tokens']} tokens each on average)",
            "",
            "| mode | budget | accuracy | retention | agreement | KV kept | gold in window "
            "| prefill s / question | prompt tokens |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for x in res["summary"]:
            pre = x["prefill_s"]
            lines.append(
                f"| {x['label']} | {x['budget'] or 'all'} | {pct(x['accuracy'])} "
                f"| {pct(x['retention'])} | {pct(x['agreement'])} | {pct(x['bytes_ratio'])} "
                f"| {pct(x['in_window'])} | {'-' if pre is None else f'{pre:.2f}'} "
                f"| {x['prompt_tokens']:.0f} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["contracts"])
    ap.add_argument("--presses", nargs="+", default=list(PRESSES))
    ap.add_argument("--budgets", nargs="+", type=budget_arg, default=list(BUDGETS))
    ap.add_argument(
        "--observe", nargs="+", default=["end"], choices=["end", "probe"],
        help="what scores the question-agnostic compression (KVConfig.observe)",
    )  # fmt: skip
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--limit", type=int, default=None, help="first N graded questions a set")
    ap.add_argument("--decode", action="store_true", help="decode and grade compressed runs")
    ap.add_argument("--prefill", choices=("dense", "sparse"), default="dense")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)

    from lateseg.generate.local import LocalGenerator
    from lateseg.pipeline import Pipeline

    gen = LocalGenerator(max_new_tokens=40, prefill=args.prefill)
    gen.load()
    t0 = time.perf_counter()
    report: dict[str, Any] = {"sets": {}}
    for name in args.sets:
        paths, records, _ = set_inputs(name)
        records = [r for r in records if r.get("answer") and r.get("source")][: args.limit]
        by_doc: dict[str, list[dict]] = defaultdict(list)
        for r in records:
            by_doc[r["source"]].append(r)
        rows: list[dict[str, Any]] = []
        tokens = []
        with tempfile.TemporaryDirectory() as tmp, Pipeline.open(Path(tmp) / "index") as pipe:
            pipe.ingest(paths, progress=False)
            for rel, recs in by_doc.items():
                source = next(s for s in pipe.sources() if s.endswith("/" + rel))
                got = run_document(gen, pipe, source, recs, args)
                tokens.append(next(r["prompt_tokens"] for r in got))
                rows += got
        report["sets"][name] = {
            "questions": len(records), "documents": len(by_doc),
            "tokens": round(statistics.mean(tokens)), "summary": summarise(rows), "rows": rows,
        }  # fmt: skip
    report.update(
        argv=" ".join(sys.argv[1:] if argv is None else argv),
        when=time.strftime("%Y-%m-%d"),
        cpu=cpu(),
        minutes=(time.perf_counter() - t0) / 60,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    md = markdown(report)
    args.out.write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
