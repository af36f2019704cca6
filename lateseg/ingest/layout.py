"""Page geometry for PDF extraction: text lines, columns and reading order.

PyMuPDF hands back text in content-stream order, which is the order the producer drew it
in, not the order a person reads it: two columns drawn line by line come out interleaved,
and a table comes out cell by cell. This module turns one page into :class:`Line` objects
in reading order:

* tables with ruled grids become one ``table`` line each (:mod:`lateseg.ingest.pdf.tables`),
  and lines inside them are left to the table (:func:`outside`);
* the remaining lines are split into vertical blocks at full-width gaps; a block with a
  clear gutter is read column by column, and blocks that share a gutter are read as one
  column set (paragraph gaps in both columns often line up). Columns end where their
  text ends: a block just below a column set with all its lines on one side (the longer
  column's last paragraph) goes on with that column, and a block just above one (the
  columns' first headings side by side, a title) opens it; lines that cross the gutter
  cut the set into bands read one after the other (``bench/reading_order.py``);
* lines on the same row of one column are merged left to right;
* a line starts a paragraph when the gap above it is clearly wider than the page's usual
  line gap.
"""

from __future__ import annotations

import bisect
import itertools
import statistics
from dataclasses import dataclass
from typing import Any

# A gutter narrower than this (points) is word spacing, not a column break.
MIN_GUTTER = 8.0
# Each column must be at least this share of the text area's width; rules out narrow
# "columns" of clause numbers, TOC page numbers and definition-list terms.
MIN_COLUMN_SHARE = 0.2
# Lines that may cross a gutter (titles, full-width figures), as a share of the lines.
MAX_CROSSING_SHARE = 0.125
# Lines this much taller than a column's are set larger: a heading, not the column's text.
LARGER = 1.15
# Extra gap, as a share of the line height, that marks a new paragraph.
PARAGRAPH_GAP = 0.3


Box = tuple[float, float, float, float]


@dataclass(slots=True)
class Frag:
    """Where a stretch ``[start, end)`` of a line's text was drawn: the box of the PDF
    line it came from, and that line's page (None: the line's own page; a word's end
    moved up from the next page by dehyphenation keeps its own)."""

    start: int
    end: int
    box: Box
    page: int | None = None


@dataclass(slots=True)
class Line:
    """One line of text on a page (PDF points, origin top left).

    ``kind`` is ``"text"`` or ``"table"`` (a whole table, rows joined by newlines);
    ``mono`` says the line ends in a monospaced font (code), where hyphens are literal;
    ``para`` says the line starts a paragraph. ``frags``: where its text was drawn, when
    that is not simply its own box (lines merged on a row, a hyphenated word's end
    moved onto it), see :meth:`fragments`.
    """

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    mono: bool = False
    kind: str = "text"
    para: bool = False
    frags: list[Frag] | None = None
    header: bool = False  # a table line whose first row is its header

    def fragments(self) -> list[Frag]:
        """The drawn stretches of :attr:`text`, in order, covering it."""
        if self.frags is not None:
            return self.frags
        return [Frag(0, len(self.text), (self.x0, self.y0, self.x1, self.y1))]

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def _is_mono(font: str) -> bool:
    name = font.lower()
    return "mono" in name or "courier" in name or "code" in name


def _clean(text: str) -> str:
    """Strip a line; a soft (U+00AD) or Unicode (U+2010) hyphen at its end becomes "-",
    soft hyphens inside it (invisible break hints) go."""
    text = text.strip()
    if text.endswith(("\u00ad", "\u2010")):
        text = text[:-1] + "-"
    return text.replace("\u00ad", "")


def text_lines(page_dict: dict[str, Any]) -> tuple[list[Line], list[Line], list[Box]]:
    """Horizontal text lines, other (rotated, vertical) text lines, and the boxes of
    rectangular vector graphics (rules, frames, cell fills) of a ``get_text("dict")`` page
    extracted with ``TEXT_COLLECT_VECTORS``."""
    horizontal: list[Line] = []
    other: list[Line] = []
    rules: list[Box] = []
    for block in page_dict["blocks"]:
        if block["type"] == 3:
            if block.get("isrect"):
                rules.append(tuple(block["bbox"]))
            continue
        for raw in block.get("lines", ()):
            spans = raw["spans"]
            text = _clean("".join(s["text"] for s in spans))
            if not text:
                continue
            x0, y0, x1, y1 = raw["bbox"]
            line = Line(text, x0, y0, x1, y1, mono=_is_mono(spans[-1]["font"]))
            dx, dy = raw["dir"]
            (horizontal if dx > 0.9 and abs(dy) < 0.1 else other).append(line)
    return horizontal, other, rules


def rows(lines: list[Line]) -> list[list[Line]]:
    """Group lines whose vertical centres fall inside each other's extent, top to bottom;
    each row is sorted left to right. Tables are rows of their own."""
    out: list[list[Line]] = []
    top = bottom = 0.0
    for line in sorted(lines, key=lambda ln: ln.cy):
        if (
            out
            and line.kind == "text"
            and out[-1][0].kind == "text"
            and top <= line.cy <= bottom
            and line.y0 <= (top + bottom) / 2 <= line.y1
        ):
            out[-1].append(line)
            top, bottom = min(top, line.y0), max(bottom, line.y1)
            continue
        out.append([line])
        top, bottom = line.y0, line.y1
    for row in out:
        row.sort(key=lambda ln: ln.x0)
    return out


def _merge_row(row: list[Line]) -> Line:
    if len(row) == 1:
        return row[0]
    frags: list[Frag] = []
    pos = 0
    for r in row:
        frags += [Frag(f.start + pos, f.end + pos, f.box, f.page) for f in r.fragments()]
        pos += len(r.text) + 1
    return Line(
        " ".join(r.text for r in row),
        min(r.x0 for r in row),
        min(r.y0 for r in row),
        max(r.x1 for r in row),
        max(r.y1 for r in row),
        mono=row[-1].mono,
        frags=frags,
    )


def _coverage_runs(lines: list[Line], limit: int) -> list[tuple[float, float]]:
    """Maximal x-intervals, between the leftmost and rightmost text, that at most ``limit``
    lines cross (a sweep over the lines' left and right edges)."""
    events = sorted([(ln.x0, 1) for ln in lines] + [(ln.x1, -1) for ln in lines])
    runs: list[tuple[float, float]] = []
    depth, start = 0, None
    for x, step in events:
        before, depth = depth, depth + step
        if before > limit >= depth:
            start = x
        elif depth > limit >= before and start is not None:
            runs.append((start, x))
            start = None
    return runs


def find_gutter(lines: list[Line], text_width: float) -> tuple[float, float] | None:
    """The widest vertical gap that splits ``lines`` into two real columns, or None.

    Candidates are x-ranges that no line crosses, and those that at most
    :data:`MAX_CROSSING_SHARE` of the lines cross (titles, full-width figures); the
    gutter is then the gap between the lines ending left of the range's middle and those
    starting right of it. A real column has at least two lines, most of them starting at
    one x, and spans at least
    :data:`MIN_COLUMN_SHARE` of ``text_width``.
    """
    if len(lines) < 4:
        return None
    lo, hi = min(ln.x0 for ln in lines), max(ln.x1 for ln in lines)
    min_width = MIN_COLUMN_SHARE * text_width
    best: tuple[float, float] | None = None
    limits = dict.fromkeys((0, int(len(lines) * MAX_CROSSING_SHARE)))
    # Clear gaps first: a column of a few lines must not pass for lines crossing one.
    for a, b in (run for limit in limits for run in _coverage_runs(lines, limit)):
        if b - a < MIN_GUTTER or (best and b - a <= best[1] - best[0]):
            continue  # the gap found inside a run is never wider than the run
        mid = (a + b) / 2
        left = [ln for ln in lines if ln.x1 <= mid]
        right = [ln for ln in lines if ln.x0 >= mid]
        if len(left) < 2 or len(right) < 2:
            continue
        gap = (max(ln.x1 for ln in left), min(ln.x0 for ln in right))
        if gap[1] - gap[0] < MIN_GUTTER or (best and gap[1] - gap[0] <= best[1] - best[0]):
            continue
        if gap[0] - lo < min_width or hi - gap[1] < min_width:
            continue
        if _left_aligned(left) and _left_aligned(right):
            best = gap
    return best


def _left_aligned(lines: list[Line]) -> bool:
    """Most lines start at one x (within 3 points), as lines of a column of text do; the
    pieces of a widely spaced justified heading do not."""
    xs = sorted(ln.x0 for ln in lines)
    most = max(bisect.bisect_right(xs, x + 3.0) - i for i, x in enumerate(xs))
    return 2 * most >= len(xs)


def _blocks(lines: list[Line], min_gap: float) -> list[list[Line]]:
    """Split lines (any order) at full-width horizontal gaps of at least ``min_gap``."""
    out: list[list[Line]] = []
    bottom = float("-inf")
    for line in sorted(lines, key=lambda ln: ln.y0):
        if not out or line.y0 - bottom >= min_gap:
            out.append([])
        out[-1].append(line)
        bottom = max(bottom, line.y1)
    return out


def _read_columns(lines: list[Line], gutter: tuple[float, float], width: float) -> list[Line]:
    """Read a block with a gutter: lines crossing it cut the block into bands; in each band
    the left column comes before the right one."""
    a, b = gutter
    out: list[Line] = []
    band: list[Line] = []
    for row in rows(lines):
        crossing = [ln for ln in row if ln.x0 < b and ln.x1 > a]
        if not crossing:
            band.extend(row)
            continue
        out += _read_band(band, gutter, width)
        band = []
        out += _read_band(row, None, width)
    return out + _read_band(band, gutter, width)


def _read_band(lines: list[Line], gutter: tuple[float, float] | None, width: float) -> list[Line]:
    if not lines:
        return []
    if gutter is None:
        return [_merge_row(r) for r in rows(lines)]
    mid = (gutter[0] + gutter[1]) / 2
    left = [ln for ln in lines if ln.x1 <= mid]
    right = [ln for ln in lines if ln.x1 > mid]
    return reading_order(left, width) + reading_order(right, width)


def reading_order(lines: list[Line], text_width: float) -> list[Line]:
    """Lines in reading order: blocks top to bottom, columns left to right, rows merged."""
    if len(lines) < 4:
        return [_merge_row(r) for r in rows(lines)]
    height = statistics.median(ln.height for ln in lines)
    groups: list[tuple[tuple[float, float] | None, list[Line]]] = []
    for block in _blocks(lines, 0.8 * height):
        gutter = find_gutter(block, text_width) or _under_title(block, text_width)
        prev_gutter = groups[-1][0] if groups else None
        if prev_gutter and gutter and _same_gutter(gutter, prev_gutter):
            groups[-1] = (_intersect(prev_gutter, gutter), groups[-1][1] + block)
        elif (
            prev_gutter
            and not gutter
            and (narrowed := _continues(block, groups[-1][1], prev_gutter, height))
        ):
            groups[-1] = (narrowed, groups[-1][1] + block)
        elif gutter and groups and not prev_gutter and _opens(groups[-1][1], block, height):
            groups[-1] = (gutter, groups[-1][1] + block)
        else:
            groups.append((gutter, block))
    if len(groups) == 1 and groups[0][0] is None:
        return [_merge_row(r) for r in rows(lines)]
    out: list[Line] = []
    for gutter, block in groups:
        out += _read_columns(block, gutter, text_width) if gutter else _read_band(block, None, 0)
    return out


def _continues(
    block: list[Line], above: list[Line], gutter: tuple[float, float], height: float
) -> tuple[float, float] | None:
    """The gutter, narrowed to clear ``block``, when ``block`` (found without a gutter of
    its own) goes on with one column of the column set ``above``: all its lines on one
    side of the gutter's middle, close below (within two line heights), not set larger
    than that column (a heading over the page), and still a gutter between them and the
    other column; else None. Where the columns end
    unequally, the longer one's last paragraph is such a block: read on its own, it came
    after the other column."""
    a, b = gutter
    mid = (a + b) / 2
    gap = min(ln.y0 for ln in block) - max(ln.y1 for ln in above)
    if gap > 2 * height:
        return None
    if all(ln.x1 <= mid for ln in block):
        column = [ln for ln in above if ln.x1 <= mid]
        a = max(a, max(ln.x1 for ln in block))
    elif all(ln.x0 >= mid for ln in block):
        column = [ln for ln in above if ln.x0 >= mid]
        b = min(b, min(ln.x0 for ln in block))
    else:
        return None
    if not column or statistics.median(ln.height for ln in block) > LARGER * statistics.median(
        ln.height for ln in column
    ):
        return None  # set larger than the column: a heading over the page, not a paragraph
    return (a, b) if b - a >= MIN_GUTTER else None


def _under_title(block: list[Line], text_width: float) -> tuple[float, float] | None:
    """The gutter of the columns under a title that crosses it, in a block too small for
    :func:`find_gutter` to let a line cross (a title close above the columns' first
    lines); None when the top row does not cross the gutter of the rest."""
    top = rows(block)[0]
    ids = {id(ln) for ln in top}
    rest = [ln for ln in block if id(ln) not in ids]
    gutter = find_gutter(rest, text_width)
    if not gutter or not all(ln.x0 < gutter[0] and ln.x1 > gutter[1] for ln in top):
        return None
    mid = (gutter[0] + gutter[1]) / 2
    for side in ([ln for ln in rest if ln.x1 <= mid], [ln for ln in rest if ln.x0 >= mid]):
        # columns of text, not the cells of a term | description table
        if statistics.median(ln.x1 - ln.x0 for ln in side) < MIN_COLUMN_SHARE * text_width:
            return None
    return gutter


def _opens(block: list[Line], below: list[Line], height: float) -> bool:
    """A block without a gutter that opens the column set just below it (within two line
    heights): the two columns' first headings side by side, parted from their text by a
    gap, or a title above the columns. Read with the set, its lines across the gutter
    are bands of their own and the others begin their columns."""
    return min(ln.y0 for ln in below) - max(ln.y1 for ln in block) <= 2 * height


def _same_gutter(g: tuple[float, float], h: tuple[float, float]) -> bool:
    """Two blocks' gutters are one: they overlap by at least half the wider one (a title
    that ends near the right column narrows a block's gutter to a sliver, which must not
    join it to the columns above)."""
    return min(g[1], h[1]) - max(g[0], h[0]) >= 0.5 * max(g[1] - g[0], h[1] - h[0])


def _intersect(g: tuple[float, float], h: tuple[float, float]) -> tuple[float, float]:
    return max(g[0], h[0]), min(g[1], h[1])


def mark_paragraphs(lines: list[Line]) -> None:
    """Set ``para`` on lines whose gap to the line above (in reading order) is wider than
    the page's median line gap by :data:`PARAGRAPH_GAP` of a line height. Tables always
    stand apart; a jump upwards (next column) continues the paragraph."""
    gaps = [b.y0 - a.y1 for a, b in itertools.pairwise(lines) if -a.height < b.y0 - a.y1 < a.height]
    usual = statistics.median(gaps) if gaps else 0.0
    for prev, line in itertools.pairwise(lines):
        gap = line.y0 - prev.y1
        line.para = "table" in (prev.kind, line.kind) or gap > usual + PARAGRAPH_GAP * min(
            prev.height, line.height
        )
    if lines:
        lines[0].para = True


def outside(lines: list[Line], boxes: list[Line]) -> list[Line]:
    """The lines whose centre lies in none of ``boxes`` (text already read as a table)."""
    return [
        ln
        for ln in lines
        if not any(b.x0 <= (ln.x0 + ln.x1) / 2 <= b.x1 and b.y0 <= ln.cy <= b.y1 for b in boxes)
    ]
