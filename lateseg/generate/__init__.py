"""Answering: a local Hugging Face generator that cites passages, or extraction."""

from __future__ import annotations

from lateseg.answer.citations import parse_citations
from lateseg.answer.extractive import extractive_answer

__all__ = ["extractive_answer", "parse_citations"]
