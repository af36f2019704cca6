"""Segmentation: choose chunk boundaries of a document from its token embeddings.

Chunkers share one protocol: ``chunk(doc, tokens) -> list[Chunk]``; the dynamic
segmenter (content-defined, the default) and the fixed-size baseline implement it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from lateseg.segment.dynamic import DynamicChunker, DynamicConfig
from lateseg.segment.fixed import FixedChunker

if TYPE_CHECKING:
    from lateseg.encode.late import TokenEmbeddings
    from lateseg.types import Chunk, Document


class Chunker(Protocol):
    """Splits a document into ordered, disjoint chunks covering its non-blank text."""

    def chunk(self, doc: Document, tokens: TokenEmbeddings) -> list[Chunk]: ...

    def to_dict(self) -> dict[str, object]: ...


__all__ = ["Chunker", "DynamicChunker", "DynamicConfig", "FixedChunker"]
