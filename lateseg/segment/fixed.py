"""Fixed-size baseline: a boundary every ``size`` tokens, wherever it falls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from lateseg.errors import ConfigError
from lateseg.segment.base import register
from lateseg.segment.spans import chunks_from_boundaries
from lateseg.validate import check_fields

if TYPE_CHECKING:
    from lateseg.encode.late import TokenEmbeddings
    from lateseg.types import Chunk, Document


@register
@dataclass(frozen=True)
class FixedChunker:
    """Chunks of exactly ``size`` tokens (the last may be shorter).

    Kept as the baseline the benchmarks and the phase harness compare against: its
    boundaries depend on absolute token position, not on content.
    """

    name: ClassVar[str] = "fixed"
    summary: ClassVar[str] = "a boundary every size tokens (the baseline)"

    size: int = 256

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ConfigError(f"size={self.size} must be at least 1 token")

    def chunk(self, doc: Document, tokens: TokenEmbeddings) -> list[Chunk]:
        n = len(tokens)
        bounds = [*range(0, n, self.size), n] if n else []
        return chunks_from_boundaries(doc, tokens.offsets, bounds)

    def to_dict(self) -> dict[str, object]:
        return {"type": "fixed", "size": self.size}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FixedChunker:
        """The chunker a ``to_dict()`` less its ``type`` describes (fields checked)."""
        d = dict(d)
        check_fields(cls, d, "chunker")
        return cls(**d)
