"""The support check: whether each sentence of a written answer is stated by the
passages it cites (:func:`~lateseg.check.support.check_support`), found from the
sentence's facts (values, names, the question's subject) and its closest evidence, with
verbatim copies told apart (:mod:`lateseg.check.verbatim`).

May import :mod:`lateseg.answer` (the analysed question, its phrases), :mod:`lateseg.text`
and :mod:`lateseg.types`; never :mod:`lateseg.generate` (a check never runs a generator)
nor :mod:`lateseg.index`. The embedder it compares with is handed in.
"""

from __future__ import annotations

from lateseg.check.support import check_support

__all__ = ["check_support"]
