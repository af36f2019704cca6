"""KV-cache compression for the generator: whole content-defined chunks (ChunkKV with
chunks from the text), with the fixed-chunk, SnapKV, KeyDiff, StreamingLLM and full-cache
baselines behind the same protocol. See :mod:`lateseg.kv.compress`; each method is a
press in :mod:`lateseg.kv.presses`."""

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
from lateseg.kv.presses import PRESSES, Press, register

__all__ = [
    "METHODS",
    "PRESSES",
    "Compressed",
    "KVConfig",
    "ObservationWindow",
    "Press",
    "compress",
    "content_chunks",
    "fixed_chunks",
    "parse_budget",
    "register",
    "truncate",
]
