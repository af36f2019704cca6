"""``/api/documents/{id}``: what a document is, where a span lies on its pages, the
passage in its context, the terms it uses, and its page images (through
``service.documents``, :class:`~lateseg.serve.documents.Documents`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from lateseg.serve.limits import DEFAULT_ZOOM, MAX_ZOOM, MIN_ZOOM
from lateseg.serve.routes.deps import ServiceDep
from lateseg.serve.schemas import DefinitionsOut, DocumentOut, HighlightOut, ViewOut

router = APIRouter(prefix="/api/documents")


@router.get("/{doc_id}", response_model=DocumentOut, response_model_exclude_unset=True)
def document(doc_id: str, service: ServiceDep) -> dict[str, Any]:
    """What a document is (its kind, name, pages): addressed by ID, never by path."""
    documents = service.documents
    return documents.describe(documents.document(doc_id))


@router.get("/{doc_id}/highlight", response_model=HighlightOut)
def highlight(doc_id: str, start: int, end: int, service: ServiceDep) -> dict[str, Any]:
    """Rectangles of the span ``start``-``end`` on the PDF's pages."""
    documents = service.documents
    return documents.highlight(documents.document(doc_id), start, end)


@router.get("/{doc_id}/view", response_model=ViewOut, response_model_exclude_unset=True)
def view(
    doc_id: str,
    start: int,
    end: int,
    service: ServiceDep,
    strong_start: int | None = None,
    strong_end: int | None = None,
) -> dict[str, Any]:
    """The passage in its context as HTML (code: highlighted, cited lines marked); with
    ``strong_start``-``strong_end``, the answer phrase inside it marked more strongly."""
    documents = service.documents
    doc = documents.document(doc_id)
    strong = None if strong_start is None or strong_end is None else (strong_start, strong_end)
    return {**documents.view(doc, start, end, strong=strong), "document": documents.describe(doc)}


@router.get("/{doc_id}/definitions", response_model=DefinitionsOut)
def definitions(doc_id: str, start: int, end: int, service: ServiceDep) -> dict[str, Any]:
    """The defined terms the passage uses, with their definitions."""
    documents = service.documents
    return {"definitions": documents.definitions(documents.document(doc_id), start, end)}


@router.get(
    "/{doc_id}/pages/{number}.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}}},
)
def page_png(
    doc_id: str,
    number: int,
    service: ServiceDep,
    highlight: str | None = Query(None, pattern=r"^\d{1,10}-\d{1,10}$"),
    zoom: float = Query(DEFAULT_ZOOM, ge=MIN_ZOOM, le=MAX_ZOOM, allow_inf_nan=False),
) -> Response:
    """Page ``number`` as PNG, the span ``highlight=S-E`` drawn over it (a large page
    is drawn at a smaller zoom: at most MAX_PAGE_SIDE pixels a side)."""
    span = None
    if highlight:
        a, b = highlight.split("-")
        span = (int(a), int(b))
    documents = service.documents
    png = documents.page_png(documents.document(doc_id), number, zoom, span)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private"})
