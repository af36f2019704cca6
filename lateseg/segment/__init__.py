"""Segmentation: choose chunk boundaries of a document from its token embeddings.

Chunkers share one protocol: ``chunk(doc, tokens) -> list[Chunk]``; the dynamic
segmenter (content-defined, the default) and the fixed-size baseline implement it. They
are the registry :data:`CHUNKERS` (:mod:`lateseg.segment.base`): a new chunker is a class
with a ``name`` and one ``@CHUNKERS.register`` line.
"""

from __future__ import annotations

from typing import Any

from lateseg.errors import ConfigError
from lateseg.segment.base import CHUNKERS, Chunker
from lateseg.segment.dynamic import DynamicChunker, DynamicConfig
from lateseg.segment.fixed import FixedChunker
from lateseg.validate import shown

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
    may come from anyone: every field is checked, and a bad one is named):
    :meth:`CHUNKERS.from_dict <lateseg.registry.Registry.from_dict>`, with the messages
    an index's manifest has always given."""
    if not isinstance(d, dict):
        raise ConfigError(f"{shown(d)} is not an object")
    kind = d.get("type")
    if not isinstance(kind, str) or kind not in CHUNKERS:
        raise ConfigError(f"unknown chunker type {kind!r}; expected one of {', '.join(CHUNKERS)}")
    return CHUNKERS.from_dict(d)


__all__ = [
    "CHUNKERS",
    "SEGMENTER_VERSION",
    "Chunker",
    "DynamicChunker",
    "DynamicConfig",
    "FixedChunker",
    "chunker_from_dict",
]
