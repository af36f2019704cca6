"""Pages with dot leaders, read without them (:mod:`.leaders` whites them out): a
contents page or an index is read as one block of lines and its page numbers read again
as digits (:func:`read_led`, :func:`page_numbers`); on another page, a line a leader led
to joins its heading (:func:`join_led_lines`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

from lateseg.errors import IngestError
from lateseg.ingest.ocr.leaders import LEADER_GAP, Unled, number_column, without_leaders
from lateseg.ingest.ocr.missed import (
    MISSED_CONFIDENCE,
    available,
    by_line,
    line_bounds,
    line_of,
    merge,
)

log = logging.getLogger(__name__)


def join_led_lines(
    words: list[dict[str, Any]], leaders: Sequence[tuple[int, int, int]]
) -> list[dict[str, Any]]:
    """``words`` (a reading of a page whose ``leaders`` were whited out) with each line
    that starts where a leader ended (within twice :data:`LEADER_GAP` right of its end, the
    leader's dots at the line's height) joined to the line it sits on (:func:`merge`): read
    without their leaders, a contents page's page numbers come out as a column of their
    own, after every heading."""
    if not leaders:
        return words
    lines = by_line(words)
    led: set[tuple[int, ...]] = set()
    for key, line in lines.items():
        box = line_bounds(line)
        if any(_leads_to(box[0], end) for end in _ends_at(box, leaders)):
            led.add(key)
    if not led or len(led) == len(lines):
        return words
    rest = [w for w in words if tuple(w["line"]) not in led]
    return merge(rest, [w for w in words if tuple(w["line"]) in led])


def _ends_at(box: tuple[int, int, int, int], leaders: Sequence[tuple[int, int, int]]) -> list[int]:
    """Where the ``leaders`` at the height of a line (``box``) end."""
    _, top, _, bottom = box
    slack = (bottom - top) // 4  # a leader's dots sit on the baseline
    return [end for end, y0, y1 in leaders if top <= (y0 + y1) // 2 <= bottom + slack]


def _leads_to(x: int, end: int) -> bool:
    """Whether a leader ending at ``end`` leads to what starts at ``x``: at most twice
    :data:`LEADER_GAP` right of it."""
    return 0 <= x - end <= 2 * LEADER_GAP


def whiten_leaders(image: bytes, number: int) -> tuple[Unled | None, bool]:
    """Page ``image`` with its dot leaders whited out (:func:`.leaders.without_leaders`:
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
    strip: dict[str, Any] | None = None,
    **kw: Any,
) -> list[dict[str, Any]]:
    """``read`` of a page whose leaders were whited out (``unled``; None: it had none). A
    contents page or an index (:attr:`.leaders.Unled.contents`) is read as one block
    of lines (``--psm 6`` for ``--psm 3``): read as a page, its section numbers, titles
    and page numbers came out as three columns (the Policy Manual's second contents page:
    51 of its 106 numbers; as a block, 101). On another page the lines the leaders lead
    to join their headings (:func:`join_led_lines`). A block of leftover ink (``--psm 6``) is
    read as it is. A contents page's strip of page numbers is read again as digits
    (:func:`page_numbers`) in what ``left_s()`` says is left of the page's time, once:
    ``strip`` keeps its words for a second reading of the page (darkened), and says
    ``failed`` where it failed other than for time (the page is then not cached)."""
    if psm == "6" or unled is None:
        return read(image, psm=psm, **kw)
    if unled.contents:
        words = read(image, psm="6", **kw)
        strip = {} if strip is None else strip
        try:
            if "column" not in strip:
                strip["column"] = _strip_numbers(read, unled, left_s, **kw)
            return page_numbers(words, unled.leaders, strip["column"])
        except Exception as e:  # the block as Tesseract read it
            strip["column"] = []
            strip["failed"] = not isinstance(e, IngestError)  # time: cached
            log.warning("a contents page's numbers were not read again", exc_info=True)
            return words
    words = read(image, psm=psm, **kw)
    try:
        return join_led_lines(words, unled.leaders)
    except Exception:  # the lines as Tesseract gave them
        log.warning("the lines led to were not joined", exc_info=True)
        return words


def _strip_numbers(
    read: Callable[..., list[dict[str, Any]]],
    unled: Unled,
    left_s: Callable[[], float] | None,
    **kw: Any,
) -> list[dict[str, Any]]:
    """The words of contents page ``unled``'s strip of page numbers read as digits, in the
    page's pixels."""
    image, left = number_column(unled)
    if left_s is not None:
        kw = dict(kw, timeout=left_s())
    column = read(image, psm="6", digits=True, **kw)
    for w in column:
        w["box"] = [w["box"][0] + left, w["box"][1], w["box"][2] + left, w["box"][3]]
    return column


def page_numbers(
    words: list[dict[str, Any]],
    leaders: Sequence[tuple[int, int, int]],
    column: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """``words`` (a contents page read as one block, its ``leaders`` whited out) with the
    page numbers that ``column`` read (the strip of page numbers read again as digits
    only, :func:`.leaders.number_column`; boxes in the page's pixels) where the block
    misread them: among the words of a whole page, Tesseract took the Policy Manual's
    "27" for "74", "35" for "55", "37" for "aT:" and FHS's "11" for "ll"; alone as digits,
    it read them right. A number of the column counts where it is the only one on its
    line and a leader ends at most two leader gaps left of it (a leader further left is
    another column's; digits left of a leader's end are its heading's), or the line has
    no leader and the number stands apart from its words, in the column of the others (a
    chapter's line). It replaces what the block read there (right of the leader's end;
    on a line without leader, the words from a leader gap left of it):

    * letters or nothing after a leader, read unsure (:data:`.missed.MISSED_CONFIDENCE`),
      whatever the number's confidence: a leader leads to a number (on three rescans of
      the manuals' contents pages, three in five of those read under 50 were right; the
      letters never are);
    * anything else (another number, a word with digits such as "7x)", a chapter line's
      letters) where the number is sure and surer than what it replaces.

    What stays: sure letters ("ZOO"), the same digits with other marks ("1,250", "A-1",
    "13,"), roman numerals (a front matter's "xiv", which digits cannot read)."""
    lines = by_line(words)
    bounds = {key: line_bounds(line) for key, line in lines.items()}
    led: dict[tuple[int, ...], list[tuple[dict[str, Any], int]]] = {}  # and the leader's end
    apart: dict[tuple[int, ...], list[dict[str, Any]]] = {}  # on a line without leader
    for number in column:
        if not number["text"].isdigit():
            continue
        key = line_of(number, bounds)
        if key is None:
            continue
        ends = _ends_at(bounds[key], leaders)
        near = [end for end in ends if _leads_to(number["box"][0], end)]
        if near:
            led.setdefault(key, []).append((number, max(near)))
        elif not ends:  # (digits far from a leader's end: a heading's, another column's)
            apart.setdefault(key, []).append(number)
    rights = sorted(n["box"][2] for got in led.values() for n, _ in got)
    right = rights[len(rights) // 2] if rights else None
    dropped: set[int] = set()
    numbers = []
    for key, got in led.items():
        if len(got) == 1:
            number, end = got[0]
            old = [w for w in lines[key] if w["box"][2] > end]  # what the leader leads to
            if _replaces(number, old, led=True):
                dropped.update(id(w) for w in old)
                numbers.append(dict(number, line=list(key)))
    for key, alone in apart.items():
        if len(alone) != 1 or right is None or abs(alone[0]["box"][2] - right) > LEADER_GAP:
            continue  # not the only one, or not in the column of page numbers
        number = alone[0]
        x0, x1 = number["box"][0], number["box"][2]
        old = [w for w in lines[key] if x0 - LEADER_GAP <= w["box"][0] < x1]
        if any(w["box"][2] > x0 - 2 * LEADER_GAP for w in lines[key] if w not in old):
            continue  # not set apart from its line's words
        if _replaces(number, old, led=False):
            dropped.update(id(w) for w in old)
            numbers.append(dict(number, line=list(key)))
    if not numbers:
        return words
    return merge([w for w in words if id(w) not in dropped], numbers)


def _replaces(number: dict[str, Any], old: list[dict[str, Any]], led: bool) -> bool:
    """Whether ``number`` (read as digits) replaces ``old`` (the block's words where it
    stands; ``led``: right of a leader's end): see :func:`page_numbers`."""
    text = "".join(w["text"] for w in old)
    digits = "".join(c for c in text if c.isdigit())
    held = min((w["conf"] for w in old), default=-1.0)  # nothing read: unsure
    if (_ROMAN.fullmatch(text) and text != "l") or digits == number["text"]:
        return False  # roman, or the same digits with other marks ("1,250", "A-1", "13,")
    if led and held < MISSED_CONFIDENCE and not digits:
        return True  # unsure letters, or nothing, where a leader leads: a number is nearer
    return number["conf"] >= MISSED_CONFIDENCE and number["conf"] > held


#: A roman numeral (lower case: a front matter's page number, which digits cannot read).
_ROMAN = re.compile(r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
