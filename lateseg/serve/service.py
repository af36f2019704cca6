"""What the page, the HTTP API and the MCP server do, without the web: search, ask,
documents by ID, highlights, page images and passage views over one index.

One :class:`Service` per process holds a read-only :class:`~lateseg.pipeline.Pipeline`
(it sees other processes' ingests before each search, as every reader does). Retrieval
and the embedder run under one lock (the index's caches and the embedder are not made
for concurrent calls); generation runs outside it, one answer at a time, with at most
``queue`` waiting: a full queue raises :class:`Busy`, so searches go on during an answer.
Documents are addressed by their ID (a hex content hash), never by a path.
"""

from __future__ import annotations

import html
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from lateseg.errors import ConfigError, LatesegError
from lateseg.generate.answering import answer_mode
from lateseg.index.postgres import is_store_url
from lateseg.ingest.formats import PAGED_KINDS
from lateseg.kv.compress import KVConfig
from lateseg.serve.limits import (
    DEFAULT_ZOOM,
    DOCUMENT_KINDS,
    MAX_K,
    MAX_QUESTION,
    MAX_READ,
    MAX_STREAMS,
)
from lateseg.serve.viewer import NotServable, PdfPages, Rect, span_pages
from lateseg.types import DOC_ID, Answer, Document, Hit, clean_text

log = logging.getLogger(__name__)


class NotFound(LatesegError):
    """No such document (or page) in this index."""


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


class Paths:
    """How documents are named to clients: a file by its path relative to the folder
    it was ingested from (the common folder of the index's absolute paths), an uploaded
    file by its name under its upload, so no absolute path of the server (the upload
    folder's least of all) leaves it; any other source (a relative path, a URL, a
    LangChain document's ``langchain:ID``) as it is. Two sources that would show the
    same name are told apart by a number (``a.txt (2)``). :meth:`find` maps a name given
    back to its document's source."""

    def __init__(self, sources: Sequence[str], uploads: Path | None = None) -> None:
        self.uploads = str(uploads) + os.sep if uploads is not None else None
        own = [s for s in sources if self._in_uploads(s) is None and os.path.isabs(s)]
        common = os.path.commonpath(own) if own else ""
        if len(own) == 1:
            common = os.path.dirname(common)
        self.root = common.rstrip(os.sep) + os.sep if common else ""
        self._names: dict[str, str] = {}
        taken: set[str] = set()
        for s in sorted(set(sources)):
            name = base = self._name(s)
            n = 1
            while name in taken:
                n += 1
                name = f"{base} ({n})"
            taken.add(name)
            self._names[s] = name
        self._back = {name: s for s, name in self._names.items()}

    def _in_uploads(self, source: str) -> str | None:
        """``source``'s path inside the upload folder, or None when it is not there."""
        if self.uploads is None or not source.startswith(self.uploads):
            return None
        return source[len(self.uploads) :]

    def _name(self, source: str) -> str:
        rest = self._in_uploads(source)
        if rest is not None:
            return "uploads/" + rest.split(os.sep, 1)[-1].replace(os.sep, "/")
        if not os.path.isabs(source):
            return source
        if self.root and source.startswith(self.root):
            return source[len(self.root) :].replace(os.sep, "/")
        return source.lstrip(os.sep).replace(os.sep, "/")

    def show(self, source: str) -> str:
        """The name a client sees for ``source``."""
        return self._names.get(source) or self._name(source)

    def find(self, shown: str) -> str | None:
        """The source of the document a client names ``shown``, or None."""
        return self._back.get(shown)


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
    """An answer for the API: :meth:`Answer.to_dict` with hits (and the phrase's
    sentence and each sentence's evidence) as :func:`hit_json` gives them."""
    out = a.to_dict()
    out["citations"] = [hit_json(h, paths) for h in a.citations]
    out["context"] = [hit_json(h, paths) for h in a.context]
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
    """Search, ask and documents over the index at ``folder`` (see the module)."""

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
    ) -> None:
        """``encoder``: a loaded embedder to use instead of loading the index's (the
        same model; tests share one); ``uploads``: the folder uploads are kept in (its
        files are named by their upload, never by the folder's path)."""
        from lateseg.pipeline import Pipeline

        if queue < 0:
            raise ConfigError(f"queue={queue}; give 0 or more waiting answers")
        #: What a writer opens: the folder, or the server's URL.
        self.location: Path | str = folder if is_store_url(folder) else Path(folder)
        self.cache_dir = cache_dir
        if not is_store_url(folder) and not Path(folder).exists():
            # a new, empty index the upload page can fill
            Pipeline.open(folder, device=device, backend=backend).close()
        self.pipe = Pipeline.open(
            self.location, create=False, readonly=True, generator=generator, device=device,
            backend=backend, cache_dir=cache_dir,
        )  # fmt: skip
        self.folder = self.pipe.folder
        self.lock = threading.RLock()
        self.pipe.encoder = LockedEncoder(encoder or self.pipe.encoder, self.lock)  # type: ignore[assignment]
        self.pages = PdfPages(self.pipe.retriever.file_hash)
        self.queue = queue
        self.answer_seconds = answer_seconds
        self._documents: OrderedDict[str, tuple[Document, str | None]] = OrderedDict()
        self._gen = threading.Lock()
        self._count = threading.Lock()
        self._waiting = 0
        self._streams = 0
        self.uploads = None if uploads is None else Path(uploads).resolve()
        self._paths: tuple[int, Paths] | None = None
        self.generates = True
        self.ready = threading.Event()
        self.ready.set()

    def preload(self, generator: bool = True, wait: bool = False) -> None:
        """Load the embedder (and, with ``generator``, the local generator) now, so that
        the first question is as fast as the next; :meth:`status` says ``loading`` until
        they are. Without ``generator`` the server answers by quoting only. ``wait``:
        return when loaded (else they load in a thread of their own)."""
        self.generates = generator
        self.ready.clear()

        def load() -> None:
            try:
                self.pipe.encoder.embed_queries(["warm up"])
                if generator:
                    self.pipe.generator.load()
            except Exception:
                log.exception("preloading the models failed; they load on first use")
            finally:
                self.ready.set()

        if wait:
            load()
        else:
            threading.Thread(target=load, name="lateseg-preload", daemon=True).start()

    def close(self) -> None:
        self.pipe.close()

    # -- search and answers ---------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 5,
        *,
        mode: str = "dense",
        source: str | None = None,
        kind: str | None = None,
    ) -> list[Hit]:
        query = _question(query)
        if kind is not None and kind not in DOCUMENT_KINDS:
            raise ConfigError(f"kind={kind!r}; choose one of {', '.join(DOCUMENT_KINDS)}")
        with self.lock:
            return self.pipe.search(query, _k(k), mode=mode, source=source, kind=kind)

    def ask(
        self,
        question: str,
        k: int = 5,
        *,
        answer: str | None = None,
        extractive: bool = False,
        kv_budget: int | float | None = None,
        kv_method: str | None = None,
        source: str | None = None,
        kind: str | None = None,
        stream: Callable[[str], None] | None = None,
        on_hits: Callable[[list[Hit]], None] | None = None,
        cancel: threading.Event | None = None,
        placed: bool = False,
    ) -> Answer:
        """The answer to ``question``, as ``Pipeline.ask`` makes it (``answer``: quote,
        copy or generate; ``extractive`` is quote): scoped to the documents it names,
        its phrase first. ``on_hits`` receives the passages before an answer is made,
        ``stream`` a generated answer's text as made. Raises :class:`Busy` when ``queue``
        answers are already waiting for the generator, and :class:`Cancelled` as soon
        as ``cancel`` is set (the client went away): generation stops at its next
        word, and its slot is free again. ``placed``: the caller holds a
        :meth:`queue_place` for this answer."""
        kv = KVConfig.from_options(kv_budget, kv_method)
        how = answer_mode(answer, extractive, kv is not None)
        if how == "quote" and kv is not None:
            raise ConfigError("kv_budget/kv_method apply to the generator, not to quoted answers")
        if how != "quote" and not self.generates:
            raise ConfigError(f"this server answers by quoting only (--no-generate): not {how!r}")
        question = clean_text(_question(question))
        answerer = self.pipe.answerer
        with self.lock:
            asked = answerer.prepare(question, _k(k), source=source, kind=kind)
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
                done = answerer.answer_from(asked.question, asked.hits, answer="quote")
        else:
            with self._generation_slot(placed):
                gen = self.pipe.generator
                gen.max_seconds = self.answer_seconds
                if cancel is not None and cancel.is_set():
                    raise Cancelled("the client went away")
                done = answerer.answer_from(
                    asked.question, asked.hits, answer=how, kv=kv,
                    stream=told if stream is not None or cancel is not None else None,
                )  # fmt: skip
        with self.lock:
            return answerer.finish(done, asked)

    def paths(self) -> Paths:
        """How documents are named to clients (:class:`Paths`), for the index as it is."""
        with self.lock:
            state = self.pipe.retriever.state()
            if self._paths is None or self._paths[0] != state:
                self._paths = (state, Paths(self.pipe.sources(), self.uploads))
            return self._paths[1]

    def hit_json(self, h: Hit) -> dict[str, Any]:
        return hit_json(h, self.paths())

    def answer_json(self, a: Answer) -> dict[str, Any]:
        return answer_json(a, self.paths())

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

    # -- documents ------------------------------------------------------------------------

    def document(self, doc_id: str) -> Document:
        """The document with ID ``doc_id``; :class:`NotFound` for any other string."""
        if not DOC_ID.fullmatch(doc_id or ""):
            raise NotFound("documents are addressed by their ID of 16 hex digits")
        with self.lock:
            cached = self._documents.get(doc_id)
            # cached while its file is indexed with the same content (another ingest may
            # have replaced or removed it since)
            if cached is None or self.pipe.retriever.file_hash(cached[0].source) != cached[1]:
                doc = self.pipe.retriever.document_by_id(doc_id)
                if doc is None:
                    self._documents.pop(doc_id, None)
                    raise NotFound(f"no document {doc_id} in this index")
                cached = (doc, self.pipe.retriever.file_hash(doc.source))
                self._documents[doc_id] = cached
                while len(self._documents) > 16:
                    self._documents.popitem(last=False)
            self._documents.move_to_end(doc_id)
        return cached[0]

    def describe(self, doc: Document) -> dict[str, Any]:
        """What the viewer needs to know of a document (its text is not sent)."""
        out: dict[str, Any] = {
            "id": doc.id,
            "source": self.paths().show(doc.source),
            "name": Path(doc.source).name,
            "kind": doc.kind,
            "chars": len(doc.text),
            "title": doc.meta.get("title"),
            "language": doc.meta.get("language"),
            "geometry": bool(doc.lines),
        }
        if doc.kind in PAGED_KINDS:
            out["pages"] = len(doc.spans("page"))
            out["ocr_pages"] = doc.meta.get("ocr_pages") or []
        return out

    def highlight(self, doc: Document, start: int, end: int) -> dict[str, Any]:
        """Where ``[start, end)`` lies on the PDF's pages: rectangles (points), how they
        were found (``geometry`` or, for an index without line boxes, ``search``), the
        pages and their sizes."""
        _span(doc, start, end)
        if doc.kind not in PAGED_KINDS:
            raise NotFound(f"{Path(doc.source).name} is not a PDF: it has no pages to show")
        rects, method = self.pages.rects(doc, start, end)
        pages = sorted({r.page for r in rects} or set(span_pages(doc, start, end)))
        return {
            "method": method,
            "rects": [r.to_dict() for r in rects],
            "pages": pages,
            "sizes": {str(n): self.pages.page_size(doc, n) for n in pages},
            "note": None
            if method == "geometry"
            else "this index was built before lateseg kept line positions: the span is "
            "found by searching its lines on the page (re-ingest for exact highlights)",
        }

    def page_png(
        self,
        doc: Document,
        number: int,
        zoom: float = DEFAULT_ZOOM,
        span: tuple[int, int] | None = None,
    ) -> bytes:
        if doc.kind not in PAGED_KINDS:
            raise NotFound(f"{Path(doc.source).name} is not a PDF: it has no pages to show")
        pages = len(doc.spans("page"))
        if not 1 <= number <= pages:
            raise NotFound(f"page {number} is outside 1..{pages}")
        rects: list[Rect] = []
        if span is not None:
            _span(doc, *span)
            rects, _ = self.pages.rects(doc, *span)
        try:
            return self.pages.png(doc, number, zoom, rects)
        except NotServable as e:
            raise NotFound(str(e)) from None

    def definitions(self, doc: Document, start: int, end: int) -> dict[str, str]:
        """The defined terms the passage ``[start, end)`` uses, with their definitions."""
        _span(doc, start, end)
        hit = Hit(doc.source, start, end, doc.text[start:end], 1.0, doc_id=doc.id)
        with self.lock:
            return self.pipe.definitions(hit)

    def view(self, doc: Document, start: int, end: int, context: int = 2000) -> dict[str, Any]:
        """A passage in its context as HTML: code highlighted by Pygments with the cited
        lines marked, other text escaped with the passage marked."""
        _span(doc, start, end)
        if doc.kind == "code":
            return _code_view(doc, start, end)
        a = max(0, start - context)
        b = min(len(doc.text), end + context)
        body = (
            html.escape(doc.text[a:start])
            + '<mark id="cited">'
            + html.escape(doc.text[start:end])
            + "</mark>"
            + html.escape(doc.text[end:b])
        )
        return {"html": body, "start": a, "end": b}

    def read(self, source: str, start: int = 0, end: int | None = None) -> dict[str, Any]:
        """Text ``[start, end)`` of the indexed document ``source`` (as search names it),
        at most 20,000 characters, with its pages and clause."""
        named = self.paths().find(source) or source
        with self.lock:
            doc = self.pipe.retriever.find_document(named)
        if doc is None:
            raise NotFound(f"{source!r} is not a document of this index (give a hit's source)")
        end = len(doc.text) if end is None else end
        end = min(end, start + MAX_READ)
        _span(doc, start, end)
        from lateseg.segment.spans import Locator

        where = Locator(doc)
        return {
            "source": source,
            "doc_id": doc.id,
            "start": start,
            "end": end,
            "text": doc.text[start:end],
            "page": where.page(start),
            "page_end": where.page(max(start, end - 1)),
            "section": where.section(start, end),
            "chars": len(doc.text),
        }


def _question(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ConfigError("give a question or query (q)")
    if len(text) > MAX_QUESTION:
        raise ConfigError(f"the query has {len(text)} characters; at most {MAX_QUESTION}")
    return text


def _k(k: int) -> int:
    if not 1 <= k <= MAX_K:
        raise ConfigError(f"k={k}; give 1 to {MAX_K}")
    return k


def _span(doc: Document, start: int, end: int) -> None:
    if not 0 <= start < end <= len(doc.text):
        raise ConfigError(f"span {start}-{end} is outside the document's 0-{len(doc.text)}")


def _code_view(doc: Document, start: int, end: int, around: int = 80) -> dict[str, Any]:
    """The cited lines of a source file and ``around`` lines either side, highlighted."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    text = doc.text
    first = text.count("\n", 0, start) + 1
    last = text.count("\n", 0, max(start, end - 1)) + 1
    top = max(1, first - around)
    a = 0
    for _ in range(top - 1):
        a = text.index("\n", a) + 1
    b = a
    for _ in range(last - top + 1 + around):
        nl = text.find("\n", b)
        if nl < 0:
            b = len(text)
            break
        b = nl + 1
    try:
        lexer = get_lexer_by_name(str(doc.meta.get("language") or "text"))
    except ClassNotFound:
        lexer = TextLexer()
    fmt = HtmlFormatter(
        linenos="inline",
        linenostart=top,
        hl_lines=list(range(first - top + 1, last - top + 2)),
        cssclass="code",
        wrapcode=True,
    )
    return {
        "html": highlight(text[a:b], lexer, fmt),
        "css": fmt.get_style_defs(".code"),
        "line": first,
        "line_end": last,
    }
