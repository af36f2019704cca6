"""``bench/results/real.md``'s tables, from the runs on the real corpora.

    python bench/real_report.py [--answers bench/results/answers_real.json]
        [--retrieval bench/results/real_retrieval.json]
        [--first-answers bench/results/real/first_run_answers.json]
        [--first-retrieval bench/results/real/first_run_retrieval.json]

Prints Markdown: the commit order of corpus, questions and first run (``git log``); the
answers per corpus and family, first run against now; retrieval hit@5 and recall@2000 of
lateseg's default against every peer (the peers' figures from the first run, whose
documents and chunks no later change touched: they read ``load_document``'s text and
split it themselves); and the most telling failures left (wrong answers shown with the
highest confidence, unanswerable questions answered, named documents missed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import real_corpora  # noqa: E402

RESULTS = ROOT / "bench" / "results"
DEFAULT = "lateseg late+dynamic (default)"


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def commit_order() -> list[str]:
    out = subprocess.run(
        ["git", "log", "--reverse", "--date=iso", "--format=%h %ad %s", "--",
         "data/real", "bench/results/real"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    ).stdout.splitlines()  # fmt: skip
    return [f"* `{line[:110]}`" for line in out[:12]]


def answer_rows(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per real set and family: right, wrong shown, unsure (answerable), not sure
    (unanswerable), as ``ask`` showed them (quote mode)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for name, res in report["sets"].items():
        corpus = real_corpora.corpus_of(name)
        if corpus is None or "rows" not in res:
            continue
        rows = [r for r in res["rows"] if "quote" in r]
        groups[name] = rows
        groups.setdefault(f"all {real_corpora.family(corpus)}", []).extend(rows)
    out = {}
    for name, rows in groups.items():
        ans = [r for r in rows if not r.get("unanswerable") and r["quote"]["correct"] is not None]
        una = [r for r in rows if r.get("unanswerable")]
        out[name] = {
            "answerable": len(ans),
            "right": mean([bool(r["quote"]["correct"]) for r in ans]),
            "wrong": mean([bool(r["quote"]["wrong_shown"]) for r in ans]),
            "unsure": mean([bool(r["quote"].get("unsure")) for r in ans]),
            "unanswerable": len(una),
            "not_sure": mean([bool(r["quote"].get("not_sure")) for r in una]),
        }
    return out


def answers_table(first: dict[str, Any], now: dict[str, Any]) -> list[str]:
    a, b = answer_rows(first), answer_rows(now)
    lines = [
        "| set | answerable | right (first → now) | wrong shown | unsure | unanswerable "
        "| not sure |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in sorted(b, key=lambda n: (n.startswith("all "), n)):
        x, y = a.get(name, {}), b[name]
        lines.append(
            f"| {name} | {y['answerable']} | {pct(x.get('right'))} → **{pct(y['right'])}** "
            f"| {pct(x.get('wrong'))} → **{pct(y['wrong'])}** "
            f"| {pct(x.get('unsure'))} → {pct(y['unsure'])} | {y['unanswerable']} "
            f"| {pct(x.get('not_sure'))} → **{pct(y['not_sure'])}** |"
        )
    return lines


def retrieval_table(first: dict[str, Any], now: dict[str, Any]) -> list[str]:
    lines = [
        "| set | queries | lateseg first run | lateseg now | best peer | peers (hit@5) |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, res in now["sets"].items():
        if real_corpora.corpus_of(name) is None:
            continue
        before = first["sets"].get(name, {}).get("systems", {})
        ours = res["systems"][DEFAULT]["summary"]
        old = before.get(DEFAULT, {}).get("summary", {})
        peers = {
            n: v["summary"]
            for n, v in before.items()
            if "summary" in v and not n.startswith(("lateseg", "dynamic", "fixed", "lever"))
        }
        best = max(peers.items(), key=lambda kv: kv[1]["hit@5"]) if peers else None
        ranked = sorted(peers.items(), key=lambda kv: -kv[1]["hit@5"])
        shown = ", ".join(f"{n} {v['hit@5']:.3f}" for n, v in ranked)
        lines.append(
            f"| {name} | {res['queries']} "
            f"| {old.get('hit@5', 0):.3f} / {old.get('recall@2000', 0):.3f} "
            f"| **{ours['hit@5']:.3f} / {ours['recall@2000']:.3f}** "
            f"| {best[1]['hit@5']:.3f} / {best[1]['recall@2000']:.3f} ({best[0]}) | {shown} |"
            if best
            else f"| {name} | {res['queries']} | - | {ours['hit@5']:.3f} | - | - |"
        )
    return lines


def failures(report: dict[str, Any], most: int = 20) -> list[str]:
    """The most telling failures: wrong answers shown with the highest confidence, then
    unanswerable questions answered, then named documents whose gold the top citation
    missed; legal and PDF corpora first."""
    found = []
    for name, res in report["sets"].items():
        corpus = real_corpora.corpus_of(name)
        if corpus is None or real_corpora.family(corpus) == "code":
            continue
        questions = {q["id"]: q for q in real_corpora.questions(corpus)}
        for r in res.get("rows", []):
            q = r["quote"]
            asked = questions[r["id"]]["question"]
            shown = (q.get("phrase") or q.get("text") or "").replace("\n", " ")[:110]
            conf = q.get("confidence") or 0.0
            if r.get("unanswerable") and not q.get("not_sure"):
                found.append((1, -conf, r["id"], asked, "no answer in the corpus", shown, conf))
            elif q.get("wrong_shown"):
                gold = r.get("answer")
                gold = gold[0] if isinstance(gold, list) else gold
                found.append((0, -conf, r["id"], asked, str(gold), shown, conf))
    found.sort()
    lines = ["| id | question | gold | shown | confidence |", "| --- | --- | --- | --- | ---: |"]
    for _, _, qid, asked, gold, shown, conf in found[:most]:
        cell = lambda t: t.replace("|", "/")  # noqa: E731
        lines.append(f"| {qid} | {cell(asked)} | {cell(gold)} | {cell(shown)} | {conf:.2f} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=Path, default=RESULTS / "answers_real.json")
    ap.add_argument("--retrieval", type=Path, default=RESULTS / "real_retrieval.json")
    ap.add_argument("--first-answers", type=Path, default=RESULTS / "real/first_run_answers.json")
    ap.add_argument(
        "--first-retrieval", type=Path, default=RESULTS / "real/first_run_retrieval.json"
    )
    args = ap.parse_args(argv)
    read = lambda p: json.loads(p.read_text("utf-8"))  # noqa: E731
    now, first = read(args.answers), read(args.first_answers)
    lines = ["## Commit order", "", *commit_order(), "", "## Answers (`ask`, quote mode)", ""]
    lines += answers_table(first, now)
    lines += ["", "## Retrieval (hit@5 / recall@2000)", ""]
    lines += retrieval_table(read(args.first_retrieval), read(args.retrieval))
    lines += ["", "## The most telling failures left", "", *failures(now)]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
