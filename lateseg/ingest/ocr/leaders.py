"""Dot leaders on a page image: the rows of evenly set dots that lead a contents
page's headings to their page numbers (:func:`without_leaders` whites them out before the
page is read), and the dots, specks and runs the leftover reading
(:mod:`.missed`) leaves out too.

Read with its leaders, a contents page of the Policy Manual, scanned, gave Tesseract 7 of
its 150 numbers, in 5 s: the dots become letters that swallow the numbers beside them.
Without them, 150, in 0.7 s. Only even runs count (:func:`even_stretches`): light grey
print cut at the ink threshold also leaves rows of small bits, unevenly spaced.
"""

from __future__ import annotations

import bisect
import io
from dataclasses import dataclass
from typing import Any

#: Pixels darker than this grey level (of 256) are ink: light grey print too (a code
#: block in syntax colours), which Tesseract's page threshold may drop beside black text.
INK_LEVEL = 170
#: A mark no taller and no wider than this (pixels) is a dot: a leader's when another dot
#: follows it within :data:`LEADER_GAP` pixels along its row with nothing between; a
#: speck when it has fewer than :data:`SPECK_PIXELS` pixels.
DOT_PIXELS = 7
LEADER_GAP = 30
SPECK_PIXELS = 4
#: Dots in a row, set evenly (each the next within :data:`LEADER_GAP`), that make a dot
#: leader, which is whited out before the page is read (:func:`without_leaders`): an
#: ellipsis has three.
LEADER_RUN = 6
#: ... each this share of their usual pitch (or 2 pixels) from it ...
PITCH_SLACK = 0.2
#: ... and that pitch at least this many times the dots' width.
SPARSE = 2.0
#: A page darker than this share of its pixels is a photo: no leaders looked for (and no
#: copy of its dark pixels counted).
MAX_DARK = 0.3
#: A page with this many dot leaders or more ending in one band (:data:`BAND` of the
#: page's width) is a contents page or an index: read as one block of lines
#: (:func:`.contents.read_led`). Leaders ending in two bands are two columns.
LED_LINES = 5
BAND = 0.05
#: A contents page's page numbers are read again from the strip of the page that starts
#: this share of its width left of where most of its leaders end (:func:`number_column`).
NUMBER_MARGIN = 0.05
#: Pixels around a leader's dot whited out with it: its anti-aliased rim, lighter than
#: :data:`INK_LEVEL`, is still read as a mark.
RIM = 2
#: More marks than this on a page: not looked at one by one (a contents page's leaders
#: are some 4,000 dots; a photo or a speckled scan has far more).
MAX_LABELLED = 30_000


@dataclass(frozen=True)
class Unled:
    """A page image (PGM) with its dot leaders whited out, where each leader was (``(x
    where it ended, top, bottom)`` in pixels) and the image's width."""

    image: bytes
    leaders: tuple[tuple[int, int, int], ...]
    width: int

    @property
    def contents(self) -> bool:
        """Whether the page is a contents page or an index: :data:`LED_LINES` leaders or
        more end in one band of the page (within :data:`BAND` of its width)."""
        if len(self.leaders) < LED_LINES:
            return False
        ends = sorted(end for end, _, _ in self.leaders)
        middle = ends[len(ends) // 2]
        return sum(abs(e - middle) <= BAND * self.width for e in ends) >= LED_LINES


def number_column(unled: Unled) -> tuple[bytes, int]:
    """The strip of contents page ``unled`` where its page numbers stand (PGM: from
    :data:`NUMBER_MARGIN` of its width left of where most of its leaders end to its right
    edge) and the strip's left edge in the page's pixels."""
    from PIL import Image

    ends = sorted(end for end, _, _ in unled.leaders)
    left = max(ends[len(ends) // 2] - int(NUMBER_MARGIN * unled.width), 0)
    out = io.BytesIO()
    with Image.open(io.BytesIO(unled.image)) as im:
        im.crop((left, 0, im.width, im.height)).save(out, format="PPM")
    return out.getvalue(), left


def without_leaders(image: bytes) -> Unled | None:
    """Page ``image`` (PGM, PNG) with its dot leaders (:func:`even_stretches` runs of
    dots) whited out, and where they were; None when it has none, is darker than
    :data:`MAX_DARK` or has more marks than :data:`MAX_LABELLED` (a photo, a speckled
    scan)."""
    import numpy as np
    from PIL import Image
    from scipy import ndimage  # contents.whiten_leaders asks available() first

    with Image.open(io.BytesIO(image)) as im:
        grey = np.array(im.convert("L"))
    dark = grey < INK_LEVEL
    if dark.mean() > MAX_DARK:
        return None
    labels = np.empty(dark.shape, dtype=np.uint16)
    try:
        count = ndimage.label(dark, output=labels)
    except RuntimeError:  # over 65,535 marks: not a page of text
        return None
    if count == 0 or count > MAX_LABELLED:
        return None
    boxes = ndimage.find_objects(labels)
    small, specks = dots_of(labels, dark, boxes)
    runs = leader_runs(labels, boxes, np.nonzero(small & ~specks)[0].tolist())
    ends = []
    for run in runs:
        for stretch in even_stretches(run, boxes):
            for k in stretch:  # the dot and its grey rim (its ink is the dark core only)
                rows, cols = boxes[k]
                grey[
                    max(rows.start - RIM, 0) : rows.stop + RIM,
                    max(cols.start - RIM, 0) : cols.stop + RIM,
                ] = 255
            rows = [boxes[k][0] for k in stretch]
            ends.append(
                (boxes[stretch[-1]][1].stop, min(r.start for r in rows), max(r.stop for r in rows))
            )
    if not ends:
        return None
    out = io.BytesIO()
    Image.fromarray(grey).save(out, format="PPM")
    return Unled(out.getvalue(), tuple(ends), grey.shape[1])


def dots_of(labels: Any, dark: Any, boxes: list[Any]) -> tuple[Any, Any]:
    """Per mark (``boxes``: its slices in ``labels``): whether it is no larger than a dot
    (:data:`DOT_PIXELS`), and whether it is a speck (a dot of under
    :data:`SPECK_PIXELS` pixels)."""
    import numpy as np

    heights = np.array([b[0].stop - b[0].start for b in boxes])
    widths = np.array([b[1].stop - b[1].start for b in boxes])
    sizes = np.bincount(labels[dark], minlength=len(boxes) + 1)[1:]  # dark pixels only
    small = (heights <= DOT_PIXELS) & (widths <= DOT_PIXELS)
    return small, small & (sizes < SPECK_PIXELS)


def leader_runs(labels: Any, boxes: list[Any], dots: list[int]) -> list[list[int]]:
    """``dots`` (indexes into ``boxes``) in runs of two or more along a row, each the next
    (:func:`_leader_pairs`) with nothing between, left to right."""
    import numpy as np

    root = {i: i for i in dots}

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, j in _leader_pairs(boxes, dots):
        y0 = min(boxes[i][0].start, boxes[j][0].start)
        y1 = max(boxes[i][0].stop, boxes[j][0].stop)
        between = labels[y0:y1, boxes[i][1].stop : boxes[j][1].start]
        if set(np.unique(between).tolist()) <= {0, i + 1, j + 1}:
            root[find(i)] = find(j)
    runs: dict[int, list[int]] = {}
    for i in dots:
        runs.setdefault(find(i), []).append(i)
    return [sorted(run, key=lambda k: boxes[k][1].start) for run in runs.values() if len(run) >= 2]


def even_stretches(run: list[int], boxes: list[Any]) -> list[list[int]]:
    """The stretches of ``run`` (dots left to right) whose dots follow each other at the
    run's usual pitch (within :data:`PITCH_SLACK`), :data:`LEADER_RUN` dots or longer: a
    leader's dots are set evenly and apart (a pitch of :data:`SPARSE` dot widths or more);
    the bits of light grey print cut at the ink threshold are not even, and the letters
    of very small print are close."""
    import numpy as np

    starts = np.array([boxes[k][1].start for k in run])
    pitch = np.diff(starts)
    usual = float(np.median(pitch)) if len(pitch) else 0.0
    wide = float(np.median([boxes[k][1].stop - boxes[k][1].start for k in run]))
    if usual < SPARSE * wide:  # set close: the letters of small print, not a leader
        return []
    even = np.abs(pitch - usual) <= max(2.0, PITCH_SLACK * usual)
    out: list[list[int]] = []
    stretch = [run[0]]
    for k, ok in zip(run[1:], even, strict=True):
        if not ok:
            if len(stretch) >= LEADER_RUN:
                out.append(stretch)
            stretch = []
        stretch.append(k)
    if len(stretch) >= LEADER_RUN:
        out.append(stretch)
    return out


def _leader_pairs(boxes: list[Any], dots: list[int]) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of ``dots`` (indexes into ``boxes``, slices of the marks) where
    ``j`` is the next dot right of ``i`` along its row (centres within 2 pixels), at most
    :data:`LEADER_GAP` pixels on."""
    bands: dict[int, list[tuple[int, int]]] = {}
    for i in dots:
        bands.setdefault((boxes[i][0].start + boxes[i][0].stop) // 2, []).append(
            (boxes[i][1].start, i)
        )
    for row in bands.values():
        row.sort()
    pairs = []
    for i in dots:
        middle = (boxes[i][0].start + boxes[i][0].stop) // 2
        end = boxes[i][1].stop
        best: tuple[int, int] | None = None
        for band in range(middle - 2, middle + 3):
            row = bands.get(band, [])
            k = bisect.bisect_left(row, (end, -1))
            if k < len(row) and row[k][0] - end <= LEADER_GAP and (best is None or row[k] < best):
                best = row[k]
        if best is not None:
            pairs.append((i, best[1]))
    return pairs
