"""``/api/ingest``: uploads, and the ingest jobs that follow them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Request
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from lateseg.errors import ConfigError
from lateseg.serve.documents import NotFound
from lateseg.serve.jobs import Job, Jobs, UploadError
from lateseg.serve.limits import MAX_FILES
from lateseg.serve.routes.deps import JobsDep
from lateseg.serve.schemas import IngestJobOut

router = APIRouter(prefix="/api/ingest")


@router.post("", response_model=IngestJobOut, status_code=202)
async def ingest(request: Request, jobs: JobsDep) -> dict[str, Any]:
    """Upload files (multipart field ``files``; a zip is checked, then unpacked) and
    ingest them in the background: 202 with the job to follow. Field ``ocr``: ``auto``
    (default: scanned pages and images read by OCR), ``off`` or ``force``. A request
    that brings nothing to ingest leaves nothing behind."""
    if jobs is None:
        raise NotFound("this server takes no uploads (start it with --uploads)")
    form = await request.form(max_files=MAX_FILES, max_fields=20)
    ocr = form.get("ocr")
    try:
        job = jobs.new_job(ocr if isinstance(ocr, str) and ocr else "auto")
    except ConfigError as e:
        await form.close()
        raise UploadError(f"field ocr: {e}") from None
    try:
        for item in form.getlist("files"):
            if not isinstance(item, str) and item.filename:
                await run_in_threadpool(jobs.add_file, job, item.filename, item.file)
    except BaseException:
        jobs.discard(job)
        raise
    finally:
        await form.close()
    if not job.files:
        jobs.discard(job)
        reasons = "; ".join(r for _, r in job.refused) or "no file was given (field 'files')"
        raise UploadError(f"nothing to ingest: {reasons}")
    jobs.submit(job)
    return job.to_dict()


@router.get("/{job_id}", response_model=IngestJobOut)
def ingest_job(job_id: str, jobs: JobsDep) -> dict[str, Any]:
    """An ingest job's progress and results (each failure with its reason)."""
    return _job(jobs, job_id).to_dict()


@router.get(
    "/{job_id}/events",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def ingest_events(job_id: str, jobs: JobsDep) -> EventSourceResponse:
    """The job's progress as server-sent events, until it is done or failed: ``queued``,
    ``running``, ``loading`` (the model, before the first file), ``page`` (OCR read page
    ``page`` of ``pages`` of ``file``), ``file`` (a file ingested or failed, with its
    reason), then ``done`` (the job) or ``failed``."""
    job = _job(jobs, job_id)

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


def _job(jobs: Jobs | None, job_id: str) -> Job:
    if jobs is None or job_id not in jobs.jobs:
        raise NotFound(f"no ingest job {job_id!r}")
    return jobs.jobs[job_id]
