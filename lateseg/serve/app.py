"""The HTTP side of ``lateseg serve``: the page, and the API it uses (OpenAPI at
``/docs``). Errors are JSON ``{"error": message, "status": code}``, never a stack trace.

With a ``token`` every request, page loads included, needs ``Authorization: Bearer
TOKEN``; a page load without it gets a small form that asks for the token and keeps it
in memory only. Request bodies of ``/api/ingest`` over the upload limit are refused
before they are read (413).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import queue
import threading
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import BaseModel, Field
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from lateseg.errors import ConfigError, LatesegError
from lateseg.generate.answering import answer_mode
from lateseg.serve.jobs import Jobs, UploadError
from lateseg.serve.service import Busy, NotFound, Service, answer_json, hit_json
from lateseg.serve.viewer import MAX_ZOOM, NotServable
from lateseg.types import DOCUMENT_KINDS

log = logging.getLogger(__name__)
TEMPLATES = Path(__file__).parent / "templates"


class AskBody(BaseModel):
    """``POST /api/ask``: the question and how to answer it."""

    question: str = Field(min_length=1, max_length=2000)
    k: int = Field(5, ge=1, le=50)
    answer: Literal["quote", "copy", "generate"] | None = None
    extractive: bool = False
    kv_budget: float | None = Field(None, gt=0)
    kv_method: str | None = None
    source: str | None = None
    kind: str | None = None
    stream: bool = False


def create_app(service: Service, jobs: Jobs | None = None, token: str | None = None) -> Any:
    """The FastAPI app over ``service`` (and ``jobs`` for uploads; None: no uploads)."""
    templates = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape())
    app = FastAPI(
        title="lateseg",
        description="Search and ask an index of long documents; cited spans on their pages.",
        version="1",
    )
    limit = jobs.limits.max_bytes if jobs else 0

    def error(status: int, message: str, **headers: str) -> JSONResponse:
        return JSONResponse({"error": message, "status": status}, status, headers=headers or None)

    @app.exception_handler(NotFound)
    async def not_found(_: Request, e: NotFound) -> JSONResponse:
        return error(404, str(e))

    @app.exception_handler(NotServable)
    async def not_servable(_: Request, e: NotServable) -> JSONResponse:
        return error(404, f"the document's file cannot be shown: {e}")

    @app.exception_handler(Busy)
    async def busy(_: Request, e: Busy) -> JSONResponse:
        return error(503, str(e), **{"Retry-After": str(e.retry_after)})

    @app.exception_handler(LatesegError)
    async def bad(_: Request, e: LatesegError) -> JSONResponse:
        return error(400, str(e))

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, e: RequestValidationError) -> JSONResponse:
        where = "; ".join(
            f"{'.'.join(str(p) for p in d.get('loc', ())[1:]) or 'body'}: {d.get('msg')}"
            for d in e.errors()
        )
        return error(422, f"invalid request: {where}")

    @app.exception_handler(HTTPException)
    async def http(_: Request, e: HTTPException) -> JSONResponse:
        return error(e.status_code, str(e.detail))

    @app.exception_handler(Exception)
    async def crash(_: Request, e: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return error(500, "internal error (the server's log has the details)")

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        if token and not _authorised(request.headers.get("authorization"), token):
            if request.url.path == "/":
                page = templates.get_template("login.html").render()
                return HTMLResponse(page, 401, headers={"WWW-Authenticate": "Bearer"})
            return error(401, "give the server's token: Authorization: Bearer TOKEN",
                         **{"WWW-Authenticate": "Bearer"})  # fmt: skip
        if jobs is not None and request.url.path == "/api/ingest" and request.method == "POST":
            size = request.headers.get("content-length")
            if size is None or not size.isdigit():
                return error(411, "an upload must say its size (Content-Length)")
            if int(size) > limit + (1 << 20):  # the form's own bytes on top of the files
                return error(413, f"upload of {size} bytes; the limit is {limit}")
        return await call_next(request)

    # -- the page -------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        html = templates.get_template("index.html").render(
            kinds=DOCUMENT_KINDS,
            uploads=jobs is not None,
            limit_mb=limit >> 20,
            types=", ".join(jobs.limits.types) if jobs else "",
        )
        return HTMLResponse(html)

    # -- API ------------------------------------------------------------------------------

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        """The index's counts and the generation queue."""
        return service.status()

    @app.get("/api/search")
    def search(
        q: str,
        k: int = Query(5, ge=1, le=50),
        mode: str = Query("dense", pattern="^(dense|lexical|hybrid)$"),
        source: str | None = None,
        kind: str | None = None,
    ) -> dict[str, Any]:
        """The ``k`` best passages for ``q``; ``source``: a glob over file paths."""
        if kind is not None and kind not in DOCUMENT_KINDS:
            raise ConfigError(f"kind={kind!r}; choose one of {', '.join(DOCUMENT_KINDS)}")
        hits = service.search(q, k, mode=mode, source=source, kind=kind)
        return {"query": q, "hits": [hit_json(h) for h in hits]}

    @app.post("/api/ask", response_model=None)
    def ask(body: AskBody, request: Request) -> Any:
        """An answer with citations. ``stream`` (or ``Accept: text/event-stream``):
        server-sent events ``hits``, ``token`` (text as made), then ``answer`` or
        ``error``. A full generation queue answers 503 with ``Retry-After``."""
        budget = body.kv_budget
        kv = int(budget) if budget is not None and budget >= 1 else budget
        how = answer_mode(body.answer, body.extractive, budget is not None or bool(body.kv_method))
        options = dict(
            k=body.k, answer=how, kv_budget=kv, kv_method=body.kv_method,
            source=body.source, kind=body.kind,
        )  # fmt: skip
        streamed = body.stream or "text/event-stream" in request.headers.get("accept", "")
        if not streamed:
            return answer_json(service.ask(body.question, **options))  # type: ignore[arg-type]
        if how != "quote" and service.busy():
            raise Busy("the generation queue is full; try again shortly", retry_after=10)
        events: queue.Queue[tuple[str, Any] | None] = queue.Queue()

        def work() -> None:
            try:
                answer = service.ask(
                    body.question,
                    stream=lambda text: events.put(("token", {"text": text})),
                    on_hits=lambda hits: events.put(("hits", [hit_json(h) for h in hits])),
                    **options,  # type: ignore[arg-type]
                )
                events.put(("answer", answer_json(answer)))
            except Busy as e:
                events.put(("error", {"error": str(e), "status": 503}))
            except LatesegError as e:
                events.put(("error", {"error": str(e), "status": 400}))
            except Exception:
                log.exception("answer failed")
                events.put(("error", {"error": "internal error", "status": 500}))
            finally:
                events.put(None)

        threading.Thread(target=work, name="lateseg-answer", daemon=True).start()

        async def stream() -> Any:
            while (item := await asyncio.to_thread(events.get)) is not None:
                yield {"event": item[0], "data": json.dumps(item[1])}

        return EventSourceResponse(stream())

    @app.get("/api/documents/{doc_id}")
    def document(doc_id: str) -> dict[str, Any]:
        """What a document is (its kind, name, pages): addressed by ID, never by path."""
        return service.describe(service.document(doc_id))

    @app.get("/api/documents/{doc_id}/highlight")
    def highlight(doc_id: str, start: int, end: int) -> dict[str, Any]:
        """Rectangles of the span ``start``-``end`` on the PDF's pages."""
        return service.highlight(service.document(doc_id), start, end)

    @app.get("/api/documents/{doc_id}/view")
    def view(doc_id: str, start: int, end: int) -> dict[str, Any]:
        """The passage in its context as HTML (code: highlighted, cited lines marked)."""
        doc = service.document(doc_id)
        return {**service.view(doc, start, end), "document": service.describe(doc)}

    @app.get("/api/documents/{doc_id}/definitions")
    def definitions(doc_id: str, start: int, end: int) -> dict[str, Any]:
        """The defined terms the passage uses, with their definitions."""
        return {"definitions": service.definitions(service.document(doc_id), start, end)}

    @app.get(
        "/api/documents/{doc_id}/pages/{number}.png",
        response_class=Response,
        responses={200: {"content": {"image/png": {}}}},
    )
    def page_png(
        doc_id: str,
        number: int,
        highlight: str | None = Query(None, pattern=r"^\d{1,10}-\d{1,10}$"),
        zoom: float = Query(1.5, ge=0.25, le=MAX_ZOOM),
    ) -> Response:
        """Page ``number`` as PNG, the span ``highlight=S-E`` drawn over it."""
        span = None
        if highlight:
            a, b = highlight.split("-")
            span = (int(a), int(b))
        png = service.page_png(service.document(doc_id), number, zoom, span)
        return Response(png, media_type="image/png", headers={"Cache-Control": "private"})

    @app.post("/api/ingest")
    async def ingest(request: Request) -> JSONResponse:
        """Upload files (multipart field ``files``; a zip is checked, then unpacked) and
        ingest them in the background: 202 with the job to follow."""
        if jobs is None:
            raise NotFound("this server takes no uploads")
        form = await request.form(max_files=1000, max_fields=20)
        job = jobs.new_job()
        try:
            for item in form.getlist("files"):
                if not isinstance(item, str) and item.filename:
                    await run_in_threadpool(jobs.add_file, job, item.filename, item.file)
        finally:
            await form.close()
        if not job.files:
            reasons = "; ".join(r for _, r in job.refused) or "no file was given (field 'files')"
            raise UploadError(f"nothing to ingest: {reasons}")
        jobs.submit(job)
        return JSONResponse(job.to_dict(), 202)

    @app.get("/api/ingest/{job_id}")
    def ingest_job(job_id: str) -> dict[str, Any]:
        """An ingest job's progress and results (each failure with its reason)."""
        return _job(job_id).to_dict()

    @app.get("/api/ingest/{job_id}/events")
    async def ingest_events(job_id: str) -> Any:
        """The job's progress as server-sent events, until it is done or failed."""
        job = _job(job_id)

        async def stream() -> Any:
            seen = 0
            while True:
                while seen < len(job.events):
                    event = job.events[seen]
                    seen += 1
                    yield {"event": event["event"], "data": json.dumps(event)}
                if job.state in ("done", "failed"):
                    return
                await asyncio.sleep(0.25)

        return EventSourceResponse(stream())

    def _job(job_id: str) -> Any:
        if jobs is None or job_id not in jobs.jobs:
            raise NotFound(f"no ingest job {job_id!r}")
        return jobs.jobs[job_id]

    return app


def _authorised(header: str | None, token: str) -> bool:
    if not header or not header.lower().startswith("bearer "):
        return False
    return hmac.compare_digest(header[7:].strip().encode(), token.encode())
