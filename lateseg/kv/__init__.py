"""KV-cache compression for the generator: whole content-defined chunks (ChunkKV with
chunks from the text), with the fixed-chunk, SnapKV, StreamingLLM and full-cache baselines
behind the same protocol. See :mod:`lateseg.kv.compress`."""

from __future__ import annotations

from lateseg.kv.chunks import content_chunks, fixed_chunks
from lateseg.kv.compress import (
    METHODS,
    Compressed,
    KVConfig,
    ObservationWindow,
    compress,
    parse_budget,
    truncate,
)

__all__ = [
    "METHODS",
    "Compressed",
    "KVConfig",
    "ObservationWindow",
    "compress",
    "content_chunks",
    "fixed_chunks",
    "parse_budget",
    "truncate",
]
