"""The routes of ``lateseg serve``, one router per area; :func:`lateseg.serve.app.create_app`
includes them all. Each route gets the service (and the upload jobs) from the app's
state through :mod:`lateseg.serve.routes.deps`."""

from __future__ import annotations

from lateseg.serve.routes import answers, documents, health, ingest

ROUTERS = (health.router, answers.router, documents.router, ingest.router)
