"""What a route depends on: the app's service and upload jobs (``Depends``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from lateseg.serve.jobs import Jobs
from lateseg.serve.service import Service


def get_service(request: Request) -> Service:
    return request.app.state.service  # type: ignore[no-any-return]


def get_jobs(request: Request) -> Jobs | None:
    return request.app.state.jobs  # type: ignore[no-any-return]


ServiceDep = Annotated[Service, Depends(get_service)]
JobsDep = Annotated[Jobs | None, Depends(get_jobs)]
