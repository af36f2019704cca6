"""How a model server's failures read: each one :class:`~lateseg.errors.RemoteModelError`
of one line that names the server (never the key) and says what to do, and the waits
before a retry. Kept apart from the client so the wording is in one place."""

from __future__ import annotations

import email.utils
import socket
import ssl
import time
from typing import Any

from lateseg.errors import RemoteModelError
from lateseg.generate.remote.config import LLMConfig

#: Answers worth trying again: the server is busy or failed this once.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# Longest excerpt of a server's own message quoted in an error.
_EXCERPT = 200


def one_line(text: str, limit: int = _EXCERPT) -> str:
    """``text`` on one line, at most ``limit`` characters (a server's HTML error page or
    traceback must not flood a terminal or a log)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def server_message(body: bytes) -> str:
    """What a server said in an error body: the ``error.message`` / ``detail`` of a JSON
    body, else the text itself, on one line."""
    import json

    text = body.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        return one_line(text)
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return one_line(str(err))
    return one_line(text)


def _causes(e: BaseException) -> list[BaseException]:
    """``e`` and the exceptions it was raised from, outermost first."""
    out: list[BaseException] = []
    cur: BaseException | None = e
    while cur is not None and cur not in out:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def transport_error(e: Exception, config: LLMConfig, what: str) -> RemoteModelError:
    """The failure of ``what`` (e.g. ``"POST /chat/completions"``) before any answer came:
    a name that does not resolve, a refused connection, a failed TLS handshake, a timeout."""
    import httpx

    url = config.url
    chain = _causes(e)
    if any(isinstance(c, socket.gaierror) for c in chain) or "name resolution" in str(e).lower():
        msg = (
            f"cannot resolve the host of {url} (DNS failure: {one_line(str(e), 80)}); "
            "check the host name and this machine's network"
        )
        return RemoteModelError(config.redact(msg), "dns")
    if any(isinstance(c, ConnectionRefusedError) for c in chain) or "refused" in str(e).lower():
        msg = f"{url} refused the connection: is the model server running on that port?"
        return RemoteModelError(msg, "refused")
    tls = next((c for c in chain if isinstance(c, ssl.SSLError)), None)
    if tls is not None or "ssl" in str(e).lower() or "certificate" in str(e).lower():
        reason = one_line(str(tls or e), 100)
        msg = (
            f"the TLS handshake with {url} failed ({reason}): if the server speaks plain "
            "HTTP use an http:// URL; if its certificate is private, trust its CA "
            "(SSL_CERT_FILE)"
        )
        return RemoteModelError(config.redact(msg), "tls")
    if isinstance(e, httpx.ConnectTimeout):
        msg = f"{url} did not accept a connection within {config.connect_timeout_s:g} s"
        return RemoteModelError(msg, "timeout")
    if isinstance(e, httpx.TimeoutException):
        msg = f"{url} did not answer {what} within the time allowed ({config.timeout_s:g} s)"
        return RemoteModelError(msg, "timeout")
    msg = f"{what} to {url} failed before an answer: {one_line(str(e) or type(e).__name__, 120)}"
    return RemoteModelError(config.redact(msg), "connect")


def status_error(
    config: LLMConfig,
    status: int,
    body: bytes,
    what: str,
    tries: int,
    offered: list[str] | None = None,
    model: str | None = None,
) -> RemoteModelError:
    """The error for an HTTP ``status`` answer to ``what`` after ``tries`` tries.
    ``offered``: the models the server lists, when the answer may be about the model
    name (then the error says which it offers)."""
    url = config.url
    said = config.redact(server_message(body))
    if status in (401, 403):
        if config.api_key is None:
            msg = (
                f"{url} wants an API key (HTTP {status}) and none is set: "
                "set LATESEG_LLM_API_KEY (or OPENAI_API_KEY)"
            )
        else:
            msg = (
                f"{url} refused the API key (HTTP {status}); set LATESEG_LLM_API_KEY "
                "(or OPENAI_API_KEY) to a key this server accepts"
            )
        return RemoteModelError(msg, "auth")
    if offered is not None and model is not None and model not in offered:
        listed = ", ".join(offered[:20]) + (" …" if len(offered) > 20 else "") or "none"
        msg = (
            f"{url} does not offer the model {model!r} (HTTP {status}); it offers: {listed} "
            "(choose with --llm-model or LATESEG_LLM_MODEL)"
        )
        return RemoteModelError(config.redact(msg), "model")
    if status == 404:
        msg = (
            f"{url} has no {what.split(' ', 1)[-1]} (HTTP 404: {said}); is it the server's "
            "OpenAI-compatible base URL (often ending in /v1)?"
        )
        return RemoteModelError(msg, "not-found")
    if status == 429:
        msg = f"{url} is rate limiting (HTTP 429) after {tries} tries: {said}; try again later"
        return RemoteModelError(msg, "rate-limit")
    if status >= 500:
        msg = f"{url} failed with HTTP {status} after {tries} tries: {said}"
        return RemoteModelError(msg, "server")
    return RemoteModelError(f"{url} answered {what} with HTTP {status}: {said}", "http")


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """The wait a ``Retry-After`` header asks for, in seconds (delta seconds or an HTTP
    date), or None without a readable one."""
    value = headers.get("retry-after")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff(config: LLMConfig, attempt: int, asked: float | None) -> float | None:
    """The wait before try ``attempt + 2`` (``attempt`` counts from 0): the server's
    ``asked`` wait, else ``backoff_s`` doubled per try, capped at ``max_backoff_s``. None
    when the server asks for longer than the cap: that wait is not worth holding a
    question for."""
    if asked is not None:
        return asked if asked <= config.max_backoff_s else None
    return min(config.max_backoff_s, config.backoff_s * (2**attempt))
