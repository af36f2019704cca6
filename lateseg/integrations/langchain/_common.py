"""What the LangChain adapters share: opening an index, a hit as a LangChain document."""

from __future__ import annotations

import os
from typing import Any

from langchain_core.documents import Document

from lateseg.options import OpenOptions
from lateseg.pipeline import Pipeline
from lateseg.types import Hit

#: Sources of documents added through :class:`LatesegVectorStore` (not files).
SOURCE_PREFIX = "langchain:"


def open_pipeline(
    index: str | os.PathLike[str] | Pipeline, options: OpenOptions | None = None
) -> Pipeline:
    """``index`` if it is a pipeline already, else the index there opened as ``options``
    say (:class:`~lateseg.options.OpenOptions`; None: the defaults)."""
    return index if isinstance(index, Pipeline) else Pipeline.open(index, options=options)


def hit_document(hit: Hit, kind: str | None = None) -> Document:
    """A LangChain document for a retrieved chunk, with its provenance in metadata."""
    meta: dict[str, Any] = {
        "source": hit.source,
        "page": hit.page,
        "page_end": hit.page_end,
        "section": hit.section,
        "start": hit.start,
        "end": hit.end,
        "score": hit.score,
        "chunk_id": hit.chunk_id,
    }
    if hit.line is not None:
        meta["line"], meta["line_end"] = hit.line, hit.line_end
    if kind is not None:
        meta["kind"] = kind
    return Document(page_content=hit.text, metadata=meta, id=str(hit.chunk_id))


# -- retriever ---------------------------------------------------------------------------
