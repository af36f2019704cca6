"""lateseg: question answering over long documents with late + dynamic chunking.

``import lateseg`` is light: torch, transformers and faiss load only when a model or an
index is first used.
"""

from __future__ import annotations

from lateseg import _moved
from lateseg.errors import (
    ConfigError,
    IndexStoreError,
    IngestError,
    LatesegError,
    ModelError,
    OffsetError,
)
from lateseg.generate.remote.config import LLMConfig
from lateseg.ingest.report import IngestReport
from lateseg.pipeline import AskOptions, Pipeline, SearchOptions
from lateseg.types import Answer, Chunk, Document, Hit, Span

__version__ = "0.1.0"

_moved.install()


def release_models() -> None:
    """Forget the models this process keeps loaded for reuse (embedders, query kits,
    generators, and each pipeline's generator): each is freed once nothing else holds
    it (a pipeline's encoder keeps its own) and loaded again when next used. For
    long-lived processes between jobs."""
    import sys

    modules = ("lateseg.encode.shared", "lateseg.generate.loading", "lateseg.ask.answering")
    for name in modules:
        module = sys.modules.get(name)  # never loaded: nothing to forget, nothing imported
        if module is not None:
            module.release_models()


__all__ = [
    "Answer",
    "AskOptions",
    "Chunk",
    "ConfigError",
    "Document",
    "Hit",
    "IndexStoreError",
    "IngestError",
    "IngestReport",
    "LLMConfig",
    "LatesegError",
    "ModelError",
    "OffsetError",
    "Pipeline",
    "SearchOptions",
    "Span",
    "release_models",
]
