"""What an ingest did, per path: the report ``Pipeline.ingest``, the Ray engine and
serve's ingest jobs return, and its one-line summary for the CLI and the page."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class IngestReport:
    """What an ingest did, per path (absolute).

    ``skipped`` are paths passed over on purpose (gitignored, binary, too large, ...);
    ``failed`` are paths that should have been ingested and could not be, with reasons.
    """

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    chunks: int = 0
    # Pages of the documents added or updated (PDFs; other kinds have none).
    pages: int = 0
    # Pruned documents: ``(path, reason)`` (file gone, now a folder, now gitignored ...).
    removed: list[tuple[str, str]] = field(default_factory=list)
    # Pages read by OCR, and pages of indexed documents that could not be read at all:
    # ``(path, "p. N: reason")`` (a scanned page without OCR installed, a page too large).
    ocr_pages: int = 0
    unread: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "failed": [{"path": p, "reason": r} for p, r in self.failed],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "chunks": self.chunks,
            "removed": [{"path": p, "reason": r} for p, r in self.removed],
            "ocr_pages": self.ocr_pages,
            "unread_pages": [{"path": p, "reason": r} for p, r in self.unread],
        }

    def summary(self) -> str:
        """One line: counts, with skips and failures grouped by reason."""
        line = (
            f"{len(self.added)} added, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {len(self.skipped)} skipped, "
            f"{len(self.failed)} failed, {self.chunks} chunks"
        )
        if self.removed:
            line += f", {len(self.removed)} removed"
        if self.ocr_pages:
            line += f", {self.ocr_pages} pages read by OCR"
        if self.unread:
            line += f", {len(self.unread)} pages not read"
        for name, items in (
            ("skipped", self.skipped),
            ("failed", self.failed),
            ("removed", self.removed),
        ):
            if items:
                line += f"\n{name} by reason: " + _by_reason(items)
        return line


def _by_reason(items: Sequence[tuple[str, str]]) -> str:
    """``"gitignored 3, binary 1"``: reasons cut at their first colon, most common first."""
    counts = Counter(reason.split(":", 1)[0].strip() for _, reason in items)
    return ", ".join(f"{reason} {n}" for reason, n in counts.most_common())
