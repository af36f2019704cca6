"""Segmentation: choose chunk boundaries of a document from its token embeddings.

Chunkers share one protocol: ``chunk(doc, tokens) -> list[Chunk]``; the dynamic
segmenter (content-defined, the default) and the fixed-size baseline implement it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from lateseg.errors import ConfigError
from lateseg.segment.dynamic import DynamicChunker, DynamicConfig
from lateseg.segment.fixed import FixedChunker
from lateseg.validate import check_fields, shown

if TYPE_CHECKING:
    from lateseg.encode.late import TokenEmbeddings
    from lateseg.types import Chunk, Document


class Chunker(Protocol):
    """Splits a document into ordered, disjoint chunks covering its non-blank text."""

    def chunk(self, doc: Document, tokens: TokenEmbeddings) -> list[Chunk]: ...

    def to_dict(self) -> dict[str, object]: ...


CHUNKERS = ("dynamic", "fixed")

#: What an index's manifest records as ``segmenter``: the version of the rules that decide
#: a document's structure and boundaries (``ingest/`` structure, ``text/boundaries``,
#: ``segment/``). 0: an index from before it was recorded; 1: tables of contents and
#: indexes are ``toc`` spans, chapters are clauses, a chunk is cited by the section holding
#: most of it; 2: a table row of a PDF, DOCX or HTML table is one line carrying its
#: column headers, and a chunk never ends inside it. Documents keep the structure they
#: were ingested with until their file changes, so a manifest below this version means
#: older citations may remain.
SEGMENTER_VERSION = 2


def chunker_from_dict(d: Any) -> Chunker:
    """Rebuild a chunker from its ``to_dict()`` (as stored in an index manifest, which
    may come from anyone: every field is checked, and a bad one is named)."""
    if not isinstance(d, dict):
        raise ConfigError(f"{shown(d)} is not an object")
    d = dict(d)
    kind = d.pop("type", None)
    if kind == "dynamic":
        code = d.pop("code", None)
        check_fields(DynamicConfig, d, "chunker")
        if code is not None:
            if not isinstance(code, dict):
                raise ConfigError(f"chunker.code: {shown(code)} is not an object")
            check_fields(DynamicConfig, code, "chunker.code")
        return DynamicChunker(DynamicConfig(**d), DynamicConfig(**code) if code else None)
    if kind == "fixed":
        check_fields(FixedChunker, d, "chunker")
        return FixedChunker(**d)
    raise ConfigError(f"unknown chunker type {kind!r}; expected one of {', '.join(CHUNKERS)}")


__all__ = [
    "CHUNKERS",
    "SEGMENTER_VERSION",
    "Chunker",
    "DynamicChunker",
    "DynamicConfig",
    "FixedChunker",
    "chunker_from_dict",
]
