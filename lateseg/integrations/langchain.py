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

import hashlib
import logging
import os
import queue
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import Any

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForLLMRun,
        CallbackManagerForLLMRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.document_loaders import BaseLoader
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import (
        AIMessage,
        AIMessageChunk,
        BaseMessage,
        ChatMessage,
        ToolMessage,
    )
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables.config import run_in_executor
    from langchain_core.vectorstores import VectorStore
    from pydantic import ConfigDict, Field, PrivateAttr, model_validator
except ImportError as e:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "lateseg's LangChain integration needs langchain-core; install the extra: "
        "pip install 'lateseg[langchain]'"
    ) from e

from lateseg.encode.late import EncoderConfig, LateEncoder
from lateseg.encode.models import DEFAULT_GENERATOR
from lateseg.errors import ConfigError
from lateseg.kv.compress import KVConfig
from lateseg.pipeline import Pipeline
from lateseg.segment.spans import SECTION_KINDS
from lateseg.types import Document as LatesegDocument
from lateseg.types import Hit

log = logging.getLogger(__name__)

#: Sources of documents added through :class:`LatesegVectorStore` (not files).
SOURCE_PREFIX = "langchain:"

__all__ = [
    "LatesegChatModel",
    "LatesegEmbeddings",
    "LatesegLoader",
    "LatesegRetriever",
    "LatesegVectorStore",
]


def _open(index: str | os.PathLike[str] | Pipeline) -> Pipeline:
    return index if isinstance(index, Pipeline) else Pipeline.open(index)


def hit_document(hit: Hit, kind: str | None = None) -> Document:
    """A LangChain document for a retrieved chunk, with its provenance in metadata."""
    meta: dict[str, Any] = {
        "source": hit.source,
        "page": hit.page,
        "page_end": hit.page_end,
        "section": hit.section,
        "start": hit.start,
        "end": hit.end,
        "score": hit.score,
        "chunk_id": hit.chunk_id,
    }
    if hit.line is not None:
        meta["line"], meta["line_end"] = hit.line, hit.line_end
    if kind is not None:
        meta["kind"] = kind
    return Document(page_content=hit.text, metadata=meta, id=str(hit.chunk_id))


# -- retriever ---------------------------------------------------------------------------
class LatesegRetriever(BaseRetriever):
    """The ``k`` best chunks of a lateseg index for a query.

    Build it from a :class:`~lateseg.Pipeline` (``pipeline=``) or an index folder
    (``index=``). ``mode`` is ``dense`` (default), ``lexical`` or ``hybrid``; ``source``
    (a glob over file paths) and ``kind`` (``pdf``, ``code``, ``text`` …) filter; each of
    ``k``, ``mode``, ``source`` and ``kind`` can also be given per call:
    ``retriever.invoke(q, k=2, kind="pdf")``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    pipeline: Pipeline
    k: int = Field(default=4, ge=1)
    mode: str = "dense"
    source: str | None = None
    kind: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_index(cls, values: Any) -> Any:
        if isinstance(values, dict) and "index" in values:
            values = dict(values)
            index = values.pop("index")
            if values.get("pipeline") is not None:
                raise ConfigError("give either pipeline= or index=, not both")
            values["pipeline"] = _open(index)
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
        **kwargs: Any,
    ) -> list[Document]:
        if kwargs:
            raise TypeError(f"unknown search arguments: {', '.join(sorted(kwargs))}")
        hits = self.pipeline.search(
            query,
            k or self.k,
            mode=mode or self.mode,
            source=source if source is not None else self.source,
            kind=kind if kind is not None else self.kind,
        )
        return [hit_document(h) for h in hits]


# -- loader ------------------------------------------------------------------------------
LOADER_MODES = ("document", "page", "section")
# A file's sections as citations know them, less the module: a source file's module span
# covers the whole file, so per-section pieces start at its classes and functions.
LOADER_SECTION_KINDS = frozenset(SECTION_KINDS) - {"module"}


class LatesegLoader(BaseLoader):
    """Files and folders read by lateseg's ingestors, one LangChain document per file
    (``mode="document"``), per PDF page (``"page"``) or per top-level section, clause or
    code unit (``"section"``; text before the first is its own piece).

    Metadata: ``source`` (absolute path), ``kind`` (``pdf``, ``docx``, ``code`` …) and
    what the parser found (``title``, ``language`` …); per document also ``structure``
    (a list of ``{kind, label, start, end}``); per page ``page``; per section
    ``section``, ``section_kind``, ``start``, ``end`` and ``page``. Offsets index the
    file's extracted text. Files that cannot be read are logged, skipped and listed in
    :attr:`failed` (path, reason); the others load. ``workers`` parse in that many
    processes, in file order (None: as ``lateseg ingest`` decides; 0: in this one).
    """

    def __init__(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        mode: str = "document",
        password: str | None = None,
        walk_config: Any = None,
        workers: int | None = None,
    ) -> None:
        if mode not in LOADER_MODES:
            raise ConfigError(f"mode={mode!r}; choose one of {', '.join(LOADER_MODES)}")
        self.paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        self.mode = mode
        self.password = password
        self.walk_config = walk_config
        self.workers = workers
        self.failed: list[tuple[str, str]] = []
        self.skipped: list[tuple[str, str]] = []

    def lazy_load(self) -> Iterator[Document]:
        from lateseg.ingest.folder import walk
        from lateseg.ingest.parallel import ParseJob, parse_all

        found = walk(self.paths, self.walk_config)
        self.skipped = list(found.skipped)
        self.failed = list(found.failed)
        jobs = [
            ParseJob(str(f.path), str(f.root) if f.root else None, None, self.password, f.identity)
            for f in found.files
        ]
        for parsed in parse_all(jobs, self.workers):
            if parsed.doc is None:
                log.warning("skipped %s: %s", parsed.source, parsed.error)
                self.failed.append((parsed.source, parsed.error or "not parsed"))
                continue
            yield from self._split(parsed.doc)

    def _split(self, doc: LatesegDocument) -> Iterator[Document]:
        base = {
            "source": doc.source,
            "kind": doc.kind,
            **{k: v for k, v in doc.meta.items() if isinstance(v, (str, int, float, bool))},
        }
        pages = doc.spans("page")

        def page_at(pos: int) -> int | None:
            for p in pages:
                if p.start <= pos < p.end:
                    return int(p.label) if p.label.isdigit() else None
            return None

        if self.mode == "document":
            structure = [s.to_dict() for s in doc.structure]
            yield Document(page_content=doc.text, metadata={**base, "structure": structure})
        elif self.mode == "page":
            for p in pages or []:
                yield Document(
                    page_content=doc.text[p.start : p.end],
                    metadata={**base, "page": page_at(p.start), "start": p.start, "end": p.end},
                )
            if not pages:
                yield Document(page_content=doc.text, metadata={**base, "page": None})
        else:
            tops: list[Any] = []
            for s in doc.structure:  # outer spans come first at equal starts
                if s.kind in LOADER_SECTION_KINDS and not any(t.end >= s.end for t in tops):
                    tops.append(s)
            cuts = [(0, None)] + [(s.start, s) for s in tops if s.start > 0]
            if tops and tops[0].start == 0:
                cuts[0] = (0, tops[0])
            for (start, span), nxt in zip(cuts, [*cuts[1:], (len(doc.text), None)], strict=True):
                text = doc.text[start : nxt[0]]
                if not text.strip():
                    continue
                yield Document(
                    page_content=text,
                    metadata={
                        **base,
                        "section": span.label if span else None,
                        "section_kind": span.kind if span else None,
                        "start": start,
                        "end": nxt[0],
                        "page": page_at(start),
                    },
                )


# -- embeddings and vector store ---------------------------------------------------------
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
        if isinstance(index, Pipeline):
            self.pipeline = index
        else:
            if index is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="lateseg-langchain-")
                index = self._tmp.name
            embedder = embedding.encoder.config if embedding is not None else None
            self.pipeline = Pipeline.open(index, embedder=embedder, vectors=vectors)
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
        from lateseg.ingest.contract import contract_structure
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
            docs.append(LatesegDocument(source, text, "text", structure, meta, id=_doc_key(source)))
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


def _doc_key(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:32]


def _matches(meta: dict[str, Any], flt: Any) -> bool:
    if flt is None:
        return True
    if callable(flt):
        return bool(flt(meta))
    return all(meta.get(key) == value for key, value in flt.items())


# -- chat model --------------------------------------------------------------------------
_GENERATORS: dict[tuple[str, str | None], Any] = {}
_GENERATORS_LOCK = threading.Lock()


def _generator(model: str, device: str | None) -> Any:
    """One loaded generator per (model, device) in the process, shared by chat models."""
    from lateseg.generate.local import LocalGenerator

    with _GENERATORS_LOCK:
        key = (model, device)
        if key not in _GENERATORS:
            gen = LocalGenerator(model, device=device)
            gen.load()
            _GENERATORS[key] = gen
        return _GENERATORS[key]


#: Per-call arguments of the chat model (``llm.invoke(msgs, max_tokens=64)``).
CALL_ARGUMENTS = frozenset({"model", "max_tokens", "temperature", "seed", "kv_budget", "kv_method"})


class LatesegChatModel(BaseChatModel):
    """A local Hugging Face chat model (default: SmolLM2-135M-Instruct, offline) with
    lateseg's decoding loop.

    ``kv_budget`` (tokens, or a share of the prompt such as 0.25) compresses the KV cache
    after prefill by keeping whole content-defined chunks (``kv_method="lateseg"``; also
    ``chunkkv-fixed``, ``snapkv``, ``streaming``); the observation window is the text
    after the last ``Question:`` in the prompt, else its last tokens. ``temperature`` 0
    (the default) decodes greedily; above 0 samples (``seed`` fixes the draw). ``stop``
    strings end the answer (not included). ``timeout`` and ``max_retries`` are accepted
    for compatibility and unused: nothing is sent anywhere. Text messages only.
    """

    model_config = ConfigDict(populate_by_name=True)

    model: str = Field(default=DEFAULT_GENERATOR, alias="model_name")
    temperature: float | None = 0.0
    max_tokens: int | None = Field(default=256, ge=1)
    stop: list[str] | None = Field(default=None, alias="stop_sequences")
    streaming: bool = False
    kv_budget: int | float | None = None
    kv_method: str | None = None
    device: str | None = None
    seed: int | None = None
    timeout: float | None = None
    max_retries: int | None = None
    _checked: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _check(self) -> LatesegChatModel:
        if self.temperature is not None and self.temperature < 0:
            raise ConfigError(f"temperature={self.temperature} must be >= 0")
        KVConfig.from_options(self.kv_budget, self.kv_method)  # validates the pair
        return self

    @property
    def _llm_type(self) -> str:
        return "lateseg-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "kv_budget": self.kv_budget,
            "kv_method": self.kv_method,
        }

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "lateseg"
        params["ls_model_name"] = kwargs.get("model", self.model)
        params["ls_max_tokens"] = kwargs.get("max_tokens", self.max_tokens)
        params["ls_temperature"] = kwargs.get("temperature", self.temperature)
        if stop or self.stop:
            params["ls_stop"] = stop or self.stop
        return params

    def _call(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        on_text: Callable[[str], None] | None,
    ) -> AIMessage:
        unknown = set(kwargs) - CALL_ARGUMENTS
        if unknown:
            raise TypeError(f"unknown generation arguments: {', '.join(sorted(unknown))}")
        model = kwargs.get("model", self.model)
        kv = KVConfig.from_options(
            kwargs.get("kv_budget", self.kv_budget), kwargs.get("kv_method", self.kv_method)
        )
        gen = _generator(model, self.device)
        done = gen.complete(
            _chat(messages),
            kv=kv,
            stream=on_text,
            max_new_tokens=kwargs.get("max_tokens", self.max_tokens) or gen.max_new_tokens,
            stop=[*(stop if stop is not None else self.stop or [])],
            temperature=kwargs.get("temperature", self.temperature) or 0.0,
            seed=kwargs.get("seed", self.seed),
        )
        meta: dict[str, Any] = {"model_name": model, "finish_reason": done.finish_reason}
        if done.kv_stats is not None:
            meta["kv"] = done.kv_stats
        return AIMessage(
            content=done.text,
            response_metadata=meta,
            usage_metadata={
                "input_tokens": done.prompt_tokens,
                "output_tokens": done.completion_tokens,
                "total_tokens": done.prompt_tokens + done.completion_tokens,
            },
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.streaming:
            chunks = list(self._stream(messages, stop, run_manager, **kwargs))
            full = chunks[0].message
            for c in chunks[1:]:
                full = full + c.message
            message = AIMessage(
                content=full.content,
                response_metadata=full.response_metadata,
                usage_metadata=getattr(full, "usage_metadata", None),
            )
        else:
            message = self._call(messages, stop, kwargs, None)
        info = {"finish_reason": message.response_metadata.get("finish_reason")}
        return ChatResult(generations=[ChatGeneration(message=message, generation_info=info)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Pieces of text as they are decoded (a worker thread decodes; the pieces come
        through a queue), then a last chunk with the usage and the finish reason."""
        pieces: queue.Queue[Any] = queue.Queue()
        stopped = threading.Event()
        done = object()

        def on_text(text: str) -> None:
            if stopped.is_set():
                raise _Abandoned
            pieces.put(text)

        def work() -> None:
            try:
                pieces.put(self._call(messages, stop, kwargs, on_text))
            except _Abandoned:
                pass
            except BaseException as e:  # handed to the consumer
                pieces.put(e)
            finally:
                pieces.put(done)

        worker = threading.Thread(target=work, name="lateseg-chat-stream", daemon=True)
        worker.start()
        final: AIMessage | None = None
        try:
            while (item := pieces.get()) is not done:
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, AIMessage):
                    final = item
                    continue
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=item))
                if run_manager is not None:
                    run_manager.on_llm_new_token(item, chunk=chunk)
                yield chunk
        finally:
            stopped.set()
        assert final is not None
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                response_metadata=final.response_metadata,
                usage_metadata=final.usage_metadata,
                chunk_position="last",
            ),
            generation_info={"finish_reason": final.response_metadata.get("finish_reason")},
        )

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        iterator = self._stream(messages, stop, None, **kwargs)
        while True:
            chunk: ChatGenerationChunk | None = await run_in_executor(None, next, iterator, None)
            if chunk is None:
                return
            if run_manager is not None and chunk.message.content:
                await run_manager.on_llm_new_token(str(chunk.message.content), chunk=chunk)
            yield chunk


class _Abandoned(Exception):
    """The consumer of a stream stopped reading: the decoding thread stops too."""


_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


def _chat(messages: Sequence[BaseMessage]) -> list[dict[str, str]]:
    """LangChain messages as role/content dicts for the chat template (text only)."""
    out = []
    for m in messages:
        if isinstance(m, ChatMessage):
            role = m.role
        elif isinstance(m, ToolMessage):
            raise ConfigError("LatesegChatModel does not call tools; give it text messages")
        else:
            role = _ROLES.get(m.type, "user")
        if isinstance(m.content, str):
            text = m.content
        else:
            parts = []
            for block in m.content:
                if isinstance(block, str):
                    parts.append(block)
                elif block.get("type") == "text":
                    parts.append(str(block.get("text", "")))
                else:
                    raise ConfigError(
                        f"LatesegChatModel reads text only; got a {block.get('type')!r} block"
                    )
            text = "".join(parts)
        out.append({"role": role, "content": text})
    if not out:
        raise ConfigError("no messages to answer")
    return out
