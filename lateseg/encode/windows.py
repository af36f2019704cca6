"""The late encoder's windows over a document's tokens: where each window starts
(content-defined anchors, :func:`plan_windows`) and which window each token's embedding
is taken from (:func:`assign_tokens`). Pure functions of token counts and boundary tiers;
:mod:`lateseg.encode.late` runs the model over them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lateseg.anchors import local_maxima
from lateseg.text.boundaries import window_tiers

#: Backends whose forward scales a batch's activations as a whole (dynamic int8: ONNX
#: Runtime's DynamicQuantizeLinear takes one scale per tensor), so that a sequence's
#: output depends on its batch-mates.
BATCH_SCALED = ("onnx-int8",)
#: Backends whose outputs move with padding by more than fp32's rounding (static int8: a
#: padded batch's float parts round a little differently, and an activation near an int8
#: step then lands on the other step; ``lateseg.encode.quantize``). There each window is
#: padded to a width set by its own length alone (:data:`WIDTH_STEP`), and windows of one
#: width share batches, from any documents: a window gets what it gets alone to int8's
#: rounding (measured on an Intel Xeon without bf16: batches of 1 and of 256
#: bit-identical; padded to its batch's longest, 2% of an MPL-2.0's tokens moved, by up
#: to 0.17), and the graph meets few shapes (a new shape costs OpenVINO's int8 graph
#: 30-45 ms once).
SAME_WIDTH = ("openvino-int8",)
WIDTH_STEP = 32


def batch_groups(
    lengths: Sequence[int], documents: Sequence[int], backend: str, most: int | None = None
) -> tuple[list[list[int]], list[int]]:
    """Which windows (by index; ``lengths`` their tokens, ``documents`` whose they are)
    may share a batch on ``backend``, and the width each is padded to at least: every
    window together (padded to its batch's longest) on a float graph; each document's
    apart on :data:`BATCH_SCALED`; on :data:`SAME_WIDTH` windows of one width (their
    length rounded up to :data:`WIDTH_STEP`, never past ``most``, the model's longest
    sequence: a constant, so a window's width is still its own length's), from any
    documents."""
    if backend in SAME_WIDTH:
        widths = [-(-n // WIDTH_STEP) * WIDTH_STEP for n in lengths]
        if most is not None:
            widths = [max(min(w, most), n) for w, n in zip(widths, lengths, strict=True)]
        by_width: dict[int, list[int]] = {}
        for i, n in enumerate(widths):
            by_width.setdefault(n, []).append(i)
        return [by_width[n] for n in sorted(by_width)], widths
    if backend in BATCH_SCALED:
        by_doc: dict[int, list[int]] = {}
        for i, doc in enumerate(documents):
            by_doc.setdefault(doc, []).append(i)
        return list(by_doc.values()), list(lengths)
    return ([list(range(len(lengths)))] if lengths else []), list(lengths)


def plan_windows(
    n: int,
    window: int,
    overlap: int,
    tier: np.ndarray | None = None,
    keys: np.ndarray | None = None,
) -> list[tuple[int, int]]:
    """Token windows ``[start, end)`` covering ``n`` tokens, each at most ``window`` long.

    Window starts are content-defined anchors (:func:`lateseg.anchors.local_maxima`): a
    token starts a window when it is the strongest boundary within ``(window -
    overlap) // 2`` tokens on either side (``tier[i]``: 2 paragraph start, 1 sentence
    start, 0 none; ties broken by ``keys[i]``, a hash of the tokens around ``i``). A gap
    between anchors longer than ``window - overlap`` is split evenly by filler starts,
    and after the last anchor starts step on by ``window - overlap`` to the end. Each
    window runs from its start to ``overlap`` tokens past the next start, so adjacent
    windows share exactly ``overlap`` tokens and no window is longer than ``window``.

    Every start depends only on nearby content and on the previous anchor, never on the
    absolute position: two copies of a text shifted against each other get the same
    windows, and so identical token embeddings, from the first common anchor on.
    Without ``tier`` the starts are a plain stride of ``window - overlap``.
    """
    if n <= window:
        return [(0, n)]
    step = window - overlap
    anchors: list[int] = []
    if tier is not None:
        cand = np.flatnonzero(tier > 0)
        score = tier[cand].astype(np.float64)
        if keys is not None:
            score += (keys[cand] >> np.uint64(11)).astype(np.float64) / 2.0**53
        found = local_maxima(cand, score, max(step // 2, 1))
        anchors = [int(a) for a in found if 0 < a < n - overlap]
    starts = [0]
    for a in anchors:
        prev = starts[-1]
        gap = a - prev
        fills = -(-gap // step) - 1
        starts += [prev + round(j * gap / (fills + 1)) for j in range(1, fills + 1)]
        starts.append(a)
    while starts[-1] + step < n:
        starts.append(starts[-1] + step)
    ends = [min(s + overlap, n) for s in starts[1:]] + [n]
    return list(zip(starts, ends, strict=True))


def assign_tokens(n: int, windows: Sequence[tuple[int, int]]) -> np.ndarray:
    """For each token, the index of the window where its context is largest: the
    window maximising the distance to the nearer window edge (document edges do not
    count as edges: nothing lies beyond them)."""
    best = np.full(n, -1, dtype=np.int64)
    best_ctx = np.full(n, -1, dtype=np.int64)
    for w, (s, e) in enumerate(windows):
        idx = np.arange(s, e)
        left = idx - s if s > 0 else np.full(e - s, n)
        right = e - 1 - idx if e < n else np.full(e - s, n)
        ctx = np.minimum(left, right)
        better = ctx > best_ctx[s:e]
        best[s:e][better] = w
        best_ctx[s:e][better] = ctx[better]
    return best


@dataclass
class Plan:
    """One document on its way through the late encoder
    (:meth:`~lateseg.encode.late.LateEncoder.encode_documents`): its tokens and their
    character offsets, its windows, each token's owning window, and the embeddings
    filled in."""

    ids: list[int]
    offsets: np.ndarray
    windows: list[tuple[int, int]]
    owner: np.ndarray
    vectors: np.ndarray

    @classmethod
    def of(
        cls, text: str, ids: list[int], offsets: np.ndarray, window: int, overlap: int, dim: int
    ) -> Plan:
        """The plan of ``text`` tokenised as ``ids`` at ``offsets``: windows of ``window``
        tokens overlapping by ``overlap`` (less than half a window), anchored where its
        boundary tiers say, and ``dim``-wide embeddings to fill."""
        n = len(ids)
        if n == 0:
            return cls(ids, offsets, [], np.zeros(0, np.int64), np.zeros((0, dim), np.float32))
        overlap = min(overlap, window // 2 - 1)
        windows = plan_windows(n, window, overlap, *window_tiers(text, ids, offsets))
        vectors = np.zeros((n, dim), dtype=np.float32)
        return cls(ids, offsets, windows, assign_tokens(n, windows), vectors)
