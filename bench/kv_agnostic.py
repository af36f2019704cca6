"""Question-agnostic compression of a long context through lateseg's own compress-once
path (``Pipeline.ask_many``'s :class:`~lateseg.generate.local.KVSession`), scored by the
context's own last tokens (``observe="end"``) or by a request to repeat it
(``observe="probe"``, the default since this bench), on the RULER contexts of
``bench/kvpress_compare.py`` (issue 64: there, at 8k tokens, every press scored by
attention kept few of the full cache's answers without the question, already at a ratio
of 0.25).

    python bench/kv_agnostic.py [--length 8192] [--tasks niah_single vt …]
        [--methods lateseg keydiff] [--keep 0.75] [--observe end probe] [--layer-group 1]

Per context the full cache answers each question (the generator's own ask prompt, the
context as one passage, at most 40 new tokens); each method x kept share x observation
then prefills and compresses the context once and answers every question from it
(``--layer-group 1``: each layer choosing for itself, as a press chooses inside kvpress).
Reported: the score (RULER's share of expected values) and the share of answers identical
to the full cache's. Writes ``bench/results/kv_agnostic.{md,json}`` after each context.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cold_start import cpu  # noqa: E402
from bench.kvpress_compare import TASKS, grade, ruler_case  # noqa: E402

OUT = ROOT / "bench" / "results" / "kv_agnostic.md"


def table(rows: list[dict[str, Any]]) -> list[str]:
    full = {(r["case"], r["question"]): r["answer"] for r in rows if r["config"] == "full cache"}
    configs = list(dict.fromkeys(r["config"] for r in rows))
    out = ["| config | questions | score | identical to the full cache's |",
           "| --- | ---: | ---: | ---: |"]  # fmt: skip
    for c in configs:
        rs = [r for r in rows if r["config"] == c]
        score = 100 * sum(r["score"] for r in rs) / len(rs)
        same = 100 * sum(r["answer"] == full[(r["case"], r["question"])] for r in rs) / len(rs)
        out.append(f"| {c} | {len(rs)} | {score:.0f} % | {same:.0f} % |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--length", type=int, default=8192)
    ap.add_argument("--tasks", nargs="+", default=[t for t in TASKS if t != "qa"], choices=TASKS)
    ap.add_argument("--methods", nargs="+", default=["lateseg", "keydiff"])
    ap.add_argument("--keep", type=float, nargs="+", default=[0.75])
    ap.add_argument("--observe", nargs="+", default=["end", "probe"], choices=["end", "probe"])
    # lateseg's prompt has the model restate the question before the value: 12 tokens
    # cut every answer before its number
    ap.add_argument("--max-new-tokens", type=int, default=40)
    ap.add_argument(
        "--layer-group",
        type=int,
        default=None,
        help="adjacent layers sharing one choice (default: each press's own; 1 is how a "
        "press chooses inside kvpress, layer by layer)",
    )
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)

    from lateseg.generate.local import LocalGenerator
    from lateseg.kv.compress import KVConfig
    from lateseg.types import Hit

    gen = LocalGenerator(max_new_tokens=args.max_new_tokens, context_tokens=args.length + 512)
    gen.load()

    def count(text: str) -> int:
        return len(gen.tokenizer.encode(text, add_special_tokens=False))

    rows: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    for task in args.tasks:
        case = ruler_case(task, args.length, 0, count)
        hit = Hit(case.ident, 0, len(case.context), case.context, 1.0, kind="text")
        room = count(case.context) + 256
        configs: list[tuple[str, KVConfig | None]] = [("full cache", None)] + [
            (
                f"{m} keep {k:g} observe {o}"
                + ("" if args.layer_group is None else f" layer group {args.layer_group}"),
                KVConfig.of(m, k, observe=o, layer_group=args.layer_group),
            )
            for m in args.methods
            for k in args.keep
            for o in args.observe
        ]
        for label, kv in configs:
            t0 = time.perf_counter()
            session = gen.session([hit], kv, budget=room)
            if session.dropped:
                raise SystemExit(f"{case.ident}: the context does not fit {room} tokens")
            for n, q in enumerate(case.questions):
                answer = session.complete(q.text).text.strip()
                rows.append({"case": case.ident, "task": task, "question": n, "config": label,
                             "answer": answer, "score": grade(q, answer)})  # fmt: skip
            print(f"{case.ident} {label}: {time.perf_counter() - t0:.0f} s", flush=True)
        report = {
            "command": "python bench/kv_agnostic.py "
            + " ".join(sys.argv[1:] if argv is None else argv),
            "date": time.strftime("%Y-%m-%d"),
            "machine": f"{cpu()}, {os.cpu_count()} CPUs",
            "minutes": (time.perf_counter() - t_start) / 60,
            "rows": rows,
        }
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1))
        lines = [
            "# Question-agnostic compression, scored by the context's end or by a probe",
            "",
            f"`{report['command']}` ({report['date']}; {report['machine']}; generator "
            f"SmolLM2-135M-Instruct; {report['minutes']:.0f} min). Contexts: "
            + ", ".join(dict.fromkeys(r["case"] for r in rows))
            + ". Keep: the share of the context's slots kept.",
            "",
            *table(rows),
            "",
        ]
        args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
