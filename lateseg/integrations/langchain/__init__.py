"""lateseg inside LangChain (``pip install 'lateseg[langchain]'``).

* :class:`LatesegRetriever`: a ``BaseRetriever`` over a lateseg index; documents carry
  ``source``, ``page``, ``page_end``, ``section``, ``start``, ``end`` and ``score`` in
  their metadata (``line``/``line_end`` for code and text);
* :class:`LatesegLoader`: lateseg's ingestors (PDF, DOCX, HTML, Markdown, text, code) as a
  ``BaseLoader``, with the structure they find in the metadata;
* :class:`LatesegVectorStore`: a ``VectorStore`` backed by a lateseg index: every added
  document is read whole by the encoder, cut into content-defined chunks and each chunk's
  vector pooled from the contextual token embeddings (late chunking);
* :class:`LatesegEmbeddings`: lateseg's encoder as ``Embeddings`` (query and short texts);
* :class:`LatesegChatModel`: the local generator as a ``BaseChatModel`` (streaming, stop
  sequences, usage metadata), its KV cache optionally compressed by whole content-defined
  chunks (``kv_budget``), so ``retriever | prompt | llm | StrOutputParser()`` runs offline;
* :func:`answer_chain`: a ``Runnable`` from a question to lateseg's checked ``Answer``
  (phrase, support, citations), written by any chat model;
* :class:`ChatModelWriter`: any ``BaseChatModel`` as the writer of ``Pipeline.ask(q,
  llm=chat_model)`` (made for you when you pass the model).

Everything here runs locally; a chat model you pass goes where you configured it.
"""

from __future__ import annotations

try:  # one clear message before any adapter imports its part of langchain-core
    import langchain_core  # noqa: F401
    import pydantic  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "lateseg's LangChain integration needs langchain-core; install the extra: "
        "pip install 'lateseg[langchain]'"
    ) from e


from lateseg.generate.remote.chat import ChatModelWriter
from lateseg.integrations.langchain._common import SOURCE_PREFIX, hit_document
from lateseg.integrations.langchain.chain import answer_chain
from lateseg.integrations.langchain.chat import CALL_ARGUMENTS, LatesegChatModel
from lateseg.integrations.langchain.loader import LOADER_MODES, LatesegLoader
from lateseg.integrations.langchain.retriever import LatesegRetriever
from lateseg.integrations.langchain.vectorstore import LatesegEmbeddings, LatesegVectorStore

__all__ = [
    "CALL_ARGUMENTS",
    "LOADER_MODES",
    "SOURCE_PREFIX",
    "ChatModelWriter",
    "LatesegChatModel",
    "LatesegEmbeddings",
    "LatesegLoader",
    "LatesegRetriever",
    "LatesegVectorStore",
    "answer_chain",
    "hit_document",
]
