"""``lateseg serve`` (the page and HTTP API) and ``lateseg mcp`` (an MCP server on stdio)."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import socket
from pathlib import Path

from lateseg.cli.options import EXIT_OK, count, megabytes
from lateseg.errors import ConfigError

log = logging.getLogger(__name__)
TOKEN_ENV = "LATESEG_SERVE_TOKEN"


def add(sub: argparse._SubParsersAction) -> None:
    sp = sub.add_parser(
        "serve",
        help="ask an index in the browser: cited clauses highlighted on their pages; HTTP API",
        description="Serve the page (ask, search, ingest uploads) and its HTTP API (OpenAPI "
        "at /docs) over an index. Binds to 127.0.0.1 by default; any other address needs "
        f"a token (--token-file, or ${TOKEN_ENV}), checked as 'Authorization: Bearer' on "
        "every request. Documents are addressed by ID; only the files the index holds "
        "(checked by hash) and the upload folder are ever read.",
    )
    sp.add_argument("--index", required=True, metavar="DIR", help="index folder (made if missing)")
    sp.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sp.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    sp.add_argument(
        "--token-file",
        metavar="FILE",
        help=f"file holding the bearer token (or set ${TOKEN_ENV}); required off loopback",
    )
    sp.add_argument(
        "--upload-dir",
        metavar="DIR",
        help="folder the server keeps uploads in (default: DIR.uploads beside the index)",
    )
    sp.add_argument("--no-uploads", action="store_true", help="take no uploads (no Ingest tab)")
    sp.add_argument(
        "--max-upload-mb", type=megabytes, default=50.0, help="largest upload (default 50 MB)"
    )
    sp.add_argument(
        "--max-unzipped-mb",
        type=megabytes,
        default=500.0,
        help="most a zip may unpack to (default 500 MB)",
    )
    sp.add_argument(
        "--upload-types",
        default=None,
        metavar="LIST",
        help="comma-separated suffixes accepted (default .pdf,.docx,.txt,.md,.markdown,.html,"
        ".htm,.rst,.zip)",
    )
    sp.add_argument(
        "--queue",
        type=int,
        default=4,
        help="answers that may wait while one is generated; more get 503 (default 4)",
    )
    sp.add_argument("--generator", default=None, help="causal LM name or folder")
    sp.add_argument(
        "--answer-seconds",
        type=megabytes,
        default=120.0,
        help="longest time one generated answer may take (default 120)",
    )

    mp = sub.add_parser(
        "mcp",
        help="an MCP server on stdio: tools search, ask and read over an index",
        description="Model Context Protocol server over stdin/stdout (for agents and "
        "editors). Tools: search(query, k, kind, source), ask(question, k, extractive), "
        "read(source, start, end); results carry the file, page, clause path and offsets.",
    )
    mp.add_argument("--index", required=True, metavar="DIR", help="index folder")
    mp.add_argument("--generator", default=None, help="causal LM name or folder")
    mp.add_argument("--max-k", type=count, default=20, help="most results a tool returns")


def read_token(path: str | None) -> str | None:
    """The token from ``path`` (its first line) or the environment; None when neither."""
    if path:
        try:
            text = Path(path).read_text(encoding="utf-8").strip()
        except OSError as e:
            raise ConfigError(f"--token-file {path}: {e.strerror}") from None
        if len(text) < 16:
            raise ConfigError(f"--token-file {path}: the token must have at least 16 characters")
        return text
    env = os.environ.get(TOKEN_ENV, "").strip()
    return env or None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address) only ever means this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            return all(
                ipaddress.ip_address(a[4][0]).is_loopback for a in socket.getaddrinfo(host, None)
            )
        except OSError:
            return False


def run(args: argparse.Namespace) -> int:
    from lateseg.serve import require_extra

    require_extra()
    if args.command == "mcp":
        from lateseg.serve.mcp import serve_stdio

        serve_stdio(args.index, generator=args.generator, max_k=args.max_k)
        return EXIT_OK
    token = read_token(args.token_file)
    if not is_loopback(args.host) and not token:
        raise ConfigError(
            f"--host {args.host} is reachable from other machines: give a token "
            f"(--token-file FILE or ${TOKEN_ENV}), or bind to 127.0.0.1"
        )
    import uvicorn

    from lateseg.serve.app import create_app
    from lateseg.serve.jobs import DEFAULT_TYPES, Jobs, Limits
    from lateseg.serve.service import Service

    service = Service(
        args.index, generator=args.generator, queue=args.queue, answer_seconds=args.answer_seconds
    )
    jobs = None
    if not args.no_uploads:
        types = DEFAULT_TYPES
        if args.upload_types:
            types = tuple(
                t if t.startswith(".") else "." + t
                for t in (x.strip().lower() for x in args.upload_types.split(","))
                if t
            )
        limits = Limits(int(args.max_upload_mb * 2**20), int(args.max_unzipped_mb * 2**20), types)
        folder = Path(args.upload_dir or f"{Path(args.index).resolve()}.uploads")
        jobs = Jobs(folder, service.folder, limits)
    app = create_app(service, jobs, token)
    print(f"lateseg: serving {service.folder} on http://{args.host}:{args.port}/", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return EXIT_OK
