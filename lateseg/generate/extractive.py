"""Extractive answers: the passage sentence closest to the question, with its citation.

Needs only the embedder, so it works where no generator can run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from lateseg.text.boundaries import sentence_spans
from lateseg.types import NO_PASSAGE, Answer, Hit

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder


def _code_blocks(text: str) -> list[tuple[int, int]]:
    """Runs of non-blank lines of code, each from the start of its first line (its
    indentation included) to the end of its last."""
    spans, start, at = [], None, 0
    for line in text.splitlines(keepends=True):
        if line.strip():
            if start is None:
                start = at
            end = at + len(line.rstrip())
        elif start is not None:
            spans.append((start, end))
            start = None
        at += len(line)
    if start is not None:
        spans.append((start, end))
    return spans


def _quote(hit: Hit, start: int, end: int) -> str:
    """The quoted text: code verbatim, as in the file (line breaks and indentation);
    other text with whitespace collapsed (PDF line breaks are layout)."""
    if hit.kind == "code":
        return "\n" + hit.text[start:end] + "\n"
    return " ".join(hit.text[start:end].split())


def extractive_answer(
    question: str, hits: Sequence[Hit], encoder: LateEncoder, max_sentences: int = 2
) -> Answer:
    """Answer with the ``max_sentences`` best sentences from ``hits`` (in passage order),
    each followed by the number of the passage it comes from; the citations are the
    passages quoted. In code, the candidates are blocks of non-blank lines, quoted
    verbatim (line breaks and indentation as in the file)."""
    if not hits:
        return Answer(NO_PASSAGE, (), (), "extractive", "extractive")
    cands: list[tuple[int, int, int]] = []  # (passage index, start, end) within hit text
    for i, h in enumerate(hits):
        pieces = _code_blocks(h.text) if h.kind == "code" else sentence_spans(h.text)
        cands.extend((i, s, e) for s, e in pieces)
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
        parts.append(f"{_quote(hits[i], s, e)} [{cited.index(i) + 1}]")
    citations = tuple(hits[i] for i in cited)
    return Answer(" ".join(parts), citations, tuple(hits), "extractive", "extractive")
