"""What the page, the HTTP API and the MCP server do, without the web: search and ask
over one index, the generation queue, the index's status, and hits and answers as JSON.
Documents by ID (highlights, page images, passage views) are
:class:`~lateseg.serve.documents.Documents`, owned here as ``service.documents``.

One :class:`Service` per process holds a read-only :class:`~lateseg.pipeline.Pipeline`
(it sees other processes' ingests before each search, as every reader does). Retrieval
and the embedder run under one lock (the index's caches and the embedder are not made
for concurrent calls); generation runs outside it, one answer at a time, with at most
``queue`` waiting: a full queue raises :class:`Busy`, so searches go on during an answer.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lateseg.ask.options import AskOptions, SearchOptions
from lateseg.ask.options import options_of as _options
from lateseg.errors import ConfigError, LatesegError
from lateseg.index.stores import is_folder
from lateseg.options import OpenOptions
from lateseg.serve.documents import Documents, Paths
from lateseg.serve.limits import MAX_K, MAX_MANY, MAX_QUESTION, MAX_STREAMS, document_kinds
from lateseg.types import Answer, Hit, clean_text

if TYPE_CHECKING:
    from lateseg.generate.remote.config import LLMConfig

log = logging.getLogger(__name__)


class Busy(LatesegError):
    """The generation queue is full; try again after ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Cancelled(LatesegError):
    """The client that asked went away: the answer being made is dropped."""


class LockedEncoder:
    """The embedder with every method call under ``lock``; attributes pass through."""

    def __init__(self, encoder: Any, lock: threading.RLock) -> None:
        self._encoder = encoder
        self._lock = lock

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._encoder, name)
        if not callable(value):
            return value

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return value(*args, **kwargs)

        return locked


def hit_json(h: Hit, paths: Paths | None = None) -> dict[str, Any]:
    """A hit for the API: its fields with its file named as ``paths`` shows it, its
    document's ID, the file's name, a citation for a reader (``cite``: the file, its
    lines, pages and clause) and, apart, its characters."""
    out = h.to_dict()
    shown = paths.show(h.source) if paths is not None else h.source
    out.update(
        source=shown, doc_id=h.doc_id, chunk_id=h.chunk_id, name=Path(h.source).name,
        cite=h.cite(shown, chars=False), chars=f"chars {h.start}-{h.end}",
    )  # fmt: skip
    out["pages"] = h.pages()
    return out


def answer_json(a: Answer, paths: Paths | None = None) -> dict[str, Any]:
    """An answer for the API: :meth:`Answer.to_dict` with hits (cited, shown and
    dropped, the phrase's sentence and each sentence's evidence) as :func:`hit_json`
    gives them: no passage names its file by the server's own path."""
    out = a.to_dict()
    out["citations"] = [hit_json(h, paths) for h in a.citations]
    out["context"] = [hit_json(h, paths) for h in a.context]
    out["dropped"] = [hit_json(h, paths) for h in a.dropped]
    out["alternatives"] = [hit_json(h, paths) for h in a.alternatives]
    if a.phrase is not None:
        out["phrase"]["sentence"] = hit_json(a.phrase.sentence, paths)
    for s, d in zip(a.support, out["support"], strict=True):
        if s.evidence is not None:
            d["evidence"] = hit_json(s.evidence, paths)
    if a.scope is not None and paths is not None:
        out["scope"]["sources"] = [paths.show(x) for x in a.scope.sources]
    if a.generated is not None:
        out["generated"] = answer_json(a.generated, paths)
    return out


class Service:
    """Search and ask over the index at ``folder``, and its documents (see the module)."""

    def __init__(
        self,
        folder: str | Path,
        *,
        generator: str | None = None,
        queue: int = 4,
        device: str | None = None,
        backend: str | None = None,
        answer_seconds: float = 120.0,
        encoder: Any = None,
        uploads: Path | None = None,
        cache_dir: str | None = None,
        llm: LLMConfig | None = None,
        context_tokens: int | None = None,
        create: bool = True,
        trust_remote_code: bool = False,
        profile: str | None = None,
    ) -> None:
        """``create``: make a missing index folder (an empty one the upload page can
        fill; ``lateseg serve`` asks for it with ``--create``), else a missing one is an
        :class:`~lateseg.errors.IndexStoreError`. ``encoder``: a loaded embedder to use
        instead of loading the index's (the same model; tests share one); ``uploads``:
        the folder uploads are kept in (its files are named by their upload, never by
        the folder's path). ``llm``: the
        operator's model behind a URL, which writes every generated answer (a client
        never names a server, a model or a key), its passages fit ``context_tokens``;
        the local generator is then never loaded. ``profile``: the ingest profile of an
        index made here (:mod:`lateseg.encode.profiles`); uploads extend an index with its
        own."""
        from lateseg.pipeline import Pipeline

        if queue < 0:
            raise ConfigError(f"queue={queue}; give 0 or more waiting answers")
        #: What a writer opens: the folder, or the server's URL.
        self.location: Path | str = Path(folder) if is_folder(folder) else folder
        self.cache_dir = cache_dir
        # how this process runs the embedder, for the index made here and the one read
        running = OpenOptions(device=device, backend=backend, trust_remote_code=trust_remote_code)
        if create and is_folder(folder) and not Path(folder).exists():
            # a new, empty index the upload page can fill
            Pipeline.open(folder, options=dataclasses.replace(running, profile=profile)).close()
        reading = dataclasses.replace(
            running, create=False, readonly=True, generator=generator, cache_dir=cache_dir
        )
        self.pipe = Pipeline.open(self.location, options=reading)
        self.folder = self.pipe.folder
        self.lock = threading.RLock()
        self.pipe.encoder = LockedEncoder(encoder or self.pipe.encoder, self.lock)  # type: ignore[assignment]
        self.queue = queue
        #: The operator's model server (None: the local generator writes).
        self.llm = llm
        self.context_tokens = context_tokens
        if llm is None and context_tokens is not None:
            raise ConfigError("context_tokens is for a model behind a URL: give llm too")
        self.answer_seconds = answer_seconds
        self._gen = threading.Lock()
        self._count = threading.Lock()
        self._waiting = 0
        self._streams = 0
        self.documents = Documents(
            self.pipe, self.lock, None if uploads is None else Path(uploads).resolve()
        )
        self.generates = True
        self.ready = threading.Event()
        self.ready.set()

    def preload(self, generator: bool = True, wait: bool = False) -> None:
        """Load the embedder (and, with ``generator``, the local generator) now, so that
        the first question is as fast as the next; :meth:`status` says ``loading`` until
        they are. Without ``generator`` the server answers by quoting only. ``wait``:
        return when loaded (else they load in a thread of their own). With :attr:`llm`
        the local generator is not loaded: the model server writes."""
        if not generator and self.llm is not None:
            raise ConfigError(
                "a model server is given (--llm) but the server answers by quoting only "
                "(--no-generate): drop one of them"
            )
        self.generates = generator
        self.ready.clear()

        def load() -> None:
            try:
                self.pipe.encoder.embed_queries(["warm up"])
                if generator and self.llm is None:
                    self.pipe.generator.load()
            except Exception:
                log.exception("preloading the models failed; they load on first use")
            finally:
                self.ready.set()

        if wait:
            load()
        else:
            threading.Thread(target=load, name="lateseg-preload", daemon=True).start()

    @property
    def uploads(self) -> Path | None:
        """The folder uploads are kept in (:attr:`Documents.uploads`, which names them)."""
        return self.documents.uploads

    @uploads.setter
    def uploads(self, folder: Path | None) -> None:
        self.documents.uploads = folder

    def close(self) -> None:
        self.pipe.close()

    # -- search and answers ---------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        options: SearchOptions | None = None,
        **given: Any,
    ) -> list[Hit]:
        """The best passages for ``query`` as ``options`` (or the same options as
        keywords, :class:`SearchOptions`) select them, within this server's limits."""
        query = _question(query)
        options = _limited(_options(SearchOptions, options, k, given))
        with self.lock:
            return self.pipe.search(query, options=options)

    def ask(
        self,
        question: str,
        k: int | None = None,
        *,
        options: AskOptions | None = None,
        stream: Callable[[str], None] | None = None,
        on_hits: Callable[[list[Hit]], None] | None = None,
        cancel: threading.Event | None = None,
        placed: bool = False,
        **given: Any,
    ) -> Answer:
        """The answer to ``question``, as ``Pipeline.ask`` makes it from ``options`` (or
        the same options as keywords, :class:`AskOptions`), within this server's limits:
        scoped to the documents it names, its phrase first. ``on_hits`` receives the
        passages before an answer is made, ``stream`` a generated answer's text as made.
        Raises :class:`Busy` when ``queue`` answers are already waiting for the
        generator, and :class:`Cancelled` as soon as ``cancel`` is set (the client went
        away): generation stops at its next word, and its slot is free again.
        ``placed``: the caller holds a :meth:`queue_place` for this answer."""
        options = self._remote(_options(AskOptions, options, k, given))
        _limited(options.search)
        how = options.answer
        if how != "quote" and not self.generates:
            raise ConfigError(f"this server answers by quoting only (--no-generate): not {how!r}")
        question = clean_text(_question(question))
        answerer = self.pipe.answerer
        with self.lock:
            asked = answerer.prepare(question, options)
        if asked.missing is not None:
            return asked.missing
        if on_hits is not None:
            on_hits(asked.hits)

        def told(text: str) -> None:
            if cancel is not None and cancel.is_set():
                raise Cancelled("the client went away")
            if stream is not None:
                stream(text)

        if how == "quote":
            with self.lock:
                done = answerer.answer_from(asked.asked, asked.hits, options)
        else:
            with self._generation_slot(placed):
                if options.llm is None:
                    self.pipe.generator.max_seconds = self.answer_seconds
                if cancel is not None and cancel.is_set():
                    raise Cancelled("the client went away")
                done = answerer.answer_from(
                    asked.asked, asked.hits, options,
                    stream=told if stream is not None or cancel is not None else None,
                )  # fmt: skip
        with self.lock:
            return answerer.finish(done, asked, options.min_confidence)

    def ask_many(
        self, questions: list[str], options: AskOptions, *, doc_id: str | None = None
    ) -> list[Answer]:
        """Answers to up to :data:`MAX_MANY` ``questions`` from one context, prefilled and
        KV-compressed once without knowing them (``Pipeline.ask_many``): the document
        ``doc_id`` whole, or the union of each question's best passages, found under the
        index lock as :meth:`ask` finds its passages. The local generator writes them (a
        server with a model server or ``--no-generate`` refuses), one place in the
        generation queue for them all, each answer within ``answer_seconds``."""
        if not 1 <= len(questions) <= MAX_MANY:
            raise ConfigError(f"{len(questions)} questions; give 1 to {MAX_MANY}")
        if self.llm is not None or not self.generates:
            how = "answers by quoting only" if not self.generates else "has a model server"
            raise ConfigError(f"ask_many compresses the local generator's cache; this server {how}")
        if options.llm is not None:
            raise ConfigError("a client cannot choose the model server; the operator does")
        _limited(options.search)
        options = options.for_one_context()
        asked = [clean_text(_question(q)) for q in questions]
        source = None if doc_id is None else self.documents.document(doc_id).source
        answerer = self.pipe.answerer
        with self.lock:
            passages = answerer.shared_context(asked, options, source)
        with self._generation_slot():
            self.pipe.generator.max_seconds = self.answer_seconds
            return answerer.ask_many(asked, options, document=source, passages=passages)

    def _remote(self, options: AskOptions) -> AskOptions:
        """``options`` with this server's model server for a generated answer (a
        client's own ``llm`` is never taken: the operator chooses where questions go).
        ``copy`` needs the local generator, which a server with a model server does not
        load: refused."""
        if options.llm is not None and options.llm != self.llm:
            raise ConfigError("a client cannot choose the model server; the operator does")
        if self.llm is None or options.answer == "quote":
            return options
        if options.answer == "copy":
            raise ConfigError(
                "answer='copy' needs the local generator; this server's answers are "
                "written by its model server: ask with answer 'generate' or 'quote'"
            )
        return dataclasses.replace(options, llm=self.llm, context_tokens=self.context_tokens)

    def hit_json(self, h: Hit) -> dict[str, Any]:
        return hit_json(h, self.documents.paths())

    def answer_json(self, a: Answer) -> dict[str, Any]:
        return answer_json(a, self.documents.paths())

    def indexed_as(self, file_hash: str) -> str | None:
        """The source of an indexed file with this SHA-256, or None."""
        with self.lock:
            return self.pipe.retriever.indexed_as(file_hash)

    @contextmanager
    def stream_slot(self) -> Iterator[None]:
        """One of :data:`MAX_STREAMS` streamed answers (each holds a worker while it is
        made); :class:`Busy` when all are taken."""
        with self._count:
            if self._streams >= MAX_STREAMS:
                raise Busy(
                    f"{self._streams} streamed answers are being made; try again shortly",
                    retry_after=5,
                )
            self._streams += 1
        try:
            yield
        finally:
            with self._count:
                self._streams -= 1

    @contextmanager
    def queue_place(self) -> Iterator[None]:
        """A place among the answers being made or waiting for the generator, taken
        now: :class:`Busy` when the queue is full. A streamed answer takes its place
        before its stream starts, so load is refused with a 503, never inside a 200
        stream; :meth:`ask` then runs with ``placed=True``."""
        with self._count:
            if self._waiting > self.queue:  # one generating and `queue` waiting
                raise Busy(
                    f"{self._waiting} answers are being made or waiting (the queue holds "
                    f"{self.queue}); try again shortly",
                    retry_after=max(5, int(self.answer_seconds // 4)),
                )
            self._waiting += 1
        try:
            yield
        finally:
            with self._count:
                self._waiting -= 1

    @contextmanager
    def _generation_slot(self, placed: bool = False) -> Iterator[None]:
        """The generator, after a place in the queue (taken here unless ``placed``)."""
        with nullcontext() if placed else self.queue_place(), self._gen:
            yield

    def status(self) -> dict[str, Any]:
        with self.lock:
            count = self.pipe.retriever.count()
            documents = len(self.pipe.sources())
        return {
            "status": "ready" if self.ready.is_set() else "loading",
            "index": self.pipe.index.store.name,
            "documents": documents,
            "chunks": count,
            "answers_in_queue": self._waiting,
            "queue": self.queue,
        }


def _question(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ConfigError("give a question or query (q)")
    if len(text) > MAX_QUESTION:
        raise ConfigError(f"the query has {len(text)} characters; at most {MAX_QUESTION}")
    return text


def _limited(options: SearchOptions) -> SearchOptions:
    """``options`` when a client may ask for them here (at most :data:`MAX_K` passages,
    a known document kind)."""
    if options.k > MAX_K:
        raise ConfigError(f"k={options.k}; give 1 to {MAX_K}")
    kinds = document_kinds()  # the formats registered now, a plugin's too
    if options.kind is not None and options.kind not in kinds:
        raise ConfigError(f"kind={options.kind!r}; choose one of {', '.join(kinds)}")
    return options
