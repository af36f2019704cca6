"""Core types shared by every stage (frozen dataclasses, ARCHITECTURE.md, Invariants).

Invariants, checked on construction:

* spans and chunks have ``0 <= start <= end``;
* ``Chunk.text == Document.text[chunk.start:chunk.end]`` (checked by
  :func:`check_chunks` where both are at hand);
* a document's chunks are ordered, do not overlap, and cover its non-blank text;
* IDs are deterministic content hashes, never random.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from lateseg.errors import InvariantError

if TYPE_CHECKING:
    import numpy as np

#: A document's ID: 16 hex digits of :func:`stable_id` (of its source and text, or of
#: the source alone for a document added through LangChain). Indexes written before
#: 2026-12 may hold LangChain documents under 32 digits; they are read, never written.
DOC_ID = re.compile(r"[0-9a-f]{16}(?:[0-9a-f]{16})?")
DOC_ID_LENGTH = 16


def stable_id(*parts: str, length: int = 16) -> str:
    """Hex SHA-256 prefix of ``parts`` joined by NUL: a deterministic ID."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:length]


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate (from a file name that is not UTF-8, or a
    broken query) replaced by U+FFFD, one character for one, so offsets stay valid and
    the text can be encoded (SQLite, tokenizers, stdout)."""
    return _SURROGATE.sub("\ufffd", text)


def _check_range(kind: str, start: int, end: int, limit: int | None = None) -> None:
    if start < 0 or end < start or (limit is not None and end > limit):
        bound = f" within 0..{limit}" if limit is not None else ""
        raise InvariantError(f"{kind} span [{start}, {end}) is not a valid range{bound}")


@dataclass(frozen=True)
class Span:
    """A labelled character range of a document's text.

    ``kind`` is one of ``page``, ``table``, ``heading``, ``clause``, ``definition``,
    ``recital``, ``signature``, ``exhibit``, ``module``, ``class``, ``function``,
    ``method``; ``label`` is human-readable (a page number, a clause path such as
    ``"12 Termination > 12.3 Convenience"``, a defined term, a qualified name).
    """

    start: int
    end: int
    kind: str
    label: str = ""

    def __post_init__(self) -> None:
        _check_range(f"{self.kind!r}", self.start, self.end)

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "kind": self.kind, "label": self.label}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Span:
        return cls(int(d["start"]), int(d["end"]), str(d["kind"]), str(d.get("label", "")))


class LineBox(NamedTuple):
    """Where the text ``[start, end)`` of a PDF document was drawn: page ``page``
    (1-based), box ``x0, y0, x1, y1`` in PDF points of the unrotated page (origin top
    left, as PyMuPDF gives text). One per line, or per part of a line when the line's
    text came from several places (a hyphenated word's end, lines merged on a row)."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """One ingested file: its text and the structure found in it.

    For plain text and source files ``text`` is the decoded file, verbatim, so offsets
    are file offsets; for PDFs it is the extracted text with ``page`` spans.
    """

    source: str
    text: str
    kind: str
    structure: tuple[Span, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
    id: str = ""
    #: PDFs: where each stretch of ``text`` was drawn, in text order (empty otherwise,
    #: and for PDFs indexed before lateseg kept it).
    lines: tuple[LineBox, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", stable_id(self.source, self.text))
        object.__setattr__(self, "structure", tuple(sorted(self.structure, key=_span_key)))
        for s in self.structure:
            _check_range(f"structure {s.kind!r} {s.label!r}", s.start, s.end, len(self.text))

    def spans(self, *kinds: str) -> list[Span]:
        """Structure spans of the given kinds, in document order."""
        return [s for s in self.structure if s.kind in kinds]


def _span_key(s: Span) -> tuple[int, int, str]:
    # Outer spans first at equal starts, so enclosing clauses precede their children.
    return (s.start, -s.end, s.kind)


@dataclass(frozen=True)
class Chunk:
    """A contiguous piece of a document, the unit that is embedded and retrieved."""

    doc_id: str
    start: int
    end: int
    text: str
    section: str | None = None
    page: int | None = None

    def __post_init__(self) -> None:
        _check_range("chunk", self.start, self.end)
        if len(self.text) != self.end - self.start:
            raise InvariantError(
                f"chunk text has {len(self.text)} characters but its span "
                f"[{self.start}, {self.end}) has {self.end - self.start}"
            )


def check_chunks(doc: Document, chunks: Sequence[Chunk]) -> None:
    """Raise :class:`InvariantError` unless ``chunks`` tile ``doc`` (ARCHITECTURE.md,
    Invariants).

    Each chunk's text is the document's text at its span; chunks are ordered and disjoint;
    every non-whitespace character of the document lies inside some chunk.
    """
    pos = 0
    for c in chunks:
        if c.doc_id != doc.id:
            raise InvariantError(f"chunk of document {c.doc_id} checked against {doc.id}")
        if doc.text[c.start : c.end] != c.text:
            raise InvariantError(f"chunk [{c.start}, {c.end}) text differs from the document")
        if c.start < pos:
            raise InvariantError(f"chunk [{c.start}, {c.end}) overlaps or precedes offset {pos}")
        if doc.text[pos : c.start].strip():
            raise InvariantError(f"non-blank text [{pos}, {c.start}) is in no chunk")
        pos = c.end
    if doc.text[pos:].strip():
        raise InvariantError(f"non-blank text after offset {pos} is in no chunk")


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with its provenance.

    ``source`` is the absolute path of the file; ``start``/``end`` index the text of
    ``Pipeline.document(source)``. ``page``/``page_end``: the first and last page the hit
    covers (equal for a one-page hit; None without pages). ``line``/``line_end``: the
    1-based lines of the file the hit covers, for code, text and Markdown documents (None
    for the others). ``kind`` is its document's kind (``"pdf"``, ``"code"`` …).
    """

    source: str
    start: int
    end: int
    text: str
    score: float
    page: int | None = None
    section: str | None = None
    doc_id: str = ""
    chunk_id: int = -1
    line: int | None = None
    line_end: int | None = None
    kind: str | None = None
    page_end: int | None = None
    #: Whether the hit lies on a page read by OCR (its text is the OCR's reading).
    ocr: bool = False

    def __post_init__(self) -> None:
        _check_range("hit", self.start, self.end)
        if self.page_end is None and self.page is not None:
            object.__setattr__(self, "page_end", self.page)

    def part(self, start: int, end: int, score: float | None = None) -> Hit:
        """The part ``start..end`` of this hit's text (offsets in :attr:`text`) as a hit
        of its own: the same document, chunk, section and kind, its page range this
        hit's and no lines (both are the passage's; ``Retriever.narrow`` cites a part
        where it lies), and this hit's ``score`` unless given."""
        if not 0 <= start <= end <= len(self.text):
            raise ValueError(
                f"part [{start}, {end}) is not inside the hit's {len(self.text)} chars"
            )
        return Hit(
            self.source, self.start + start, self.start + end, self.text[start:end],
            self.score if score is None else score, self.page, self.section, self.doc_id,
            self.chunk_id, kind=self.kind, page_end=self.page_end, ocr=self.ocr,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "score": self.score,
            "page": self.page,
            "page_end": self.page_end,
            "section": self.section,
            "line": self.line,
            "line_end": self.line_end,
            "ocr": self.ocr,
            "kind": self.kind,
        }

    def pages(self) -> str | None:
        """``p. 3``, or ``pp. 2460–2461`` for a hit that crosses pages; None without."""
        if self.page is None:
            return None
        if self.page_end is None or self.page_end == self.page:
            return f"p. {self.page}"
        return f"pp. {self.page}–{self.page_end}"

    def cite(self, source: str | None = None, *, chars: bool = True) -> str:
        """A short human-readable citation: ``file, p. 3, § 12.3, chars 100-250`` (``pp.
        3–4`` across pages; ``p. 3 (OCR)`` where the page was read by OCR), or
        ``file:12-30, § Parser.parse, chars 100-250`` where the hit
        has line numbers. ``source``: the file as the reader should see it (default: as
        indexed); ``chars``: whether the character offsets are part of it."""
        where = self.source if source is None else source
        if self.line is not None:
            last = self.line_end if self.line_end is not None else self.line
            where += f":{self.line}" if last == self.line else f":{self.line}-{last}"
        parts = [where]
        pages = self.pages()
        if pages is not None:
            parts.append(f"{pages} (OCR)" if self.ocr else pages)
        if self.section:
            parts.append(f"§ {self.section}")
        if chars:
            parts.append(f"chars {self.start}-{self.end}")
        return ", ".join(parts)


#: The answer when no indexed passage matches (extractive, generated or many at once).
NO_PASSAGE = "No indexed passage matches the question."


@dataclass(frozen=True)
class Support:
    """The check of one answer sentence. ``start``/``end`` index the answer text;
    ``evidence`` is the closest evidence sentence that states the sentence's numbers (the
    closest sentence when none does or it states none; a :class:`Hit` whose
    ``start``/``end`` index its document's text, as search hits do, and whose ``score``
    is its cosine similarity; None when no passage was shown); ``similarity`` the best
    cosine similarity to any evidence sentence (what ``support.MIN_SIMILARITY`` bounds);
    ``cites`` the passage numbers the sentence cites (1-based); ``reason`` says why an
    unsupported sentence is not supported."""

    sentence: str
    start: int
    end: int
    supported: bool
    evidence: Hit | None
    similarity: float
    cites: tuple[int, ...] = ()
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        ev = self.evidence
        return {
            "sentence": self.sentence,
            "supported": self.supported,
            "reason": self.reason,
            "cites": list(self.cites),
            "similarity": round(self.similarity, 4),
            "evidence": None
            if ev is None
            else {
                "source": ev.source,
                "start": ev.start,
                "end": ev.end,
                "text": ev.text,
                "page": ev.page,
                "section": ev.section,
            },
        }


@dataclass(frozen=True)
class Phrase:
    """The answer phrase: the shortest text that answers ("sixty (60) days", "the State
    of California", "required, important, standard, optional").

    ``spans`` are its parts' offsets in its document's text (one part for a phrase that
    is one span; a list's items are several), so ``text`` is the parts joined by ``", "``;
    ``sentence`` is the sentence (or list) it stands in, a :class:`Hit` whose
    ``start``/``end`` index the same document and whose page and section cite it;
    ``kind`` is what the question asked for (``"duration"``, ``"law"``, ``"list"`` …).
    """

    text: str
    spans: tuple[tuple[int, int], ...]
    sentence: Hit
    kind: str = "other"

    def __post_init__(self) -> None:
        if not self.spans:
            raise InvariantError("a phrase needs at least one span")
        for a, b in self.spans:
            _check_range("phrase", a, b)
            if not (self.sentence.start <= a and b <= self.sentence.end):
                raise InvariantError(
                    f"phrase span [{a}, {b}) is outside its sentence "
                    f"[{self.sentence.start}, {self.sentence.end})"
                )

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def end(self) -> int:
        return self.spans[-1][1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "spans": [list(s) for s in self.spans],
            "sentence": self.sentence.to_dict(),
        }


def short_names(paths: Sequence[str]) -> list[str]:
    """Each path by its file name, or by as many of its last folders as tell it apart
    from the others (``cli/termui.py``, ``ui/termui.py``; a name given twice stays
    whole)."""
    parts = [p.replace("\\", "/").split("/") for p in paths]
    out = []
    for i, mine in enumerate(parts):
        others = [q for j, q in enumerate(parts) if j != i and q != mine]
        n = 1
        while n < len(mine) and any(q[-n:] == mine[-n:] for q in others):
            n += 1
        out.append("/".join(mine[-n:]))
    return out


@dataclass(frozen=True)
class Scope:
    """The documents a question names ("the NDA", ``lease.pdf``, "Granite Quay's lease").

    ``sources``: the indexed documents it was scoped to (their passages answer it);
    ``named``: the words of the question that named them; ``missing``: set when the
    question names a document the index does not hold (then nothing answers it)."""

    sources: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    missing: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"sources": list(self.sources), "named": list(self.named), "missing": self.missing}

    def describe(self) -> str:
        """One line for a reader: what the question was scoped to, or what is missing."""
        if self.missing is not None:
            return (
                f"the question names {self.missing!r}, which matches no indexed document: "
                "looked for across the whole index"
            )
        names = ", ".join(short_names(self.sources))
        said = ", ".join(repr(n) for n in self.named)
        return f"answered from {names}: the question names {said}"


@dataclass(frozen=True)
class Answer:
    """An answer with the hits it cites.

    ``citations`` are the passages the answer rests on; ``context`` all passages the
    answerer was shown. ``mode`` is how it was made, in the words a user asks for it
    (``"quote"``, ``"copy"``, ``"generate"``; ``"scope"``: the document the question
    names is not indexed). ``cited_by`` says how citations were found: ``"model"`` (the
    generator wrote ``[n]`` markers), ``"attribution"`` (the generator cited nothing and
    the passages most similar to its answer were attributed), ``"copy"`` (the answer is
    copied from a passage, so it cites that passage) or ``"quote"`` (it quotes them).
    ``phrase`` is the answer phrase where one was found (None: no passage states what
    was asked); ``scope`` the documents the question named (None: it named none). A
    quoted answer is rated: ``confidence`` the calibrated probability it is right,
    ``alternatives`` its two best candidate sentences; ``unsure``: rated below the ask's
    ``min_confidence``, it presents no phrase and quotes both
    (:mod:`lateseg.answer.confidence`). ``model``: the model that wrote a generated
    answer, as its server or folder names it, or that was asked to write one the quote
    replaced (its draft is ``generated``); None: no model was asked.
    """

    text: str
    citations: tuple[Hit, ...]
    context: tuple[Hit, ...] = ()
    mode: str = "generate"
    cited_by: str = "model"
    kv_stats: dict[str, Any] | None = None
    support: tuple[Support, ...] = ()
    dropped: tuple[Hit, ...] = ()
    generated: Answer | None = None
    finish: str | None = None
    phrase: Phrase | None = None
    scope: Scope | None = None
    confidence: float | None = None
    alternatives: tuple[Hit, ...] = ()
    unsure: bool = False
    model: str | None = None

    @property
    def supported(self) -> bool | None:
        """Whether some sentence of a generated answer is supported by its evidence (None
        when the answer was not checked: quoted, or no passage)."""
        return any(s.supported for s in self.support) if self.support else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "phrase": None if self.phrase is None else self.phrase.to_dict(),
            "text": self.text,
            "scope": None if self.scope is None else self.scope.to_dict(),
            "mode": self.mode,
            "cited_by": self.cited_by,
            "supported": self.supported,
            "finish": self.finish,
            "citations": [h.to_dict() for h in self.citations],
            "support": [s.to_dict() for s in self.support],
            "context": [h.to_dict() for h in self.context],
            "dropped": [h.to_dict() for h in self.dropped],
            "generated": None if self.generated is None else self.generated.to_dict(),
            "kv_stats": self.kv_stats,
            "confidence": self.confidence,
            "unsure": self.unsure,
            "alternatives": [h.to_dict() for h in self.alternatives],
            "model": self.model,
        }


class TextEmbedder(Protocol):
    """What quoting and the support check need of an embedder: normalised vectors of
    queries and of short texts (the index's :class:`~lateseg.encode.late.LateEncoder`
    is one). Named here so that :mod:`lateseg.answer` and :mod:`lateseg.check`, where no
    model runs, import no model code: the embedder is handed in."""

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray: ...

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray: ...
