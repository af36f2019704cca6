"""Content-defined anchors: positions chosen by local content alone (winnowing).

A position is an anchor when its score is the largest within ``radius`` positions on
either side. The rule looks only at a neighbourhood, so text inserted or removed far away
never moves an anchor: two copies of a text shifted against each other agree on every
anchor past the first ``radius`` positions after the change. Window starts of the late
encoder and the forced cuts of the dynamic segmenter are both taken from anchors, which is
what makes their output translation invariant (ARCHITECTURE.md, Invariants).
"""

from __future__ import annotations

import zlib

import numpy as np


def local_maxima(positions: np.ndarray, scores: np.ndarray, radius: int) -> np.ndarray:
    """The anchors among candidate ``positions`` (sorted): those whose score is the
    largest of all candidates within ``radius`` positions on either side, and larger
    than every candidate to their left in that range (ties go to the leftmost, so
    anchors are more than ``radius`` apart)."""
    positions = np.asarray(positions, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    lo = np.searchsorted(positions, positions - radius, side="left")
    hi = np.searchsorted(positions, positions + radius, side="right")
    keep = []
    for i in range(positions.shape[0]):
        s = scores[i]
        if s >= scores[lo[i] : hi[i]].max() and (lo[i] == i or s > scores[lo[i] : i].max()):
            keep.append(positions[i])
    return np.asarray(keep, dtype=np.int64)


def text_keys(text: str, positions: np.ndarray, width: int = 12) -> np.ndarray:
    """A hash in ``[0, 1)`` of the characters around each position: a content key that
    breaks ties between equally strong boundaries the same way wherever the text sits."""
    out = np.empty(len(positions), dtype=np.float64)
    for k, p in enumerate(positions):
        p = int(p)
        piece = text[max(p - width, 0) : p + width].encode("utf-8", "surrogatepass")
        out[k] = zlib.crc32(piece) / 2**32
    return out
