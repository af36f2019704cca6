"""The HTTP side of ``lateseg serve``: the page and the API it uses, wired from the
routers of :mod:`lateseg.serve.routes` behind the checks of :mod:`lateseg.serve.guard`
(hosts, origins, the token, body limits). Errors are JSON ``{"error": message,
"status": code}``, never a stack trace; :func:`lateseg.serve.guard.status_of` maps each
error to its status. The OpenAPI schema is at ``/openapi.json``; the interactive
``/docs`` page (which loads its scripts from a CDN) is off unless ``docs`` is given.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.exceptions import HTTPException

from lateseg.errors import LatesegError, RemoteModelError
from lateseg.serve.documents import NotFound
from lateseg.serve.guard import Guard, error_body, register, status_of
from lateseg.serve.jobs import Jobs, UploadError
from lateseg.serve.limits import BODY_IDLE_SECONDS
from lateseg.serve.routes import ROUTERS
from lateseg.serve.service import Busy, Service
from lateseg.serve.viewer import NotServable

log = logging.getLogger(__name__)
TEMPLATES = Path(__file__).parent / "templates"

register(NotFound, 404)
register(NotServable, 404)
register(Busy, 503)
register(UploadError, 400)
# the operator's model server failed: a bad gateway, its one line (never the key)
register(RemoteModelError, 502)


def create_app(
    service: Service,
    jobs: Jobs | None = None,
    token: str | None = None,
    *,
    allow_hosts: Iterable[str] = (),
    docs: bool = False,
    body_idle: float = BODY_IDLE_SECONDS,
) -> Any:
    """The ASGI app over ``service`` (and ``jobs`` for uploads; None: no uploads):
    :class:`~lateseg.serve.guard.Guard` around the FastAPI app. ``allow_hosts``: names
    besides loopback ones and address literals that requests may use as ``Host``;
    ``body_idle``: the longest pause between two pieces of a request body."""
    templates = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape())
    app = FastAPI(
        title="lateseg",
        description="Search and ask an index of long documents; cited spans on their pages.",
        version="1",
        docs_url="/docs" if docs else None,
        redoc_url=None,
    )
    app.state.service = service
    app.state.jobs = jobs
    app.state.templates = templates
    for router in ROUTERS:
        app.include_router(router)

    @app.exception_handler(Exception)
    async def failed(_: Request, e: Exception) -> JSONResponse:
        if isinstance(e, HTTPException):
            status, message = e.status_code, str(e.detail)
        elif isinstance(e, RequestValidationError):
            status, message = 422, f"invalid request: {_invalid(e)}"
        else:
            status = status_of(e)
            message = (
                str(e) if status != 500 else "internal error (the server's log has the details)"
            )
            if status == 500:
                log.exception("unexpected error", exc_info=e)
        headers = {"Retry-After": str(e.retry_after)} if isinstance(e, Busy) else None
        return JSONResponse(error_body(status, message), status, headers=headers)

    # the specific classes first: Starlette looks a handler up by class
    for cls in (HTTPException, RequestValidationError, LatesegError):
        app.add_exception_handler(cls, failed)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, failed)
    limit = jobs.limits.max_bytes + (1 << 20) if jobs else 0  # the form's own bytes on top
    return Guard(
        app,
        token=token,
        allow_hosts=allow_hosts,
        limits={"/api/ingest": limit} if jobs else {},
        login_page=lambda: templates.get_template("login.html").render().encode(),
        idle_seconds=body_idle,
    )


def _invalid(e: RequestValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in d.get('loc', ())[1:]) or 'body'}: {d.get('msg')}"
        for d in e.errors()
    )
