"""Candidate boundaries in text: moved to :mod:`lateseg.text.boundaries` (this module
re-exports them for one release)."""

from lateseg.text.boundaries import (
    ABBREVIATIONS,
    clause_starts,
    line_starts,
    paragraph_starts,
    sentence_starts,
)

__all__ = ["ABBREVIATIONS", "clause_starts", "line_starts", "paragraph_starts", "sentence_starts"]
