"""The documents of the index as a client sees them, addressed by their ID (a hex content
hash), never by a path: what a document is, where a span lies on a PDF's pages, its
page images, a passage in its context, the defined terms a passage uses, and text read
by the name search gives it.

How documents are named to clients lives here too (:class:`Paths`): no absolute path of
the server leaves it. :class:`Documents` works under the service's lock (the index's
caches are not made for concurrent calls); :class:`~lateseg.serve.service.Service` owns
one as ``service.documents``.
"""

from __future__ import annotations

import html
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lateseg.errors import ConfigError, LatesegError
from lateseg.ingest.formats import is_paged
from lateseg.serve.limits import DEFAULT_ZOOM, MAX_READ
from lateseg.serve.viewer import NotServable, PdfPages, Rect, span_pages
from lateseg.types import DOC_ID, Document, Hit

if TYPE_CHECKING:
    from lateseg.pipeline import Pipeline

#: Documents kept decoded, the most recently used: a reader's clicks go to few of them.
CACHED_DOCUMENTS = 16


class NotFound(LatesegError):
    """No such document (or page) in this index."""


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


class Documents:
    """The documents of ``pipe``'s index for clients (see the module); every call to
    the index holds ``lock``. ``uploads``: the folder uploads are kept in (its files are
    named by their upload, never by the folder's path)."""

    def __init__(self, pipe: Pipeline, lock: threading.RLock, uploads: Path | None) -> None:
        self.pipe = pipe
        self.lock = lock
        self._uploads = uploads
        self.pages = PdfPages(pipe.retriever.file_hash)
        self._cache: OrderedDict[str, tuple[Document, str | None]] = OrderedDict()
        self._paths: tuple[int, Paths] | None = None

    @property
    def uploads(self) -> Path | None:
        """The folder uploads are kept in; set, it renames the documents in it (a server
        picks it once the index is open: beside the index's folder)."""
        return self._uploads

    @uploads.setter
    def uploads(self, folder: Path | None) -> None:
        with self.lock:
            self._uploads = folder
            self._paths = None

    def paths(self) -> Paths:
        """How documents are named to clients (:class:`Paths`), for the index as it is."""
        with self.lock:
            state = self.pipe.retriever.state()
            if self._paths is None or self._paths[0] != state:
                self._paths = (state, Paths(self.pipe.sources(), self.uploads))
            return self._paths[1]

    def document(self, doc_id: str) -> Document:
        """The document with ID ``doc_id``; :class:`NotFound` for any other string."""
        if not DOC_ID.fullmatch(doc_id or ""):
            raise NotFound("documents are addressed by their ID of 16 hex digits")
        with self.lock:
            retriever = self.pipe.retriever
            cached = self._cache.get(doc_id)
            # cached while its file is indexed with the same content (another ingest may
            # have replaced or removed it since)
            if cached is None or retriever.file_hash(cached[0].source) != cached[1]:
                doc = retriever.document_by_id(doc_id)
                if doc is None:
                    self._cache.pop(doc_id, None)
                    raise NotFound(f"no document {doc_id} in this index")
                cached = (doc, retriever.file_hash(doc.source))
                self._cache[doc_id] = cached
                while len(self._cache) > CACHED_DOCUMENTS:
                    self._cache.popitem(last=False)
            self._cache.move_to_end(doc_id)
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
            "paged": is_paged(doc.kind),
        }
        if out["paged"]:
            out["pages"] = len(doc.spans("page"))
            out["ocr_pages"] = doc.meta.get("ocr_pages") or []
        return out

    def highlight(self, doc: Document, start: int, end: int) -> dict[str, Any]:
        """Where ``[start, end)`` lies on the PDF's pages: rectangles (points), how they
        were found (``geometry`` or, for an index without line boxes, ``search``), the
        pages and their sizes."""
        _span(doc, start, end)
        _paged(doc)
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
        """Page ``number`` as PNG at ``zoom``, the characters ``span`` highlighted."""
        _paged(doc)
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

    def view(
        self,
        doc: Document,
        start: int,
        end: int,
        context: int = 2000,
        strong: tuple[int, int] | None = None,
    ) -> dict[str, Any]:
        """A passage in its context as HTML: code highlighted by Pygments with the cited
        lines marked, other text escaped with the passage marked and, inside it, the
        ``strong`` span (the answer phrase's sentence: the viewer scrolls to it, not to
        the passage's first line) marked ``id="quote"`` (in code, its lines)."""
        _span(doc, start, end)
        if strong is not None:
            _span(doc, *strong)
            if not start <= strong[0] < strong[1] <= end:
                raise ConfigError(f"the strong span {strong[0]}-{strong[1]} is not inside "
                                  f"{start}-{end}")  # fmt: skip
        if doc.kind == "code":
            return _code_view(doc, start, end, strong)
        a = max(0, start - context)
        b = min(len(doc.text), end + context)
        t = doc.text
        if strong is None:
            inside = html.escape(t[start:end])
        else:
            s0, s1 = strong
            inside = (
                html.escape(t[start:s0])
                + '<mark id="quote" class="strong">'
                + html.escape(t[s0:s1])
                + "</mark>"
                + html.escape(t[s1:end])
            )
        body = (
            html.escape(t[a:start])
            + '<mark id="cited">'
            + inside
            + "</mark>"
            + html.escape(t[end:b])
        )
        return {"html": body, "start": a, "end": b}

    def read(self, source: str, start: int = 0, end: int | None = None) -> dict[str, Any]:
        """Text ``[start, end)`` of the indexed document ``source`` (as search names it),
        at most :data:`~lateseg.serve.limits.MAX_READ` characters, with its pages and
        clause."""
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


def _span(doc: Document, start: int, end: int) -> None:
    if not 0 <= start < end <= len(doc.text):
        raise ConfigError(f"span {start}-{end} is outside the document's 0-{len(doc.text)}")


def _paged(doc: Document) -> None:
    if not is_paged(doc.kind):
        raise NotFound(f"{Path(doc.source).name} is not a PDF: it has no pages to show")


def _code_view(
    doc: Document, start: int, end: int, strong: tuple[int, int] | None = None, around: int = 80
) -> dict[str, Any]:
    """The cited lines of a source file and ``around`` lines either side, highlighted;
    the lines of the ``strong`` span (the quoted lines) marked apart
    (``class="hll strong"``, the first ``id="quote"``)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    text = doc.text

    def line_of(at: int) -> int:
        return text.count("\n", 0, at) + 1

    first, last = line_of(start), line_of(max(start, end - 1))
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
    out = highlight(text[a:b], lexer, fmt)
    if strong is not None:
        quoted = range(line_of(strong[0]), line_of(max(strong[0], strong[1] - 1)) + 1)
        for n in quoted:
            mark = ' id="quote"' if n == quoted.start else ""
            opening = f'<span class="hll strong"{mark}>'
            out = re.sub(
                rf'<span class="hll">(?=<span class="linenos">\s*{n}</span>)', opening, out, count=1
            )
    return {"html": out, "css": fmt.get_style_defs(".code"), "line": first, "line_end": last}
