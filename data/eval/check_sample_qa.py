"""Verify the gold answers in ``data/eval/sample_qa.jsonl``.

Run from the repository root (needs PyMuPDF, ``pip install pymupdf``)::

    python data/eval/check_sample_qa.py

For every question it checks that:

* the record has the expected fields and a unique ``id``;
* ``gold`` is 30-200 characters long and contains no Markdown ``**`` markup;
* ``gold`` occurs exactly once in its source text file (the Markdown source
  for contracts, the Python file for code questions);
* for contracts, ``gold`` also occurs exactly once, after collapsing
  whitespace, in the text that ``page.get_text()`` extracts from the PDF
  (page footers included, so a gold that straddles a page break fails);
* the question does not simply repeat the gold text.

It also checks the overall counts: 16-24 questions, at least three per
contract and at least four about code. Problems are printed and the exit
status is 1 if there are any.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pymupdf

DATA_DIR = Path(__file__).resolve().parent.parent
QA_PATH = DATA_DIR / "eval" / "sample_qa.jsonl"
CONTRACTS = ("msa", "nda", "lease", "saas")
MIN_GOLD, MAX_GOLD = 30, 200


def collapse(text: str) -> str:
    """Collapse every run of whitespace to a single space."""
    return " ".join(text.split())


def pdf_text(path: Path) -> str:
    """Whitespace-collapsed text of all pages, exactly as extracted."""
    with pymupdf.open(path) as doc:
        return collapse("\n".join(page.get_text() for page in doc))


def check_record(record: dict[str, str], pdf_cache: dict[Path, str]) -> list[str]:
    """Return the problems found in one QA record."""
    problems: list[str] = []
    gold = record["gold"]
    if not MIN_GOLD <= len(gold) <= MAX_GOLD:
        problems.append(f"gold is {len(gold)} characters long")
    if "**" in gold:
        problems.append("gold contains Markdown bold markup")
    if collapse(gold).lower() in collapse(record["question"]).lower():
        problems.append("question repeats the gold text")

    is_contract = record["source"].startswith("contracts/")
    text_file = DATA_DIR / (record["source_md"] if is_contract else record["source"])
    count = text_file.read_text(encoding="utf-8").count(gold)
    if count != 1:
        problems.append(f"gold occurs {count} times in {text_file.name}")

    if is_contract:
        pdf_path = DATA_DIR / record["source"]
        if pdf_path not in pdf_cache:
            pdf_cache[pdf_path] = pdf_text(pdf_path)
        count = pdf_cache[pdf_path].count(collapse(gold))
        if count != 1:
            problems.append(f"gold occurs {count} times in the text of {pdf_path.name}")
    return problems


def main() -> int:
    """Check every record and the overall counts; print a summary."""
    records = [json.loads(line) for line in QA_PATH.read_text().splitlines() if line.strip()]
    pdf_cache: dict[Path, str] = {}
    failures = 0

    ids = Counter(r.get("id") for r in records)
    for duplicate in [i for i, n in ids.items() if n > 1]:
        print(f"duplicate id: {duplicate}")
        failures += 1

    per_source: Counter[str] = Counter()
    for record in records:
        required = {"id", "question", "source", "gold"}
        if record.get("source", "").startswith("contracts/"):
            required.add("source_md")
        missing = required - record.keys()
        if missing:
            print(f"{record.get('id')}: missing fields {sorted(missing)}")
            failures += 1
            continue
        per_source[record["id"].split("-")[0]] += 1
        problems = check_record(record, pdf_cache)
        for problem in problems:
            print(f"{record['id']}: {problem}")
        failures += len(problems)
        if not problems:
            print(f"{record['id']}: ok ({len(record['gold'])} chars)")

    if not 16 <= len(records) <= 24:
        print(f"expected 16-24 questions, found {len(records)}")
        failures += 1
    for name in CONTRACTS:
        if per_source[name] < 3:
            print(f"only {per_source[name]} questions for {name}")
            failures += 1
    if per_source["code"] < 4:
        print(f"only {per_source['code']} code questions")
        failures += 1

    print(f"{len(records)} questions, {failures} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
