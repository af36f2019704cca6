"""``/api/search`` and ``/api/ask``."""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sse_starlette.sse import EventSourceResponse

from lateseg.ask.options import ANSWER_MODES, MODE_ALIASES, PASSAGES, AskOptions
from lateseg.serve.guard import error_body, status_of
from lateseg.serve.limits import (
    MAX_K,
    MAX_KV_BUDGET,
    MAX_MANY,
    MAX_QUESTION,
    MAX_STREAMS,
    QUERY_MODES,
    document_kinds,
)
from lateseg.serve.routes.deps import ServiceDep
from lateseg.serve.schemas import AnswerOut, AskManyOut, SearchOut
from lateseg.serve.service import Busy, Cancelled

log = logging.getLogger(__name__)
router = APIRouter()
# Streamed answers run here: a bounded pool, never a thread each.
_POOL = ThreadPoolExecutor(MAX_STREAMS, thread_name_prefix="lateseg-answer")


def _one_of(value: str | None, allowed: tuple[str, ...], name: str) -> str | None:
    if value is not None and value not in allowed:
        raise ValueError(f"{name}={value!r}; choose one of {', '.join(allowed)}")
    return value


class AskBody(BaseModel):
    """``POST /api/ask``: the question and how to answer it."""

    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    k: int = Field(5, ge=1, le=MAX_K)
    answer: str | None = None
    extractive: bool = False
    kv_budget: float | None = Field(None, gt=0, le=MAX_KV_BUDGET, allow_inf_nan=False)
    kv_method: str | None = Field(None, max_length=40)
    source: str | None = Field(None, max_length=1000)
    kind: str | None = None
    stream: bool = False
    min_confidence: float | None = Field(None, ge=0, le=1, allow_inf_nan=False)

    @field_validator("answer")
    @classmethod
    def _answer(cls, v: str | None) -> str | None:
        return _one_of(v, (*ANSWER_MODES, *MODE_ALIASES), "answer")

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str | None) -> str | None:
        return _one_of(v, document_kinds(), "kind")  # the formats registered now

    def options(self) -> AskOptions:
        """The ask's options (a budget of 1 or more is a number of tokens)."""
        budget = self.kv_budget
        return AskOptions.of(
            k=self.k, answer=self.answer, extractive=self.extractive,
            kv_budget=int(budget) if budget is not None and budget >= 1 else budget,
            kv_method=self.kv_method, source=self.source, kind=self.kind,
            min_confidence=self.min_confidence,
        )  # fmt: skip


class AskManyBody(BaseModel):
    """``POST /api/ask_many``: questions answered from one context, compressed once.
    ``source`` and ``kind`` select passages, so they are refused with ``doc_id``; an
    unknown field is refused, never ignored."""

    model_config = ConfigDict(extra="forbid")

    questions: list[str] = Field(min_length=1, max_length=MAX_MANY)
    doc_id: str | None = Field(None, max_length=40)
    k: int = Field(5, ge=1, le=MAX_K)
    kv_budget: float | None = Field(None, gt=0, le=MAX_KV_BUDGET, allow_inf_nan=False)
    kv_method: str | None = Field(None, max_length=40)
    source: str | None = Field(None, max_length=1000)
    kind: str | None = None

    @field_validator("questions")
    @classmethod
    def _questions(cls, v: list[str]) -> list[str]:
        if any(not q.strip() or len(q) > MAX_QUESTION for q in v):
            raise ValueError(f"each question has 1 to {MAX_QUESTION} characters")
        return v

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str | None) -> str | None:
        return _one_of(v, document_kinds(), "kind")

    @model_validator(mode="after")
    def _one_context(self) -> AskManyBody:
        if self.doc_id is not None and (self.source is not None or self.kind is not None):
            raise ValueError("doc_id names the whole context: give source and kind without it")
        return self

    def options(self) -> AskOptions:
        budget = self.kv_budget
        return AskOptions.of(
            k=self.k, answer="generate",
            kv_budget=int(budget) if budget is not None and budget >= 1 else budget,
            kv_method=self.kv_method, source=self.source, kind=self.kind,
        )  # fmt: skip


@router.get("/api/search", response_model=SearchOut)
def search(
    service: ServiceDep,
    q: str = Query(max_length=MAX_QUESTION),
    k: int = Query(5, ge=1, le=MAX_K),
    mode: str = Query("auto", pattern="^(" + "|".join(QUERY_MODES) + ")$"),
    source: str | None = Query(None, max_length=1000),
    kind: str | None = None,
    passages: str = Query("auto", pattern="^(" + "|".join(PASSAGES) + ")$"),
) -> dict[str, Any]:
    """The ``k`` best passages for ``q``; ``source``: a glob over file paths;
    ``passages``: ``auto`` (a search about code gives whole functions), ``chunks`` or
    ``units``."""
    hits = service.search(q, k, mode=mode, source=source, kind=kind, passages=passages)
    return {"query": q, "hits": [service.hit_json(h) for h in hits]}


@router.post("/api/ask_many", response_model=AskManyOut)
def ask_many(body: AskManyBody, service: ServiceDep) -> dict[str, Any]:
    """Several questions about one document (``doc_id``: all of it that the model's
    window holds) or about the union of their best passages, answered from one context
    the generator prefills and KV-compresses once, before it knows the questions
    (``kv_budget``, ``kv_method``), then reuses for each: the cost of one prefill for
    them all. ``answers`` in the questions' order; one place in the generation queue."""
    answers = service.ask_many(body.questions, body.options(), doc_id=body.doc_id)
    return {"answers": [service.answer_json(a) for a in answers]}


@router.post(
    "/api/ask",
    response_model=AnswerOut,
    responses={200: {"content": {"text/event-stream": {}}}},
)
def ask(body: AskBody, request: Request, service: ServiceDep) -> Any:
    """An answer with citations, its phrase first. ``stream`` (or ``Accept:
    text/event-stream``): server-sent events ``hits``, ``token`` (a generated answer's
    text as made), then ``answer`` (the answer's JSON) or ``error``. Load is refused
    before a stream starts: a full generation queue, or all streams taken, answers 503
    with ``Retry-After``. A client that goes away stops its answer at the next word."""
    options = body.options()
    how = options.answer
    streamed = body.stream or "text/event-stream" in request.headers.get("accept", "")
    if not streamed:
        return service.answer_json(service.ask(body.question, options=options))
    # Both are taken here, before any byte of the stream is sent: Busy is a 503 with
    # Retry-After (a place checked here and taken later could be gone by then).
    held = ExitStack()
    held.enter_context(service.stream_slot())
    if how != "quote":
        try:
            held.enter_context(service.queue_place())
        except Busy:
            held.close()
            raise
    events: queue.Queue[tuple[str, Any] | None] = queue.Queue()
    cancel = threading.Event()

    def work() -> None:
        try:
            answer = service.ask(
                body.question,
                stream=lambda text: events.put(("token", {"text": text})),
                on_hits=lambda hits: events.put(("hits", [service.hit_json(h) for h in hits])),
                cancel=cancel,
                placed=how != "quote",
                options=options,
            )
            events.put(("answer", service.answer_json(answer)))
        except Cancelled:
            pass
        except Exception as e:
            status = status_of(e)
            if status == 500:
                log.exception("answer failed")
            message = str(e) if status != 500 else "internal error"
            events.put(("error", error_body(status, message)))
        finally:
            held.close()
            events.put(None)

    _POOL.submit(work)

    async def stream() -> Any:
        try:
            while (item := await asyncio.to_thread(events.get)) is not None:
                yield {"event": item[0], "data": json.dumps(item[1])}
        finally:  # done, or the client went away: stop making its answer
            cancel.set()

    return EventSourceResponse(stream())
