"""Scans against their born-digital twins: what OCR reads, how fast, and what it costs answers.

    python bench/ocr.py [--skip-answers] [--policy-pages 40] [--out bench/results/ocr.md]

Builds two corpora from born-digital PDFs nobody had to type:

* the four sample contracts (``data/contracts``): ``lease.pdf`` "mixed" (every other page
  a scan, the others born-digital), the others every page a scan;
* the first ``--policy-pages`` pages of the Debian Policy Manual and FHS 3.0 whole
  (``make testdata``; left out with a message where missing);
* ``tables``: the sample DPA (``data/tables/dpa.pdf``: a sub-processor table and a
  service-credit table), every page a scan, asked its 8 questions of ``tables_qa`` (the
  answer is a cell: "phrase right" is the cell shown as the phrase).

A scan is what a desk scanner gives: each page rendered grey at 200 dpi, turned by a
small random angle (up to 1.5 degrees, seeded), with grey noise (sigma 8 levels),
stored as an image-only page. Then it reports, scans against born-digital:

* **CER**: character error rate of the scanned pages' text (Levenshtein, whitespace
  runs as one space, dot leaders as one space: a contents line's ``. . . . .`` is
  hundreds of characters the text layer has and a reader does not need) against the
  same pages' born-digital text; and without any whitespace (the difference is words
  run together or split). Where the text layer's order differs from the page's (an
  unruled two-column table read column by column), this counts the OCR's right order
  as errors: an upper bound;
* **numbers read**: of the numbers and amounts on those pages (``60``, ``$1,250.00``,
  ``5.2``, ``30%``), the share the scan's text holds exactly (a multiset, per page); and
  the same of the numbers in text, footnote markers left out (:func:`footnote_markers`);
* **pages/s**: OCR'd pages per second of reading the scanned files with a cold OCR cache
  (Tesseract processes: ``lateseg.ingest.ocr.engine.workers()``), on this machine's cores, with
  the CPU flags;
* **hit@5** and **quote accuracy**: ``contracts_qa`` (the 56 + the sample set's contract
  questions) and ``manuals_qa`` (the questions whose gold lies in the pages scanned),
  each corpus ingested into a fresh index and asked as ``lateseg ask`` does by default.
  A hit counts when it is from the gold's document and holds the gold text (fuzzy: 90 %
  partial ratio, the same rule on both sides, as OCR may change a character).

Writes ``bench/results/ocr.md`` and ``.json``. Offline (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "data" / "eval"))

from bench.answers import contract_records, correct, read_jsonl  # noqa: E402
from bench.cold_start import cpu  # noqa: E402
from bench.retrieval import find_squashed  # noqa: E402

DATA = ROOT / "data"
MANUALS = ROOT / ".cache" / "testdata"
OUT = ROOT / "bench" / "results" / "ocr.md"
NUMBER = re.compile(r"[$€£]?\d(?:[\d,.:/%-]*\d)?%?")
LEADERS = re.compile(r"(?:\s?\.){4,}")
DPI = 200
MAX_TURN = 1.5
NOISE = 8.0


def scan_pdf(src: Path, dst: Path, pages: int | None, every: int, seed: int) -> list[int]:
    """Write an image-only copy of ``src``'s first ``pages`` pages (every ``every``-th
    one scanned, the others copied); returns the scanned page numbers (1-based)."""
    import numpy as np
    import pymupdf
    from PIL import Image

    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    doc = pymupdf.open(src)
    out = pymupdf.open()
    scanned = []
    for i in range(min(pages or doc.page_count, doc.page_count)):
        page = doc[i]
        if i % every:
            out.insert_pdf(doc, from_page=i, to_page=i)
            continue
        pix = page.get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY)
        grey = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)
        noisy = np.clip(grey + noise.normal(0, NOISE, grey.shape), 0, 255).astype(np.uint8)
        img = Image.fromarray(noisy).rotate(
            rng.uniform(-MAX_TURN, MAX_TURN), resample=Image.BILINEAR, fillcolor=245
        )
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        new = out.new_page(width=page.rect.width, height=page.rect.height)
        new.insert_image(new.rect, stream=buf.getvalue())
        scanned.append(i + 1)
    out.save(dst, garbage=3, deflate=True)
    return scanned


def corpora(folder: Path, policy_pages: int) -> dict[str, Any]:
    """Born-digital and scanned copies side by side: {set: {"digital": [paths],
    "scanned": [paths], "scanned_pages": {name: [pages]}}}."""
    import pymupdf

    sets: dict[str, Any] = {}
    contracts: dict[str, Any] = {"digital": [], "scanned": [], "scanned_pages": {}}
    for seed, src in enumerate(sorted((DATA / "contracts").glob("*.pdf"))):
        for side in ("digital", "scanned"):
            (folder / side / "contracts").mkdir(parents=True, exist_ok=True)
        digital = folder / "digital" / "contracts" / src.name
        digital.write_bytes(src.read_bytes())
        scanned = folder / "scanned" / "contracts" / src.name
        every = 2 if src.name == "lease.pdf" else 1
        contracts["scanned_pages"][src.name] = scan_pdf(src, scanned, None, every, seed)
        contracts["digital"].append(digital)
        contracts["scanned"].append(scanned)
    sets["contracts"] = contracts
    manuals: dict[str, Any] = {"digital": [], "scanned": [], "scanned_pages": {}}
    for seed, (name, pages) in enumerate(
        [("policy.pdf", policy_pages), ("fhs-3.0.pdf", None)], start=10
    ):
        src = MANUALS / name
        if not src.is_file():
            print(f"[manuals] {src} missing (make testdata): left out", file=sys.stderr)
            continue
        for side in ("digital", "scanned"):
            (folder / side / "manuals").mkdir(parents=True, exist_ok=True)
        digital = folder / "digital" / "manuals" / name
        whole = pymupdf.open(src)
        part = pymupdf.open()
        part.insert_pdf(whole, to_page=(pages or whole.page_count) - 1)
        part.save(digital, garbage=3, deflate=True)
        scanned = folder / "scanned" / "manuals" / name
        manuals["scanned_pages"][name] = scan_pdf(digital, scanned, None, 1, seed)
        manuals["digital"].append(digital)
        manuals["scanned"].append(scanned)
    if manuals["digital"]:
        sets["manuals"] = manuals
    tables: dict[str, Any] = {"digital": [], "scanned": [], "scanned_pages": {}}
    src = DATA / "tables" / "dpa.pdf"
    for side in ("digital", "scanned"):
        (folder / side / "tables").mkdir(parents=True, exist_ok=True)
    (folder / "digital" / "tables" / src.name).write_bytes(src.read_bytes())
    scanned = folder / "scanned" / "tables" / src.name
    tables["scanned_pages"][src.name] = scan_pdf(src, scanned, None, 1, 20)
    tables["digital"].append(folder / "digital" / "tables" / src.name)
    tables["scanned"].append(scanned)
    sets["tables"] = tables
    return sets


def page_texts(path: Path) -> dict[int, str]:
    from lateseg.ingest.pdf.reader import read_pdf_layout

    text, spans, _, _ = read_pdf_layout(path)
    return {int(s.label): text[s.start : s.end] for s in spans if s.kind == "page"}


def reading(sets: dict[str, Any], home: Path) -> dict[str, Any]:
    """CER, numbers read and pages/s of the scanned pages, per set."""
    from rapidfuzz.distance import Levenshtein

    from lateseg.ingest.ocr import engine as ocr

    os.environ["LATESEG_HOME"] = str(home)  # a cold OCR cache
    ocr._tesseract.cache_clear()
    out: dict[str, Any] = {}
    for name, s in sets.items():
        rows: list[dict[str, Any]] = []  # per scanned page
        seconds = 0.0
        for digital, scanned in zip(s["digital"], s["scanned"], strict=True):
            truth = page_texts(digital)
            contents = contents_pages(digital)
            markers = footnote_markers(digital)
            t0 = time.perf_counter()
            read = page_texts(scanned)
            seconds += time.perf_counter() - t0
            for n in s["scanned_pages"][digital.name]:
                ref, got = (
                    " ".join(LEADERS.sub(" ", t).split()) for t in (truth[n], read.get(n, ""))
                )
                ref_ns, got_ns = "".join(ref.split()), "".join(got.split())
                want = Counter(NUMBER.findall(ref))
                have = Counter(NUMBER.findall(got))
                text_numbers = want - markers.get(n, Counter())
                rows.append(
                    {
                        "file": digital.name,
                        "page": n,
                        "contents": n in contents,
                        "chars": len(ref),
                        "edits": Levenshtein.distance(ref, got),
                        "chars_ns": len(ref_ns),
                        "edits_ns": Levenshtein.distance(ref_ns, got_ns),
                        "numbers": sum(want.values()),
                        "numbers_read": sum(min(c, have[k]) for k, c in want.items()),
                        "text_numbers": sum(text_numbers.values()),
                        "text_numbers_read": sum(min(c, have[k]) for k, c in text_numbers.items()),
                    }
                )
        body = [r for r in rows if not r["contents"]]
        out[name] = {
            **_rates(rows),
            "body": _rates(body),
            "contents_pages": len(rows) - len(body),
            "seconds": seconds,
            "pages_per_s": len(rows) / seconds if seconds else None,
            "workers": ocr.workers(),
            "per_page": rows,
        }
        print(f"[read {name}] {out[name]}", file=sys.stderr, flush=True)
    return out


def _rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def total(key: str) -> int:
        return sum(r[key] for r in rows)

    return {
        "pages": len(rows),
        "cer": total("edits") / max(total("chars"), 1),
        "cer_no_space": total("edits_ns") / max(total("chars_ns"), 1),
        "numbers": total("numbers"),
        "numbers_read": total("numbers_read") / max(total("numbers"), 1),
        "text_numbers": total("text_numbers"),
        "text_numbers_read": total("text_numbers_read") / max(total("text_numbers"), 1),
    }


def footnote_markers(path: Path) -> dict[int, Counter[str]]:
    """Per page (1-based), the numbers set as footnote markers in a born-digital PDF: a
    number alone in a span printed smaller than its line's text (a superscript ``9`` in
    the text, the ``9`` before the footnote). They are references, not numbers a reader
    asks for, and the small print is what a scan loses first: counted apart."""
    import pymupdf

    out: dict[int, Counter[str]] = {}
    with pymupdf.open(path) as doc:
        for i, page in enumerate(doc, start=1):
            found: Counter[str] = Counter()
            for block in page.get_text("dict")["blocks"]:
                for line in block.get("lines", []):
                    biggest = max((s["size"] for s in line["spans"]), default=0.0)
                    for span in line["spans"]:
                        text = span["text"].strip()
                        if text.isdigit() and span["size"] < biggest - 1.0:
                            found[text] += 1
            out[i] = found
    return out


def contents_pages(path: Path) -> set[int]:
    """The pages of a born-digital PDF that its table of contents or index is on."""
    from lateseg.ingest.formats import load_document

    doc = load_document(path)
    toc = doc.spans("toc")
    return {
        int(p.label)
        for p in doc.spans("page")
        if any(t.start < p.end and p.start < t.end for t in toc)
    }


def records(name: str, digital: list[Path]) -> list[dict[str, Any]]:
    """The set's questions whose gold lies in the pages of ``digital`` (by file name)."""
    if name == "contracts":
        recs = contract_records()
        return [dict(r, file=Path(r["source"]).name) for r in recs]
    if name == "tables":
        names = {p.name for p in digital}
        recs = read_jsonl(DATA / "eval" / "tables_qa.jsonl")
        recs = [dict(r, file=Path(r["source"]).name) for r in recs]
        return [r for r in recs if r["file"] in names]
    texts = {p.name: "\n".join(page_texts(p).values()) for p in digital}
    kept = []
    for r in read_jsonl(DATA / "eval" / "manuals_qa.jsonl"):
        text = texts.get(r["source"])
        if text is not None and find_squashed(text, r["gold"]) is not None:
            kept.append(dict(r, file=r["source"]))
    return kept


def answering(sets: dict[str, Any], encoder: Any) -> dict[str, Any]:
    """hit@5 and quote accuracy on both sides of each set."""
    from rapidfuzz import fuzz

    from lateseg.pipeline import Pipeline

    out: dict[str, Any] = {}
    for name, s in sets.items():
        recs = records(name, s["digital"])
        graded = sum(1 for r in recs if r.get("answer") is not None)
        out[name] = {"questions": len(recs), "graded": graded}
        for side in ("digital", "scanned"):
            with (
                tempfile.TemporaryDirectory() as tmp,
                Pipeline.open(Path(tmp) / "index") as pipe,
            ):
                pipe.encoder = encoder
                report = pipe.ingest(s[side], progress=False)
                hits = right = wrong = phrase = 0
                rights: list[str] = []
                for r in recs:
                    found = pipe.search(r["question"], k=5)
                    gold = " ".join(r["gold"].split()).lower()
                    hits += any(
                        Path(h.source).name == r["file"]
                        and fuzz.partial_ratio(gold, " ".join(h.text.split()).lower()) >= 90
                        for h in found
                    )
                    got = pipe.ask(r["question"], k=5, answer="quote")
                    ok = correct(got.text, r.get("answer"))
                    shown = got.phrase.text if got.phrase is not None else None
                    right += bool(ok)
                    phrase += shown is not None and bool(correct(shown, r.get("answer")))
                    if ok:
                        rights.append(r["id"])
                    wrong += shown is not None and correct(shown, r.get("answer")) is False
                n = max(graded, 1)
                out[name][side] = {
                    "hit5": hits / max(len(recs), 1),
                    "quote_right": right / n,
                    "wrong_shown": wrong / n,
                    "phrase_right": phrase / n,
                    "ocr_pages": report.ocr_pages,
                    "right": rights,
                    "failed": report.failed,
                }
                print(f"[answers {name} {side}] {out[name][side]}", file=sys.stderr, flush=True)
    return out


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# OCR: scans against their born-digital twins (`bench/ocr.py`)",
        "",
        f"Machine: {report['machine']}. Engine: {report['engine']}, "
        f"{report['dpi']} dpi grey, pages turned by up to {MAX_TURN} degrees with grey noise "
        f"(sigma {NOISE:g}); `lease.pdf` mixed (every other page a scan).",
        "",
        "## Reading",
        "",
        "Pages of contents (dot leaders, page numbers: the `toc` spans of the born-digital "
        "twin) are read worst; the body pages are the rest.",
        "",
        "Numbers in text leave out footnote markers (a number printed smaller than its "
        "line: the superscript ``9`` in the text and the ``9`` before its footnote), which "
        "are references, not values.",
        "",
        "| set | pages | pages scanned | CER | CER without spaces | numbers | numbers read "
        "exactly | numbers in text | read exactly | pages/s (Tesseract processes) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in report["reading"].items():
        rate = "n/a" if r["pages_per_s"] is None else f"{r['pages_per_s']:.2f}"
        for label, g in (("all", r), ("body", r["body"])):
            if label == "body" and not r["contents_pages"]:
                continue
            lines.append(
                f"| {name} | {label} | {g['pages']} | {pct(g['cer'])} | "
                f"{pct(g['cer_no_space'])} | {g['numbers']} | {pct(g['numbers_read'])} | "
                f"{g['text_numbers']} | {pct(g['text_numbers_read'])} | "
                + (f"{rate} ({r['workers']}) |" if label == "all" else "|")
            )
    if report.get("answers"):
        lines += [
            "",
            "## Retrieval and answers (`ask`'s default quote answer)",
            "",
            "Quote right and wrong shown are shares of the questions with a gold value "
            "(graded), as in `bench/answers.py`; hit@5 of all.",
            "",
            "| set | questions (graded) | side | hit@5 | quote right | phrase right "
            "| wrong shown |",
            "|---|---:|---|---:|---:|---:|---:|",
        ]
        for name, r in report["answers"].items():
            for side in ("digital", "scanned"):
                a = r[side]
                lines.append(
                    f"| {name} | {r['questions']} ({r['graded']}) | {side} | {pct(a['hit5'])} | "
                    f"{pct(a['quote_right'])} | {pct(a.get('phrase_right'))} | "
                    f"{pct(a['wrong_shown'])} |"
                )
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policy-pages", type=int, default=40)
    ap.add_argument("--skip-answers", action="store_true", help="reading figures only")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if args.out.is_dir():
        ap.error(
            f"--out names the report file (its .md; the .json beside it): {args.out} is a folder"
        )
    from lateseg.ingest.ocr import engine as ocr

    why = ocr.available()
    if why:
        raise SystemExit(f"bench/ocr.py needs Tesseract: {why}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        sets = corpora(folder, args.policy_pages)
        print(f"corpora made in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        report: dict[str, Any] = {
            "machine": cpu(),
            "engine": ocr.engine_name(),
            "dpi": DPI,
            "reading": reading(sets, folder / "home"),
        }
        if not args.skip_answers:
            from lateseg.encode.late import LateEncoder

            encoder = LateEncoder()
            report["answers"] = answering(sets, encoder)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    args.out.write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
