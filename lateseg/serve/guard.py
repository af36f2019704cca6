"""What every request to ``lateseg serve`` passes before a route sees it, and how errors
leave it.

* **Host** (DNS rebinding): the ``Host`` header must be an address literal, a loopback
  name, the bound host or a name given with ``--allow-host``; a page on a rebound name
  ("evil.example" now pointing at 127.0.0.1) is refused.
* **Origin** (cross-site writes): a request that changes something (any method but GET,
  HEAD, OPTIONS) from a browser page of another origin is refused: its ``Origin`` (or a
  ``Sec-Fetch-Site: cross-site``) must be this server.
* **Token**: with one, every request needs ``Authorization: Bearer TOKEN``.
* **Bodies**: a body over its route's limit is refused by its ``Content-Length`` before
  it is read, and cut off while it is read; a client that pauses longer than
  :data:`~lateseg.serve.limits.BODY_IDLE_SECONDS` between two pieces gets 408.

Errors are JSON ``{"error": message, "status": code}``; :func:`status_of` is the one map
from an exception to its status, for responses and for streamed error events alike.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lateseg.errors import LatesegError
from lateseg.serve.limits import BODY_IDLE_SECONDS, MAX_JSON_BYTES

LOOPBACK_NAMES = frozenset(["localhost", "localhost.localdomain", "ip6-localhost"])
_SAFE = frozenset(["GET", "HEAD", "OPTIONS"])


def status_of(error: BaseException) -> int:
    """The HTTP status of an error: the first of its classes in the map
    (:func:`register` adds to it); 500 for anything unknown."""
    for cls in type(error).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


#: Exception class → status; :func:`status_of` reads it. LatesegError: a bad request.
STATUS: dict[type[BaseException], int] = {LatesegError: 400}


def register(cls: type[BaseException], status: int) -> None:
    """Map ``cls`` (and its subclasses) to ``status``."""
    STATUS[cls] = status


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": message, "status": status}


async def send_error(send: Send, status: int, message: str, **headers: str) -> None:
    """A JSON error response straight from ASGI (before any route ran)."""
    body = json.dumps(error_body(status, message)).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def host_name(value: str) -> str:
    """The host of a ``Host`` header or an origin's netloc, lowercase, without its port
    (IPv6 literals without their brackets)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class Guard:
    """The ASGI middleware that checks hosts, origins, tokens and bodies (see the module)
    before the app sees a request. ``limits`` maps a path to its body limit in bytes
    (others: :data:`MAX_JSON_BYTES`)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None = None,
        allow_hosts: Iterable[str] = (),
        limits: dict[str, int] | None = None,
        login_page: Callable[[], bytes] | None = None,
        idle_seconds: float = BODY_IDLE_SECONDS,
    ) -> None:
        self.app = app
        self.idle = idle_seconds
        self.token = token
        self.hosts = LOOPBACK_NAMES | {host_name(h) for h in allow_hosts if h}
        self.limits = dict(limits or {})
        self.login_page = login_page

    def allowed_host(self, host: str) -> bool:
        name = host_name(host)
        return bool(name) and (_literal(name) or name in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if not self.allowed_host(host):
            await send_error(
                send, 421, f"Host {host!r} is not a name of this server (lateseg serve "
                "--allow-host NAME lets it in)",
            )  # fmt: skip
            return
        if scope["method"] not in _SAFE:
            origin = headers.get("origin")
            site = headers.get("sec-fetch-site", "")
            foreign = site == "cross-site" or (
                origin is not None
                and (origin == "null" or urlsplit(origin).netloc.lower() != host.strip().lower())
            )
            if foreign:
                await send_error(send, 403, f"a request from the page of another site "
                                 f"({origin or site}) may not change anything here")  # fmt: skip
                return
        if self.token and not _authorised(headers.get("authorization"), self.token):
            if scope["path"] == "/" and self.login_page is not None:
                page = self.login_page()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"www-authenticate", b"Bearer"),
                ]})  # fmt: skip
                await send({"type": "http.response.body", "body": page})
                return
            await send_error(send, 401, "give the server's token: Authorization: Bearer TOKEN",
                             **{"WWW-Authenticate": "Bearer"})  # fmt: skip
            return
        await self._with_body_limits(scope, headers, receive, send)

    async def _with_body_limits(
        self, scope: Scope, headers: dict[str, str], receive: Receive, send: Send
    ) -> None:
        limit = self.limits.get(scope["path"], MAX_JSON_BYTES)
        size = headers.get("content-length")
        if size is not None:
            if not size.isdigit():
                await send_error(send, 400, f"Content-Length {size!r} is not a number")
                return
            if int(size) > limit:
                await send_error(send, 413, f"a body of {size} bytes; the limit here is {limit}")
                return
        seen = 0
        started = False
        complete = False  # the whole body is in: later receives wait for a disconnect

        async def guarded_receive() -> Message:
            nonlocal seen, complete
            if complete:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.idle)
            except TimeoutError:
                raise BodyError(408, f"the request body paused over {self.idle:g} s") from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                complete = not message.get("more_body", False)
                if seen > limit:
                    raise BodyError(413, f"the request body passed the limit of {limit} bytes")
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, guarded_receive, watched_send)
        except BodyError as e:
            if not started:
                await send_error(send, e.status, str(e))


class BodyError(HTTPException):
    """A request body over its limit (413) or too slow (408): an HTTPException, so a
    route's body parsing passes it on as it is (not as "an error parsing the body")."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, message)
        self.status = status

    def __str__(self) -> str:
        return str(self.detail)


def _authorised(header: str | None, token: str) -> bool:
    if not header or not header.lower().startswith("bearer "):
        return False
    return hmac.compare_digest(header[7:].strip().encode(), token.encode())
