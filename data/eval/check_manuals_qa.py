"""Check (or cut) the gold pages of ``data/eval/manuals_qa.jsonl``.

Run from the repository root, after ``make testdata`` (needs PyMuPDF)::

    python data/eval/check_manuals_qa.py            # check; exit status 1 on a problem
    python data/eval/check_manuals_qa.py --write    # recompute every ``page`` by machine

The questions, gold sentences, section numbers and clause paths are written by hand;
the gold page is cut by machine: the one page of the PDF whose text, as PyMuPDF's
``page.get_text()`` gives it with whitespace collapsed, contains the gold sentence.
The check also asks that the gold occurs exactly once in the whole PDF, that every
component of the clause path (``5.15 /var/tmp : ...``) occurs in the PDF's text, that the
short ``answer`` value (null where the gold holds none; ``bench/answers.py`` grades
answers by it) passes :func:`check_sample_qa.answer_problems` against the gold, that
``section`` is the number of the path's last component, and that the PDFs are the
releases the set was written against (:data:`PDF_SHA256`); another release may move
pages, so a mismatch is reported as such and nothing else is checked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_sample_qa import answer_problems  # noqa: E402

QA_PATH = ROOT / "data" / "eval" / "manuals_qa.jsonl"
PDF_DIR = ROOT / ".cache" / "testdata"
# debian-policy 4.6.2.0: the Policy Manual and FHS 3.0 it ships (``make testdata``).
PDF_SHA256 = {
    "policy.pdf": "220f9366d6deb3984e84236f02f04bdd6275d6fe7b5587acd6c689dfeb99020f",
    "fhs-3.0.pdf": "53d239e569a2d7b31a74fa09d585368c0f5a164e4624723fa2894660dd10fd23",
}
FIELDS = ("id", "question", "source", "page", "section", "clause", "gold", "answer")
MIN_GOLD, MAX_GOLD = 40, 400


def collapse(text: str) -> str:
    return " ".join(text.split())


def read_records(path: Path = QA_PATH) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def page_texts(pdf: Path) -> list[str]:
    """Whitespace-collapsed text of every page, as PyMuPDF extracts it."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return [collapse(page.get_text()) for page in doc]


def release_problems(pdf_dir: Path = PDF_DIR) -> list[str]:
    """Missing PDFs, or PDFs of another release than the set was written against."""
    out = []
    for name, digest in PDF_SHA256.items():
        path = pdf_dir / name
        if not path.is_file():
            out.append(f"{path} is missing (run `make testdata`)")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            out.append(f"{path} is another release than the set was written against")
    return out


def gold_page(pages: list[str], gold: str) -> tuple[int | None, int]:
    """(1-based page holding ``gold``, number of occurrences in the whole PDF)."""
    g = collapse(gold)
    found = [i + 1 for i, text in enumerate(pages) if g in text]
    count = sum(text.count(g) for text in pages)
    return (found[0] if len(found) == 1 else None), count


def check(records: list[dict], pdf_dir: Path = PDF_DIR) -> tuple[list[str], list[dict]]:
    """Problems found, and the records with ``page`` recomputed."""
    problems: list[str] = []
    texts = {name: page_texts(pdf_dir / name) for name in PDF_SHA256}
    whole = {name: " ".join(pages) for name, pages in texts.items()}
    ids: set[str] = set()
    out = []
    for rec in records:
        qid = rec.get("id", "?")
        if tuple(rec) != FIELDS:
            problems.append(f"{qid}: fields {tuple(rec)} != {FIELDS}")
            continue
        if qid in ids:
            problems.append(f"{qid}: duplicate id")
        ids.add(qid)
        if rec["source"] not in texts:
            problems.append(f"{qid}: unknown source {rec['source']!r}")
            continue
        gold = rec["gold"]
        if not MIN_GOLD <= len(gold) <= MAX_GOLD:
            problems.append(f"{qid}: gold is {len(gold)} characters long")
        page, count = gold_page(texts[rec["source"]], gold)
        if count != 1 or page is None:
            problems.append(f"{qid}: gold occurs {count} times, on one page: {page is not None}")
        elif page != rec["page"]:
            problems.append(f"{qid}: gold is on page {page}, the record says {rec['page']}")
        parts = rec["clause"].split(" > ")
        if parts[-1].split(" ", 1)[0] != rec["section"]:
            problems.append(f"{qid}: section {rec['section']} is not the clause's last number")
        pdf = whole[rec["source"]]
        for part in parts:
            number, title = part.split(" ", 1)
            # "5.15. /var/tmp ...", "5.15 ...", or a Sphinx chapter by its title alone
            # ("CHAPTER NINE THE OPERATING SYSTEM")
            if not any(form in pdf for form in (f"{number}. {title}", part, title.upper())):
                problems.append(f"{qid}: clause part {part!r} not in {rec['source']}")
        problems += [f"{qid}: {p}" for p in answer_problems(rec["answer"], gold)]
        out.append({**rec, "page": page if page is not None else rec["page"]})
    return problems, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the pages by machine")
    args = ap.parse_args(argv)
    release = release_problems()
    if release:
        print("\n".join(release), file=sys.stderr)
        return 1
    records = read_records()
    problems, fixed = check(records)
    if args.write:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in fixed)
        QA_PATH.write_text(text, encoding="utf-8")
    for p in problems:
        print(p)
    print(f"{len(records)} questions, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
