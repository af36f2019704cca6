"""How an ask retrieves for a question about code (``Asked.code``): the units it names by
name read first, and the scale of a hybrid search that ``"auto"`` chose.

* :func:`has_code`: whether the index holds code at all; :func:`is_codebase`: whether
  what a search looks in is mostly code. A question worded as one about
  code ("what is the default …") asked of contracts is asked as any other question:
  :meth:`Answerer.prepare <lateseg.ask.answering.Answerer.prepare>` clears its ``code``.
* :func:`with_named_units`: the functions, methods and classes the question names
  (:func:`~lateseg.retrieve.symbols.named_units`) before the hits, scored as the best.
* :func:`cosine_scored`: hits that a hybrid search chose, scored by their cosine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lateseg.errors import IndexStoreError
from lateseg.retrieve.fusion import POOL
from lateseg.retrieve.symbols import named_units

if TYPE_CHECKING:
    from lateseg.retrieve.retriever import Retriever
    from lateseg.types import Hit


def has_code(retriever: Retriever) -> bool:
    """Whether the index holds a document of kind ``code``."""
    return bool(retriever.index.store.kinds().get("code"))


#: A search looks in a codebase where at least this share of its chunks are code.
CODEBASE_SHARE = 0.5


def is_codebase(retriever: Retriever, kind: str | None = None) -> bool:
    """Whether a search of documents of ``kind`` (any, for None) looks in a codebase: at
    least :data:`CODEBASE_SHARE` of its chunks are code (a repository's READMEs and
    docs beside its sources; not contracts with a sample script)."""
    if kind is not None:
        return kind == "code"
    counts = retriever.chunk_kinds()
    return counts.get("code", 0) >= CODEBASE_SHARE * max(sum(counts.values()), 1)


def with_named_units(
    retriever: Retriever,
    question: str,
    hits: list[Hit],
    *,
    source: str | None = None,
    kind: str | None = None,
    sources: Sequence[str] | None = None,
) -> list[Hit]:
    """``hits`` after the units ``question`` names that they lack, each scored as the
    best hit; none where the search is of another kind than code, and none from an
    index without lexical search (one made before it, read-only)."""
    if not hits or kind not in (None, "code"):
        return hits
    try:
        found = named_units(retriever, question, sources=sources, source=source)
    except IndexStoreError:
        return hits
    top = max(h.score for h in hits)
    have = {h.chunk_id for h in hits}
    return [dataclasses.replace(h, score=top) for h in found if h.chunk_id not in have] + hits


def cosine_scored(
    retriever: Retriever, question: str, hits: list[Hit], select: dict[str, Any]
) -> list[Hit]:
    """``hits`` in their order, each scored by its cosine similarity to ``question`` (of
    the best :data:`~lateseg.retrieve.fusion.POOL` dense hits; one not among them,
    found by its words only, scores the least of those): a hybrid search that ``"auto"``
    chose scores its hits as a dense one does, the scale the answerer's confidence was
    fitted on (a fused value is not a cosine)."""
    if not hits:
        return hits
    dense = retriever.search(question, max(POOL, len(hits)), **{**select, "mode": "dense"})
    cosine = {h.chunk_id: h.score for h in dense}
    floor = min(cosine.values(), default=0.0)
    return [dataclasses.replace(h, score=cosine.get(h.chunk_id, floor)) for h in hits]
