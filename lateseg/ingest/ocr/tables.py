"""Ruled tables on a page image: a scanned table found from its rules, its cells filled
with the words OCR read.

A scanned page has no drawings for ``find_tables`` to work from, so a ruled table is
found in the pixels (:func:`find_grids`):

* long dark runs along pixel rows are horizontal rules, along pixel columns vertical
  ones (three rows or columns are looked at together, so a rule that steps by a pixel on
  a page levelled to within half a degree stays one rule);
* rules that cross make a grid; a grid of two columns or more (three vertical edges,
  where the ends of its horizontal rules count as edges when the sides are open) and one
  row or more is a table;
* a rule missing inside the grid is a merged cell: across where a vertical rule stops,
  down where a horizontal one does;
* the first row is the header when its strokes are clearly thicker than the other rows'
  (bold, measured as the median width of the dark runs across letters' stems); otherwise
  :func:`lateseg.ingest.tables.looks_like_header` decides, as on born-digital pages.

:func:`table_lines` then puts each OCR word in the cell that holds its centre (rules read
as ``|`` dropped) and writes the table as born-digital tables are written
(:mod:`lateseg.ingest.tables`): a row a line carrying its column headers, each cell its
own box on the page, so a cited cell is highlighted alone. Tables without rules (columns
set apart by space alone) are read as text, as on born-digital pages.

Cost: a few passes of numpy over the page's pixels (tens of milliseconds at 200 dpi);
a page with more than :data:`MAX_SEGMENTS` long runs (a photo, a dark scan) is not
searched.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lateseg.ingest.layout import Frag, Line
from lateseg.ingest.pdf.tables import MAX_ROW_LINES
from lateseg.ingest.tables import table_text

#: Pixel rows (and columns) of a table's rows that the bold-header test looks at.
STROKE_LINES = 400
#: A horizontal rule is at least this long, a vertical one at least this tall (points).
MIN_RULE_WIDTH = 54.0
MIN_RULE_HEIGHT = 14.0
#: A rule is at most this thick (points); a thicker dark band is a filled block.
MAX_RULE_THICKNESS = 4.0
#: A grid of more column or row edges than this is not read (graph paper, a hostile
#: page of rules): FHS's longest table has 26 row edges.
MAX_EDGES = 100
#: Rules closer than this (points) are one edge: a double rule, an arrow along a box.
DOUBLE_RULE = 6.0
#: A frame rule spans at least this share of its table's width (or height).
FRAME = 0.9
#: Cells of their own (not merged) are at least this share of a table's slots.
MIN_CELLS = 0.75
#: Pixels darker than this share of the page's background are ink.
INK = 0.75
#: More long runs than this on a page: a photo or a dark scan, not searched for tables.
MAX_SEGMENTS = 20_000
#: The first row's strokes this much thicker than the other rows': a bold header row
#: (bold over regular measured 1.33-1.40 on the sample DPA's table scanned at 200 dpi,
#: 1.38 born-digital; regular rows against each other stay near 1.0).
BOLD = 1.2

PixelBox = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule in pixels: its position across (``at``) and its extent along (lo, hi)."""

    at: float
    lo: int
    hi: int


@dataclass(frozen=True)
class Grid:
    """A ruled table on a page image (pixels): its column and row edges, its cells as
    ``(first row, first column, last row, last column)`` slot ranges, and whether its
    first row is set bold (None: the strokes do not say)."""

    xs: tuple[int, ...]
    ys: tuple[int, ...]
    cells: tuple[tuple[int, int, int, int], ...]
    bold_header: bool | None = None

    @property
    def box(self) -> PixelBox:
        return self.xs[0], self.ys[0], self.xs[-1], self.ys[-1]

    def slot(self, x: float, y: float) -> tuple[int, int] | None:
        """The (row, column) slot holding pixel (x, y), or None outside the grid."""
        if not (self.xs[0] <= x <= self.xs[-1] and self.ys[0] <= y <= self.ys[-1]):
            return None
        col = min(bisect.bisect_right(self.xs, x) - 1, len(self.xs) - 2)
        row = min(bisect.bisect_right(self.ys, y) - 1, len(self.ys) - 2)
        return row, col


def _run_bounds(mask: Any) -> tuple[Any, Any, Any]:
    """The row, start and end (numpy arrays) of each run of True along the rows of the
    2-D boolean array ``mask``, row by row."""
    import numpy as np

    height, width = mask.shape
    padded = np.zeros((height, width + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    step = np.diff(padded, axis=1)
    rows, starts = np.nonzero(step == 1)
    _, ends = np.nonzero(step == -1)  # row-major, so the i-th end closes the i-th start
    return rows, starts, ends


def long_runs(mask: Any, min_len: int) -> list[tuple[int, int, int]]:
    """``(row, start, end)`` of the runs of True at least ``min_len`` long in each row of
    ``mask``, row by row."""
    rows, starts, ends = _run_bounds(mask)
    keep = ends - starts >= min_len
    return list(zip(rows[keep].tolist(), starts[keep].tolist(), ends[keep].tolist(), strict=True))


def _rules(runs: list[tuple[int, int, int]], tol: int, thickest: int) -> list[Rule]:
    """Runs (sorted by row) joined into rules: a run continues a rule whose last run lies
    within ``tol`` rows of it and overlaps it (within ``tol``). A group of runs more than
    ``thickest`` deep across its middle is a filled block (a black box, a shaded band, a
    photo's dark patch), not a rule; a rule drawn on a slight slant steps from row to row
    but stays thin at any one place."""
    active: list[list[Any]] = []  # [sum of rows, count, lo, hi, last row, runs]
    done: list[list[Any]] = []
    for at, lo, hi in runs:
        if any(g[4] < at - tol for g in active):  # rules left behind end
            done += [g for g in active if g[4] < at - tol]
            active = [g for g in active if g[4] >= at - tol]
        for g in reversed(active):
            if lo <= g[3] + tol and hi >= g[2] - tol:
                g[0] += at
                g[1] += 1
                g[2], g[3], g[4] = min(g[2], lo), max(g[3], hi), at
                g[5].append((lo, hi))
                break
        else:
            active.append([at, 1, lo, hi, at, [(lo, hi)]])
    out = []
    for g in done + active:
        middle = (g[2] + g[3]) / 2
        if sum(lo <= middle <= hi for lo, hi in g[5]) <= thickest:
            out.append(Rule(g[0] / g[1], int(g[2]), int(g[3])))
    return out


def _edges(positions: list[float], tol: int) -> list[int]:
    """Sorted positions with those within ``tol`` of each other made one (their mean)."""
    out: list[list[float]] = []
    for p in sorted(positions):
        if out and p - out[-1][-1] <= tol:
            out[-1].append(p)
        else:
            out.append([p])
    return [round(sum(c) / len(c)) for c in out]


def _components(hs: list[Rule], vs: list[Rule], tol: int) -> list[tuple[list[Rule], list[Rule]]]:
    """Horizontal and vertical rules grouped by crossing (or touching within ``tol``)."""
    parent = list(range(len(hs) + len(vs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, h in enumerate(hs):
        for j, v in enumerate(vs):
            if h.lo - tol <= v.at <= h.hi + tol and v.lo - tol <= h.at <= v.hi + tol:
                parent[find(i)] = find(len(hs) + j)
    groups: dict[int, tuple[list[Rule], list[Rule]]] = {}
    for i, h in enumerate(hs):
        groups.setdefault(find(i), ([], []))[0].append(h)
    for j, v in enumerate(vs):
        groups.setdefault(find(len(hs) + j), ([], []))[1].append(v)
    return [g for g in groups.values() if g[0] and g[1]]


def _grid(hs: list[Rule], vs: list[Rule], tol: int, gap: int) -> Grid | None:
    """The grid that crossing rules ``hs`` and ``vs`` make, or None when they make no
    table: fewer than two columns or two rows, no frame (:data:`FRAME`), or under
    :data:`MIN_CELLS` of its slots cells of their own (the boxes and arrows of a figure
    leave most of the grid unruled)."""
    xs = _edges([v.at for v in vs], gap)
    ys = _edges([h.at for h in hs], gap)
    left, right = min(h.lo for h in hs), max(h.hi for h in hs)
    top, bottom = min(v.lo for v in vs), max(v.hi for v in vs)
    open_x = {left - 1, right + 1}
    open_y = {top - 1, bottom + 1}
    # open sides: the rules' ends are the table's edges
    if xs[0] - left > gap:
        xs.insert(0, left - 1)
    if right - xs[-1] > gap:
        xs.append(right + 1)
    if ys[0] - top > gap:
        ys.insert(0, top - 1)
    if bottom - ys[-1] > gap:
        ys.append(bottom + 1)
    if len(xs) < 3 or len(ys) < 3 or len(xs) > MAX_EDGES or len(ys) > MAX_EDGES:
        return None  # no table, or graph paper: the cost of a grid grows as its edges cubed
    # a table's frame: two rules (or open sides) across its whole width and two down
    # its whole height; boxes and arrows of a figure cross without making one
    width, height = xs[-1] - xs[0], ys[-1] - ys[0]
    across = sum(h.hi - h.lo >= FRAME * width for h in hs) + (ys[0] in open_y) + (ys[-1] in open_y)
    down = sum(v.hi - v.lo >= FRAME * height for v in vs) + (xs[0] in open_x) + (xs[-1] in open_x)
    if across < 2 or down < 2:
        return None

    def ruled(rules: list[Rule], at: int, mid: float, open_at: set[int]) -> bool:
        return at in open_at or any(
            abs(r.at - at) <= gap and r.lo - tol <= mid <= r.hi + tol for r in rules
        )

    n_rows, n_cols = len(ys) - 1, len(xs) - 1
    row_mid = [(ys[i] + ys[i + 1]) / 2 for i in range(n_rows)]
    col_mid = [(xs[j] + xs[j + 1]) / 2 for j in range(n_cols)]
    owner: list[list[bool]] = [[False] * n_cols for _ in range(n_rows)]
    cells = []
    for i in range(n_rows):
        for j in range(n_cols):
            if owner[i][j]:
                continue
            j2 = j
            while j2 + 1 < n_cols and not ruled(vs, xs[j2 + 1], row_mid[i], open_x):
                j2 += 1
            i2 = i
            while i2 + 1 < n_rows and not any(
                ruled(hs, ys[i2 + 1], col_mid[c], open_y) for c in range(j, j2 + 1)
            ):
                i2 += 1
            for a in range(i, i2 + 1):
                for b in range(j, j2 + 1):
                    owner[a][b] = True
            cells.append((i, j, i2, j2))
    if len(cells) < MIN_CELLS * n_rows * n_cols:  # boxes of a figure, not cells
        return None
    return Grid(tuple(xs), tuple(ys), tuple(cells))


def _stroke(dark: Any, box: PixelBox, tol: int) -> float | None:
    """How thick the letters in ``box`` (inside its rules) are drawn: the mean width of
    the dark runs across them along rows (trimmed to twice the median: longer runs are
    strokes along the row) plus the mean height of the runs along columns; None when it
    holds too little ink to say. At most :data:`STROKE_LINES` pixel rows and columns
    are looked at (evenly spread), whatever the box's size."""
    import numpy as np

    x0, y0, x1, y1 = box
    inside = dark[y0 + 2 * tol : y1 - 2 * tol, x0 + 2 * tol : x1 - 2 * tol]
    if inside.size == 0:
        return None
    rows = inside[:: max(1, inside.shape[0] // STROKE_LINES)]
    cols = np.ascontiguousarray(inside[:, :: max(1, inside.shape[1] // STROKE_LINES)].T)
    _, starts, ends = _run_bounds(rows)
    across = ends - starts
    _, starts, ends = _run_bounds(cols)
    down = ends - starts
    across, down = across[across <= 8 * tol], down[down <= 8 * tol]
    if len(across) < 20 or len(down) < 20:
        return None
    stems = across[across <= 2 * np.median(across)]
    return float(stems.mean() + down.mean())


def _bold_header(dark: Any, grid: Grid, tol: int) -> bool | None:
    """True when the grid's first row is drawn clearly thicker than the rows below (set
    bold), None when it is not or the ink does not say."""
    if len(grid.ys) < 3:
        return None
    xs, ys = grid.xs, grid.ys
    first = _stroke(dark, (xs[0], ys[0], xs[-1], ys[1]), tol)
    rest = _stroke(dark, (xs[0], ys[1], xs[-1], ys[-1]), tol)
    if first is None or rest is None:
        return None
    return True if first >= BOLD * rest else None


def find_grids(grey: Any, zoom: float) -> list[Grid]:
    """The ruled tables on a grey page image (a 2-D uint8 array) rendered at ``zoom``
    pixels a point, top to bottom."""
    import numpy as np

    if grey.ndim != 2 or min(grey.shape) < 16:
        return []
    background = float(np.median(grey[::8, ::8]))
    if background < 128:  # a dark or inverted scan: rules are not told from the page
        return []
    dark = grey < background * INK
    tol = max(3, round(1.5 * zoom))
    across = dark[:-2] | dark[1:-1] | dark[2:]
    down = dark[:, :-2] | dark[:, 1:-1] | dark[:, 2:]
    h_runs = long_runs(across, round(MIN_RULE_WIDTH * zoom))
    if len(h_runs) > MAX_SEGMENTS:
        return []
    v_runs = long_runs(np.ascontiguousarray(down.T), round(MIN_RULE_HEIGHT * zoom))
    if len(v_runs) > MAX_SEGMENTS:
        return []
    thickest = round(MAX_RULE_THICKNESS * zoom) + 2  # and the two rows looked at with it
    hs = [Rule(r.at + 1, r.lo, r.hi) for r in _rules(h_runs, tol, thickest)]
    vs = [Rule(r.at + 1, r.lo, r.hi) for r in _rules(v_runs, tol, thickest)]
    if len(hs) > 4 * MAX_EDGES or len(vs) > 4 * MAX_EDGES:
        return []  # a page of rules, not of tables
    grids = []
    for group_h, group_v in _components(hs, vs, tol):
        grid = _grid(group_h, group_v, tol, round(DOUBLE_RULE * zoom))
        if grid is not None:
            bold = _bold_header(dark, grid, tol)
            grids.append(Grid(grid.xs, grid.ys, grid.cells, bold))
    return sorted(grids, key=lambda g: g.ys[0])


#: What a vertical rule is read as, at a word's ends or alone.
_RULE_CHARS = "|"
#: Tesseract's confidence (0-100) under which a word of two letters or fewer in a cell is
#: taken for a speck or a piece of rule.
LOW_CONFIDENCE = 50.0


def table_lines(
    grids: Sequence[Grid],
    words: list[dict[str, Any]],
    to_page: Callable[[Sequence[float]], tuple[float, float, float, float]],
) -> tuple[list[Line], list[dict[str, Any]]]:
    """Each grid filled with the OCR ``words`` (pixel boxes, Tesseract's order) whose
    centres it holds, as a ``table`` line in page points (``to_page`` maps a pixel box);
    and the words left outside every table. A grid that holds no words is no table."""
    inside: list[list[dict[str, Any]]] = [[] for _ in grids]
    rest = []
    for w in words:
        x0, y0, x1, y1 = w["box"]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        for n, g in enumerate(grids):
            if g.slot(cx, cy) is not None:
                inside[n].append(w)
                break
        else:
            rest.append(w)
    out = []
    for grid, held in zip(grids, inside, strict=True):
        line = _table_line(grid, held, to_page)
        if line is None:
            rest.extend(held)  # put back, in Tesseract's order
        else:
            out.append(line)
    if len(rest) != len(words) - sum(len(h) for h in inside):
        order = {id(w): i for i, w in enumerate(words)}
        rest.sort(key=lambda w: order[id(w)])
    return out, rest


def _speck(word: dict[str, Any], tall: float) -> bool:
    """Whether an OCR word in a cell is a rule or a speck read as letters: only bars,
    under half the table's usual word height, or two letters (not digits) or fewer read
    with low confidence."""
    text = word["text"].strip(_RULE_CHARS)
    height = word["box"][3] - word["box"][1]
    short = len(text) <= 2 and not text.isdigit()
    return not text or height < tall / 2 or (short and word["conf"] < LOW_CONFIDENCE)


def _cell_text(words: list[dict[str, Any]], tall: float) -> str:
    """A cell's words in reading order: its lines top to bottom (a word starts a new
    line when its middle lies over half a word's height below the line's), each left
    to right. (Tesseract reads a table across cells and may give a cell's second line
    first.)"""
    lines: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (w["box"][1] + w["box"][3]) / 2):
        middle = (w["box"][1] + w["box"][3]) / 2
        if lines and middle - _middle(lines[-1][0]) <= tall / 2:
            lines[-1].append(w)
        else:
            lines.append([w])
    return " ".join(
        w["text"].strip(_RULE_CHARS) for ln in lines for w in sorted(ln, key=lambda w: w["box"][0])
    )


def _middle(word: dict[str, Any]) -> float:
    return (word["box"][1] + word["box"][3]) / 2


def _table_line(
    grid: Grid,
    words: list[dict[str, Any]],
    to_page: Callable[[Sequence[float]], tuple[float, float, float, float]],
) -> Line | None:
    """The ``table`` line of ``grid`` filled with ``words``, or None when no cell holds
    a word."""
    n_rows, n_cols = len(grid.ys) - 1, len(grid.xs) - 1
    owner: dict[tuple[int, int], int] = {}
    for k, (i, j, i2, j2) in enumerate(grid.cells):
        for a in range(i, i2 + 1):
            for b in range(j, j2 + 1):
                owner[a, b] = k
    held: list[list[dict[str, Any]]] = [[] for _ in grid.cells]
    heights = sorted(w["box"][3] - w["box"][1] for w in words)
    tall = heights[len(heights) // 2] if heights else 0
    for w in words:
        x0, y0, x1, y1 = w["box"]
        slot = grid.slot((x0 + x1) / 2, (y0 + y1) / 2)
        if slot is not None and not _speck(w, tall):
            held[owner[slot]].append(w)
    texts = [_cell_text(ws, tall) for ws in held]
    rows_tall = sorted(b - a for a, b in itertools.pairwise(grid.ys))
    if tall and rows_tall[len(rows_tall) // 2] > MAX_ROW_LINES * tall:
        return None  # rules between columns of prose, not a table
    if not any(texts):
        return None
    rows: list[list[tuple[str, tuple[float, float, float, float] | None]]] = []
    merged: list[list[bool]] = []
    for i in range(n_rows):
        row: list[tuple[str, tuple[float, float, float, float] | None]] = []
        down = []
        for j in range(n_cols):
            k = owner[i, j]
            r0, c0, r1, c1 = grid.cells[k]
            if (r0, c0) == (i, j):
                box = to_page((grid.xs[c0], grid.ys[r0], grid.xs[c1 + 1], grid.ys[r1 + 1]))
                row.append((texts[k], box))
            else:
                row.append(("", None))
            down.append(r0 < i and c0 == j)
        rows.append(row)
        merged.append(down)
    text, drawn, header = table_text(rows, merged, grid.bold_header)
    if not text:
        return None
    x0, y0, x1, y1 = to_page(grid.box)
    frags = [Frag(a, b, box) for a, b, box in drawn]
    return Line(text, x0, y0, x1, y1, kind="table", para=True, frags=frags, header=header)
