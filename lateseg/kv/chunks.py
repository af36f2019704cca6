"""Chunks of generator tokens for KV compression.

Content-defined chunks follow the text: paragraphs and sentences, and inside a sentence
longer than ``max_tokens`` its clause punctuation, then line starts, then word starts, so
no chunk is longer than ``max_tokens``. Boundaries come from the characters alone, so they
never depend on a token's absolute position (a fixed chunk length does: see
``lateseg.phase``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from lateseg.errors import ConfigError
from lateseg.text.boundaries import (
    clause_starts,
    line_starts,
    paragraph_starts,
    sentence_starts,
    token_span,
    token_starts,
)

__all__ = ["content_chunks", "fixed_chunks", "token_span", "token_starts"]


def content_chunks(
    text: str,
    offsets: Sequence[tuple[int, int]],
    begin: int,
    end: int,
    max_tokens: int = 32,
) -> list[tuple[int, int]]:
    """Token ranges ``[a, b)`` that tile tokens ``begin..end`` of a text tokenized with
    ``offsets`` (character spans), cut before the tokens holding paragraph and sentence
    starts, and inside longer pieces at clause punctuation, then line starts, then word
    starts, to at most ``max_tokens`` tokens."""
    if max_tokens < 1:
        raise ConfigError(f"max_tokens={max_tokens}; must be at least 1")
    if not 0 <= begin <= end <= len(offsets):
        raise ConfigError(f"token range {begin}..{end} is outside 0..{len(offsets)}")
    if begin == end:
        return []
    starts = token_starts(offsets)
    lo, hi = int(starts[begin]), int(offsets[end - 1][1])

    def cuts(chars: list[int]) -> list[int]:
        # The token that holds the character (its leading space may come before it).
        toks = np.searchsorted(starts, [c for c in chars if lo < c < hi], side="right") - 1
        return sorted({int(t) for t in toks if begin < t < end})

    primary = cuts(paragraph_starts(text) + sentence_starts(text))
    clauses = set(cuts(clause_starts(text)))
    lines = set(cuts(line_starts(text)))
    words = {
        i
        for i in range(begin + 1, end)
        if offsets[i][1] > offsets[i][0] and text[offsets[i][0] - 1 : offsets[i][0]].isspace()
    }
    words |= {i for i in range(begin + 1, end) if text[starts[i] : starts[i] + 1].isspace()}

    out: list[tuple[int, int]] = []

    def split(a: int, b: int) -> None:
        if b - a <= max_tokens:
            out.append((a, b))
            return
        mid = (a + b) / 2
        for options in (clauses, lines, words):
            inside = [t for t in options if a < t < b]
            if inside:
                cut = min(inside, key=lambda t: (abs(t - mid), t))
                break
        else:
            cut = (a + b) // 2
        split(a, cut)
        split(cut, b)

    bounds = [begin, *primary, end]
    for a, b in itertools.pairwise(bounds):
        split(a, b)
    return out


def fixed_chunks(begin: int, end: int, size: int) -> list[tuple[int, int]]:
    """Token ranges of ``size`` tokens from ``begin`` (the last may be shorter): ChunkKV's
    original fixed-length chunks."""
    if size < 1:
        raise ConfigError(f"chunk size {size}; must be at least 1")
    return [(a, min(a + size, end)) for a in range(begin, end, size)]
