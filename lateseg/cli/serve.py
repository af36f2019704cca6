"""``lateseg serve`` (the page and HTTP API) and ``lateseg mcp`` (an MCP server on stdio)."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import socket
from pathlib import Path

from lateseg.cli.options import (
    EXIT_OK,
    UsageError,
    count,
    embedder_options,
    given,
    index_location,
    megabytes,
    profile_option,
    running,
)
from lateseg.cli.query import llm_config, llm_options
from lateseg.errors import ConfigError

log = logging.getLogger(__name__)
TOKEN_ENV = "LATESEG_SERVE_TOKEN"
#: The upload limits: they act only with ``--uploads``.
UPLOAD_LIMITS = {
    "upload_max_mb": "--upload-max-mb",
    "upload_unzipped_mb": "--upload-unzipped-mb",
    "upload_quota_mb": "--upload-quota-mb",
    "upload_types": "--upload-types",
}
GENERATOR_HELP = "causal LM name or folder (default: packaged SmolLM2-135M-Instruct)"


def _served_index(sp: argparse.ArgumentParser) -> None:
    """``--index``, ``--create`` and the embedder's options of ``serve`` and ``mcp``."""
    index_location(sp, "index folder (must exist unless --create)")
    sp.add_argument(
        "--create",
        action="store_true",
        help="make the index if it does not exist (an empty one, for uploads); without "
        "it a missing index is an error, so a typo never serves an empty index",
    )
    profile_option(sp, "the index --create makes (uploads extend an index with its own)")
    embedder_options(sp)


def add(sub: argparse._SubParsersAction) -> None:
    sp = sub.add_parser(
        "serve",
        help="ask an index in the browser: cited clauses highlighted on their pages; HTTP API",
        description="Serve the page (ask, search, ingest uploads) and its HTTP API (its "
        "OpenAPI schema at /openapi.json; the interactive page at /docs with --docs) over an "
        "index. Binds to 127.0.0.1 by default; any other address needs "
        f"a token (--token-file, or ${TOKEN_ENV}), checked as 'Authorization: Bearer' on "
        "every request. Documents are addressed by ID; only the files the index holds "
        "(checked by hash) and the upload folder are ever read.",
    )
    _served_index(sp)
    sp.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sp.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    sp.add_argument(
        "--token-file",
        metavar="FILE",
        help=f"file holding the bearer token (or set ${TOKEN_ENV}); required off loopback",
    )
    uploads(sp)
    sp.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name requests may be addressed to besides localhost and IP addresses "
        "(repeatable); any other Host header is refused (DNS rebinding)",
    )
    sp.add_argument(
        "--docs",
        action="store_true",
        help="serve the interactive API page at /docs (it loads its scripts from a CDN); "
        "the schema is always at /openapi.json",
    )
    sp.add_argument(
        "--queue",
        type=int,
        default=4,
        help="answers that may wait while one is generated; more get 503 (default 4)",
    )
    sp.add_argument("--generator", default=None, help=GENERATOR_HELP)
    sp.add_argument(
        "--no-generate",
        action="store_true",
        help="answer by quoting only: the generator is never loaded (the page is ready "
        "sooner and uses less memory)",
    )
    llm_options(sp)
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
        "editors). Tools: search(query, k, kind, source), ask(question, k, answer), "
        "read(source, start, end); results carry the file, page, clause path and offsets.",
    )
    _served_index(mp)
    mp.add_argument("--generator", default=None, help=GENERATOR_HELP)
    mp.add_argument(
        "--no-generate", action="store_true", help="answer by quoting only (no generator)"
    )
    llm_options(mp)
    mp.add_argument(
        "--max-k", type=count, default=20, help="most results a tool returns (default 20)"
    )


def uploads(sp: argparse.ArgumentParser) -> None:
    """The upload options, one family: ``--uploads`` turns them on, ``--upload-*`` set
    them (the names before it stay as hidden aliases)."""
    sp.add_argument(
        "--uploads",
        action="store_true",
        help="take uploads and ingest them (the Ingest tab); off by default: uploads write "
        "to the index and the disk",
    )
    sp.add_argument(
        "--upload-dir",
        metavar="DIR",
        help="folder the server keeps uploads in, and serves uploaded documents from "
        "(default: DIR.uploads beside the index)",
    )
    sp.add_argument(
        "--upload-max-mb",
        type=megabytes,
        default=50.0,
        metavar="MB",
        help="with --uploads: largest upload (default 50)",
    )
    sp.add_argument(
        "--upload-unzipped-mb",
        type=megabytes,
        default=500.0,
        metavar="MB",
        help="with --uploads: most the zips of one upload may unpack to, in all (default 500)",
    )
    sp.add_argument(
        "--upload-quota-mb",
        type=megabytes,
        default=2048.0,
        metavar="MB",
        help="with --uploads: most the upload folder may hold in all (default 2048)",
    )
    sp.add_argument(
        "--upload-types",
        default=None,
        metavar="LIST",
        help="with --uploads: comma-separated suffixes accepted (default .pdf,.docx,.txt,.md,"
        ".markdown,.html,.htm,.rst,.zip)",
    )
    for old, dest in (
        ("--max-upload-mb", "upload_max_mb"),
        ("--max-unzipped-mb", "upload_unzipped_mb"),
    ):
        sp.add_argument(
            old, dest=dest, type=megabytes, default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )


def refuse_idle_options(args: argparse.Namespace) -> None:
    """Options given that this server could not act on: a usage error naming them."""
    quoting = args.no_generate
    if quoting and given(args, "generator"):
        raise UsageError("--generator names a model, --no-generate loads none: drop one of them")
    if given(args, "generator") and args.llm is not None:
        raise UsageError(
            "--generator names a local model and --llm a server's that writes every answer: "
            "drop one of them"
        )
    if args.command == "mcp":
        return
    for dest, flag in (("queue", "--queue"), ("answer_seconds", "--answer-seconds")):
        if quoting and given(args, dest):
            raise UsageError(f"{flag} limits generated answers; --no-generate makes none")
    idle = [flag for dest, flag in UPLOAD_LIMITS.items() if given(args, dest)]
    if idle and not args.uploads:
        raise UsageError(f"{', '.join(idle)} set the uploads, which are off: add --uploads")


def _opening(args: argparse.Namespace) -> dict:
    """How :class:`~lateseg.serve.service.Service` opens the index: made only with
    ``--create``; the embedder run as ``--device``, ``--backend``, ``--trust-remote-code``
    say."""
    return {
        "create": args.create,
        "device": args.device,
        "backend": args.backend,
        "trust_remote_code": args.trust_remote_code,
        "profile": args.profile,
    }


def read_token(path: str | None) -> str | None:
    """The token from ``path`` (its first line) or the environment, each at least
    :data:`~lateseg.serve.limits.TOKEN_MIN` characters; None when neither is given."""
    from lateseg.serve.limits import TOKEN_MIN

    if path:
        try:
            text = Path(path).read_text(encoding="utf-8").strip()
        except OSError as e:
            raise ConfigError(f"--token-file {path}: {e.strerror}") from None
        if len(text) < TOKEN_MIN:
            raise ConfigError(
                f"--token-file {path}: the token must have at least {TOKEN_MIN} characters"
            )
        return text
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env and len(env) < TOKEN_MIN:
        raise ConfigError(f"${TOKEN_ENV}: the token must have at least {TOKEN_MIN} characters")
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
    refuse_idle_options(args)
    if args.no_generate and args.llm is not None:
        raise ConfigError(
            "--llm names a model to write answers, --no-generate answers by quoting only: "
            "drop one of them"
        )
    if args.no_generate and args.context_tokens is not None:
        raise ConfigError("--context-tokens is for --llm; --no-generate answers by quoting only")
    # $LATESEG_LLM_URL is a default only for a server that generates
    llm = llm_config(args, local=args.no_generate)
    if llm is None and args.context_tokens is not None:
        raise ConfigError("--context-tokens is for a model behind a URL: give --llm URL too")
    if args.command == "mcp":
        from lateseg.serve.mcp import serve_stdio

        serve_stdio(
            args.index, generator=args.generator, max_k=args.max_k,
            generate=not args.no_generate, cache_dir=args.cache_dir, llm=llm,
            context_tokens=args.context_tokens, **_opening(args),
        )  # fmt: skip
        return EXIT_OK
    token = read_token(args.token_file)
    if not is_loopback(args.host) and not token:
        raise ConfigError(
            f"--host {args.host} is reachable from other machines: give a token "
            f"(--token-file FILE or ${TOKEN_ENV}), or bind to 127.0.0.1"
        )
    import uvicorn

    from lateseg.ingest.formats import upload_suffixes
    from lateseg.serve.app import create_app
    from lateseg.serve.jobs import Jobs, Limits
    from lateseg.serve.service import Service

    service = Service(
        args.index, generator=args.generator, queue=args.queue,
        answer_seconds=args.answer_seconds, cache_dir=args.cache_dir,
        uploads=Path(args.upload_dir) if args.upload_dir else None, llm=llm,
        context_tokens=args.context_tokens, **_opening(args),
    )  # fmt: skip
    if service.uploads is None:  # beside the folder (a server's index: beside its cache)
        service.uploads = Path(f"{service.folder}.uploads")
    folder = service.uploads
    jobs = None
    if args.uploads:
        types = upload_suffixes()
        if args.upload_types:
            types = tuple(
                t if t.startswith(".") else "." + t
                for t in (x.strip().lower() for x in args.upload_types.split(","))
                if t
            )
        limits = Limits(
            int(args.upload_max_mb * 2**20),
            int(args.upload_unzipped_mb * 2**20),
            types,
            quota=int(args.upload_quota_mb * 2**20),
        )
        from lateseg.pipeline import Pipeline

        def writer() -> Pipeline:  # the uploads' writer runs the embedder as the server does
            return Pipeline.open(service.location, options=running(args, cache_dir=args.cache_dir))

        jobs = Jobs(
            folder, service.location, limits, open_writer=writer,
            indexed_as=service.indexed_as, cache_dir=args.cache_dir,
        )  # fmt: skip
    service.preload(generator=not args.no_generate)  # /api/health says loading until done
    hosts = [*args.allow_host, args.host]
    app = create_app(service, jobs, token, allow_hosts=hosts, docs=args.docs)
    print(f"lateseg: serving {service.folder} on http://{args.host}:{args.port}/", flush=True)
    if llm is not None:
        print(
            f"lateseg: answers written by {llm.model or 'the only model'} at {llm.url}", flush=True
        )
    # idle keep-alive connections close after 5 s; at most 64 connections at once; a
    # header section may not grow past 64 KiB (a slow request body is cut off by the
    # server's own guard: lateseg.serve.limits.BODY_IDLE_SECONDS)
    uvicorn.run(
        app, host=args.host, port=args.port, log_level="warning", timeout_keep_alive=5,
        limit_concurrency=64, h11_max_incomplete_event_size=64 << 10,
    )  # fmt: skip
    return EXIT_OK
