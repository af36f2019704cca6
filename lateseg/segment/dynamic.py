"""Dynamic segmentation: content-defined chunk boundaries by exact dynamic programming.

Every token start is a possible boundary, but each carries a bonus by how natural a cut
there is: structure starts (clauses, headings, functions) best, then paragraphs, lines
and sentence ends, then clause punctuation, and cutting between words or inside a word
is heavily penalised (used only when nothing else keeps a chunk under the maximum). The
semantic change across a boundary (1 − cosine of the mean contextual embeddings of the
tokens just before and after) is added. A DP then picks the boundaries that maximise the
total gain minus a size penalty, under hard min/max token bounds: no chunk is ever longer
than ``max_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lateseg.errors import ConfigError
from lateseg.segment.sentences import (
    clause_starts,
    line_starts,
    paragraph_starts,
    sentence_starts,
)
from lateseg.segment.spans import SECTION_KINDS, chunks_from_boundaries

if TYPE_CHECKING:
    from lateseg.encode.late import TokenEmbeddings
    from lateseg.types import Chunk, Document

# Added to every cut inside a code unit that fits in one chunk.
INSIDE_UNIT = -3.0
CODE_UNITS = ("class", "function", "method")
# Bonus of a boundary by the strongest kind of candidate at it.
STRUCTURE, PARAGRAPH, SENTENCE, LINE, CLAUSE, WORD, INSIDE_WORD = (
    1.0,
    0.5,
    0.2,
    0.1,
    -0.5,
    -1.5,
    -4.0,
)


@dataclass(frozen=True)
class DynamicConfig:
    """Bounds and weights of the dynamic segmenter (sizes in encoder tokens)."""

    min_tokens: int = 32
    target_tokens: int = 160
    max_tokens: int = 256
    context_tokens: int = 16
    semantic_weight: float = 1.0
    size_weight: float = 2.0

    def __post_init__(self) -> None:
        if self.min_tokens < 1:
            raise ConfigError(f"min_tokens={self.min_tokens} must be at least 1")
        if self.max_tokens < 2 * self.min_tokens:
            raise ConfigError(
                f"max_tokens={self.max_tokens} is below 2 x min_tokens={self.min_tokens}; "
                "raise max_tokens or lower min_tokens (every length must stay reachable)"
            )
        if not self.min_tokens <= self.target_tokens <= self.max_tokens:
            raise ConfigError(
                f"target_tokens={self.target_tokens} must lie in "
                f"[min_tokens={self.min_tokens}, max_tokens={self.max_tokens}]"
            )
        if self.context_tokens < 1:
            raise ConfigError(f"context_tokens={self.context_tokens} must be at least 1")


class DynamicChunker:
    """Content-defined chunks from structure, sentences and semantic change."""

    def __init__(self, config: DynamicConfig | None = None) -> None:
        self.config = config or DynamicConfig()

    def to_dict(self) -> dict[str, object]:
        c = self.config
        return {
            "type": "dynamic",
            "min_tokens": c.min_tokens,
            "target_tokens": c.target_tokens,
            "max_tokens": c.max_tokens,
            "context_tokens": c.context_tokens,
            "semantic_weight": c.semantic_weight,
            "size_weight": c.size_weight,
        }

    def chunk(self, doc: Document, tokens: TokenEmbeddings) -> list[Chunk]:
        n = len(tokens)
        if n == 0:
            return []
        gains = boundary_bonus(doc, tokens.offsets, self.config.max_tokens)
        gains += self.config.semantic_weight * semantic_change(
            tokens.vectors, self.config.context_tokens
        )
        return chunks_from_boundaries(doc, tokens.offsets, self.boundaries(gains))

    def boundaries(self, gains: np.ndarray) -> list[int]:
        """Optimal boundaries ``[0, …, n]`` for per-token boundary gains ``[n]``.

        ``gains[t]`` is the value of cutting before token ``t``. Exact DP over all
        token positions; chunk lengths are kept within ``[min_tokens, max_tokens]``
        (a document shorter than ``min_tokens`` is one chunk).
        """
        c = self.config
        n = gains.shape[0]
        if n <= c.min_tokens:
            return [0, n]
        lengths = np.arange(c.max_tokens + 1, dtype=np.float64)
        size_cost = c.size_weight * ((lengths - c.target_tokens) / c.target_tokens) ** 2
        best = np.full(n + 1, -np.inf)
        back = np.zeros(n + 1, dtype=np.int64)
        best[0] = 0.0
        value = np.where(np.arange(n + 1) > 0, np.append(gains, 0.0), 0.0)  # gain of starting at i
        for j in range(c.min_tokens, n + 1):
            lo, hi = max(0, j - c.max_tokens), j - c.min_tokens  # chunk [i, j), i in [lo, hi]
            cand = best[lo : hi + 1] + value[lo : hi + 1] - size_cost[j - np.arange(lo, hi + 1)]
            k = int(np.argmax(cand))
            best[j], back[j] = cand[k], lo + k
        if not np.isfinite(best[n]):  # unreachable when max >= 2 * min; kept as a guard
            raise ConfigError(f"no segmentation of {n} tokens fits {c.min_tokens}..{c.max_tokens}")
        bounds = [n]
        while bounds[-1] > 0:
            bounds.append(int(back[bounds[-1]]))
        return bounds[::-1]


def boundary_bonus(
    doc: Document, offsets: np.ndarray, whole_units_up_to: int | None = None
) -> np.ndarray:
    """``[n]`` bonus for cutting before each token (index 0 unused).

    With ``whole_units_up_to``, cuts inside a code unit (class, function, method) of at
    most that many tokens are penalised by ``INSIDE_UNIT``: a function that fits in a
    chunk stays one chunk, a larger one is split at its statements (line starts).
    """
    text = doc.text
    n = offsets.shape[0]
    starts, ends = offsets[:, 0], offsets[:, 1]
    bonus = np.full(n, INSIDE_WORD)
    gap_has_space = np.zeros(n, dtype=bool)
    gap_has_space[1:] = starts[1:] > ends[:-1]
    bonus[gap_has_space] = WORD
    page_starts = {s.start for s in doc.spans("page")}
    tiers = [
        (CLAUSE, clause_starts(text)),
        (LINE, line_starts(text)),
        (SENTENCE, sentence_starts(text)),
        (PARAGRAPH, [p for p in paragraph_starts(text) if p not in page_starts]),
        (STRUCTURE, [s.start for s in doc.spans(*SECTION_KINDS)]),
    ]
    for value, positions in tiers:
        if not positions:
            continue
        pos = np.asarray(positions, dtype=np.int64)
        idx = np.searchsorted(starts, pos, side="left")
        ok = idx < n
        # Only candidates that fall on a token start (never inside a token).
        ok[ok] &= starts[idx[ok]] >= pos[ok]
        ok[ok] &= (idx[ok] == 0) | (ends[np.maximum(idx[ok] - 1, 0)] <= pos[ok])
        np.maximum.at(bonus, idx[ok], value)
    if whole_units_up_to is not None:
        for unit in doc.spans(*CODE_UNITS):
            i, j = np.searchsorted(starts, [unit.start, unit.end], side="left")
            if 0 < j - i <= whole_units_up_to:
                bonus[i + 1 : j] += INSIDE_UNIT
    bonus[0] = 0.0
    return bonus


def semantic_change(vectors: np.ndarray, context: int) -> np.ndarray:
    """``[n]`` 1 − cosine between the mean embeddings of the ``context`` tokens before
    and after each boundary (0 at index 0)."""
    n = vectors.shape[0]
    out = np.zeros(n)
    if n < 2:
        return out
    csum = np.vstack(
        [np.zeros((1, vectors.shape[1])), np.cumsum(vectors, axis=0, dtype=np.float64)]
    )
    t = np.arange(1, n)
    lo, hi = np.maximum(t - context, 0), np.minimum(t + context, n)
    left = (csum[t] - csum[lo]) / (t - lo)[:, None]
    right = (csum[hi] - csum[t]) / (hi - t)[:, None]
    cos = (left * right).sum(1) / np.maximum(
        np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1), 1e-12
    )
    out[1:] = 1.0 - cos
    return out
