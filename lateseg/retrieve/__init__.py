"""Retrieval: ranked chunks for a query from an :class:`~lateseg.index.Index`, with their
citations (:class:`~lateseg.retrieve.retriever.Retriever`: dense, lexical or hybrid, the
two fused by their scaled scores in :mod:`lateseg.retrieve.fusion`), and where each hit
lies in its document, found at query time (:mod:`lateseg.retrieve.provenance`: lines,
last page, contents).

May import :mod:`lateseg.index` (the store it reads), :mod:`lateseg.text`,
:mod:`lateseg.types` and the chunk spans of :mod:`lateseg.segment`; never generation.
"""

from __future__ import annotations

from lateseg.retrieve.retriever import SEARCH_MODES, Retriever

__all__ = ["SEARCH_MODES", "Retriever"]
