"""Where a generated sentence was copied from: the passage that holds it word for word.

The support check (:mod:`lateseg.check.support`) checks a copied sentence against the
passage it was copied from, whatever passage its marker cites, and counts a sentence said
twice once.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from lateseg.text.words import term_spans, terms
from lateseg.types import Hit


def normal(text: str) -> str:
    """Lowercase words only: how two sentences are compared for a repeat or a copy."""
    return " ".join(terms(text))


def find_copied_from(
    claim: str, passages: Sequence[Hit], least: float = 0.6
) -> tuple[int, int, int] | None:
    """The passage that holds ``claim`` word for word: ``(passage index, start, end)`` of
    the longest stretch of the claim found in one passage's text (case and spacing
    aside), when it covers at least ``least`` of the claim; else None. A copied
    sentence is attributed where it was copied from, whatever the model cited."""
    want = normal(claim)
    if len(want) < 12:
        return None
    best: tuple[int, int, int, int] | None = None  # (length, passage, start, end)
    for i, h in enumerate(passages):
        words = term_spans(h.text)
        flat = " ".join(w for _, _, w in words)
        match = SequenceMatcher(None, flat, want, autojunk=False).find_longest_match(
            0, len(flat), 0, len(want)
        )
        if match.size == 0 or (best is not None and match.size <= best[0]):
            continue
        # map the match in the joined words back to the passage's characters
        pos, first, last = 0, None, None
        for a, b, w in words:
            if first is None and pos + len(w) > match.a:
                first = a
            if pos < match.a + match.size:
                last = b
            pos += len(w) + 1
        if first is not None and last is not None:
            best = (match.size, i, first, last)
    if best is None or best[0] < least * len(want):
        return None
    return best[1], best[2], best[3]
