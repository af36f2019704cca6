"""Extractive answers: the passage sentence closest to the question, with its citation.

Needs only the embedder, so it works where no generator can run.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from lateseg.segment.sentences import sentence_starts
from lateseg.types import Answer, Hit

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder


def _sentences(text: str) -> list[tuple[int, int]]:
    cuts = [0, *sentence_starts(text), len(text)]
    spans = []
    for a, b in itertools.pairwise(cuts):
        seg = text[a:b]
        lead = len(seg) - len(seg.lstrip())
        s, e = a + lead, a + len(seg.rstrip())
        if e - s >= 3:
            spans.append((s, e))
    return spans


def extractive_answer(
    question: str, hits: Sequence[Hit], encoder: LateEncoder, max_sentences: int = 2
) -> Answer:
    """Answer with the ``max_sentences`` best sentences from ``hits`` (in passage order),
    each followed by the number of the passage it comes from; the citations are the
    passages quoted."""
    if not hits:
        return Answer(
            "No indexed passage matches the question.", (), (), "extractive", "extractive"
        )
    cands: list[tuple[int, int, int]] = []  # (passage index, start, end) within hit text
    for i, h in enumerate(hits):
        cands.extend((i, s, e) for s, e in _sentences(h.text))
    q = encoder.embed_queries([question])[0]
    sv = encoder.embed_texts([hits[i].text[s:e] for i, s, e in cands])
    # Sentence similarity plus the passage's own retrieval score: a sentence is judged
    # in the context of the chunk that retrieval found.
    score = sv @ q + np.array([hits[i].score for i, _, _ in cands])
    chosen = sorted(np.argsort(-score)[:max_sentences].tolist(), key=lambda k: cands[k][:2])
    cited: list[int] = []
    parts = []
    for k in chosen:
        i, s, e = cands[k]
        if i not in cited:
            cited.append(i)
        # Whitespace collapsed: PDF line breaks are layout, not content.
        parts.append(f"{' '.join(hits[i].text[s:e].split())} [{cited.index(i) + 1}]")
    citations = tuple(hits[i] for i in cited)
    return Answer(" ".join(parts), citations, tuple(hits), "extractive", "extractive")
