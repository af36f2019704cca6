"""What each context strategy sends at one token budget, without a model: whether the
gold passage is among what is sent, and the tokens it takes, on every question of a set.

    python bench/context_fit.py [--sets contracts manuals] [--k 10] [--context-tokens 1000]

The companion of ``bench/answers.py --llm URL --context ...`` (issue 45, point 3), whose
answer accuracy needs a model worth measuring; this part needs none and covers every
question. Per set and strategy (``bench/context_strategies.py``; ``in-process``: the
passages the in-process generator shows, whole hits in rank order under its own budget):

* **gold sent**: a passage sent covers at least half of the gold span (as ``cites gold``
  in ``bench/answers.py`` grades a citation);
* **passages**, **context tokens** (the passages as shown, by the estimate a server
  without ``/tokenize`` gets, characters / 4) and **prompt tokens** (the whole prompt,
  chat template applied, by SmolLM2's tokenizer): means.

Writes ``bench/results/context_fit.md`` and ``.json``. Offline.
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

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "data" / "eval"))

from bench.answers import covers, pct, set_inputs  # noqa: E402
from bench.context_strategies import WINDOW_TOKENS  # noqa: E402
from bench.retrieval import find_squashed  # noqa: E402
from bench.served import Served, load_tokenizer  # noqa: E402

OUT = ROOT / "bench" / "results" / "context_fit.md"
CONTEXTS = ("chunks", "topk", "fixed", "in-process")


class Estimate:
    """The writer a server without ``/tokenize`` (``transformers serve``) amounts to, for
    counting: characters / 4."""

    def __init__(self, model: str) -> None:
        from lateseg.generate.writer import ESTIMATE

        self.model = model
        self.counting = ESTIMATE

    def model_name(self) -> str:
        return self.model

    def count_tokens(self, text: str) -> int:
        from lateseg.generate.writer import estimate_tokens

        return estimate_tokens(text)


def sent(served: Served, pipe: Any, prepared: Any, context: str) -> Any:
    """The ContextFit ``context`` sends for ``prepared``."""
    from lateseg.generate.remote.context import fit_context

    if context == "chunks":
        return fit_context(prepared.hits, served.budget, served.writer.count_tokens)
    gen = served.generator(pipe, prepared, "local" if context == "in-process" else context)
    return gen.fixed_plan.fit


def run_set(name: str, served: Served, k: int) -> dict[str, Any]:
    from lateseg.ask.options import AskOptions
    from lateseg.pipeline import Pipeline
    from lateseg.types import Answer

    paths, records, files = set_inputs(name)
    if any(not p.exists() for p in paths):
        return {"skipped": "inputs missing"}
    rows = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        Pipeline.open(Path(tmp) / "index") as pipe,
    ):
        pipe.ingest(paths, progress=False)
        texts = {src: pipe.document(str(f.resolve())) for src, f in files.items()}
        local = pipe.generator
        for rec in records:
            doc = texts.get(rec.get("source") or "")
            span = find_squashed(doc.text, rec["gold"]) if doc is not None else None
            prepared = pipe.answerer.prepare(rec["question"], AskOptions(k=k, answer="generate"))
            if prepared.missing is not None or span is None or doc is None:
                continue
            row: dict[str, Any] = {"id": rec["id"]}
            for context in CONTEXTS:
                fit = sent(served, pipe, prepared, context)
                shown = Answer("", (), fit.passages)
                row[context] = {
                    "gold_sent": any(covers(h, doc.source, span) for h in fit.passages),
                    "passages": len(fit.passages),
                    "context_tokens": fit.tokens if context != "in-process" else None,
                    "prompt_tokens": served.prompt_tokens(
                        prepared.asked.question, shown, "local" if context == "in-process"
                        else context, local,
                    ),
                }  # fmt: skip
            rows.append(row)
            said = " ".join(f"{c}={row[c]['gold_sent']}" for c in CONTEXTS)
            print(f"[{name}] {rec['id']}: {said}", file=sys.stderr, flush=True)
    return {"rows": rows, "summary": summarise(rows)}


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for c in CONTEXTS:
        rs = [r[c] for r in rows]
        out[c] = {"questions": len(rs)}
        for key in ("gold_sent", "passages", "context_tokens", "prompt_tokens"):
            got = [r[key] for r in rs if r[key] is not None]
            out[c][key] = sum(got) / len(got) if got else None
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# What each context strategy sends",
        "",
        f"`python bench/context_fit.py` ({report['when']}; k={report['k']}, budget "
        f"{report['context_tokens']} tokens by `{report['counting']}`, fixed windows of "
        f"{report['window_tokens']} tokens). Gold sent: a passage sent covers at least half "
        "of the gold span; passages, context tokens (the budget's count) and prompt tokens "
        "(whole prompt, SmolLM2's tokenizer) are means. `in-process`: the in-process "
        "generator's own passages (whole hits in rank order under its 2048 tokens), "
        "not held to the budget.",
        "",
    ]
    for name, res in report["sets"].items():
        if "skipped" in res:
            lines += [f"## {name}", "", f"Skipped: {res['skipped']}.", ""]
            continue
        n = len(res["rows"])
        lines += [
            f"## {name} ({n} questions with a gold span found)",
            "",
            "| context | gold sent | passages | context tokens | prompt tokens |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for c, s in res["summary"].items():
            ctx = "-" if s["context_tokens"] is None else f"{s['context_tokens']:.0f}"
            lines.append(
                f"| {c} | {pct(s['gold_sent'])} | {s['passages']:.1f} | {ctx} "
                f"| {s['prompt_tokens']:.0f} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["contracts", "manuals"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--context-tokens", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    from lateseg.encode.models import resolve_generator

    model = resolve_generator(None)
    writer = Estimate(model)
    served = Served(writer, list(CONTEXTS), args.context_tokens, load_tokenizer(model))
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d"),
        "k": args.k,
        "context_tokens": args.context_tokens,
        "counting": writer.counting,
        "window_tokens": WINDOW_TOKENS,
        "sets": {name: run_set(name, served, args.k) for name in args.sets},
    }
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    text = markdown(report)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
