"""``lateseg serve``: ask an index in the browser, see the cited clause highlighted on its
page; the HTTP API the page uses; and ``lateseg mcp``, an MCP server over the same index.

Needs the ``serve`` extra (``pip install 'lateseg[serve]'``): FastAPI, uvicorn, Jinja2,
python-multipart, sse-starlette and the ``mcp`` SDK.
"""

from __future__ import annotations

from lateseg.errors import ConfigError


def require_extra() -> None:
    """Raise :class:`ConfigError` naming the extra when a part of it is missing."""
    import importlib.util

    for module in ("fastapi", "uvicorn", "jinja2", "multipart", "sse_starlette", "mcp"):
        if importlib.util.find_spec(module) is None:
            raise ConfigError(
                f"lateseg serve and mcp need the 'serve' extra ({module} is missing): "
                "pip install 'lateseg[serve]'"
            )
