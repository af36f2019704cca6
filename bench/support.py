"""The support check, scored against labels: does it pass wrong claims, refuse right ones?

    python bench/support.py [--claims data/eval/support_claims.jsonl]
                            [--checks FILE ...] [--out bench/results/support.md]

    python bench/support.py --checks bench/results/support_checks.jsonl \
        bench/results/support_checks_more.jsonl                          # the results

Two kinds of labelled inputs, each checked by
:func:`~lateseg.check.support.check_support` as ``Pipeline.ask`` checks a generated
answer:

* ``--claims``: ``data/eval/support_claims.jsonl`` (see ``data/eval/README.md``): one
  answer sentence, the question, the passages it was checked against, and whether the
  passages support it; half are true paraphrases, half state a value the passages give
  for another thing (a notice period claimed as a renewal term …).
* ``--checks``: the generated answers ``bench/answers.py --keep-checks FILE`` kept
  (question, text, the passages shown), labelled right or wrong by the gold value. An
  answer is passed when some sentence of it is supported (what ``checked`` and
  ``ask``'s fallback keep). ``bench/results/support_checks.jsonl``: 108 such answers of
  SmolLM2-135M-Instruct (contracts and manuals), kept 2026-12-04;
  ``bench/results/support_checks_more.jsonl``: 88 more (scoped, licences, tables), kept
  later that day as a check on sets the rules were not chosen on.

``check`` is the check as ``ask`` runs it: against the quoted answer from the same
passages (:func:`~lateseg.check.support.agrees`); ``unquoted`` is the check without
it (the facts, same-thing and closeness tests alone). Beside them, ``quote`` is scored:
a claim is passed when every value it states that the question does not is in the
sentence the quoted answer
(:func:`~lateseg.answer.extractive.extractive_answer`) picks from the same passages
(agreement with the quote answer; a claim with no value: passed).

Per input and check: wrong passed (false positives), right refused (false negatives),
precision (of the passed, the share right) and recall (of the right, the share passed).
Offline (``HF_HUB_OFFLINE=1``); no generator is loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lateseg.types import Hit  # noqa: E402

CLAIMS = ROOT / "data" / "eval" / "support_claims.jsonl"
OUT = ROOT / "bench" / "results" / "support.md"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def claim_cases(path: Path) -> list[dict[str, Any]]:
    """The labelled claims as cases: ``id``, ``question``, ``text``, ``passages``
    (hits), ``right``."""
    out = []
    for r in read_jsonl(path):
        hits = [
            Hit(p["source"], 0, len(p["text"]), p["text"], 0.5, section=p["section"], chunk_id=i)
            for i, p in enumerate(r["passages"])
        ]
        out.append(
            {"id": r["id"], "question": r["question"], "text": r["claim"], "passages": hits}
            | {"right": r["supported"], "set": "claims"}
        )
    return out


def kept_cases(path: Path) -> list[dict[str, Any]]:
    """The generated answers ``bench/answers.py --keep-checks`` kept, graded by the gold
    (those without a gold value left out)."""
    out = []
    for r in read_jsonl(path):
        if r["correct"] is None:
            continue
        hits = [
            Hit(p["source"], p["start"], p["end"], p["text"], p["score"], page=p["page"])
            for p in r["passages"]
        ]
        hits = [
            Hit(h.source, h.start, h.end, h.text, h.score, h.page, p["section"],
                chunk_id=p.get("chunk_id", -1), kind=p["kind"])
            for h, p in zip(hits, r["passages"], strict=True)
        ]  # fmt: skip
        out.append(
            {"id": r["id"], "question": r["question"], "text": r["text"], "passages": hits}
            | {"right": bool(r["correct"]), "set": r["set"]}
        )
    return out


def by_check(encoder: Any, agree: bool = True) -> Callable[[dict[str, Any]], tuple[bool, str]]:
    """The check as ``ask`` runs it (``agree``: against the quoted answer from the same
    passages; else without it, the same-thing rule alone)."""
    from lateseg.answer.extractive import extractive_answer
    from lateseg.answer.question import analyse
    from lateseg.check.support import check_support

    def judge(case: dict[str, Any]) -> tuple[bool, str]:
        quote = extractive_answer(case["question"], case["passages"], encoder) if agree else None
        asked = analyse(case["question"])
        out = check_support(case["text"], asked, case["passages"], encoder, quote=quote)
        reasons = "; ".join(s.reason for s in out if s.reason)
        return any(s.supported for s in out), reasons

    return judge


def by_quote(encoder: Any) -> Callable[[dict[str, Any]], tuple[bool, str]]:
    from lateseg.answer.extractive import extractive_answer
    from lateseg.check.support import facts

    def judge(case: dict[str, Any]) -> tuple[bool, str]:
        quote = extractive_answer(case["question"], case["passages"], encoder)
        said = quote.phrase.sentence.text if quote.phrase is not None else quote.text
        have, _ = facts(said)
        asked, _ = facts(case["question"])
        claimed, _ = facts(case["text"])
        new = claimed - asked
        ok = all((v, u) in have if u else v in {a for a, _ in have} for v, u in new)
        return ok, "" if ok else f"the quote says: {' '.join(said.split())[:120]}"

    return judge


def score(cases: Sequence[dict[str, Any]], judge: Callable) -> dict[str, Any]:
    rows = []
    for c in cases:
        passed, why = judge(c)
        rows.append({"id": c["id"], "right": c["right"], "passed": passed, "why": why})
    right = [r for r in rows if r["right"]]
    wrong = [r for r in rows if not r["right"]]
    passed = [r for r in rows if r["passed"]]
    return {
        "right": len(right),
        "wrong": len(wrong),
        "right_refused": [r["id"] for r in right if not r["passed"]],
        "wrong_passed": [r["id"] for r in wrong if r["passed"]],
        "precision": sum(r["right"] for r in passed) / len(passed) if passed else None,
        "recall": sum(r["passed"] for r in right) / len(right) if right else None,
        "rows": rows,
    }


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def markdown(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# Support check against labels",
        "",
        "`python bench/support.py` (see its docstring). Passed: some sentence supported "
        "(a claim is one sentence). Precision: of the passed, the share right; recall: of "
        "the right, the share passed.",
        "",
        "| input | check | wrong passed | right refused | precision | recall |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for key, s in results.items():
        name, check = key.split("/")
        w, r = len(s["wrong_passed"]), len(s["right_refused"])
        lines.append(
            f"| {name} | {check} | {w}/{s['wrong']} | {r}/{s['right']} "
            f"| {pct(s['precision'])} | {pct(s['recall'])} |"
        )
    lines.append("")
    for key, s in results.items():
        if s["wrong_passed"] or s["right_refused"]:
            lines.append(f"* {key}: wrong passed {', '.join(s['wrong_passed']) or '-'}; "
                         f"right refused {', '.join(s['right_refused']) or '-'}")  # fmt: skip
    return "\n".join([*lines, ""])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=Path, default=CLAIMS)
    ap.add_argument("--checks", type=Path, nargs="*", default=[])
    ap.add_argument("--no-quote", action="store_true", help="score the check only")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    from lateseg.encode.late import LateEncoder

    encoder = LateEncoder()
    inputs = {"claims": claim_cases(args.claims)}
    for path in args.checks:
        for case in kept_cases(path):
            inputs.setdefault(case["set"], []).append(case)
    judges = {"check": by_check(encoder), "unquoted": by_check(encoder, agree=False)}
    if not args.no_quote:
        judges["quote"] = by_quote(encoder)
    results = {
        f"{name}/{check}": score(cases, judge)
        for name, cases in inputs.items()
        for check, judge in judges.items()
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    text = markdown(results)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
