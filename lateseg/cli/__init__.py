"""The ``lateseg`` command: ingest folders, search them, ask questions with citations.

Data goes to stdout (``--json`` for machines), logs and progress to stderr. Exit codes:
0 success (an empty result says "no results" on stderr), 1 error (one-line reason on
stderr), 2 bad usage (a bad value: one line naming it), 3 ingest had failed files and
indexed none (or any failure with ``--strict``; failed files are always listed), or
``index verify`` found problems, 130 interrupted, 141 output closed early (``| head``:
no traceback, no message, as for a program stopped by SIGPIPE).
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys
from collections.abc import Sequence

from lateseg import __version__
from lateseg.cli import index, ingest, phase, query, serve
from lateseg.cli.options import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
)
from lateseg.errors import LatesegError
from lateseg.index.base import store_disk_full

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "EXIT_USAGE",
    "main",
]

#: Each command's module: ``add(sub)`` builds its parser, ``run(args)`` runs it.
RUNS = {
    "ingest": ingest.run,
    "search": query.run,
    "ask": query.run,
    "index": index.run,
    "phase": phase.run,
    "serve": serve.run,
    "mcp": serve.run,
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lateseg",
        description="Question answering over long documents (contracts, codebases) with "
        "late + dynamic chunking and cited answers. Runs offline with packaged models.",
        epilog="Example: lateseg ingest contracts/ --index idx && "
        'lateseg ask "What is the notice period?" --index idx',
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logs on stderr")
    p.add_argument("--version", action="version", version=f"lateseg {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ingest.add(sub)
    query.add_search(sub)
    index.add(sub)
    query.add_ask(sub)
    phase.add(sub)
    serve.add(sub)
    return p


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` (or one it came from) says the disk or a quota is full."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if store_disk_full(e):
            return True
        e = e.__cause__ or e.__context__
    return False


def _where(error: BaseException) -> str:
    name = getattr(error, "filename", None)
    return f"writing {name}" if name else "writing the index"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "phase" and os.path.exists(args.out) and not os.path.isdir(args.out):
        parser.error(f"--out {args.out} exists and is not a folder")
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, stream=sys.stderr, format="lateseg: %(levelname)s %(message)s")
    if args.verbose < 2:
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        return RUNS[args.command](args)
    except BrokenPipeError:  # before `except Exception`: a closed pipe is an OSError too
        # The reader went away (`| head`): stop quietly; point stdout at /dev/null so
        # the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as e:
        if disk_full(e):
            print(
                f"lateseg: error: disk full: {_where(e)}; nothing already indexed was lost "
                "(each document is written in one transaction): free some space and run "
                "the command again",
                file=sys.stderr,
            )
            return EXIT_ERROR
        if not isinstance(e, LatesegError | FileNotFoundError):
            raise
        print(f"lateseg: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("lateseg: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
