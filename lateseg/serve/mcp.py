"""``lateseg mcp``: a Model Context Protocol server over stdio (the official ``mcp``
SDK), with three tools over one index: ``search``, ``ask`` and ``read``. Every result
names its file, pages, clause path and character offsets, so an agent can cite it and
read further with ``read``. Logs go to stderr; stdout carries only the protocol.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lateseg.ask.options import DEFAULT_ANSWER, AskOptions, SearchOptions
from lateseg.errors import ConfigError, LatesegError
from lateseg.serve.limits import MCP_MAX_K
from lateseg.serve.service import Service

if TYPE_CHECKING:
    from lateseg.generate.remote.config import LLMConfig


def _passage(h: dict[str, Any]) -> dict[str, Any]:
    keep = ("source", "doc_id", "start", "end", "page", "page_end", "section", "line",
            "line_end", "kind", "score", "text", "cite")  # fmt: skip
    return {k: h.get(k) for k in keep}


def _told(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A tool whose errors (a bad value, an unknown source) reach the client as what
    they say; anything else stays a crash, logged by the SDK on the server's stderr."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LatesegError as e:
            raise ToolError(str(e)) from None

    return tool


def build(service: Service, max_k: int = MCP_MAX_K) -> Any:
    """The MCP server object (``mcp.server.mcpserver.MCPServer``) over ``service``."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        "lateseg",
        instructions="Search and read an index of long documents (contracts, manuals, code). "
        "Cite results by their file, page and clause; read more around a hit with read().",
    )

    def k_of(k: int) -> int:
        if not 1 <= k <= max_k:
            raise ConfigError(f"k={k}; give 1 to {max_k}")
        return k

    @server.tool()
    @_told
    def search(
        query: str, k: int = 5, kind: str | None = None, source: str | None = None,
        passages: str = "auto",
    ) -> dict:  # fmt: skip
        """The k passages of the index that best match the query. kind: one of pdf, code,
        text, markdown, docx, html; source: a glob over file paths ("*/contracts/*.pdf");
        passages: auto (a search about code gives each code hit as its whole function,
        up to 8,000 characters), chunks (the stored chunks) or units."""
        options = SearchOptions(k_of(k), source=source, kind=kind, passages=passages)
        hits = service.search(query, options=options)
        return {"query": query, "hits": [_passage(service.hit_json(h)) for h in hits]}

    @server.tool()
    @_told
    def ask(question: str, k: int = 5, answer: str = DEFAULT_ANSWER) -> dict:
        """An answer with citations: first the answer phrase (the value, such as "sixty
        (60) days"), the sentence it stands in and where that is (file, page, clause,
        characters). answer: quote (the default: the sentence that states what is
        asked), copy (the local generator copies a span of the passages) or generate
        (its own words, checked sentence by sentence; an unsupported answer is replaced
        by the quote; where the server has a model server, that model writes it).
        A question naming a document ("the NDA") is answered from it, or told that the
        index does not hold it. model: the model that wrote the answer, if one did."""
        a = service.answer_json(
            service.ask(question, options=AskOptions.of(k=k_of(k), answer=answer))
        )
        phrase = a["phrase"]
        return {
            "phrase": None if phrase is None else phrase["text"],
            "sentence": None if phrase is None else _passage(phrase["sentence"]),
            "answer": a["text"],
            "mode": a["mode"],
            "scope": a["scope"],
            "supported": a["supported"],
            "citations": [_passage(h) for h in a["citations"]],
            "support": a["support"],
            "model_answer_unsupported": a["generated"]["text"] if a["generated"] else None,
            "model": a["model"],
        }

    @server.tool()
    @_told
    def read(source: str, start: int = 0, end: int | None = None) -> dict:
        """Text [start, end) of an indexed document, as a search hit's source names it
        (at most 20,000 characters), with its pages and clause."""
        return service.documents.read(source, start, end)

    return server


def serve_stdio(
    index: str,
    generator: str | None = None,
    max_k: int = MCP_MAX_K,
    generate: bool = True,
    cache_dir: str | None = None,
    llm: LLMConfig | None = None,
    context_tokens: int | None = None,
    **opening: Any,
) -> None:
    """Run the MCP server on stdin/stdout until the client closes it; the models are
    loaded first (the generator too, with ``generate``), so the first call is fast.
    ``llm``: a model behind a URL writes generated answers; ``opening``: how the index
    is opened (``create``, ``device``, ``backend``, ``trust_remote_code``; see
    :class:`Service`)."""
    service = Service(
        index, generator=generator, queue=0, cache_dir=cache_dir, llm=llm,
        context_tokens=context_tokens, **opening,
    )  # fmt: skip
    service.preload(generator=generate, wait=True)
    try:
        build(service, max_k).run("stdio")
    finally:
        service.close()
