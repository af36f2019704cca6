"""Reading order of generated two-column pages: how often every paragraph comes out in order.

    python bench/reading_order.py [--pages 300] [--seed 0]

Each page is drawn at random: one to three regions, each an optional title (always one
between regions) over two columns of one to four paragraphs and headings of random
length and spacing, so the columns end at unequal heights; half the documents get a
one-column page after it. The paragraphs' drawing order is the reading order, and a page
passes when ``read_pdf`` gives every paragraph, whole and in that order. Titles are
drawn two ways: centred (crossing the gutter, as full-width headings are) and flush left
(short enough to sit over the left column alone: ambiguous even to a reader, unless the
title is set larger). Writes ``bench/results/reading_order.md``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import textwrap
from pathlib import Path

import pymupdf

from lateseg.ingest.pdf.reader import read_pdf

OUT = Path(__file__).resolve().parent / "results" / "reading_order.md"
WORDS = [
    "party", "shall", "keep", "the", "other", "information", "secret", "use", "perform",
    "agreement", "protect", "reasonable", "care", "term", "years", "notice", "fees", "invoice",
    "court", "law", "payment", "service", "level", "credit",
]  # fmt: skip


def _para(page: pymupdf.Page, x: float, y: float, text: str, width: int, size: float) -> float:
    for line in textwrap.wrap(text, width):
        page.insert_text((x, y), line, fontsize=size)
        y += size * 1.3
    return y


def draw(seed: int, path: Path, centred: bool) -> list[str]:
    """Draw one random document at ``path``; return its paragraphs in reading order."""
    r = random.Random(seed)
    doc = pymupdf.open()
    page = doc.new_page()
    order: list[str] = []
    y, num = 72.0, 1

    def words(n: int, upper: bool = False) -> str:
        out = " ".join(r.choice(WORDS) for _ in range(n))
        return out.upper() if upper else out

    for region in range(r.randint(1, 3)):
        if region > 0 or r.random() < 0.7:
            title = f"PART {region + 1} {words(4, True)}"
            width = pymupdf.get_text_length(title, fontsize=13)
            x = 306 - width / 2 if centred else 72
            order.append(title)
            y = _para(page, x, y, title, 90, 13) + r.choice([6, 12, 20])
        ends = []
        for x in (72, 320):
            yy = y
            for p in range(r.randint(1, 4)):
                if yy > 640:
                    break
                if r.random() < 0.4:
                    head = f"{num}. {words(2, True)}"
                    num += 1
                    order.append(head)
                    yy = _para(page, x, yy, head, 40, 11) + r.choice([2, 8, 16])
                body = " ".join(
                    words(r.randint(5, 12)).capitalize() + "." for _ in range(r.randint(1, 4))
                )
                text = f"{num}.{p + 1} {body}"
                order.append(text)
                yy = _para(page, x, yy, text, 40, 10) + r.choice([4, 10, 18])
            ends.append(yy)
        y = max(ends) + 20
        if y > 700:
            break
    if r.random() < 0.5:
        page = doc.new_page()
        yy = 72.0
        for p in range(3):
            text = f"Full {p} {words(30).capitalize()}."
            order.append(text)
            yy = _para(page, 72, yy, text, 90, 10) + 10
    doc.save(path)
    doc.close()
    return order


def in_order(path: Path, order: list[str]) -> bool:
    flat = " ".join(read_pdf(path)[0].split())
    where = [flat.find(" ".join(part.split())) for part in order]
    return -1 not in where and where == sorted(where)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=300, help="documents per title style")
    ap.add_argument("--seed", type=int, default=0, help="first random seed")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for centred in (True, False):
            failed = []
            for seed in range(args.seed, args.seed + args.pages):
                path = Path(tmp) / f"{seed}.pdf"
                if not in_order(path, draw(seed, path, centred)):
                    failed.append(seed)
            style = "centred (crossing the gutter)" if centred else "flush left (ambiguous)"
            share = 1 - len(failed) / args.pages
            rows.append(f"| {style} | {args.pages} | {share:.1%} | {failed[:12]} |")
    text = "\n".join(
        [
            "# Reading order of generated two-column pages",
            "",
            f"`python bench/reading_order.py --pages {args.pages} --seed {args.seed}`",
            "",
            "| titles | documents | every paragraph in order | failing seeds |",
            "| --- | ---: | ---: | --- |",
            *rows,
        ]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
