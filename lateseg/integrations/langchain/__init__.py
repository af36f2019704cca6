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
  chunks (``kv_budget``), so ``retriever | prompt | llm | StrOutputParser()`` runs offline.

Everything runs locally; nothing here opens a network connection.
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


from lateseg.integrations.langchain._common import SOURCE_PREFIX, hit_document
from lateseg.integrations.langchain.chat import CALL_ARGUMENTS, LatesegChatModel
from lateseg.integrations.langchain.loader import LOADER_MODES, LatesegLoader
from lateseg.integrations.langchain.retriever import LatesegRetriever
from lateseg.integrations.langchain.vectorstore import LatesegEmbeddings, LatesegVectorStore

__all__ = [
    "CALL_ARGUMENTS",
    "LOADER_MODES",
    "SOURCE_PREFIX",
    "LatesegChatModel",
    "LatesegEmbeddings",
    "LatesegLoader",
    "LatesegRetriever",
    "LatesegVectorStore",
    "hit_document",
]
