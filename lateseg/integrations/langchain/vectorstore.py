"""``LatesegVectorStore``: late chunking behind a LangChain ``VectorStore``; embeddings."""

from __future__ import annotations

import os
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from lateseg.encode.config import EncoderConfig
from lateseg.encode.late import LateEncoder
from lateseg.errors import ConfigError
from lateseg.integrations.langchain._common import SOURCE_PREFIX, hit_document, open_pipeline
from lateseg.options import OpenOptions
from lateseg.pipeline import Pipeline
from lateseg.types import DOC_ID_LENGTH, Hit, stable_id
from lateseg.types import Document as LatesegDocument


class LatesegEmbeddings(Embeddings):
    """lateseg's encoder (default: all-MiniLM-L6-v2, offline) as LangChain embeddings:
    queries with the model's query prefix, texts embedded alone (mean-pooled, unit
    length). Documents added to :class:`LatesegVectorStore` are *not* embedded this way:
    they are read whole and chunked late."""

    def __init__(
        self,
        model: str | None = None,
        *,
        encoder: LateEncoder | None = None,
        device: str | None = None,
    ) -> None:
        if encoder is not None and model is not None:
            raise ConfigError("give either model= or encoder=, not both")
        self.encoder = encoder or LateEncoder(
            EncoderConfig(model=model or EncoderConfig.model, device=device)
        )

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return [[float(x) for x in row] for row in self.encoder.embed_texts(texts)]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.encoder.embed_queries([text])[0]]


class LatesegVectorStore(VectorStore):
    """A LangChain vector store on a lateseg index (FAISS + SQLite).

    ``LatesegVectorStore(index="folder")`` opens or creates an index folder; without
    ``index`` the store lives in a temporary folder removed with the store. Documents
    are identified by their IDs (given, ``Document.id`` or new UUIDs); adding an ID again
    replaces that document. A document short enough to be one chunk comes back exactly
    as it was added; a longer one comes back as its matching chunks, with ``start``,
    ``end`` (character offsets into the document) and ``section`` added to its metadata
    and the document's ID. Metadata is stored as JSON (tuples come back as lists).
    ``filter`` in searches is a dict of metadata values that must be equal, or a
    function of the metadata. Scores are cosine similarities; relevance scores map them
    to [0, 1].
    """

    def __init__(
        self,
        embedding: Embeddings | None = None,
        *,
        index: str | os.PathLike[str] | Pipeline | None = None,
        vectors: str | None = None,
    ) -> None:
        if embedding is not None and not isinstance(embedding, LatesegEmbeddings):
            raise ConfigError(
                f"LatesegVectorStore embeds with lateseg's own late encoder, which reads "
                f"whole documents; {type(embedding).__name__} cannot give token vectors. "
                "Pass LatesegEmbeddings(model=...) to choose the model, or nothing."
            )
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if index is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="lateseg-langchain-")
            index = self._tmp.name
        embedder = embedding.encoder.config if embedding is not None else None
        # a pipeline given is open already: its options are its own (as before, not checked)
        opening = (
            None if isinstance(index, Pipeline) else OpenOptions(embedder=embedder, vectors=vectors)
        )
        self.pipeline = open_pipeline(index, opening)
        self._embedding = embedding or LatesegEmbeddings(encoder=self.pipeline.encoder)
        self._lock = threading.RLock()

    @property
    def embeddings(self) -> Embeddings:
        return self._embedding

    def close(self) -> None:
        """Close the index (and remove it when it is temporary)."""
        self.pipeline.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    # adding and removing
    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict[Any, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        texts = list(texts)
        if metadatas is not None and len(metadatas) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(metadatas)} metadatas")
        docs = [
            Document(page_content=t, metadata=dict(metadatas[i]) if metadatas else {})
            for i, t in enumerate(texts)
        ]
        return self.add_documents(docs, ids=ids, **kwargs)

    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        from lateseg.ingest.contract.clauses import contract_structure
        from lateseg.ingest.text import markdown_headings

        ids = kwargs.pop("ids", None)
        if kwargs:
            raise TypeError(f"unknown arguments: {', '.join(sorted(kwargs))}")
        if ids is None:
            ids = [d.id or str(uuid.uuid4()) for d in documents]
        ids = [str(i) for i in ids]
        if len(ids) != len(documents):
            raise ValueError(f"{len(documents)} documents but {len(ids)} ids")
        last = {i: n for n, i in enumerate(ids)}  # an ID given twice: the last one wins
        docs = []
        for n, (doc_id, doc) in enumerate(zip(ids, documents, strict=True)):
            if last[doc_id] != n:
                continue
            text = doc.page_content
            if not text.strip():
                raise ValueError(f"document {doc_id!r} has no text to index")
            structure = tuple(markdown_headings(text) + contract_structure(text))
            meta = {"langchain": {"id": doc_id, "metadata": doc.metadata}}
            source = SOURCE_PREFIX + doc_id
            # the ID of any other document's format, from the source alone: the same
            # LangChain ID replaces its document whatever the new text
            key = stable_id(source, length=DOC_ID_LENGTH)
            docs.append(LatesegDocument(source, text, "text", structure, meta, id=key))
        with self._lock:
            self.pipeline.add_documents(docs)
        return ids

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Remove the documents with these IDs (unknown IDs are ignored); ``None``
        removes every document added through LangChain."""
        with self._lock:
            if ids is None:
                sources = [s for s in self.pipeline.sources() if s.startswith(SOURCE_PREFIX)]
            else:
                sources = [SOURCE_PREFIX + str(i) for i in ids]
            self.pipeline.remove(sources)
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        out = []
        with self._lock:
            for i in ids:
                doc = self.pipeline.retriever.find_document(SOURCE_PREFIX + str(i))
                if doc is not None:
                    lc = doc.meta.get("langchain", {})
                    out.append(
                        Document(page_content=doc.text, metadata=lc.get("metadata", {}), id=str(i))
                    )
        return out

    # searching
    def similarity_search_with_score(
        self,
        query: str,
        k: int = 4,
        filter: dict[str, Any] | Callable[[dict[str, Any]], bool] | None = None,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        if kwargs:
            raise TypeError(f"unknown search arguments: {', '.join(sorted(kwargs))}")
        made: dict[int, tuple[Document, float]] = {}

        def where(hits: list[Hit]) -> list[Hit]:
            """The hits whose LangChain document matches ``filter`` (documents kept)."""
            pairs = zip(hits, self._documents(hits), strict=True)
            made.update((h.chunk_id, found) for h, found in pairs)
            return [h for h in hits if _matches(made[h.chunk_id][0].metadata, filter)]

        with self._lock:
            hits = self.pipeline.retriever.search(query, k, where=None if filter is None else where)
            return [made[h.chunk_id] for h in hits] if filter else self._documents(hits)

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return [d for d, _ in self.similarity_search_with_score(query, k, **kwargs)]

    def similarity_search_by_vector(
        self, embedding: list[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        raise NotImplementedError(
            "LatesegVectorStore searches by query text (its query embedding carries the "
            "model's query prefix); use similarity_search"
        )

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        return lambda cosine: (1.0 + cosine) / 2.0

    def _documents(self, hits: list[Hit]) -> list[tuple[Document, float]]:
        rows = self.pipeline.retriever.document_rows([h.doc_id for h in hits])
        out = []
        for h in hits:
            row = rows.get(h.doc_id)
            lc = row["meta"].get("langchain") if row else None
            if row is None or lc is None:  # a file indexed by `lateseg ingest`
                out.append((hit_document(h, row["kind"] if row else None), h.score))
            elif row["chunks"] == 1:
                out.append(
                    (
                        Document(page_content=row["text"], metadata=lc["metadata"], id=lc["id"]),
                        h.score,
                    )
                )
            else:
                meta = {**lc["metadata"], "start": h.start, "end": h.end, "section": h.section}
                out.append((Document(page_content=h.text, metadata=meta, id=lc["id"]), h.score))
        return out

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings | None = None,
        metadatas: list[dict[Any, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        index: str | os.PathLike[str] | Pipeline | None = None,
        **kwargs: Any,
    ) -> LatesegVectorStore:
        store = cls(embedding, index=index, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    @classmethod
    def from_documents(  # type: ignore[override]
        cls,
        documents: list[Document],
        embedding: Embeddings | None = None,
        *,
        ids: list[str] | None = None,
        index: str | os.PathLike[str] | Pipeline | None = None,
        **kwargs: Any,
    ) -> LatesegVectorStore:
        store = cls(embedding, index=index, **kwargs)
        store.add_documents(documents, ids=ids)
        return store


def _matches(meta: dict[str, Any], flt: Any) -> bool:
    if flt is None:
        return True
    if callable(flt):
        return bool(flt(meta))
    return all(meta.get(key) == value for key, value in flt.items())
