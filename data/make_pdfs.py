"""Render the sample contracts in ``data/sources/contracts/*.md`` to PDF.

Run from the repository root::

    python data/make_pdfs.py            # render all contracts, then verify them
    python data/make_pdfs.py nda lease  # render (and verify) only some of them
    python data/make_pdfs.py --check    # only verify the existing PDFs

Each ``data/sources/contracts/NAME.md`` becomes ``data/contracts/NAME.pdf``
(US letter pages, one-inch margins, a "Page X of N" footer). The only
dependency is PyMuPDF (``pip install pymupdf``).

The Markdown dialect is deliberately tiny: ``#`` title, ``##`` article and
exhibit headings, blank-line separated paragraphs, ``**bold**`` spans and
``- `` list items. Paragraphs that start with ``(a)`` or ``(i)`` are indented
as subsections. Output is deterministic: metadata and dates are fixed and the
file is saved without a random document ID.

After rendering, every source paragraph is checked to appear, with whitespace
collapsed, in the text PyMuPDF extracts from the PDF (page footers removed).
Paragraphs that do not are reported and the exit status is 1.
"""

from __future__ import annotations

import argparse
import html
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pymupdf

DATA_DIR = Path(__file__).resolve().parent
SOURCE_DIR = DATA_DIR / "sources" / "contracts"
OUTPUT_DIR = DATA_DIR / "contracts"

PAGE_RECT = pymupdf.paper_rect("letter")  # 612 x 792 points
MARGIN = 66.0  # a little under one inch on every side
FOOTER_BASELINE = PAGE_RECT.height - 40.0
FOOTER_FONT_SIZE = 9.0
OVERFLOW_SLACK = 20.0  # points a placed story may extend below the margin
FOOTER_RE = re.compile(r"^Page \d+ of \d+$")

# Fixed PDF dates so that rebuilding produces byte-identical files.
FIXED_PDF_DATE = "D:20250101000000Z"

# Note: do not set ``line-height``. With it, this MuPDF version sometimes lays
# out a whole run of paragraphs past the bottom of a page (where they are
# clipped away) instead of breaking to the next page; render_story() guards
# against that.
CSS = """
body { font-family: Times; font-size: 10.5pt; }
h1 { font-size: 16pt; font-weight: bold; text-align: center;
     margin-top: 0; margin-bottom: 16pt; }
h2 { font-size: 12pt; font-weight: bold; margin-top: 14pt; margin-bottom: 6pt; }
p { margin-top: 0; margin-bottom: 7pt; text-align: justify; }
p.sub1 { margin-left: 24pt; }
p.sub2 { margin-left: 48pt; }
p.item { margin-left: 30pt; text-indent: -10pt; margin-bottom: 4pt;
         text-align: left; }
span.nowrap { white-space: nowrap; }
"""

ROMAN_NUMERALS = {"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"}
SUBSECTION_RE = re.compile(r"^\(([a-z]{1,4})\)\s")
BOLD_RE = re.compile(r"\*\*(.+?)\*\*")
HYPHENATED_RE = re.compile(r"[\w$.,()']+(?:-[\w$.,()']+)+")


@dataclass(frozen=True)
class Block:
    """One block-level element of a contract."""

    kind: str  # "h1", "h2", "p" or "li"
    markdown: str  # inline Markdown text of the block
    level: int = 0  # subsection indent level for paragraphs

    @property
    def plain_text(self) -> str:
        """The block text as it should appear in the PDF (no markup)."""
        return BOLD_RE.sub(r"\1", self.markdown)


def subsection_level(text: str, previous_letter: str | None) -> tuple[int, str | None]:
    """Return the indent level of a paragraph and the latest lettered item.

    ``(a)``-style items are level 1 and ``(i)``-style roman items level 2.
    A letter such as ``(i)`` that directly follows ``(h)`` is treated as a
    letter, not as a roman numeral.
    """
    match = SUBSECTION_RE.match(text)
    if match is None:
        return 0, previous_letter
    token = match.group(1)
    follows_letter = (
        len(token) == 1 and previous_letter is not None and ord(token) == ord(previous_letter) + 1
    )
    if token in ROMAN_NUMERALS and not follows_letter and token != "a":
        return 2, previous_letter
    if len(token) == 1:
        return 1, token
    return 0, previous_letter


def parse_markdown(source: str) -> list[Block]:
    """Split the tiny Markdown dialect used by the contracts into blocks."""
    blocks: list[Block] = []
    previous_letter: str | None = None
    for chunk in re.split(r"\n\s*\n", source.strip()):
        text = " ".join(line.strip() for line in chunk.splitlines()).strip()
        if not text:
            continue
        if text.startswith("## "):
            blocks.append(Block("h2", text[3:].strip()))
            previous_letter = None
        elif text.startswith("# "):
            blocks.append(Block("h1", text[2:].strip()))
            previous_letter = None
        elif text.startswith("- "):
            blocks.append(Block("li", text[2:].strip()))
        else:
            level, previous_letter = subsection_level(text, previous_letter)
            if level == 0:
                previous_letter = None
            blocks.append(Block("p", text, level))
    return blocks


def inline_html(markdown: str) -> str:
    """Escape text for HTML and turn ``**bold**`` spans into ``<b>`` tags.

    Every lowercase ``f`` is wrapped in its own ``<span>``: MuPDF shapes each
    text run separately, so this stops the font from forming "fi", "ff" or
    "ffi" ligatures, which would otherwise come back from text extraction as
    single Unicode ligature characters instead of the original letters.

    Hyphenated words such as "not-to-exceed" are wrapped in a ``nowrap`` span
    so that a line break never falls after a hyphen; otherwise extraction
    would yield "not-to- exceed" and the words would no longer match.
    """
    escaped = html.escape(markdown, quote=False)
    escaped = HYPHENATED_RE.sub(r'<span class="nowrap">\g<0></span>', escaped)
    escaped = BOLD_RE.sub(r"<b>\1</b>", escaped)
    return escaped.replace("f", "<span>f</span>")


def blocks_to_html(blocks: list[Block]) -> str:
    """Convert parsed blocks to the HTML body fed to ``pymupdf.Story``."""
    parts: list[str] = []
    for block in blocks:
        body = inline_html(block.markdown)
        if block.kind == "li":
            # An ASCII "- " marker instead of <ul>/<li>, whose bullet glyph
            # would be extracted as a non-ASCII character.
            parts.append(f'<p class="item">- {body}</p>')
        elif block.kind == "p" and block.level:
            parts.append(f'<p class="sub{block.level}">{body}</p>')
        else:
            parts.append(f"<{block.kind}>{body}</{block.kind}>")
    return "\n".join(parts)


def render_story(body_html: str) -> bytes:
    """Lay out the HTML on letter-size pages and return the PDF bytes."""
    story = pymupdf.Story(html=body_html, user_css=CSS)
    content_rect = pymupdf.Rect(MARGIN, MARGIN, PAGE_RECT.width - MARGIN, PAGE_RECT.height - MARGIN)
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    more = True
    while more:
        device = writer.begin_page(PAGE_RECT)
        more, filled = story.place(content_rect)
        # ``filled`` may include the bottom margin of the last paragraph, so
        # allow a little slack; anything more means content was lost.
        if filled[3] > content_rect.y1 + OVERFLOW_SLACK:
            msg = f"layout overflowed the page: filled {tuple(filled)}"
            raise RuntimeError(msg)
        story.draw(device)
        writer.end_page()
    writer.close()
    return buffer.getvalue()


def add_footers_and_metadata(pdf_bytes: bytes, title: str, output: Path) -> int:
    """Stamp "Page X of N" footers, set fixed metadata and save the PDF.

    Returns the number of pages.
    """
    doc = pymupdf.open(stream=pdf_bytes, filetype="pdf")
    page_count = doc.page_count
    for page in doc:
        label = f"Page {page.number + 1} of {page_count}"
        width = pymupdf.get_text_length(label, fontname="helv", fontsize=FOOTER_FONT_SIZE)
        point = pymupdf.Point((PAGE_RECT.width - width) / 2, FOOTER_BASELINE)
        page.insert_text(point, label, fontname="helv", fontsize=FOOTER_FONT_SIZE, color=(0, 0, 0))
    doc.set_metadata(
        {
            "title": title,
            "author": "lateseg sample data",
            "subject": "Fictional sample contract written for lateseg",
            "keywords": "",
            "creator": "data/make_pdfs.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_PDF_DATE,
            "modDate": FIXED_PDF_DATE,
            "trapped": "",
        }
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    doc.save(output, garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return page_count


def render_contract(source: Path, output: Path) -> int:
    """Render one Markdown contract to PDF and return its page count."""
    blocks = parse_markdown(source.read_text(encoding="utf-8"))
    title = next((b.plain_text for b in blocks if b.kind == "h1"), source.stem)
    pdf_bytes = render_story(blocks_to_html(blocks))
    return add_footers_and_metadata(pdf_bytes, title, output)


def collapse_whitespace(text: str) -> str:
    """Replace every run of whitespace with one space and strip the ends."""
    return " ".join(text.split())


def extracted_text(pdf_path: Path, *, drop_footers: bool = True) -> str:
    """Return the whitespace-collapsed text of all pages of a PDF."""
    pages: list[str] = []
    with pymupdf.open(pdf_path) as doc:
        for page in doc:
            lines = page.get_text().splitlines()
            if drop_footers:
                lines = [ln for ln in lines if not FOOTER_RE.match(ln.strip())]
            pages.append("\n".join(lines))
    return collapse_whitespace("\n".join(pages))


def check_contract(source: Path, pdf_path: Path) -> list[str]:
    """Return the source paragraphs whose text is missing from the PDF text."""
    text = extracted_text(pdf_path)
    blocks = parse_markdown(source.read_text(encoding="utf-8"))
    missing: list[str] = []
    position = 0
    for block in blocks:
        wanted = collapse_whitespace(block.plain_text)
        found = text.find(wanted, position)
        if found < 0:
            missing.append(wanted)
        else:
            position = found + len(wanted)  # paragraphs must appear in order
    return missing


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="contract names, e.g. msa nda")
    parser.add_argument("--check", action="store_true", help="only verify the existing PDFs")
    args = parser.parse_args(argv)

    sources = sorted(SOURCE_DIR.glob("*.md"))
    if args.names:
        sources = [s for s in sources if s.stem in set(args.names)]
    if not sources:
        print("no matching contracts found", file=sys.stderr)
        return 2

    failures = 0
    for source in sources:
        pdf_path = OUTPUT_DIR / f"{source.stem}.pdf"
        if not args.check:
            pages = render_contract(source, pdf_path)
            print(f"wrote {pdf_path.relative_to(DATA_DIR.parent)} ({pages} pages)")
        missing = check_contract(source, pdf_path)
        for paragraph in missing:
            print(f"  MISSING in {pdf_path.name}: {paragraph[:100]}...")
        failures += len(missing)
        status = "ok" if not missing else f"{len(missing)} paragraphs missing"
        print(f"checked {pdf_path.name}: {status}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
