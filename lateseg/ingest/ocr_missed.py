"""Readings of what Tesseract's page reading (``--psm 3``) lost, from the ink it left:
a copy of the page image with every word read, every rule, dot leader and speck whited
out (:func:`leftover`).

* **Dot leaders first** (:mod:`.ocr_leaders`): before the page is read, each run of
  evenly set dots is whited out (a contents page is then read as one block of lines,
  :func:`read_led`); on another page, a line a leader led to joins its heading again
  (:func:`led_to`).

* **Lines lost** (:data:`LOST_TEXT` dark pixels or more left): Tesseract's page threshold
  drops light grey print beside black, and the Policy Manual's code blocks (syntax
  colours, grey when scanned) were lost whole. The page is read again darkened
  (:func:`darkened`) and the reading with more characters read surely (:func:`trusted`)
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
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lateseg.ingest.ocr_leaders import (
    INK_LEVEL,
    LEADER_GAP,
    MAX_LABELLED,
    Unled,
    dots_of,
    leader_runs,
    number_column,
    without_leaders,
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
#: read surely (:func:`trusted`) is kept. Tesseract's page threshold drops light grey
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

    from lateseg.ingest.ocr_tables import long_runs

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


def trusted(words: list[dict[str, Any]]) -> int:
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


def led_to(
    words: list[dict[str, Any]], leaders: Sequence[tuple[int, int, int]]
) -> list[dict[str, Any]]:
    """``words`` (a reading of a page whose ``leaders`` were whited out) with each line
    that starts where a leader ended (within twice :data:`LEADER_GAP` right of its end, the
    leader's dots at the line's height) joined to the line it sits on (:func:`merge`): read
    without their leaders, a contents page's page numbers come out as a column of their
    own, after every heading."""
    if not leaders:
        return words
    lines: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for w in words:
        lines.setdefault(tuple(w["line"]), []).append(w)
    led: set[tuple[int, ...]] = set()
    for key, line in lines.items():
        x0, top, _, bottom = _bounds(line)
        slack = (bottom - top) // 4  # a leader's dots sit on the baseline
        if any(
            0 <= x0 - end <= 2 * LEADER_GAP and top <= (y0 + y1) // 2 <= bottom + slack
            for end, y0, y1 in leaders
        ):
            led.add(key)
    if not led or len(led) == len(lines):
        return words
    rest = [w for w in words if tuple(w["line"]) not in led]
    return merge(rest, [w for w in words if tuple(w["line"]) in led])


def unled(image: bytes, number: int) -> tuple[Unled | None, bool]:
    """Page ``image`` with its dot leaders whited out (:func:`.ocr_leaders.without_leaders`:
    Tesseract reads a contents page's leaders as letters and its numbers with them), or
    None (none, or SciPy missing); False when looking failed (memory, say), so that the
    reading is not cached."""
    if not available():
        return None, True
    try:
        return without_leaders(image), True
    except Exception:
        log.warning("page %d: dot leaders were not looked for", number, exc_info=True)
        return None, False


def read_led(
    read: Callable[..., list[dict[str, Any]]],
    unled: Unled | None,
    image: bytes,
    psm: str,
    left_s: Callable[[], float] | None = None,
    **kw: Any,
) -> list[dict[str, Any]]:
    """``read`` of a page whose leaders were whited out (``unled``; None: it had none). A
    contents page or an index (:attr:`.ocr_leaders.Unled.contents`) is read as one block
    of lines (``--psm 6`` for ``--psm 3``): read as a page, its section numbers, titles
    and page numbers came out as three columns (the Policy Manual's second contents page:
    51 of its 106 numbers; as a block, 101). On another page the lines the leaders lead
    to join their headings (:func:`led_to`). A block of leftover ink (``--psm 6``) is
    read as it is. A contents page's strip of page numbers is read again as digits
    (:func:`page_numbers`) in what ``left_s()`` says is left of the page's time."""
    if psm == "6" or unled is None:
        return read(image, psm=psm, **kw)
    if unled.contents:
        words = read(image, psm="6", **kw)
        try:
            strip, left = number_column(unled)
            if left_s is not None:
                kw = dict(kw, timeout=left_s())
            column = read(strip, psm="6", digits=True, **kw)
            for w in column:
                w["box"] = [w["box"][0] + left, w["box"][1], w["box"][2] + left, w["box"][3]]
            return page_numbers(words, unled.leaders, column)
        except Exception:  # the block as Tesseract read it
            log.warning("a contents page's numbers were not read again", exc_info=True)
            return words
    words = read(image, psm=psm, **kw)
    try:
        return led_to(words, unled.leaders)
    except Exception:  # the lines as Tesseract gave them
        log.warning("the lines led to were not joined", exc_info=True)
        return words


def page_numbers(
    words: list[dict[str, Any]],
    leaders: Sequence[tuple[int, int, int]],
    column: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """``words`` (a contents page read as one block, its ``leaders`` whited out) with the
    page numbers that ``column`` read (the strip of page numbers read again as digits
    only, :func:`.ocr_leaders.number_column`; boxes in the page's pixels) where the block
    read other glyphs or none: among the words of a whole page, Tesseract took the Policy
    Manual's "27" for "74", "35" for "55", "37" for "aT:" and "7" for "uh"; alone as
    digits, it read them right. A number of the column counts where it is the only one on
    its line, and that line has a leader ending left of it, or none and the number stands
    apart from the line's words in the column of the others (a chapter's line, without
    leader). It replaces what the block read there (the words starting from a leader's
    gap left of it):

    * another number, where it is surer than that number's words;
    * a word with digits ("7x)"), where it is sure (:data:`MISSED_CONFIDENCE`);
    * letters or nothing, after a leader whatever its confidence (a leader leads to a
      number); on a line without leader where it is sure.

    Roman numerals (a front matter's "iv", which a digits-only reading cannot give) stay."""
    lines: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for w in words:
        lines.setdefault(tuple(w["line"]), []).append(w)
    bounds = {key: _bounds(line) for key, line in lines.items()}
    led: dict[tuple[int, ...], list[dict[str, Any]]] = {}  # numbers a leader leads to
    apart: dict[tuple[int, ...], list[dict[str, Any]]] = {}  # and others on lines read
    for number in column:
        if not number["text"].isdigit():
            continue
        key = _line_of(number, bounds)
        if key is None:
            continue
        _, top, _, bottom = bounds[key]
        slack = (bottom - top) // 4  # a leader's dots sit on the baseline
        ends = [end for end, y0, y1 in leaders if top <= (y0 + y1) // 2 <= bottom + slack]
        if any(end <= number["box"][0] for end in ends):
            led.setdefault(key, []).append(number)
        elif not ends:  # left of a leader's end, the digits are its heading's
            apart.setdefault(key, []).append(number)
    rights = sorted(n["box"][2] for got in led.values() for n in got)
    right = rights[len(rights) // 2] if rights else None
    dropped: set[int] = set()
    numbers = []
    for key, got in [*led.items(), *apart.items()]:
        if len(got) != 1:
            continue
        number = got[0]
        x0, x1 = number["box"][0], number["box"][2]
        old = [w for w in lines[key] if x0 - LEADER_GAP <= w["box"][0] < x1]
        rest = [w for w in lines[key] if not x0 - LEADER_GAP <= w["box"][0] < x1]
        if key in apart and (
            right is None
            or abs(x1 - right) > LEADER_GAP  # not in the column of page numbers
            or any(w["box"][2] > x0 - 2 * LEADER_GAP for w in rest)  # not set apart
        ):
            continue
        text = "".join(w["text"] for w in old)
        if text == number["text"] or _ROMAN.fullmatch(text):
            continue
        if text.isdigit():  # two readings of a number: the surer one
            better = number["conf"] > min(w["conf"] for w in old)
        elif any(c.isdigit() for c in text) or key in apart:
            better = number["conf"] >= MISSED_CONFIDENCE
        else:  # letters (or nothing) where a leader leads: any number is nearer
            better = True
        if not better:
            continue
        dropped.update(id(w) for w in old)
        numbers.append(dict(number, line=list(key)))
    if not numbers:
        return words
    return merge([w for w in words if id(w) not in dropped], numbers)


_ROMAN = re.compile(r"[ivx]+", re.IGNORECASE)


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


def kept(word: dict[str, Any]) -> bool:
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
    lines: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for w in words:
        lines.setdefault(tuple(w["line"]), []).append(w)
    bounds = {key: _bounds(ws) for key, ws in lines.items()}
    added: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    alone: list[list[dict[str, Any]]] = []  # lines of their own, top to bottom
    for w in sorted(extra, key=lambda w: (w["box"][1], w["box"][0])):
        key = _line_of(w, bounds)
        if key is not None:
            added.setdefault(key, []).append(dict(w, line=list(key)))
            continue
        tall = max(w["box"][3] - w["box"][1], 1)
        for line in alone:
            box = _bounds(line)
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
            lx0, ltop, lx1, _ = _bounds(line)
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


def _bounds(line: list[dict[str, Any]]) -> tuple[int, int, int, int]:
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


def _line_of(
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
