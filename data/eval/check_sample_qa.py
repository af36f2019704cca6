"""Verify the gold spans and answer values in ``sample_qa.jsonl``, ``contracts_qa.jsonl``
and ``scoped_qa.jsonl``.

Run from the repository root (needs PyMuPDF, ``pip install pymupdf``)::

    python data/eval/check_sample_qa.py

For every question in both files it checks that:

* the record has the expected fields; ids are unique across both files and no
  question text occurs twice; a contract record's id starts with its contract's
  name (``msa-05`` for ``contracts/msa.pdf``);
* ``gold`` is 30-200 characters long and contains no Markdown ``**`` markup;
* ``gold`` occurs exactly once in its source text file (the Markdown source
  for contracts, the Python file for code questions);
* for contracts, ``gold`` also occurs exactly once, after collapsing
  whitespace, in the text that ``page.get_text()`` extracts from the PDF
  (page footers included, so a gold that straddles a page break fails);
* the question does not simply repeat the gold text;
* contract records carry an ``answer``: null (no short value) or a string or
  non-empty list of strings, at least one of which occurs in the gold once both
  are normalised by :func:`normalise_answer` (see :func:`answer_problems`).

``scoped_qa.jsonl`` records also carry ``scope``: the file the question names, which
is its ``source``; or, for a question that names a document the sample contracts do
not include (``missing-NN``), ``scope`` and ``source`` are null and there is no gold.
At least :data:`MIN_SCOPED` questions name a contract.

It also checks the counts. ``sample_qa.jsonl``: 16-24 questions, at least three
per contract and at least four about code (it is a retrieval benchmark whose
numbers must stay comparable, so its questions stay as they are).
``contracts_qa.jsonl``: contract questions only, at least 45, at least ten per
contract, and at least 40 with an answer value. Problems are printed and the
exit status is 1 if there are any.

:func:`normalise_answer` (``lateseg.eval.metrics``: the rule ``lateseg eval`` and
``bench/answers.py`` compare answers by) and :func:`answer_problems` are also used by
``tests/test_eval_sets.py`` (for ``licenses_qa.jsonl``); this module needs PyMuPDF only
when it reads a PDF.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from lateseg.eval.metrics import normalise_answer

DATA_DIR = Path(__file__).resolve().parent.parent
QA_PATH = DATA_DIR / "eval" / "sample_qa.jsonl"
CONTRACTS_QA_PATH = DATA_DIR / "eval" / "contracts_qa.jsonl"
SCOPED_QA_PATH = DATA_DIR / "eval" / "scoped_qa.jsonl"
MIN_SCOPED = 30
CONTRACTS = ("msa", "nda", "lease", "saas")
MIN_GOLD, MAX_GOLD = 30, 200
# contracts_qa.jsonl: at least this many questions, per contract, and with an answer value
MIN_NEW, MIN_NEW_PER_CONTRACT, MIN_NEW_ANSWERS = 45, 10, 40


def collapse(text: str) -> str:
    """Collapse every run of whitespace to a single space."""
    return " ".join(text.split())


def answer_forms(answer: str | list[str] | None) -> list[str]:
    """The acceptable forms of an ``answer`` value: [] for None, [s] for a string."""
    if answer is None:
        return []
    return [answer] if isinstance(answer, str) else list(answer)


def answer_problems(answer: Any, gold: str) -> list[str]:
    """Problems with a record's ``answer`` given its ``gold`` ([] when it is fine).

    ``answer`` is None (the question has no short value), a string, or a non-empty
    list of acceptable alternatives. Every form must be a non-empty string, no form
    may repeat another after normalising, and at least one form must occur in the
    normalised gold (the others may be equivalent wordings, "60 days" for the gold's
    "sixty (60) days").
    """
    if answer is None:
        return []
    if not isinstance(answer, str | list) or answer == []:
        return [f"answer must be null, a string or a non-empty list of strings: {answer!r}"]
    forms = answer_forms(answer)
    if not all(isinstance(form, str) and normalise_answer(form) for form in forms):
        return [f"answer has an empty or non-string form: {answer!r}"]
    normalised = [normalise_answer(form) for form in forms]
    problems = []
    if len(set(normalised)) != len(normalised):
        problems.append(f"answer repeats a form: {answer!r}")
    target = normalise_answer(gold)
    if not any(form in target for form in normalised):
        problems.append(f"no form of the answer {answer!r} occurs in the gold")
    return problems


def pdf_text(path: Path) -> str:
    """Whitespace-collapsed text of all pages, exactly as extracted."""
    import pymupdf

    with pymupdf.open(path) as doc:
        return collapse("\n".join(page.get_text() for page in doc))


def check_record(record: dict[str, Any], pdf_cache: dict[Path, str]) -> list[str]:
    """Return the problems found in one QA record's question and gold span."""
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


def read_records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file (blank lines skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def contract_of(record: dict[str, Any]) -> str | None:
    """``msa`` for a record whose source is ``contracts/msa.pdf``; None for code."""
    source = str(record.get("source", ""))
    return Path(source).stem if source.startswith("contracts/") else None


def record_problems(record: dict[str, Any], pdf_cache: dict[Path, str]) -> list[str]:
    """All problems of one record: fields, id, gold span and answer value."""
    contract = contract_of(record)
    required = {"id", "question", "source", "gold"}
    if contract:
        required |= {"source_md", "answer"}
    missing = required - record.keys()
    if missing:
        return [f"missing fields {sorted(missing)}"]
    problems = []
    if contract and not str(record["id"]).startswith(f"{contract}-"):
        problems.append(f"id does not start with {contract}-")
    problems += check_record(record, pdf_cache)
    problems += answer_problems(record.get("answer"), str(record["gold"]))
    return problems


def scoped_problems(record: dict[str, Any], pdf_cache: dict[Path, str]) -> list[str]:
    """A ``scoped_qa.jsonl`` record's problems: its scope, then as any contract record."""
    if "scope" not in record:
        return ["missing field 'scope'"]
    if record["scope"] is None:
        if record.get("source") is not None or "gold" in record:
            return ["a question naming a missing document has no source and no gold"]
        return [] if str(record.get("id", "")).startswith("missing-") else ["id must be missing-NN"]
    if record["scope"] != record.get("source"):
        return [f"scope {record['scope']!r} is not the source {record.get('source')!r}"]
    return record_problems(record, pdf_cache)


def main() -> int:
    """Check every record of the three files and the counts; print a summary."""
    sample = read_records(QA_PATH)
    new = read_records(CONTRACTS_QA_PATH)
    scoped = read_records(SCOPED_QA_PATH)
    pdf_cache: dict[Path, str] = {}
    failures = 0

    for path, records in ((QA_PATH, sample), (CONTRACTS_QA_PATH, new), (SCOPED_QA_PATH, scoped)):
        print(f"== {path.name}")
        check = scoped_problems if path == SCOPED_QA_PATH else record_problems
        for record in records:
            problems = check(record, pdf_cache)
            for problem in problems:
                print(f"{record.get('id')}: {problem}")
            failures += len(problems)
            if not problems:
                print(f"{record['id']}: ok ({len(str(record.get('gold', '')))} chars)")

    both = sample + new + scoped
    ids = Counter(r.get("id") for r in both)
    questions = Counter(collapse(str(r.get("question", ""))).lower() for r in both)
    for duplicate in [i for i, n in ids.items() if n > 1]:
        print(f"duplicate id: {duplicate}")
        failures += 1
    for duplicate in [q for q, n in questions.items() if n > 1]:
        print(f"duplicate question: {duplicate}")
        failures += 1

    per_source = Counter(str(r.get("id", "")).split("-")[0] for r in sample)
    if not 16 <= len(sample) <= 24:
        print(f"{QA_PATH.name}: expected 16-24 questions, found {len(sample)}")
        failures += 1
    for name in CONTRACTS:
        if per_source[name] < 3:
            print(f"{QA_PATH.name}: only {per_source[name]} questions for {name}")
            failures += 1
    if per_source["code"] < 4:
        print(f"{QA_PATH.name}: only {per_source['code']} code questions")
        failures += 1

    per_contract = Counter(contract_of(r) for r in new)
    answered = sum(r.get("answer") is not None for r in new)
    if per_contract[None]:
        print(f"{CONTRACTS_QA_PATH.name}: {per_contract[None]} records are not about a contract")
        failures += 1
    if len(new) < MIN_NEW:
        print(f"{CONTRACTS_QA_PATH.name}: expected at least {MIN_NEW} questions, found {len(new)}")
        failures += 1
    for name in CONTRACTS:
        if per_contract[name] < MIN_NEW_PER_CONTRACT:
            print(f"{CONTRACTS_QA_PATH.name}: only {per_contract[name]} questions for {name}")
            failures += 1
    if answered < MIN_NEW_ANSWERS:
        print(f"{CONTRACTS_QA_PATH.name}: only {answered} questions with an answer value")
        failures += 1

    named = sum(r.get("scope") is not None for r in scoped)
    if named < MIN_SCOPED:
        print(f"{SCOPED_QA_PATH.name}: only {named} questions name a contract")
        failures += 1

    with_answer = sum(r.get("answer") is not None for r in both)
    print(
        f"{len(sample)} + {len(new)} + {len(scoped)} questions ({with_answer} with an answer "
        "value), "
        f"{failures} problems"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
