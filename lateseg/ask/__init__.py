"""Asking, orchestrated: one question in, an answer out. :class:`~lateseg.ask.answering.Answerer`
retrieves the passages (:mod:`lateseg.retrieve`), quotes them (:mod:`lateseg.answer`),
or hands them to a local or remote writer (:mod:`lateseg.generate`), with a compressed
KV cache where asked (:mod:`lateseg.kv`); :mod:`lateseg.ask.options` holds the frozen,
validated option objects every front end passes (:class:`AskOptions`,
:class:`SearchOptions`).

The one package that may import all of answer, check, generate, kv and retrieve; only the
facade (:mod:`lateseg.pipeline`) and the front ends import it.
"""

from __future__ import annotations

from lateseg.ask.options import AskOptions, SearchOptions

__all__ = ["AskOptions", "SearchOptions"]
