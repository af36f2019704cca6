"""``LatesegRetriever``: a LangChain ``BaseRetriever`` over a lateseg index."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, model_validator

from lateseg.errors import ConfigError
from lateseg.integrations.langchain._common import hit_document, open_pipeline
from lateseg.pipeline import Pipeline, SearchOptions


class LatesegRetriever(BaseRetriever):
    """The ``k`` best passages of a lateseg index for a query.

    Build it from a :class:`~lateseg.Pipeline` (``pipeline=``) or an index folder
    (``index=``). ``mode`` is ``auto`` (default: dense, but hybrid for a question about
    code or of a codebase), ``dense``, ``lexical`` or ``hybrid``; ``source`` (a glob
    over file paths) and ``kind`` (``pdf``, ``code``, ``text`` …) filter;
    ``rerank="generator"`` re-ranks the top hits by the local generator's likelihood of
    the query (:mod:`lateseg.generate.rerank`: better on code and manuals, seconds a query;
    off by default). ``passages``: ``auto`` (default: for a search about code, each code
    hit is the whole function, method or class it lies in, up to 8,000 characters),
    ``chunks`` or ``units`` (:data:`~lateseg.ask.options.PASSAGES`). Each of ``k``,
    ``mode``, ``source``, ``kind``, ``rerank`` and ``passages`` can also be given per
    call: ``retriever.invoke(q, k=2, kind="pdf")``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    pipeline: Pipeline
    k: int = Field(default=4, ge=1)
    mode: str = "auto"
    source: str | None = None
    kind: str | None = None
    rerank: str | None = None
    passages: str = "auto"

    @model_validator(mode="before")
    @classmethod
    def _from_index(cls, values: Any) -> Any:
        if isinstance(values, dict) and "index" in values:
            values = dict(values)
            index = values.pop("index")
            if values.get("pipeline") is not None:
                raise ConfigError("give either pipeline= or index=, not both")
            values["pipeline"] = open_pipeline(index)
        return values

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        mode: str | None = None,
        source: str | None = None,
        kind: str | None = None,
        rerank: str | None = None,
        passages: str | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        if kwargs:
            raise TypeError(f"unknown search arguments: {', '.join(sorted(kwargs))}")
        options = SearchOptions(
            k or self.k,
            mode or self.mode,
            source if source is not None else self.source,
            kind if kind is not None else self.kind,
            rerank=rerank if rerank is not None else self.rerank,
            passages=passages if passages is not None else self.passages,
        )
        hits = self.pipeline.search(query, options=options)
        return [hit_document(h) for h in hits]
