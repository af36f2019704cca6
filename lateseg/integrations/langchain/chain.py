"""``answer_chain``: a LangChain ``Runnable`` from a question to lateseg's checked
:class:`~lateseg.types.Answer` (phrase, support, citations), not just text."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import Runnable, RunnableLambda

from lateseg.ask.options import AskOptions
from lateseg.integrations.langchain._common import open_pipeline
from lateseg.integrations.langchain.retriever import LatesegRetriever
from lateseg.pipeline import Pipeline
from lateseg.types import Answer

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel

    from lateseg.generate.remote.config import LLMConfig


def answer_chain(
    source: LatesegRetriever | Pipeline | str | os.PathLike[str],
    llm: BaseChatModel | LLMConfig | None = None,
    **options: Any,
) -> Runnable[str, Answer]:
    """A ``Runnable`` that answers a question (a string) with lateseg's
    :class:`~lateseg.types.Answer`: ``chain.invoke("…")``, ``chain.batch([...])``, or
    ``chain | RunnableLambda(lambda a: a.text)`` in LCEL.

    ``source``: a :class:`LatesegRetriever` (its index and its ``k``, ``mode``,
    ``source``, ``kind`` and ``rerank``), a :class:`~lateseg.Pipeline` or an index
    folder. ``llm``: any LangChain chat model (or an
    :class:`~lateseg.generate.remote.config.LLMConfig`) that writes the answer; lateseg
    still picks the passages (whole chunks under ``context_tokens``), checks every
    sentence, finds the answer phrase and cites; without one, lateseg answers as
    ``Pipeline.ask`` does by default (the quote). ``options``: any other option of
    :class:`~lateseg.ask.options.AskOptions` (``context_tokens=2000``,
    ``fallback=False`` …), over the retriever's. They are checked here, once: a wrong
    one is a :class:`~lateseg.errors.ConfigError` before any question.

    This is ``Pipeline.ask`` as a runnable: the answer comes whole (no token stream) and
    the chat model's run shows as a child of this one in LangChain's callbacks."""
    given: dict[str, Any] = {}
    if isinstance(source, LatesegRetriever):
        pipeline = source.pipeline
        given = {
            "k": source.k,
            "mode": source.mode,
            "source": source.source,
            "kind": source.kind,
            "rerank": source.rerank,
        }
    else:
        pipeline = open_pipeline(source)
    if llm is not None:
        given["llm"] = llm
    ask = AskOptions.of(**{**given, **options})

    def answer(question: str) -> Answer:
        if not isinstance(question, str):
            raise TypeError(
                f"answer_chain takes a question string, not {type(question).__name__}; "
                "map to it first, e.g. itemgetter('question') | chain"
            )
        return pipeline.ask(question, options=ask)

    return RunnableLambda(answer, name="lateseg_answer")
