"""Local generation: the Hugging Face generator that writes or copies an answer from the
passages (:mod:`~lateseg.generate.local`: loaded once per process, its prompts, its
decode loop and stop rules, copy-constrained decoding, reranking by likelihood), the copy
and generate modes (:mod:`~lateseg.generate.answers`) and their answers made
(:mod:`~lateseg.generate.compose`); the :class:`~lateseg.generate.writer.Writer` protocol
and the ``WRITERS`` registry (:mod:`~lateseg.generate.writers`: a model behind a URL and
any LangChain chat model in :mod:`lateseg.generate.remote`, the local generator too).

May import :mod:`lateseg.answer` (the analysed question, quoting, phrases),
:mod:`lateseg.check` (a written answer is checked), :mod:`lateseg.kv` (its cache
compressed) and :mod:`lateseg.encode`'s model sources; never :mod:`lateseg.ask`, the
index or ingest. Question analysis and quoting, which run no model, are
:mod:`lateseg.answer` (``extractive_answer`` and ``parse_citations`` stay importable here).
"""

from __future__ import annotations

from lateseg.answer.citations import parse_citations
from lateseg.answer.extractive import extractive_answer

__all__ = ["extractive_answer", "parse_citations"]
