"""Three ways to spend one context budget on a model behind a URL, for
``bench/answers.py --llm URL --context ...`` (issue 45, point 3). Each returns a
:class:`~lateseg.generate.remote.context.ContextFit` whose ``tokens`` are counted as the prompt
shows the passages (number, provenance, text, separator), by the writer's own count:

* ``chunks``: lateseg's own choice, :func:`~lateseg.generate.remote.context.fit_context`: whole
  content-defined chunks, best first while they fit, shown in document order;
* ``topk``: the ranked hits in rank order, concatenated and cut at the budget: the hit
  that does not fit whole is cut mid-chunk to the tokens left, and nothing follows it
  (:func:`topk_context`);
* ``fixed``: the documents of the retrieved hits re-cut into fixed windows of ``size``
  tokens (by the same count), ranked by the embedder's similarity to the question
  (each window embedded alone, as a fixed-chunk pipeline does), then fitted as
  ``chunks`` are (:func:`fixed_windows`, :func:`fixed_context`).

Pure except :func:`rank_windows`, which embeds; no model is needed for the arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lateseg.answer.citations import SEPARATOR, passage_block
from lateseg.generate.remote.context import ContextFit, fit_context
from lateseg.types import Document, Hit

STRATEGIES = ("chunks", "topk", "fixed")
#: The fixed windows' size, in the writer's tokens.
WINDOW_TOKENS = 128

Count = Callable[[str], int]


def longest_prefix(text: str, fits: Callable[[str], bool]) -> int:
    """The most characters of ``text`` whose prefix still ``fits`` (0 when none does):
    a binary search, as any count of tokens grows with the text it counts."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(text[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def cut(hit: Hit, chars: int) -> Hit:
    """``hit``'s first ``chars`` characters, as a hit of the same document."""
    import dataclasses

    return dataclasses.replace(hit, end=hit.start + chars, text=hit.text[:chars])


def cut_to(hit: Hit, tokens: int, number: int, count: Count) -> Hit | None:
    """The longest start of ``hit`` whose block (shown as passage ``number``) takes at
    most ``tokens`` tokens by ``count``; None when not even its first character fits."""

    def fits(text: str) -> bool:
        return count(passage_block(number, cut(hit, len(text))) + SEPARATOR) <= tokens

    chars = longest_prefix(hit.text, fits)
    return cut(hit, chars) if chars > 0 else None


def topk_context(hits: Sequence[Hit], budget: int, count: Count) -> ContextFit:
    """The ranked ``hits`` in rank order until ``budget`` tokens: each whole while it
    fits; the first that does not is cut to the tokens left (mid-chunk, where it falls)
    and ends the context; what follows is dropped."""
    widest = max(len(hits), 1)
    kept: list[Hit] = []
    used = 0
    for i, h in enumerate(hits):
        cost = count(passage_block(widest, h) + SEPARATOR)
        if used + cost <= budget:
            kept.append(h)
            used += cost
            continue
        part = cut_to(h, budget - used, widest, count)
        if part is not None:
            kept.append(part)
            used += count(passage_block(widest, part) + SEPARATOR)
        return ContextFit(tuple(kept), tuple(hits[i + (part is not None) :]), used)
    return ContextFit(tuple(kept), (), used)


def page_at(doc: Document, offset: int) -> int | None:
    """The page holding character ``offset`` of ``doc`` (None without pages)."""
    for s in doc.structure:
        if s.kind == "page" and s.start <= offset < s.end:
            return int(s.label)
    return None


def fixed_windows(doc: Document, size: int, count: Count) -> list[Hit]:
    """``doc``'s text cut into consecutive windows of ``size`` tokens by ``count`` (the
    last may be shorter), wherever the cuts fall; blank windows left out."""
    if size < 1:
        raise ValueError(f"size={size} must be at least 1")
    out: list[Hit] = []
    at, text = 0, doc.text
    while at < len(text):
        # the window's characters: a prefix of what is left, searched in a slice a
        # little over ``size`` tokens' worth of characters (no token is under 1 char)
        rest = text[at : at + 64 * size]
        n = max(1, longest_prefix(rest, lambda t: count(t) <= size))
        piece = text[at : at + n]
        if piece.strip():
            page, page_end = page_at(doc, at), page_at(doc, at + n - 1)
            out.append(
                Hit(doc.source, at, at + n, piece, 0.0, page=page, doc_id=doc.id,
                    page_end=page_end if page is not None else None)
            )  # fmt: skip
        at += n
    return out


def rank_windows(encoder: Any, question: str, windows: Sequence[Hit], vectors: Any) -> list[Hit]:
    """``windows`` best first by the cosine of their ``vectors`` (rows, normalised) with
    the question's (the encoder's query vector), each scored by it."""
    import dataclasses

    import numpy as np

    q = encoder.embed_queries([question])[0]
    scores = np.asarray(vectors) @ q
    order = np.argsort(-scores, kind="stable")
    return [dataclasses.replace(windows[i], score=float(scores[i])) for i in order]


def fixed_context(ranked: Sequence[Hit], budget: int, count: Count) -> ContextFit:
    """The ranked fixed windows fitted as chunks are: whole, best first while they fit,
    shown in document order (:func:`~lateseg.generate.remote.context.fit_context`)."""
    return fit_context(ranked, budget, count)
