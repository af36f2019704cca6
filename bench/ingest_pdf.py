"""PDF extraction speed and text quality: lateseg's ``read_pdf`` next to plain PyMuPDF and
LangChain's ``PyMuPDFLoader``, on the same files in one run.

    make testdata                      # once: the Debian Policy Manual PDF (193 pages)
    .venv/bin/python bench/ingest_pdf.py [--repeat 3]

Needs the ``bench`` extra for LangChain (``pip install -e '.[bench]'``). Documents: the
Debian Policy Manual (``.cache/testdata/policy.pdf``, skipped with a note when missing)
and the four sample contracts (``data/contracts/*.pdf``). Each extractor runs
``--repeat`` times over all documents, interleaved, and the fastest run counts (the
machine may be shared). Quality, per extractor:

* furniture lines left: the first 2 and last 3 lines of every page that are running
  heads or feet of that document: for the policy manual its header
  ("Debian Policy Manual, Release 4.6.2.0"), bare page numbers (arabic or roman),
  "Chapter N. Title" and "N.M. Section" footers; for the contracts "Page X of N";
* line-end splits: matches of ``[a-z]-\\n[a-z]`` (a word or compound broken over lines);
* paragraphs found (contracts): share of the source paragraphs (``data/sources``, ``**``
  and heading ``#`` removed) found in the extracted text, whitespace collapsed;
* characters kept: non-space characters relative to plain ``page.get_text()``.

Writes ``bench/results/ingest_pdf.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
POLICY = ROOT / ".cache" / "testdata" / "policy.pdf"
OUT = ROOT / "bench" / "results"

FURNITURE = {
    "policy": re.compile(
        r"Debian Policy Manual, Release [\d.]+|\d{1,3}|[ivxlc]{1,6}"
        r"|Chapter \d+\. .+|\d+\.\d+(?:\.\d+)*\. [A-Z].*"
    ),
    "contract": re.compile(r"Page \d+ of \d+"),
}
SPLIT = re.compile(r"[a-z]-\n[a-z]")

Extractor = Callable[[Path], list[str]]


def lateseg_pages(path: Path) -> list[str]:
    from lateseg.ingest.pdf.reader import read_pdf

    text, spans, _ = read_pdf(path)
    return [text[s.start : s.end] for s in spans if s.kind == "page"]


def pymupdf_pages(path: Path) -> list[str]:
    import pymupdf

    with pymupdf.open(path) as doc:
        return [page.get_text() for page in doc]


def langchain_pages(path: Path) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.document_loaders import PyMuPDFLoader

    return [d.page_content for d in PyMuPDFLoader(str(path)).load()]


EXTRACTORS: dict[str, Extractor] = {
    "lateseg read_pdf": lateseg_pages,
    "PyMuPDF page.get_text()": pymupdf_pages,
    "LangChain PyMuPDFLoader": langchain_pages,
}


def squash(text: str) -> str:
    return " ".join(text.split())


def furniture_left(pages: list[str], pattern: re.Pattern[str]) -> int:
    count = 0
    for page in pages:
        lines = [ln.strip() for ln in page.splitlines() if ln.strip()]
        edge = lines[:2] + lines[2:][-3:]
        count += sum(1 for ln in edge if pattern.fullmatch(ln))
    return count


def paragraphs_found(text: str, source: Path) -> tuple[int, int]:
    flat = squash(text)
    paras = [
        squash(re.sub(r"^#+\s*", "", p.replace("**", "")))
        for p in re.split(r"\n\s*\n", source.read_text("utf-8"))
        if p.strip()
    ]
    return sum(1 for p in paras if p in flat), len(paras)


def documents() -> list[tuple[str, Path, str]]:
    docs = [(p.stem, p, "contract") for p in sorted((DATA / "contracts").glob("*.pdf"))]
    if POLICY.exists():
        docs.insert(0, ("policy", POLICY, "policy"))
    else:
        print(f"note: {POLICY} missing (run `make testdata`); contracts only", file=sys.stderr)
    return docs


def run(repeat: int) -> dict:
    docs = documents()
    extractors = dict(EXTRACTORS)
    for name, fn in list(extractors.items()):
        try:
            fn(docs[-1][1])  # warm up: imports, font caches
        except ImportError as e:
            print(f"note: skipping {name}: {e}", file=sys.stderr)
            del extractors[name]
    best: dict[tuple[str, str], float] = {}
    pages: dict[tuple[str, str], list[str]] = {}
    for _ in range(repeat):
        for doc_name, path, _kind in docs:
            for name, fn in extractors.items():
                start = time.perf_counter()
                pages[name, doc_name] = fn(path)
                elapsed = time.perf_counter() - start
                best[name, doc_name] = min(elapsed, best.get((name, doc_name), elapsed))
    plain = {d: "".join(pages["PyMuPDF page.get_text()", d]) for d, _, _ in docs}
    results: dict = {"repeat": repeat, "documents": {}, "extractors": {}}
    for doc_name, path, kind in docs:
        results["documents"][doc_name] = {"path": str(path.relative_to(ROOT)), "kind": kind}
    for name in extractors:
        per_doc = {}
        for doc_name, _path, kind in docs:
            got = pages[name, doc_name]
            text = "\n".join(got)
            row = {
                "pages": len(got),
                "seconds": round(best[name, doc_name], 4),
                "furniture_left": furniture_left(got, FURNITURE[kind]),
                "line_end_splits": len(SPLIT.findall(text)),
                "chars_vs_get_text": round(_nonspace(text) / _nonspace(plain[doc_name]), 4),
            }
            if kind == "contract":
                source = DATA / "sources" / "contracts" / f"{doc_name}.md"
                row["paragraphs_found"], row["paragraphs"] = paragraphs_found(text, source)
            per_doc[doc_name] = row
        results["extractors"][name] = {"documents": per_doc, **_totals(per_doc)}
    return results


def _nonspace(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def _totals(per_doc: dict[str, dict]) -> dict:
    pages = sum(r["pages"] for r in per_doc.values())
    seconds = sum(r["seconds"] for r in per_doc.values())
    contracts = [r for d, r in per_doc.items() if d != "policy"]
    policy = per_doc.get("policy", {})
    return {
        "pages": pages,
        "seconds": round(seconds, 4),
        "pages_per_second": round(pages / seconds, 1),
        "policy_furniture_left": policy.get("furniture_left"),
        "policy_line_end_splits": policy.get("line_end_splits"),
        "policy_chars_vs_get_text": policy.get("chars_vs_get_text"),
        "contract_furniture_left": sum(r["furniture_left"] for r in contracts),
        "contract_paragraphs_found": round(
            sum(r["paragraphs_found"] for r in contracts) / sum(r["paragraphs"] for r in contracts),
            4,
        ),
    }


def markdown(results: dict) -> str:
    ext = results["extractors"]
    base = ext["PyMuPDF page.get_text()"]["seconds"]
    pages = next(iter(ext.values()))["pages"]
    lines = [
        f"# PDF extraction ({pages} pages: " + ", ".join(results["documents"]) + ")",
        "",
        "| extractor | pages/s | time vs get_text | policy: furniture lines left "
        "| policy: line-end splits | policy: chars vs get_text "
        '| contracts: "Page X of N" left | contracts: paragraphs found |',
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in ext.items():
        lines.append(
            f"| {name} | {r['pages_per_second']} | {r['seconds'] / base:.2f}x "
            f"| {r['policy_furniture_left']} | {r['policy_line_end_splits']} "
            f"| {r['policy_chars_vs_get_text']} | {r['contract_furniture_left']} "
            f"| {r['contract_paragraphs_found']:.2%} |"
        )
    lines += [
        "",
        "Furniture lines: running heads/feet and page numbers among the first 2 and last 3",
        "lines of each page (see the module docstring). Line-end splits: `[a-z]-\\n[a-z]`.",
        "Paragraphs found: source paragraphs of the contracts found whitespace-collapsed.",
        "Fastest of the runs per document; pages/s over all documents.",
        "",
        f"Command: `python bench/ingest_pdf.py --repeat {results['repeat']}`",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per extractor (best counts)")
    args = parser.parse_args()
    results = run(args.repeat)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "ingest_pdf.json").write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    table = markdown(results)
    (OUT / "ingest_pdf.md").write_text(table, "utf-8")
    print(table)


if __name__ == "__main__":
    main()
