"""Answering: a local Hugging Face generator that cites passages, or extraction."""

from __future__ import annotations

from lateseg.generate.citations import parse_citations
from lateseg.generate.extractive import extractive_answer

__all__ = ["extractive_answer", "parse_citations"]
