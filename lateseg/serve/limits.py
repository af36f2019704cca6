"""Every limit of ``lateseg serve`` and ``lateseg mcp`` in one place: the request models,
the routes, the service, the viewer and the MCP tools all read them from here."""

from __future__ import annotations

from lateseg.ask.options import QUERY_MODES
from lateseg.ingest.formats import DOCUMENT_KINDS, document_kinds

__all__ = ["DOCUMENT_KINDS", "QUERY_MODES", "document_kinds"]

#: Passages a search or an answer may ask for.
MAX_K = 50
#: Passages an MCP tool returns at most (``lateseg mcp --max-k``).
MCP_MAX_K = 20
#: Characters of a question or query.
MAX_QUESTION = 2000
#: Characters ``read`` gives at once.
MAX_READ = 20_000
#: Bytes of a JSON request body (checked before it is read, and while it is read).
MAX_JSON_BYTES = 64 << 10
#: Longest pause, in seconds, between two pieces of a request body: a client slower
#: than that is cut off (408) instead of holding a worker.
BODY_IDLE_SECONDS = 15.0
#: Zoom of a page image, and the most pixels its longer side may have after zoom (a
#: larger page is drawn at a smaller zoom, highlight included).
MIN_ZOOM, MAX_ZOOM = 0.25, 4.0
#: Zoom of a page image when none is asked for (the page asks for it too).
DEFAULT_ZOOM = 1.5
MAX_PAGE_SIDE = 4096
#: Questions one ``/api/ask_many`` request may ask of its one shared context (they hold
#: the generator, one after the other, for one place in the queue).
MAX_MANY = 8
#: Largest KV budget a request may ask for, in tokens.
MAX_KV_BUDGET = 1 << 20
#: Shortest bearer token, from a file or the environment.
TOKEN_MIN = 16
#: Finished ingest jobs kept (the newest), and for how long.
JOBS_KEPT = 50
JOBS_SECONDS = 24 * 3600
#: Files (uploads plus zip entries) one request or job may bring.
MAX_FILES = 1000
#: Streamed answers being made at once (each holds a worker); more get 503.
MAX_STREAMS = 8
