"""Every route of ``lateseg serve`` declares its response: a pydantic model for JSON
(so ``/openapi.json`` documents its schema) or, for a PNG, an event stream or the page,
a response class of that media type; the shape of the JSON itself is checked against
the service's own dicts in ``test_serve_api.py``."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")

from fastapi.datastructures import DefaultPlaceholder
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel

from lateseg.serve.app import create_app
from lateseg.serve.routes import ROUTERS


@pytest.fixture(scope="module")
def app():
    """The FastAPI app inside the guard; routes are declared without a service."""
    return create_app(None).app  # type: ignore[arg-type]


def _routes(app) -> list[APIRoute]:
    """The app's routes, its own and its routers' (FastAPI may keep an included router
    behind a wrapper in ``app.routes``), each once."""
    found: dict[tuple[str, frozenset[str]], APIRoute] = {}
    for route in [*app.routes, *(r for router in ROUTERS for r in router.routes)]:
        if isinstance(route, APIRoute):
            found.setdefault((route.path, frozenset(route.methods)), route)
    assert len(found) >= 12  # the page, health, search, ask, 5 document and 3 ingest routes
    return list(found.values())


def _response_class(route: APIRoute) -> type:
    cls = route.response_class
    return cls.value if isinstance(cls, DefaultPlaceholder) else cls


def _json(route: APIRoute) -> bool:
    return issubclass(_response_class(route), JSONResponse)


def test_every_route_declares_a_model_or_a_response_class_that_is_not_json(app):
    for route in _routes(app):
        model = route.response_model
        if _json(route):
            assert isinstance(model, type) and issubclass(model, BaseModel), route.path
        else:
            assert model is None, route.path


def test_the_openapi_schema_documents_each_response(app):
    paths = app.openapi()["paths"]
    walked = {(r.path, m) for r in _routes(app) if r.include_in_schema for m in r.methods}
    assert walked == {(p, m.upper()) for p, ops in paths.items() for m in ops}
    for route in _routes(app):
        if not route.include_in_schema:
            assert not _json(route), route.path  # only the page (HTML) stays out
            continue
        for method in route.methods:
            responses = paths[route.path][method.lower()]["responses"]
            content = responses[str(route.status_code or 200)]["content"]
            if _json(route):
                ref = content["application/json"]["schema"]["$ref"]
                assert ref == f"#/components/schemas/{route.response_model.__name__}"
            else:
                assert set(content) in ({"image/png"}, {"text/event-stream"}), route.path


def test_streamed_answers_are_documented_beside_the_json_answer(app):
    ask = app.openapi()["paths"]["/api/ask"]["post"]["responses"]["200"]["content"]
    assert set(ask) == {"application/json", "text/event-stream"}


def test_every_passage_of_an_answer_is_named_as_the_server_shows_it():
    """Cited, shown and dropped passages alike: none sends the server's own path."""
    from lateseg.serve.documents import Paths
    from lateseg.serve.schemas import AnswerOut
    from lateseg.serve.service import answer_json
    from lateseg.types import Answer, Hit

    hit = Hit("/srv/contracts/msa.txt", 0, 5, "Rent.", 1.0)
    other = Hit("/srv/contracts/nda.txt", 0, 5, "Keep.", 0.5)
    paths = Paths([hit.source, other.source])
    answer = Answer("Rent.", (hit,), context=(hit,), mode="quote", dropped=(other,))
    out = AnswerOut.model_validate(answer_json(answer, paths)).model_dump_json()
    assert "/srv" not in out and "nda.txt" in out and "msa.txt" in out
