"""Question analysis and quoting: what a question asks (:func:`~lateseg.answer.question.analyse`
makes an :class:`~lateseg.answer.question.Asked`), which sentences of the passages state
it (scope, conditions, cells, lists, sense), the phrase that answers it, the quoted
answer (:func:`~lateseg.answer.extractive.extractive_answer`) and its confidence.

No model runs here: the one embedder a quote uses to rank sentences is handed in (the
index's), and nothing here loads or runs a generator. May import :mod:`lateseg.types`,
:mod:`lateseg.errors` and :mod:`lateseg.text`; never :mod:`lateseg.generate`,
:mod:`lateseg.check`, :mod:`lateseg.kv`, :mod:`lateseg.index`, :mod:`lateseg.ingest` nor
model code (:mod:`lateseg.encode`, torch, transformers).
"""

from __future__ import annotations

from lateseg.answer.citations import parse_citations
from lateseg.answer.extractive import extractive_answer, quote_answer
from lateseg.answer.question import Asked, analyse

__all__ = ["Asked", "analyse", "extractive_answer", "parse_citations", "quote_answer"]
