"""lateseg: question answering over long documents with late + dynamic chunking.

``import lateseg`` is light: torch, transformers and faiss load only when a model or an
index is first used.
"""

from __future__ import annotations

from lateseg.errors import (
    ConfigError,
    IndexStoreError,
    IngestError,
    LatesegError,
    ModelError,
    OffsetError,
)
from lateseg.pipeline import Pipeline
from lateseg.types import Answer, Chunk, Document, Hit, IngestReport, Span

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "Chunk",
    "ConfigError",
    "Document",
    "Hit",
    "IndexStoreError",
    "IngestError",
    "IngestReport",
    "LatesegError",
    "ModelError",
    "OffsetError",
    "Pipeline",
    "Span",
]
