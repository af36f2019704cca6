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

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from lateseg.anchors import local_maxima, text_keys
from lateseg.errors import ConfigError
from lateseg.segment.base import register
from lateseg.segment.spans import SECTION_KINDS, chunks_from_boundaries
from lateseg.text.boundaries import (
    back_reference_starts,
    clause_starts,
    line_starts,
    paragraph_starts,
    sentence_starts,
    tokens_at,
)
from lateseg.validate import check_fields, shown

if TYPE_CHECKING:
    from lateseg.encode.late import TokenEmbeddings
    from lateseg.types import Chunk, Document

# Added to every cut inside a code unit that fits in one chunk.
INSIDE_UNIT = -3.0
# A cut inside a table row: taken only where no chunk can hold the row (longer than
# max_tokens), whatever the sizes cost.
INSIDE_ROW = -100.0
CODE_UNITS = ("class", "function", "method")
# positions of semantic_change computed at once (2,048 x 384 float64: 6 MB a temporary)
CHANGE_BLOCK = 2048
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
    """Bounds and weights of the dynamic segmenter (sizes in encoder tokens).

    The defaults (96 tokens aimed at, 160 at most) are for prose: under a fixed context
    budget, smaller chunks retrieved more gold text than 160/256 on the contract and
    license sets (``bench/late_variants.py``); source code uses :data:`CODE_CONFIG`.
    """

    min_tokens: int = 24
    target_tokens: int = 96
    max_tokens: int = 160
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


def _fields(c: DynamicConfig) -> dict[str, object]:
    return {
        "min_tokens": c.min_tokens,
        "target_tokens": c.target_tokens,
        "max_tokens": c.max_tokens,
        "context_tokens": c.context_tokens,
        "semantic_weight": c.semantic_weight,
        "size_weight": c.size_weight,
    }


# Source code: a function of up to 256 tokens stays one chunk (bench/late_variants.py
# measured whole functions beating smaller pieces on docstring -> function search).
CODE_CONFIG = DynamicConfig(min_tokens=32, target_tokens=160, max_tokens=256)


@register
class DynamicChunker:
    """Content-defined chunks from structure, sentences and semantic change.

    ``config`` applies to prose (contracts, text, Markdown, HTML), ``code`` to source
    files (``Document.kind == "code"``).
    """

    name = "dynamic"
    summary = "content-defined boundaries by dynamic programming (the default)"

    def __init__(self, config: DynamicConfig | None = None, code: DynamicConfig | None = None):
        self.config = config or DynamicConfig()
        self.code = code or CODE_CONFIG

    def config_for(self, doc: Document) -> DynamicConfig:
        return self.code if doc.kind == "code" else self.config

    def to_dict(self) -> dict[str, object]:
        return {"type": "dynamic", **_fields(self.config), "code": _fields(self.code)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DynamicChunker:
        """The chunker a ``to_dict()`` less its ``type`` describes (every field checked);
        without ``code`` (an index from before it was recorded), :data:`CODE_CONFIG`."""
        d = dict(d)
        code = d.pop("code", None)
        check_fields(DynamicConfig, d, "chunker")
        if code is not None:
            if not isinstance(code, dict):
                raise ConfigError(f"chunker.code: {shown(code)} is not an object")
            check_fields(DynamicConfig, code, "chunker.code")
        return cls(DynamicConfig(**d), DynamicConfig(**code) if code else None)

    def chunk(self, doc: Document, tokens: TokenEmbeddings) -> list[Chunk]:
        n = len(tokens)
        if n == 0:
            return []
        cfg = self.config_for(doc)
        bonus = boundary_bonus(doc, tokens.offsets, cfg.max_tokens)
        gains = bonus + cfg.semantic_weight * semantic_change(tokens.vectors, cfg.context_tokens)
        anchors = self.anchors(doc.text, tokens.offsets, bonus, cfg)
        bounds = self.boundaries(gains, anchors, cfg)
        return chunks_from_boundaries(doc, tokens.offsets, bounds)

    def anchors(
        self,
        text: str,
        offsets: np.ndarray,
        bonus: np.ndarray,
        config: DynamicConfig | None = None,
    ) -> list[int]:
        """Forced cuts: paragraph or structure starts that are the strongest such
        boundary (ties: smallest content key) within ``2 * max_tokens`` tokens on either
        side. They depend on nearby content only, so the segmentation between two
        anchors never depends on what lies before the first of them; prepending text to a
        document leaves every boundary past the first common anchor in place."""
        n = offsets.shape[0]
        c = config or self.config
        cand = np.flatnonzero(bonus >= PARAGRAPH)
        cand = cand[(cand >= c.min_tokens) & (cand <= n - c.min_tokens)]
        if cand.size == 0:
            return []
        score = bonus[cand] + 0.01 * text_keys(text, offsets[cand, 0])  # keys break ties only
        return [int(a) for a in local_maxima(cand, score, 2 * c.max_tokens)]

    def boundaries(
        self,
        gains: np.ndarray,
        anchors: Sequence[int] = (),
        config: DynamicConfig | None = None,
    ) -> list[int]:
        """Optimal boundaries ``[0, …, n]`` for per-token boundary gains ``[n]``.

        ``gains[t]`` is the value of cutting before token ``t``. Exact DP over all
        token positions of each stretch between forced cuts (``anchors``, each at least
        ``min_tokens`` from the ends and from each other); chunk lengths are kept within
        ``[min_tokens, max_tokens]`` (a document shorter than ``min_tokens`` is one chunk).
        """
        c = config or self.config
        n = gains.shape[0]
        cuts = [0, *anchors, n]
        if any(b - a < min(c.min_tokens, n) for a, b in itertools.pairwise(cuts)):
            raise ConfigError(f"forced cuts {list(anchors)} leave a stretch under min_tokens")
        out = [0]
        for a, b in itertools.pairwise(cuts):
            out += [a + x for x in _dp(gains[a:b], c)[1:]]
        return out


def _dp(gains: np.ndarray, c: DynamicConfig) -> list[int]:
    """Exact DP: boundaries maximising total gain minus size cost within the bounds."""
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
        (STRUCTURE, _toc_edges(doc)),  # contents and body never share a chunk
    ]
    for value, positions in tiers:
        if not positions:
            continue
        idx = tokens_at(starts, ends, positions)  # never inside a token
        np.maximum.at(bonus, idx[idx >= 0], value)
    # a proviso or exemption stays with the rule it qualifies: its start is no better a
    # cut than a comma (unless a heading or clause starts there); prose only
    structure = {s.start for s in doc.spans(*SECTION_KINDS)}
    opens = (
        []
        if doc.kind == "code"
        else sorted(set(sentence_starts(text)) | set(paragraph_starts(text)))
    )
    back = [p for p in back_reference_starts(text, opens) if p not in structure]
    if back:
        idx = tokens_at(starts, ends, back)
        idx = idx[idx > 0]
        bonus[idx] = np.minimum(bonus[idx], CLAUSE)
    for row in doc.spans("row"):  # a table row is read whole: never cut inside one
        i, j = np.searchsorted(starts, [row.start, row.end], side="left")
        bonus[i + 1 : j] = INSIDE_ROW
    if whole_units_up_to is not None:
        for unit in doc.spans(*CODE_UNITS):
            i, j = np.searchsorted(starts, [unit.start, unit.end], side="left")
            if 0 < j - i <= whole_units_up_to:
                bonus[i + 1 : j] += INSIDE_UNIT
    bonus[0] = 0.0
    return bonus


_VISIBLE = re.compile(r"\S")


def _toc_edges(doc: Document) -> list[int]:
    """Where each table of contents or index starts, and where the text after it does."""
    out = []
    for s in doc.spans("toc"):
        after = _VISIBLE.search(doc.text, s.end)
        out += [s.start, after.start()] if after else [s.start]
    return out


def semantic_change(vectors: np.ndarray, context: int) -> np.ndarray:
    """``[n]`` 1 − cosine between the mean embeddings of the ``context`` tokens before
    and after each boundary (0 at index 0).

    Computed in blocks of :data:`CHANGE_BLOCK` positions, running sums included: the same
    operations on each position as over the whole array at once (the same values to the
    last bit), with arrays that stay in cache instead of several of the document's size
    (most of the segmenter's time was spent here: on the licences, 1.7 s -> 0.15 s)."""
    n, d = vectors.shape
    out = np.zeros(n)
    if n < 2:
        return out
    carry, s = np.zeros(d), 0  # the running sum of vectors[:s]
    for a in range(1, n, CHANGE_BLOCK):
        b = min(a + CHANGE_BLOCK, n)
        # the running sums at rows s..e, s <= a - context (or 0), e >= b + context (or n):
        # row s carried over, then the same additions in the same order as one cumsum
        # over the whole document, so the values do not depend on the blocks
        e = min(b + context, n)
        csum = np.empty((e - s + 1, d))
        csum[0] = carry
        csum[1:] = vectors[s:e]
        for k in range(1, csum.shape[0]):  # row by row: 5x faster than a cumsum down axis 0
            np.add(csum[k], csum[k - 1], out=csum[k])
        t = np.arange(a, b)
        lo, hi = np.maximum(t - context, 0), np.minimum(t + context, n)
        here = csum[a - s : b - s]
        left = here - csum[lo - s]
        left /= (t - lo)[:, None]
        right = csum[hi - s] - here
        right /= (hi - t)[:, None]
        cos = (left * right).sum(1) / np.maximum(
            np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1), 1e-12
        )
        out[a:b] = 1.0 - cos
        nxt = max(b - context, 0)  # the next block's first row
        carry, s = csum[nxt - s].copy(), nxt
    return out
