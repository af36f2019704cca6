"""From the lines of a PDF's pages to the document's text: page furniture dropped,
lines put in reading order, words split at line ends rejoined, pages joined.

* running headers, footers and page numbers are dropped (:func:`furniture`): lines in the
  outer rows of a page that are page numbers, that repeat (digits ignored) on many pages,
  or that sit on a baseline where such lines sit on many pages;
* a word split by a hyphen at a line end is rejoined on the first line (:func:`dehyphenate`),
  with the hyphen dropped unless the document says it belongs to the word;
* pages are joined by a blank line, or by a single newline when a sentence runs on
  (:func:`assemble`), and every stretch of the text keeps the box it was drawn in.

The pages come from a PDF's text layer or from OCR (:mod:`lateseg.ingest.pdf.reader`,
:mod:`lateseg.ingest.images`); this module does not know which.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from lateseg.ingest.layout import Frag, Line, mark_paragraphs, outside, reading_order, rows
from lateseg.ingest.tables import row_spans
from lateseg.text.words import WORD
from lateseg.types import LineBox, Span

PAGE_SEPARATOR = "\n\n"
PAGE_RUNS_ON = "\n"

# Page furniture lives in the outermost rows of this share of the page height.
MARGIN_SHARE = 0.15
EDGE_ROWS = 3
# A line repeating on at least this many pages (and FREQUENT_SHARE of them) is furniture.
MIN_REPEAT = 3
FREQUENT_SHARE = 0.1
# A baseline holding furniture on this share of pages makes any edge line on it furniture
# (section names next to page numbers, chapter titles in running heads).
BAND_SHARE = 0.25

_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^(?:page|p\.|pg\.?)?\s*[-–—(\[|]?\s*(?:#|[ivxlcdm]+)\s*[-–—)\]|]?\s*(?:(?:of|/)\s*#)?$"
)
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")
# The last token of a line, ending in a hyphen after a letter: (token before the last
# word part, last word part).
_SPLIT_TAIL = re.compile(r"(\S*?)([^\W\d_]+)-")
# Prefixes that make compounds ("non-exclusive") when the document gives no evidence.
_COMPOUND_PREFIXES = frozenset({"non", "self", "third", "well", "cross", "quasi", "semi", "anti"})


@dataclass
class PageLines:
    """What one page holds: text lines, tables and rotated lines, before cleaning."""

    number: int
    top: float
    bottom: float
    width: float
    lines: list[Line]
    tables: list[Line] = field(default_factory=list)
    rotated: list[Line] = field(default_factory=list)
    #: The OCR's mean word confidence (0-1) when the page was read by OCR, else None.
    ocr: float | None = None

    @property
    def empty(self) -> bool:
        return not (self.lines or self.tables or self.rotated)

    def text(self) -> str:
        return "\n".join(ln.text for ln in (*self.lines, *self.tables, *self.rotated))


def _key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _edge_rows(page: PageLines) -> list[list[list[Line]]]:
    """Top rows (outermost first) and bottom rows (outermost first) inside the margins."""
    all_rows = rows(page.lines)
    margin = MARGIN_SHARE * (page.bottom - page.top)
    top = [r for r in all_rows[:EDGE_ROWS] if max(ln.y1 for ln in r) <= page.top + margin]
    bottom = [
        r for r in all_rows[::-1][:EDGE_ROWS] if min(ln.y0 for ln in r) >= page.bottom - margin
    ]
    return [top, bottom]


def _walk(edges: list[list[list[Line]]], is_furniture: Any) -> list[Line]:
    """Lines of the rows met walking inwards from each edge whose lines are all furniture,
    stopping at the first row that is not: body text shields whatever lies further in,
    and a row mixing both ("4  CARD32  OFFSET", a table row) is body."""
    found: dict[int, Line] = {}
    for side in edges:
        for row in side:
            if not all(is_furniture(ln) for ln in row):
                break
            found.update((id(ln), ln) for ln in row)
    return list(found.values())


def furniture(pages: list[PageLines]) -> list[set[int]]:
    """Per page, the indices (into ``page.lines``) of running headers, footers and page
    numbers.

    Candidates are lines met walking inwards through the rows of a page's top and bottom
    margins (:func:`_walk`) that are page numbers ("7", "Page 3 of 8", "- iv -"), whose
    digit-normalised text sits in the margins of at least :data:`MIN_REPEAT` pages and
    :data:`FREQUENT_SHARE` of them, or that lie on a baseline ("band") where such lines,
    or any repeating on :data:`MIN_REPEAT` pages, sit on :data:`BAND_SHARE` of the pages.
    Of those, only lines outside the usual body frame (where the text of most pages
    starts and ends once page numbers and band lines are taken away) are furniture: a
    chapter-opening "CHAPTER" or the first numbered clause of every page repeat too, but
    inside the frame.
    """
    edges = [_edge_rows(p) for p in pages]
    counts: Counter[str] = Counter()
    for page_edges in edges:
        counts.update({_key(ln.text) for side in page_edges for row in side for ln in row})

    def numbered(ln: Line) -> bool:
        return bool(_PAGE_NUMBER.match(_key(ln.text)))

    def frequent(ln: Line) -> bool:
        return counts[_key(ln.text)] >= max(MIN_REPEAT, FREQUENT_SHARE * len(pages))

    bands: defaultdict[int, set[int]] = defaultdict(set)
    for i, page_edges in enumerate(edges):
        for ln in (ln for side in page_edges for row in side[:1] for ln in row):
            if numbered(ln) or counts[_key(ln.text)] >= MIN_REPEAT:
                bands[round(ln.cy / 2)].add(i)
    strong = {b for b, on in bands.items() if len(on) >= max(MIN_REPEAT, BAND_SHARE * len(pages))}

    def placed(ln: Line) -> bool:
        """A page number, or on a furniture band."""
        band = round(ln.cy / 2)
        return numbered(ln) or bool({band - 1, band, band + 1} & strong)

    found = [_walk(page_edges, lambda ln: placed(ln) or frequent(ln)) for page_edges in edges]
    top, bottom = _body_frame(pages, [[ln for ln in f if placed(ln)] for f in found])
    out: list[set[int]] = []
    for page, lines in zip(pages, found, strict=True):
        index = {id(ln): i for i, ln in enumerate(page.lines)}
        out.append({index[id(ln)] for ln in lines if ln.y1 <= top + 1 or ln.y0 >= bottom - 1})
    return out


def _body_frame(pages: list[PageLines], furniture: list[list[Line]]) -> tuple[float, float]:
    """Median top and bottom of the pages' text once ``furniture`` is taken away."""
    tops, bottoms = [], []
    for page, lines in zip(pages, furniture, strict=True):
        ids = {id(ln) for ln in lines}
        body = [ln for ln in page.lines if id(ln) not in ids]
        if body:
            tops.append(min(ln.y0 for ln in body))
            bottoms.append(max(ln.y1 for ln in body))
    if not tops:
        return float("inf"), float("-inf")
    return statistics.median(tops), statistics.median(bottoms)


def ordered(page: PageLines, drop: set[int]) -> list[Line]:
    """The page's lines in reading order with paragraph marks, furniture dropped."""
    body = [ln for i, ln in enumerate(page.lines) if i not in drop]
    if page.ocr is not None:  # Tesseract's own reading order and paragraphs
        return _with_tables(body, page.tables)
    lines = reading_order(outside(body, page.tables) + page.tables, page.width)
    mark_paragraphs(lines)
    for ln in page.rotated:
        ln.para = True
    return lines + page.rotated


def _with_tables(lines: list[Line], tables: list[Line]) -> list[Line]:
    """OCR'd ``lines`` (Tesseract's order) with each table put before the first line
    below it that shares its columns (at the end when none does); the line after a
    table starts a paragraph."""
    out = list(lines)
    for table in tables:
        at = next(
            (
                i
                for i, ln in enumerate(out)
                if ln.kind == "text" and ln.y0 >= table.y1 - 1 and ln.x0 < table.x1
                and ln.x1 > table.x0
            ),
            len(out),
        )  # fmt: skip
        out.insert(at, table)
        if at + 1 < len(out):
            out[at + 1].para = True
    return out


def _vocabulary(pages: list[list[Line]]) -> Counter[str]:
    """Lower-cased words (hyphenated compounds whole) away from line-end hyphens."""
    vocab: Counter[str] = Counter()
    for lines in pages:
        for ln in lines:
            if ln.kind == "text":
                body = ln.text.rsplit(" ", 1)[0] if ln.text.endswith("-") else ln.text
                vocab.update(WORD.findall(body.lower()))
    return vocab


def _keeps_hyphen(prev: Line, before: str, part: str, head: str, vocab: Counter[str]) -> bool:
    """Whether ``part-`` + ``head`` is a hyphenated compound rather than one word that
    typesetting split. ``Non-Debian``, ``MySQL-based`` and ``not-to-exceed`` keep it;
    otherwise the document's own usage of either form decides, and without any, code
    (monospaced) and a few compound prefixes keep it."""
    word = WORD.match(head)
    if not word or not head[0].islower() or "-" in before or not part[1:].islower():
        return True
    joined, hyphenated = (part + word.group()).lower(), f"{part}-{word.group()}".lower()
    if vocab[hyphenated] or vocab[joined]:
        return vocab[hyphenated] > vocab[joined]
    return prev.mono or part.lower() in _COMPOUND_PREFIXES


def dehyphenate(pages: list[list[Line]]) -> None:
    """Move the rest of a word split by a line-end hyphen up onto the line it starts on
    (across columns and pages too), dropping the hyphen unless :func:`_keeps_hyphen`.
    Lines left empty are removed. Works in place."""
    flat = [(p, ln) for p, lines in enumerate(pages) for ln in lines if ln.kind == "text"]
    if not any(ln.text.endswith("-") for _, ln in flat):
        return
    vocab = _vocabulary(pages)
    for (p, prev), (q, nxt) in itertools.pairwise(flat):
        if not prev.text.endswith("-") or not nxt.text or (nxt.para and p == q):
            continue
        tail = _SPLIT_TAIL.fullmatch(prev.text.split()[-1])
        if not tail:
            continue
        head, _, rest = nxt.text.partition(" ")
        keep = _keeps_hyphen(prev, tail.group(1), tail.group(2), head, vocab)
        kept = prev.text if keep else prev.text[:-1]
        cut = len(nxt.text) - len(rest.lstrip())  # the head and the spaces after it
        moved = _shift(_clip(nxt.fragments(), 0, len(head)), len(kept), q + 1)
        prev.frags = _clip(prev.fragments(), 0, len(kept)) + moved
        nxt.frags = _shift(_clip(nxt.fragments(), cut, len(nxt.text)), -cut, None)
        prev.text = kept + head
        nxt.text = rest.lstrip()
    for lines in pages:
        lines[:] = [ln for ln in lines if ln.text]


def _clip(frags: list[Frag], start: int, end: int) -> list[Frag]:
    """The parts of ``frags`` inside ``[start, end)``."""
    out = []
    for f in frags:
        a, b = max(f.start, start), min(f.end, end)
        if a < b:
            out.append(Frag(a, b, f.box, f.page))
    return out


def _shift(frags: list[Frag], by: int, page: int | None) -> list[Frag]:
    """``frags`` moved by ``by`` characters, on ``page`` when they have none of their own."""
    return [Frag(f.start + by, f.end + by, f.box, f.page or page) for f in frags]


def _runs_on(prev: list[Line], nxt: list[Line]) -> bool:
    """A sentence runs from the end of one page into the next."""
    if not prev or not nxt or prev[-1].kind != "text" or nxt[0].kind != "text":
        return False
    return not _SENTENCE_END.search(prev[-1].text) and nxt[0].text[:1].islower()


def assemble(pages: list[list[Line]]) -> tuple[str, list[Span], list[LineBox]]:
    """Join lines (a blank line before each paragraph) and pages; return the text with
    one ``page`` span per page and one ``table`` span per table, and where each stretch
    of the text was drawn (:class:`~lateseg.types.LineBox`, in text order)."""
    parts: list[str] = []
    spans: list[Span] = []
    boxes: list[LineBox] = []
    pos = 0
    for number, lines in enumerate(pages, 1):
        if number > 1:
            sep = PAGE_RUNS_ON if _runs_on(pages[number - 2], lines) else PAGE_SEPARATOR
            parts.append(sep)
            pos += len(sep)
        start = pos
        tables = 0
        for i, ln in enumerate(lines):
            if i:
                sep = "\n\n" if ln.para else "\n"
                parts.append(sep)
                pos += len(sep)
            if ln.kind == "table":
                tables += 1
                label = f"p. {number}, table {tables}"
                spans.append(Span(pos, pos + len(ln.text), "table", label))
                spans += row_spans(ln.text, pos, label, ln.header)
            boxes += [
                LineBox(f.page or number, *f.box, pos + f.start, pos + f.end)
                for f in ln.fragments()
            ]
            parts.append(ln.text)
            pos += len(ln.text)
        spans.append(Span(start, pos, "page", str(number)))
    boxes.sort(key=lambda b: b.start)
    return "".join(parts), spans, boxes
