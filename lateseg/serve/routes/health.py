"""``/`` (the page) and ``/api/health``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from lateseg.serve.limits import DEFAULT_ZOOM, MAX_K, document_kinds
from lateseg.serve.routes.deps import JobsDep, ServiceDep
from lateseg.serve.schemas import StatusOut

router = APIRouter()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page(request: Request, jobs: JobsDep) -> HTMLResponse:
    html = request.app.state.templates.get_template("index.html").render(
        kinds=document_kinds(),
        max_k=MAX_K,
        zoom=DEFAULT_ZOOM,
        uploads=jobs is not None,
        limit_mb=(jobs.limits.max_bytes >> 20) if jobs else 0,
        types=", ".join(jobs.limits.types) if jobs else "",
    )
    return HTMLResponse(html)


@router.get("/api/health", response_model=StatusOut)
def health(service: ServiceDep) -> dict[str, Any]:
    """The index's counts and the generation queue."""
    return service.status()
