"""Citation quality on real manuals: right page, right numbered section, clean labels.

    python bench/citations.py [--k 5] [--index DIR] [--out PATH]

Ingests the Debian Policy Manual and FHS 3.0 (``make testdata``) into a new index (or
uses ``--index``) and asks the 34 questions of ``data/eval/manuals_qa.jsonl``. For each
question the gold sentence is located in the document's text with whitespace collapsed
(cut by machine, as in the other sets); a hit *holds the answer* when it covers at least
half of it. Of the questions answered in the top ``k``:

* **page**: the hit's pages (``page`` to ``page_end``) include the gold page;
* **section**: the hit's section label names the gold section (some component of the
  path carries its number: ``5.15.1``), and no component has dot leaders or ends in a
  page number.

It also prints, per document, the largest share of the text one clause or heading span
covers and how many labels carry dot leaders or trailing page numbers. Writes
``bench/results/citations.md`` (or ``--out``) and a ``.json`` beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "data" / "eval"))
sys.path.insert(0, str(ROOT / "bench"))

from check_manuals_qa import PDF_DIR, read_records, release_problems  # noqa: E402
from retrieval import find_squashed  # noqa: E402

from lateseg.generate.rerank import RERANK_TOP  # noqa: E402

OUT = ROOT / "bench" / "results" / "citations.md"
SECTION_KINDS = ("clause", "heading")
_NUMBER = re.compile(r"^(?:§\s*)?(\d+(?:\.\d+)*)\.?(?=\s|$)")
_LEADERS = re.compile(r"\.\s?\.\s?\.")
_PAGE_TAIL = re.compile(r"\S\s+\d{1,4}$")


def label_problem(label: str | None) -> str | None:
    """Why a section label is not one a person would write, or None."""
    for part in (label or "").split(" > "):
        if _LEADERS.search(part):
            return "dot leaders"
        if _NUMBER.match(part) and _PAGE_TAIL.search(part) and " " in part.strip():
            return "trailing page number"
    return None


def label_numbers(label: str | None) -> list[str]:
    return [m.group(1) for part in (label or "").split(" > ") if (m := _NUMBER.match(part))]


def structure_figures(pipe: Any, source: str) -> dict[str, Any]:
    doc = pipe.document(source)
    n = max(len(doc.text), 1)
    spans = doc.spans(*SECTION_KINDS)
    widest = max(spans, key=lambda s: s.end - s.start, default=None)
    bad = [s.label for s in spans if label_problem(s.label)]
    return {
        "chars": len(doc.text),
        "sections": len(spans),
        "toc_spans": len(doc.spans("toc")),
        "widest_share": (widest.end - widest.start) / n if widest else 0.0,
        "widest_label": widest.label if widest else None,
        "bad_labels": len(bad),
        "bad_examples": bad[:3],
    }


def evaluate(
    pipe: Any, records: list[dict], sources: dict[str, str], k: int, rerank: bool = False
) -> list[dict]:
    texts = {name: pipe.document(src).text for name, src in sources.items()}
    rows = []
    for rec in records:
        span = find_squashed(texts[rec["source"]], rec["gold"])
        row: dict[str, Any] = {"id": rec["id"], "gold_page": rec["page"], "found": False}
        if span is None:
            row["note"] = "gold not in the extracted text"
            rows.append(row)
            continue
        hits = pipe.search(rec["question"], k=k, rerank="generator" if rerank else None)
        for rank, h in enumerate(hits, 1):
            if h.source != sources[rec["source"]]:
                continue
            covered = min(h.end, span[1]) - max(h.start, span[0])
            if covered >= 0.5 * (span[1] - span[0]):
                last = getattr(h, "page_end", None) or h.page
                problem = label_problem(h.section)
                row.update(
                    found=True,
                    rank=rank,
                    page=h.page,
                    page_end=last,
                    page_ok=h.page is not None and h.page <= rec["page"] <= last,
                    section=h.section,
                    section_ok=rec["section"] in label_numbers(h.section) and problem is None,
                    label_problem=problem,
                )
                break
        rows.append(row)
    return rows


def summary(rows: list[dict]) -> dict[str, Any]:
    found = [r for r in rows if r["found"]]
    share = (lambda key: sum(r[key] for r in found) / len(found)) if found else (lambda key: 0.0)
    return {
        "questions": len(rows),
        "found": len(found),
        "page_ok": share("page_ok"),
        "section_ok": share("section_ok"),
    }


def markdown(report: dict[str, Any]) -> str:
    ql = " --rerank-ql" if report.get("rerank_ql") else ""
    lines = [
        "# Citations on real manuals",
        "",
        f"`python bench/citations.py --k {report['k']}{ql}`; {report['when']}; "
        f"ingest {report['ingest_s']:.1f} s.",
        "",
        "| set | questions | answer in top k | page right | section right |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, s in report["summary"].items():
        lines.append(
            f"| {name} | {s['questions']} | {s['found']} | {s['page_ok']:.0%} | "
            f"{s['section_ok']:.0%} |"
        )
    lines += [
        "",
        "| document | chars | section spans | toc spans | widest span | bad labels |",
        "| --- | ---: | ---: | ---: | --- | ---: |",
    ]
    for name, f in report["structure"].items():
        widest = f"{f['widest_share']:.0%} `{(f['widest_label'] or '')[:50]}`"
        lines.append(
            f"| {name} | {f['chars']:,} | {f['sections']} | {f['toc_spans']} | {widest} | "
            f"{f['bad_labels']} |"
        )
    lines += ["", "Misses (answer in top k, citation wrong):", ""]
    for r in report["rows"]:
        if r["found"] and not (r["page_ok"] and r["section_ok"]):
            lines.append(
                f"* {r['id']}: gold p. {r['gold_page']}, cited pp. {r['page']}-{r['page_end']} "
                f"§ `{(r['section'] or '')[:90]}`"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=5, help="hits per question (default 5)")
    ap.add_argument("--index", type=Path, help="use or build this index (default: a new one)")
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"markdown report (default {OUT}, or citations_ql.md with --rerank-ql)",
    )
    ap.add_argument(
        "--rerank-ql",
        action="store_true",
        help=f"re-rank the dense top {RERANK_TOP} by dense + the generator's query "
        "likelihood (issue 30)",
    )
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = OUT.with_name("citations_ql.md") if args.rerank_ql else OUT
    problems = release_problems()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    from lateseg.pipeline import Pipeline

    records = read_records()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.index or Path(tmp) / "index"
        pipe = Pipeline.open(folder)
        sources = {name: str((PDF_DIR / name).resolve()) for name in ("policy.pdf", "fhs-3.0.pdf")}
        t0 = time.perf_counter()
        pipe.ingest([PDF_DIR / name for name in sources])
        ingest_s = time.perf_counter() - t0
        rows = evaluate(pipe, records, sources, args.k, args.rerank_ql)
        structure = {name: structure_figures(pipe, src) for name, src in sources.items()}
    by_set = {
        "policy": [r for r in rows if r["id"].startswith("pol")],
        "fhs": [r for r in rows if r["id"].startswith("fhs")],
        "all": rows,
    }
    report = {
        "k": args.k,
        "rerank_ql": args.rerank_ql,
        "when": time.strftime("%Y-%m-%d"),
        "ingest_s": ingest_s,
        "summary": {name: summary(rs) for name, rs in by_set.items()},
        "structure": structure,
        "rows": rows,
    }
    text = markdown(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
