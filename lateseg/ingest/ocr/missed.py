"""Readings of what Tesseract's page reading (``--psm 3``) lost, from the ink it left:
a copy of the page image with every word read, every rule, dot leader and speck whited
out (:func:`leftover`).

* **Dot leaders first** (:mod:`.leaders`): before the page is read, each run of
  evenly set dots is whited out (a contents page is then read as one block of lines and
  its page numbers again as digits; on another page, a line a leader led to joins its
  heading again: :mod:`.contents`).

* **Lines lost** (:data:`LOST_TEXT` dark pixels or more left): Tesseract's page threshold
  drops light grey print beside black, and the Policy Manual's code blocks (syntax
  colours, grey when scanned) were lost whole. The page is read again darkened
  (:func:`darkened`) and the reading with more characters read surely (:func:`count_trusted`)
  is kept; not every page is darkened, as a contents page's fine dot leaders are then
  read as letters.
* **Words lost** (:data:`MISSED_INK` or more left): the leftover is read as one block
  (``--psm 6``): the page numbers of a table of contents after their dot leaders (FHS
  3.0's contents pages kept 1 in 2 of them), a lone number in a margin. The sparse
  reading (``--psm 11``) lost one in five of a contents page's numbers. It costs a
  fraction of the page's reading (well under a second against 2 to 6 s a page on one
  core); its words under :data:`MISSED_CONFIDENCE`, or of dots and dashes alone, are
  dropped (a signature, a photo, leaders read as ``eee``).

A word found this way joins the line of the first reading that it sits on (the page
number after its leaders joins its heading), at its place by ``x``; words on no such line
make lines of their own, placed before the first line below them in the same column.
"""

from __future__ import annotations

import functools
import io
import logging
from dataclasses import dataclass
from typing import Any

from lateseg.ingest.ocr.leaders import (
    INK_LEVEL,
    MAX_LABELLED,
    dots_of,
    leader_runs,
)

log = logging.getLogger(__name__)

#: The leftover is stretched so that its darkest ink is black and this grey level white.
PAPER_LEVEL = 235.0
#: Dark pixels (under :data:`INK_LEVEL`) left on a page once the words read and the
#: rules are whited out, from which the leftover is read again: a digit of 10 pt print at
#: 200 dpi has about 150.
MISSED_INK = 120
#: Ink left (dark pixels) from which lines were lost, not a number here and there: the
#: page is read again darkened (:data:`GAMMA`), and the reading with more characters
#: read surely (:func:`count_trusted`) is kept. Tesseract's page threshold drops light grey
#: print beside black: the Policy Manual's code blocks (syntax colours, grey when
#: scanned) were lost whole. Not every page is darkened: the fine dot leaders of a
#: contents page are then read as letters.
LOST_TEXT = 4000
GAMMA = 2.0
#: A word of the second reading is kept from this confidence (0-100) up.
MISSED_CONFIDENCE = 80.0
#: A dark run this long (pixels) along a row or column is a rule, not a letter.
RULE_PIXELS = 40
#: Pixels of margin whited out around each word read.
MARGIN = 4
#: More marks than this left over (after leaders and specks): a photo or a speckled
#: scan, not read again.
MAX_MARKS = 3000


@functools.cache
def available() -> bool:
    """Whether the second readings can run: SciPy (``lateseg[ocr]`` brings it) labels
    the leftover's marks. Part of OCR's cache key, so that a reading made without them
    is not served once they can run."""
    try:
        from scipy import ndimage  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Leftover:
    """The ink a reading left, as an image to read again (PGM), and its dark pixels."""

    image: bytes
    ink: int


def leftover(image: bytes, words: list[dict[str, Any]]) -> Leftover | None:
    """A grey image (PGM) of the ink of page ``image`` (PGM, PNG) that no box of ``words``
    covers, rules, dot leaders and specks left out (:func:`_marks`), or None when less
    than :data:`MISSED_INK` dark pixels are left."""
    import numpy as np
    from PIL import Image

    from lateseg.ingest.ocr.tables import long_runs

    with Image.open(io.BytesIO(image)) as im:
        grey = np.array(im.convert("L"))
    height, width = grey.shape
    for w in words:
        x0, y0, x1, y1 = w["box"]
        grey[
            max(0, y0 - MARGIN) : min(height, y1 + MARGIN + 1),
            max(0, x0 - MARGIN) : min(width, x1 + MARGIN + 1),
        ] = 255
    dark = grey < INK_LEVEL
    if int(dark.sum()) < MISSED_INK:
        return None
    for mask, transposed in ((dark, False), (np.ascontiguousarray(dark.T), True)):
        for r, s, e in long_runs(mask, RULE_PIXELS):
            if transposed:
                grey[s:e, r] = 255
                dark[s:e, r] = False
            else:
                grey[r, s:e] = 255
                dark[r, s:e] = False
    if int(dark.sum()) < MISSED_INK:
        return None
    marks = _marks(dark)
    if marks is None:
        return None
    ink = dark & marks
    if int(ink.sum()) < MISSED_INK:
        return None
    # The marks on white, in their own grey levels darkened (light grey print as the
    # page's darkest): left on the page's grey noise with little ink, Tesseract's own
    # threshold falls inside the noise and its sparse reading crawls over every speck
    # (80 s for one page of contents, 0.4 s on white).
    from scipy import ndimage

    near = ndimage.binary_dilation(ink, structure=np.ones((7, 7), dtype=bool))
    darkest = float(np.percentile(grey[ink], 5))
    levels = (np.arange(256, dtype=np.float64) - darkest) / max(PAPER_LEVEL - darkest, 1.0)
    stretch = np.clip(255.0 * levels, 0, 255).astype(np.uint8)
    page = np.full_like(grey, 255)
    page[near] = stretch[grey[near]]
    out = io.BytesIO()
    Image.fromarray(page).save(out, format="PPM")
    return Leftover(out.getvalue(), int(ink.sum()))


def darkened(image: bytes) -> bytes:
    """Page ``image`` (PGM, PNG) with its grey levels raised to :data:`GAMMA` (145 of 255
    becomes 82; black and white stay), as a PGM."""
    import numpy as np
    from PIL import Image

    curve = (255.0 * (np.arange(256) / 255.0) ** GAMMA).astype(np.uint8).tolist()
    out = io.BytesIO()
    with Image.open(io.BytesIO(image)) as im:
        im.convert("L").point(curve).save(out, format="PPM")
    return out.getvalue()


def count_trusted(words: list[dict[str, Any]]) -> int:
    """Characters of the words a reading is sure of (confidence :data:`MISSED_CONFIDENCE`
    or more): what decides between a page's readings."""
    return sum(len(w["text"]) for w in words if w["conf"] >= MISSED_CONFIDENCE)


def _marks(dark: Any) -> Any | None:
    """Of a page's leftover ink (a boolean array), the pixels worth reading again: all
    but dot leaders (a dot with another within :data:`LEADER_GAP` pixels along its row and
    nothing else between) and specks; None when more than :data:`MAX_MARKS` marks are
    left, or :data:`MAX_LABELLED` before leaders and specks are taken out (a photo, a
    dark or speckled scan: not text a second reading would find)."""
    import numpy as np
    from scipy import ndimage  # ocr._run asks available() first

    labels = np.empty(dark.shape, dtype=np.uint16)  # half the memory of int32 labels
    try:
        count = ndimage.label(dark, output=labels)
    except RuntimeError:  # over 65,535 marks: noise, not words to read again
        return None
    if count == 0 or count > MAX_LABELLED:
        return None
    boxes = ndimage.find_objects(labels)
    small, drop = dots_of(labels, dark, boxes)
    for run in leader_runs(labels, boxes, np.nonzero(small & ~drop)[0].tolist()):
        drop[run] = True
    if int((~drop).sum()) > MAX_MARKS:
        return None
    keep = np.concatenate([[False], ~drop])
    return keep[labels]


def in_lines(words: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``words`` (an upright reading) without those read down across lines: unsure
    (under :data:`MISSED_CONFIDENCE`), of two or more characters, taller than wide and
    more than twice the page's usual word height. Tesseract reads a column of page
    numbers, their leaders whited out, as one word down the page ("MRAAANAYAQ…"), whose
    box then hides the numbers from the leftover (:func:`leftover`)."""
    heights = sorted(w["box"][3] - w["box"][1] for w in words)
    if not heights:
        return words
    usual = heights[len(heights) // 2]

    def across(w: dict[str, Any]) -> bool:
        x0, y0, x1, y1 = w["box"]
        return (
            w["conf"] < MISSED_CONFIDENCE
            and len(w["text"]) >= 2
            and y1 - y0 > max(x1 - x0, 2 * usual)
        )

    return [w for w in words if not across(w)]


def is_kept(word: dict[str, Any]) -> bool:
    """Whether a word of the second reading is trusted: confident, and not dots and
    dashes alone (what is left of a leader)."""
    return word["conf"] >= MISSED_CONFIDENCE and any(c not in _LEADER for c in word["text"])


_LEADER = frozenset(".,:;·-_'`")
#: Words on no line of the first reading make one line where they sit on one row with at
#: most this many times their height between them (a page number in each of two columns
#: stays two lines).
ALONE_GAP = 3.0


def merge(words: list[dict[str, Any]], extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``words`` (the first reading, in its order) with the words of ``extra`` put on the
    lines they sit on, or on lines of their own; a new list, each word's ``line`` key
    naming its line."""
    if not extra:
        return words
    lines = by_line(words)
    bounds = {key: line_bounds(ws) for key, ws in lines.items()}
    added: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    alone: list[list[dict[str, Any]]] = []  # lines of their own, top to bottom
    for w in sorted(extra, key=lambda w: (w["box"][1], w["box"][0])):
        key = line_of(w, bounds)
        if key is not None:
            added.setdefault(key, []).append(dict(w, line=list(key)))
            continue
        tall = max(w["box"][3] - w["box"][1], 1)
        for line in alone:
            box = line_bounds(line)
            if (
                _overlap(w["box"], (box[1], box[3])) >= 0.5
                and _gap(w["box"], box) <= ALONE_GAP * tall
            ):
                line.append(w)
                break
        else:
            alone.append([w])
    out: list[dict[str, Any]] = []
    done: set[tuple[int, ...]] = set()
    pending = [sorted(line, key=lambda w: w["box"][0]) for line in alone]
    free = max((w["line"][0] for w in words), default=0) + 1
    for w in words:
        key = tuple(w["line"])
        if key in done:
            continue
        done.add(key)
        x0, top, x1, _ = bounds[key]
        for line in list(pending):
            lx0, ltop, lx1, _ = line_bounds(line)
            if ltop < top and lx0 < x1 and x0 < lx1:  # above, in this column
                out += [dict(v, line=[free, 0, 0]) for v in line]
                free += 1
                pending.remove(line)
        if key in added:
            out += sorted(lines[key] + added[key], key=lambda v: v["box"][0])
        else:
            out += lines[key]  # as the first reading ordered it
    for line in pending:
        out += [dict(v, line=[free, 0, 0]) for v in line]
        free += 1
    return out


def by_line(words: list[dict[str, Any]]) -> dict[tuple[int, ...], list[dict[str, Any]]]:
    """``words`` grouped by their ``line`` key, lines and words in reading order."""
    lines: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for w in words:
        lines.setdefault(tuple(w["line"]), []).append(w)
    return lines


def line_bounds(line: list[dict[str, Any]]) -> tuple[int, int, int, int]:
    """The box around the words of ``line``."""
    return (
        min(w["box"][0] for w in line),
        min(w["box"][1] for w in line),
        max(w["box"][2] for w in line),
        max(w["box"][3] for w in line),
    )


def _gap(box: list[int], bounds: tuple[int, int, int, int]) -> int:
    """Pixels between ``box`` and ``bounds`` along the line (0 where they overlap)."""
    return max(bounds[0] - box[2], box[0] - bounds[2], 0)


def _overlap(box: list[int], span: tuple[int, int]) -> float:
    """The share of ``box``'s height inside the vertical ``span``."""
    inside = min(box[3], span[1]) - max(box[1], span[0])
    return max(inside, 0) / max(box[3] - box[1], 1)


def line_of(
    word: dict[str, Any], bounds: dict[tuple[int, ...], tuple[int, int, int, int]]
) -> tuple[int, ...] | None:
    """The line of the first reading that ``word`` sits on (half its height inside the
    line's, the line at most twice as tall as the word), or None. Where lines of two
    columns qualify, the one starting nearest left of the word: a page number after its
    leaders (whited out) may lie nearer the next column's text than its own line's. Lines
    whose starts lie within two word heights (one column's margin, an indent) are told
    apart by how much of the word's height they hold (tightly set lines)."""
    tall = max(word["box"][3] - word["box"][1], 1)
    x = word["box"][0]
    best: tuple[int, ...] | None = None
    rank: tuple[int, int, float] = (0, 0, 0.0)
    for key, box in bounds.items():
        held = _overlap(word["box"], (box[1], box[3]))
        if box[3] - box[1] > 2 * tall or held < 0.5:
            continue
        # lines starting left of the word first, the nearest start first among them
        side, gap = (0, x - box[0]) if box[0] <= x else (1, box[0] - x)
        r = (side, gap // (2 * tall), -held)
        if best is None or r < rank:
            best, rank = key, r
    return best
