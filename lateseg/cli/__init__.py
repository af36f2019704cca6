"""The ``lateseg`` command: ingest folders, search them, ask questions with citations.

Data goes to stdout (``--json`` for machines), logs and progress to stderr. Exit codes:
0 success (an empty result says "no results" on stderr), 1 error (one-line reason on
stderr), 2 bad usage (a bad value, or options that contradict each other or cannot act:
one line naming it), 3 ingest had failed files and
indexed none (or any failure with ``--strict``; failed files are always listed), or
``index verify`` found problems, or ``ask --questions`` could not answer some, 130
interrupted, 141 output closed early (``| head``: no traceback, no message, as for a
program stopped by SIGPIPE).
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys
from collections.abc import Iterator, Sequence

from lateseg import __version__
from lateseg import config as settings
from lateseg.cli import config_cmd, index, ingest, phase, query, serve
from lateseg.cli import eval as evaluation
from lateseg.cli.options import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    INDEX_NOTE,
    UsageError,
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
    "config": config_cmd.run,
    "eval": evaluation.run,
}


class Formatter(argparse.HelpFormatter):
    """Wraps prose as argparse does, but keeps a paragraph that starts indented (an
    example, a table) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for para in text.split("\n\n"):
            if para.startswith("  "):
                out.append("\n".join(indent + line for line in para.splitlines()))
            else:
                out.append(super()._fill_text(para, width, indent))
        return "\n\n".join(out)


def _commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser, with its command's name, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sp in action.choices.items():
                yield name, sp
                for _, nested in _commands(sp):
                    yield name, nested


def _parser(config: settings.Config | None = None) -> argparse.ArgumentParser:
    """The command line; ``config`` (``lateseg.toml``) gives its options' defaults."""
    p = argparse.ArgumentParser(
        prog="lateseg",
        formatter_class=Formatter,
        description="Question answering over long documents (contracts, codebases) with "
        "late + dynamic chunking and cited answers. Runs offline with packaged models.",
        epilog="Example: lateseg ingest contracts/ --index idx && "
        'lateseg ask "What is the notice period?" --index idx\n\n'
        f"{INDEX_NOTE}\n\n"
        "Options anywhere: -v/--verbose may stand before or after the command. Settings "
        "you repeat (the index, backend, generator, server) can live in lateseg.toml "
        "(./lateseg.toml over ~/.config/lateseg/lateseg.toml; the command line wins): "
        "`lateseg config` shows what is in effect and where it came from.\n\n"
        f"Environment variables:\n\n{settings.environment_table(80)}",
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logs on stderr")
    p.add_argument("--version", action="version", version=f"lateseg {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ingest.add(sub)
    query.add_search(sub)
    index.add(sub)
    query.add_ask(sub)
    evaluation.add(sub)
    phase.add(sub)
    serve.add(sub)
    config_cmd.add(sub)
    commands = list(_commands(p))
    builtin = config_cmd.defaults(commands)  # before the file's values replace them
    for name, sp in commands:
        sp.formatter_class = Formatter
        # -v after the command too (its own dest: a subparser's defaults overwrite the
        # main parser's values)
        sp.add_argument(
            "-v", "--verbose", action="count", default=argparse.SUPPRESS,
            dest="sub_verbose", help="more logs on stderr (-vv: debug)",
        )  # fmt: skip
        sp.set_defaults(cli_parser=sp)
        if config is not None:
            dests = {a.dest for a in sp._actions}
            sp.set_defaults(**{k: v for k, v in config.for_command(name).items() if k in dests})
    dict(commands)["config"].set_defaults(builtin=builtin)
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


def parse(
    argv: Sequence[str] | None = None, config: settings.Config | None = None
) -> argparse.Namespace:
    """The command line read with ``config``'s defaults (None: the files found here), as
    :func:`main` runs it: ``args.given`` holds the options the command line gave,
    ``args.cli_parser`` the command's parser, ``args.config`` the settings."""
    config = settings.load() if config is None else config
    args = _parser(config).parse_args(argv)
    sp: argparse.ArgumentParser = args.cli_parser
    # what the command line gave: a value other than the default (which the file may set)
    args.given = {
        a.dest
        for a in sp._actions
        if a.default is not argparse.SUPPRESS and getattr(args, a.dest, a.default) != a.default
    }
    args.config = config
    if getattr(args, "index", "") is None:
        sp.error("--index DIR|URL is required (or set index.path in lateseg.toml)")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    try:
        config = settings.load()
    except LatesegError as e:
        words = sys.argv[1:] if argv is None else list(argv)
        if not ({"-h", "--help"} & set(words)):
            print(f"lateseg: error: {e}", file=sys.stderr)
            return EXIT_USAGE
        # help must work to fix the file: shown with the built-in defaults
        print(f"lateseg: warning: {e}; the help shows the built-in defaults", file=sys.stderr)
        config = settings.Config({}, {}, ())
    args = parse(argv, config)
    sp: argparse.ArgumentParser = args.cli_parser
    if args.command == "phase" and os.path.exists(args.out) and not os.path.isdir(args.out):
        sp.error(f"--out {args.out} exists and is not a folder")
    verbose = args.verbose + getattr(args, "sub_verbose", 0)
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, stream=sys.stderr, format="lateseg: %(levelname)s %(message)s")
    if verbose < 2:
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        # -v is lateseg's steps; the libraries' own chatter ("Loading faiss with AVX512
        # support") only at -vv
        for chatty in ("faiss", "httpx", "urllib3", "filelock", "numexpr"):
            logging.getLogger(chatty).setLevel(logging.WARNING)
    try:
        return RUNS[args.command](args)
    except UsageError as e:
        print(f"{sp.prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
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
