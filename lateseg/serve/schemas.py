"""The JSON bodies of ``lateseg serve``'s API as pydantic models: each route declares
its own as ``response_model``, so ``/openapi.json`` documents every JSON response.

The service shapes its JSON as plain dicts (:func:`~lateseg.serve.service.hit_json`,
:func:`~lateseg.serve.service.answer_json`, :class:`~lateseg.serve.documents.Documents`,
:meth:`~lateseg.serve.jobs.Job.to_dict`), which the MCP tools and the streamed events
send as they are; these models mirror those dicts field for field and in their order,
so validating a route's dict through its model leaves its JSON as it was. A field the
dicts give only sometimes has a default and is left out when unset
(``response_model_exclude_unset``), as the dicts leave it out.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class Passage(BaseModel):
    """A passage's fields as :meth:`lateseg.types.Hit.to_dict` gives them."""

    source: str
    start: int
    end: int
    text: str
    score: float
    page: int | None
    page_end: int | None
    section: str | None
    line: int | None
    line_end: int | None
    ocr: bool
    kind: str | None


class HitOut(Passage):
    """A hit for a client (:func:`~lateseg.serve.service.hit_json`): its file as the
    server names it, its document's ID, a citation and its character span."""

    doc_id: str
    chunk_id: int
    name: str
    cite: str
    chars: str
    pages: str | None


class SearchOut(BaseModel):
    query: str
    hits: list[HitOut]


class PhraseOut(BaseModel):
    """The answer phrase: its parts' offsets in its document and the sentence it is in."""

    text: str
    kind: str
    start: int
    end: int
    spans: list[list[int]]
    sentence: HitOut


class ScopeOut(BaseModel):
    """The documents the question named (``missing``: one the index does not hold)."""

    sources: list[str]
    named: list[str]
    missing: str | None


class SupportOut(BaseModel):
    """The check of one sentence of a generated answer against its evidence."""

    sentence: str
    supported: bool
    reason: str | None
    cites: list[int]
    similarity: float
    evidence: HitOut | None


class AnswerOut(BaseModel):
    """An answer (:func:`~lateseg.serve.service.answer_json`): its phrase first, the
    passages it cites and was shown; ``generated``: the model's own answer where it was
    replaced by the quote."""

    phrase: PhraseOut | None
    text: str
    scope: ScopeOut | None
    mode: str
    cited_by: str
    supported: bool | None
    finish: str | None
    citations: list[HitOut]
    support: list[SupportOut]
    context: list[HitOut]
    dropped: list[HitOut]
    generated: AnswerOut | None
    kv_stats: dict[str, Any] | None
    confidence: float | None
    unsure: bool
    alternatives: list[HitOut]
    model: str | None


class AskManyOut(BaseModel):
    """``/api/ask_many``: the answers, in the questions' order."""

    answers: list[AnswerOut]


class StatusOut(BaseModel):
    """``/api/health``: whether the models are loaded, the index's counts, the queue."""

    status: Literal["ready", "loading"]
    index: str
    documents: int
    chunks: int
    answers_in_queue: int
    queue: int


class DocumentOut(BaseModel):
    """What a document is (its text is not sent); ``paged``: its format's documents are
    pages to show (the viewer's page images and highlights); ``pages`` and ``ocr_pages``
    (pages read by OCR) only for a document with pages."""

    id: str
    source: str
    name: str
    kind: str
    chars: int
    title: str | None
    language: str | None
    geometry: bool
    paged: bool
    pages: int | None = None
    ocr_pages: list[int] | None = None


class RectOut(BaseModel):
    """A rectangle on page ``page``, in PDF points from the page's top left."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class HighlightOut(BaseModel):
    """Where a span lies on a PDF's pages; ``sizes``: each page's width and height."""

    method: Literal["geometry", "search"]
    rects: list[RectOut]
    pages: list[int]
    sizes: dict[str, tuple[float, float]]
    note: str | None


class ViewOut(BaseModel):
    """A passage in its context as HTML: text gives the ``start``-``end`` it shows,
    code its ``css`` and the cited ``line``-``line_end``."""

    html: str
    start: int | None = None
    end: int | None = None
    css: str | None = None
    line: int | None = None
    line_end: int | None = None
    document: DocumentOut


class DefinitionsOut(BaseModel):
    """Defined term → its definition, for the terms a passage uses."""

    definitions: dict[str, str]


class FileReason(BaseModel):
    file: str
    reason: str


class IngestJobOut(BaseModel):
    """An ingest job (:meth:`~lateseg.serve.jobs.Job.to_dict`): files by their names."""

    job: str
    state: Literal["queued", "running", "done", "failed"]
    files: int
    done: int
    added: list[str]
    updated: list[str]
    unchanged: list[str]
    failed: list[FileReason]
    refused: list[FileReason]
    chunks: int
    ocr: str
    ocr_pages: int
    unread_pages: list[FileReason]
    error: str | None
