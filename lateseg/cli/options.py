"""What every command shares: exit codes, argument types, and the option groups."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lateseg.ask.options import PASSAGES, QUERY_MODES, UNIT_CHARS
from lateseg.encode.backends import BACKENDS
from lateseg.encode.profiles import PROFILE_HELP, PROFILES
from lateseg.errors import LatesegError
from lateseg.generate.rerank import RERANK_TOP, RERANKERS
from lateseg.ingest.formats import document_kinds

if TYPE_CHECKING:
    from lateseg.options import OpenOptions

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141


def _number(
    kind: Callable[[str], float], low: float, *, inclusive: bool = True
) -> Callable[[str], float]:
    """An argparse type: a finite number of ``kind`` at least (or above) ``low``."""
    word = "at least" if inclusive else "above"

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value < low or (value == low and not inclusive):
            raise argparse.ArgumentTypeError(f"{text} must be a finite number {word} {low:g}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


count = _number(int, 1)  # -k, --context
workers = _number(int, 0)
megabytes = _number(float, 0, inclusive=False)


def source_glob(pattern: str) -> str:
    """A relative ``--source`` glob is relative to the current folder; one that starts
    with a wildcard matches anywhere, as written."""
    if os.path.isabs(pattern) or pattern[:1] in ("*", "?", "["):
        return pattern
    return os.path.join(os.getcwd(), pattern)


#: The PostgreSQL note of every ``--index``, written once (the main parser's epilog).
INDEX_NOTE = (
    "--index DIR|URL: an index folder, or a PostgreSQL index shared by many writers and "
    "machines: postgresql://USER@HOST[:PORT]/DB (made there if it has none by ingest). Give "
    "the password in PGPASSWORD or ~/.pgpass, which libpq reads, rather than in the URL, "
    "which other users can see in the process list. --cache-dir DIR: this machine's folder "
    "for such an index's vector cache (default: under the lateseg home, named by the index)."
)


class UsageError(LatesegError):
    """A command line whose options contradict each other or cannot act: exit 2, one
    line naming the option and what to give instead."""


def index_location(sp: argparse.ArgumentParser, help: str) -> None:
    """``--index`` (a folder, or a postgresql:// URL: :data:`INDEX_NOTE`) and
    ``--cache-dir``. Not required by argparse: ``lateseg.toml`` may give it
    (``index.path``); :func:`lateseg.cli.main` asks for it when neither does."""
    sp.add_argument(
        "--index",
        default=None,
        metavar="DIR|URL",
        help=f"{help}; or postgresql://USER@HOST/DB (see `lateseg --help`); default: "
        "index.path of lateseg.toml",
    )
    sp.add_argument(
        "--cache-dir",
        metavar="DIR",
        default=None,
        help="for a postgresql:// index: this machine's vector cache (default: under the "
        "lateseg home; see `lateseg --help`)",
    )


def embedder_options(sp: argparse.ArgumentParser) -> None:
    """``--device``, ``--backend`` and ``--trust-remote-code``: how this process runs the
    index's embedder (never recorded in the index)."""
    sp.add_argument(
        "--device",
        default=None,
        help="torch device for the models (default: cuda if present, else cpu)",
    )
    sp.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="how the embedder runs (default: torch on a GPU; on a CPU openvino-bf16 where "
        "the CPU has bf16, else openvino: fp32, the torch model's vectors). Opt-ins: "
        "openvino (exact fp32 on any CPU), onnx, onnx-int8 (int8 weights, lower "
        "recall), openvino-int8 (int8 with scales calibrated once, so documents share "
        "batches: as fast's windows on an Intel Xeon without bf16 it read the standard "
        "library 1.5x faster than onnx-int8, bench/results/"
        "ingest_accounting_intel_fp32_windows.md, with recall@2000 0.013-0.018 lower on "
        "three of five sets, retrieval_fast_ovint8.md). Speed per backend and CPU: "
        "bench/results/throughput.md. "
        "Exports are made once and cached under the lateseg home",
    )
    sp.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="let the embedding model run the Python code its folder ships (only for "
        "models you trust; an index folder or lateseg.toml can never turn this on)",
    )


def running(args: argparse.Namespace, **more: Any) -> OpenOptions:
    """The options an index is opened with: how this process runs its embedder, as
    :func:`embedder_options` (``--device``, ``--backend``, ``--trust-remote-code``) read
    them, and the command's ``more`` (:class:`~lateseg.options.OpenOptions`' names)."""
    from lateseg.options import OpenOptions

    return OpenOptions(
        device=args.device, backend=args.backend, trust_remote_code=args.trust_remote_code,
        **more,
    )  # fmt: skip


def profile_option(sp: argparse.ArgumentParser, what: str) -> None:
    """``--profile``: the ingest profile of a new index (:mod:`lateseg.encode.profiles`)."""
    sp.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help=f"ingest profile of {what}: {PROFILE_HELP}",
    )


def common(sp: argparse.ArgumentParser) -> None:
    index_location(
        sp, "index folder (created by ingest if missing; search and ask never create one)"
    )
    embedder_options(sp)
    sp.add_argument("--json", action="store_true", help="print machine-readable JSON")


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the command line gave ``dest`` (its value is not the default, which
    ``lateseg.toml`` may have set)."""
    return dest in getattr(args, "given", ())


def filters(sp: argparse.ArgumentParser) -> None:
    sp.add_argument(
        "--mode",
        choices=QUERY_MODES,
        default="auto",
        help="auto (default): dense vectors, or dense and BM25 fused (hybrid: each one's "
        "scores scaled to 0-1 and averaged) for a question about code (which exception, "
        "default, environment variable, exit code or function) and for any question of a "
        "codebase (mostly code chunks); dense, lexical (BM25 over chunk text) or hybrid "
        "always",
    )
    sp.add_argument(
        "--source",
        metavar="GLOB",
        type=source_glob,
        default=None,
        help="only files whose path matches GLOB: '*/contracts/*.pdf' anywhere, "
        "'contracts/*.pdf' under the current folder",
    )
    sp.add_argument(
        "--kind",
        choices=document_kinds(),  # the formats registered when the parser is built
        default=None,
        help="only documents of this kind",
    )
    sp.add_argument(
        "--include-toc",
        action="store_true",
        help="also return chunks from tables of contents, lists of figures and indexes "
        "(left out by default: they only point at the text)",
    )
    sp.add_argument(
        "--passages",
        choices=PASSAGES,
        default="auto",
        help="what a hit is: auto (default): for a question about code or of a codebase, "
        "each code hit is the whole function, method or class it lies in (up to "
        f"{UNIT_CHARS:,} characters; a longer one keeps its chunk), each unit once; "
        "otherwise the chunk. chunks: always the stored chunk; units: always the unit",
    )
    sp.add_argument(
        "--rerank",
        choices=RERANKERS,
        default=None,
        help=f"re-rank the top {RERANK_TOP} by the local generator's likelihood of the "
        "question: better on code and manuals, worse on paraphrased contract questions, and "
        "seconds a question on CPU (bench/results/retrieval_ql.md); an ask quoting code also "
        "lets it choose among the facts found (bench/results/code.md); default: off",
    )
    sp.add_argument(
        "--context",
        type=count,
        metavar="CHARS",
        default=None,
        help="widen the hits with their neighbouring chunks up to CHARS characters in all",
    )
