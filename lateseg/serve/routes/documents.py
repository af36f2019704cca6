"""``/api/documents/{id}``: what a document is, where a span lies on its pages, the
passage in its context, the terms it uses, and its page images."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from lateseg.serve.limits import DEFAULT_ZOOM, MAX_ZOOM, MIN_ZOOM
from lateseg.serve.routes.deps import ServiceDep

router = APIRouter(prefix="/api/documents")


@router.get("/{doc_id}")
def document(doc_id: str, service: ServiceDep) -> dict[str, Any]:
    """What a document is (its kind, name, pages): addressed by ID, never by path."""
    return service.describe(service.document(doc_id))


@router.get("/{doc_id}/highlight")
def highlight(doc_id: str, start: int, end: int, service: ServiceDep) -> dict[str, Any]:
    """Rectangles of the span ``start``-``end`` on the PDF's pages."""
    return service.highlight(service.document(doc_id), start, end)


@router.get("/{doc_id}/view")
def view(doc_id: str, start: int, end: int, service: ServiceDep) -> dict[str, Any]:
    """The passage in its context as HTML (code: highlighted, cited lines marked)."""
    doc = service.document(doc_id)
    return {**service.view(doc, start, end), "document": service.describe(doc)}


@router.get("/{doc_id}/definitions")
def definitions(doc_id: str, start: int, end: int, service: ServiceDep) -> dict[str, Any]:
    """The defined terms the passage uses, with their definitions."""
    return {"definitions": service.definitions(service.document(doc_id), start, end)}


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
    png = service.page_png(service.document(doc_id), number, zoom, span)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private"})
