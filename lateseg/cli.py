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
import json
import logging
import math
import os
import sys
import textwrap
from collections.abc import Callable, Sequence

from lateseg.encode.backends import BACKENDS
from lateseg.errors import LatesegError
from lateseg.index.retrieval import SEARCH_MODES
from lateseg.index.vectors import POLICIES
from lateseg.kv.compress import METHODS, parse_budget
from lateseg.scale.engines import ENGINES
from lateseg.segment import CHUNKERS
from lateseg.types import DOCUMENT_KINDS

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


_count = _number(int, 1)  # -k, --context
_workers = _number(int, 0)
_megabytes = _number(float, 0, inclusive=False)


def _source_glob(pattern: str) -> str:
    """A relative ``--source`` glob is relative to the current folder; one that starts
    with a wildcard matches anywhere, as written."""
    if os.path.isabs(pattern) or pattern[:1] in ("*", "?", "["):
        return pattern
    return os.path.join(os.getcwd(), pattern)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lateseg",
        description="Question answering over long documents (contracts, codebases) with "
        "late + dynamic chunking and cited answers. Runs offline with packaged models.",
        epilog="Example: lateseg ingest contracts/ --index idx && "
        'lateseg ask "What is the notice period?" --index idx',
    )
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logs on stderr")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--index",
            required=True,
            metavar="DIR",
            help="index folder (created by ingest if missing; search and ask never create one)",
        )
        sp.add_argument(
            "--device",
            default=None,
            help="torch device for the models (default: cuda if present, else cpu)",
        )
        sp.add_argument(
            "--backend",
            choices=BACKENDS,
            default=None,
            help="how the embedder runs (default: torch on a GPU, openvino on a CPU: the same "
            "vectors, about 2x faster); CPU opt-ins: openvino-bf16, onnx, onnx-int8 (int8 "
            "weights: fastest, lower recall; needs lateseg[onnx]). Exports are made once and "
            "cached under the lateseg home",
        )
        sp.add_argument("--json", action="store_true", help="print machine-readable JSON")
        sp.add_argument(
            "--trust-remote-code",
            action="store_true",
            help="let the embedding model run the Python code its folder ships (only for "
            "models you trust; an index folder can never turn this on)",
        )

    def filters(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--mode",
            choices=SEARCH_MODES,
            default="dense",
            help="dense vectors (default), BM25 over chunk text, or both fused by rank",
        )
        sp.add_argument(
            "--source",
            metavar="GLOB",
            type=_source_glob,
            default=None,
            help="only files whose path matches GLOB: '*/contracts/*.pdf' anywhere, "
            "'contracts/*.pdf' under the current folder",
        )
        sp.add_argument(
            "--kind",
            choices=DOCUMENT_KINDS,
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
            "--context",
            type=_count,
            metavar="CHARS",
            default=None,
            help="widen the hits with their neighbouring chunks up to CHARS characters in all",
        )

    ing = sub.add_parser(
        "ingest",
        help="add or update files and folders in an index",
        description="Walk PATHs (files or folders), parse every supported file (.pdf .docx "
        ".html .txt .md, source code, other plain text), chunk and embed it, and store it. "
        "Folders honour .gitignore and skip caches, virtualenvs, vendored, generated and "
        "binary files. Unchanged files are not parsed again; every skip and failure is "
        "reported with its reason and never stops the other files.",
    )
    ing.add_argument("paths", nargs="+", metavar="PATH")
    common(ing)
    ing.add_argument(
        "--embedder",
        default=None,
        help="embedding model name or folder for a NEW index (default: packaged all-MiniLM-L6-v2)",
    )
    ing.add_argument(
        "--chunker",
        choices=CHUNKERS,
        default=None,
        help="chunker for a NEW index (default: dynamic)",
    )
    ing.add_argument(
        "--vectors",
        choices=POLICIES,
        default=None,
        help="vector index policy, kept in the index: auto (exact search, HNSW from "
        "100,000 vectors; the default for a new index), flat (always exact), hnsw or ivf "
        "(approximate), ivfpq (compressed codes of dim/8 bytes for very large corpora; "
        "exact search until 10,000 vectors train it)",
    )
    ing.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local (this machine; the default) or ray: parse and encode on a Ray "
        "cluster, this process writing the index (needs lateseg[ray] on every node)",
    )
    ing.add_argument(
        "--address",
        default=None,
        help="Ray cluster to use with --engine ray, e.g. 10.0.0.5:6379 (default: "
        "$RAY_ADDRESS, a running local cluster, else a new one on this machine)",
    )
    ing.add_argument("--password", default=None, help="password for encrypted PDFs")
    ing.add_argument(
        "--prune",
        action="store_true",
        help="remove indexed documents under the folders among PATHs that the walk no "
        "longer yields (file gone, now a folder, now gitignored ...), each with its "
        "reason; a folder that does not exist or cannot be listed prunes nothing",
    )
    ing.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ing.add_argument("--strict", action="store_true", help="exit with status 3 if any file failed")
    ing.add_argument(
        "--workers",
        type=_workers,
        default=None,
        help="processes that parse files (default: none on 2 cores or fewer, else one per "
        "core but one, for 16+ files; 0: none)",
    )
    ing.add_argument(
        "--max-file-mb",
        type=_megabytes,
        default=20.0,
        help="skip files larger than this inside folders (default 20)",
    )
    ing.add_argument("--include-hidden", action="store_true", help="walk dot-files too")
    ing.add_argument("--no-gitignore", action="store_true", help="do not apply .gitignore files")
    ing.add_argument(
        "--keep-vendored", action="store_true", help="walk vendor/, third_party/ and the like"
    )
    ing.add_argument(
        "--keep-generated", action="store_true", help="keep generated, minified and lock files"
    )

    def question_command(name: str, about: str, k_help: str) -> argparse.ArgumentParser:
        """``search`` and ``ask``: a question, the index options, ``-k`` and the filters."""
        sp = sub.add_parser(name, help=about)
        sp.add_argument("question")
        common(sp)
        sp.add_argument("-k", type=_count, default=5, help=k_help)
        filters(sp)
        return sp

    se = question_command(
        "search", "print the chunks closest to a question", "number of hits (default 5)"
    )
    se.add_argument(
        "--definitions",
        action="store_true",
        help="attach the definitions of the defined terms each hit uses (contracts)",
    )

    idx = sub.add_parser(
        "index",
        help="inspect or maintain an index: stats, verify, compact",
        description="stats: counts, kinds and file sizes. verify: check, changing "
        "nothing, that SQLite and the text index are intact, chunk texts match their "
        "documents, every chunk has its vector in the docstore, and the vector cache "
        "(vectors.faiss) matches the docstore vector for vector (exit 3 if not). "
        "compact: reclaim space and rebuild the vector cache from the docstore (which "
        "also replaces a damaged or foreign vectors.faiss).",
    )
    idx.add_argument("action", choices=("stats", "verify", "compact"))
    idx.add_argument("--index", required=True, metavar="DIR", help="index folder")
    idx.add_argument("--json", action="store_true", help="print machine-readable JSON")
    idx.add_argument(
        "--vectors",
        choices=("keep", *POLICIES),
        default="keep",
        help="compact: rebuild the vector index as exact (flat) or approximate (hnsw, ivf, "
        "ivfpq) "
        "and keep that as the index's policy (auto: exact, HNSW from 100,000 vectors); "
        "default keep (compact still drops removed HNSW nodes)",
    )

    ask = question_command(
        "ask", "answer a question with citations", "passages given to the answerer"
    )
    ask.add_argument(
        "--extractive",
        action="store_true",
        help="quote the best sentences instead of running the generator",
    )
    ask.add_argument(
        "--generator",
        default=None,
        help="causal LM name or folder (default: packaged SmolLM2-135M-Instruct)",
    )
    ask.add_argument(
        "--kv-budget",
        metavar="N|R",
        default=None,
        help="compress the generator's KV cache after prefill to N tokens (128) or a "
        "share R of the prompt (0.25); default: full cache",
    )
    ask.add_argument(
        "--kv-method",
        choices=METHODS,
        default=None,
        help="how to compress: lateseg (whole content-defined chunks, the default), "
        "chunkkv-fixed (10-token chunks), snapkv (single tokens), keydiff (keys least like "
        "the mean key), streaming (sinks + recent), full (none)",
    )
    ask.add_argument(
        "--no-stream",
        action="store_true",
        help="print the answer when it is complete instead of token by token",
    )
    ph = sub.add_parser(
        "phase",
        help="test a pipeline for periodic weak spots (phase sensitivity)",
        description="Shift a needle fact one padding unit (one token) at a time, run the "
        "systems of a probe, and report per-residue accuracy (offset mod P) with Wilson "
        "95% intervals, the residue gap, the share of spectral power at the harmonics of "
        "1/P with a permutation p-value, and plots. retrieval: fixed-size chunkers, "
        "LangChain's recursive splitter and lateseg on a needle clause; kv: KV-cache "
        "compressors (fixed ChunkKV, SnapKV, lateseg) on the default generator; toy: tiny "
        "LMs trained from scratch with full attention, fixed-block compression and "
        "content-defined blocks.",
    )
    ph.add_argument("probe", choices=("retrieval", "kv", "toy"), help="which probe to run")
    ph.add_argument("--out", required=True, metavar="DIR", help="folder for JSON, PNG, markdown")
    ph.add_argument(
        "--period",
        type=int,
        default=None,
        help="period to test (default: retrieval 16 = the fixed chunk size; kv 4, 8 and 10; "
        "toy 4 = the block stride)",
    )
    ph.add_argument(
        "--offsets", type=int, default=None, help="offsets 0..N-1 (default 2-4 periods)"
    )
    ph.add_argument(
        "--scheme",
        choices=("prefix", "inside", "both"),
        default="both",
        help="prefix: padding before everything; inside: padding moves only the needle",
    )
    ph.add_argument("--text", default=None, help="haystack text file (default: Apache-2.0)")
    ph.add_argument("--reduced", action="store_true", help="the small, fast version")
    ph.add_argument("--no-progress", action="store_true", help="hide progress bars")
    ph.add_argument("--json", action="store_true", help="print the results as JSON")
    return p


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
        return _run(args)
    except LatesegError as e:
        print(f"lateseg: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except FileNotFoundError as e:
        print(f"lateseg: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("lateseg: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly; point stdout at /dev/null so
        # the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _run(args: argparse.Namespace) -> int:
    from lateseg.ingest.folder import WalkConfig
    from lateseg.pipeline import Pipeline
    from lateseg.segment import DynamicChunker, FixedChunker

    if args.command == "ingest":
        chunker = (
            {"dynamic": DynamicChunker, "fixed": FixedChunker}[args.chunker]()
            if args.chunker
            else None
        )
        with Pipeline.open(
            args.index,
            embedder=args.embedder,
            chunker=chunker,
            device=args.device,
            vectors=args.vectors,
            trust_remote_code=args.trust_remote_code,
            backend=args.backend,
        ) as pipe:
            walk = WalkConfig(
                max_bytes=int(args.max_file_mb * 1_000_000),
                include_hidden=args.include_hidden,
                honour_gitignore=not args.no_gitignore,
                skip_vendored=not args.keep_vendored,
                skip_generated=not args.keep_generated,
            )
            report = pipe.ingest(
                args.paths,
                progress=False if args.no_progress else None,
                password=args.password,
                workers=args.workers,
                walk_config=walk,
                prune=args.prune,
                engine=args.engine,
                address=args.address,
            )
        if args.json:
            print(json.dumps(report.to_dict(), indent=2))
        else:
            print(report.summary())
            for path, reason in report.removed:
                print(f"removed: {path}: {reason}")
            for path, reason in report.failed:
                print(f"failed: {path}: {reason}")
        indexed = report.added or report.updated or report.unchanged
        if report.failed and (args.strict or not indexed):
            return EXIT_PARTIAL
        return EXIT_OK

    if args.command == "index":
        return _index_command(args)
    if args.command == "phase":
        return _phase_command(args)

    with Pipeline.open(
        args.index,
        device=args.device,
        generator=getattr(args, "generator", None),
        readonly=True,
        trust_remote_code=args.trust_remote_code,
        backend=args.backend,
    ) as pipe:
        if not pipe.sources():
            raise LatesegError(f"the index {args.index} is empty; run `lateseg ingest` first")
        # which chunks may answer: the same options for search and ask
        select = {
            "mode": args.mode,
            "source": args.source,
            "kind": args.kind,
            "include_toc": args.include_toc,
        }
        if args.command == "search":
            hits = pipe.search(args.question, k=args.k, **select)
            if args.context is not None:
                hits = pipe.expand(hits, args.context)
            if not hits:
                print("no results", file=sys.stderr)
            defs = [pipe.definitions(h) if args.definitions else {} for h in hits]
            if args.json:
                rows = [
                    {**h.to_dict(), **({"definitions": d} if args.definitions else {})}
                    for h, d in zip(hits, defs, strict=True)
                ]
                print(json.dumps(rows, indent=2))
            else:
                for n, (h, d) in enumerate(zip(hits, defs, strict=True), start=1):
                    print(f"{n}. [{h.score:.3f}] {h.cite()}")
                    print(textwrap.indent(textwrap.shorten(h.text, 300), "   "))
                    for term, text in d.items():
                        print(f"   defined: {term}: {textwrap.shorten(text, 200)}")
            return EXIT_OK
        streaming = not (args.json or args.extractive or args.no_stream)

        def show(piece: str) -> None:
            print(piece, end="", flush=True)

        answer = pipe.ask(
            args.question,
            k=args.k,
            extractive=args.extractive,
            context=args.context,
            kv_budget=None if args.kv_budget is None else parse_budget(args.kv_budget),
            kv_method=args.kv_method,
            stream=show if streaming else None,
            **select,
        )
        if args.json:
            print(json.dumps(answer.to_dict(), indent=2))
        else:
            print() if streaming else print(answer.text)
            if answer.kv_stats:
                st = answer.kv_stats
                print(
                    f"(KV cache {st['method']}: {st['kept_tokens']} of {st['prompt_tokens']} "
                    f"tokens, {st['bytes_after'] / 1e6:.1f} of {st['bytes_before'] / 1e6:.1f} MB)",
                    file=sys.stderr,
                )
            print()
            label = {
                "model": "Sources",
                "attribution": "Sources (attributed)",
                "extractive": "Sources",
            }[answer.cited_by]
            print(f"{label}:")
            for n, h in enumerate(answer.citations, start=1):
                print(f"  [{n}] {h.cite()}")
        return EXIT_OK


def _phase_command(args: argparse.Namespace) -> int:
    from pathlib import Path

    from lateseg.encode.models import lateseg_home
    from lateseg.phase import study
    from lateseg.phase.harness import write_report

    schemes = ("prefix", "inside") if args.scheme == "both" else (args.scheme,)
    text = Path(args.text) if args.text else None
    progress = False if args.no_progress else None
    if args.probe == "retrieval":
        results = study.run_retrieval(
            text=text,
            period=args.period or 16,
            offsets=args.offsets,
            schemes=schemes,
            reduced=args.reduced,
            progress=progress,
        )
    elif args.probe == "kv":
        results = study.run_kv(
            text=text,
            periods=(args.period,) if args.period else (4, 8, 10),
            offsets=args.offsets,
            schemes=schemes,
            reduced=args.reduced,
            progress=progress,
        )
    else:
        results = study.run_toy(
            offsets=args.offsets or 16,
            schemes=schemes,
            reduced=args.reduced,
            cache_dir=lateseg_home() / "phase-toy",
        )
    paths = write_report(results, Path(args.out), f"Phase sensitivity: {args.probe} probe")
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        print(paths["markdown"].read_text())
    print(f"wrote {', '.join(str(p) for p in paths.values())}", file=sys.stderr)
    return EXIT_OK


def _index_command(args: argparse.Namespace) -> int:

    from lateseg.pipeline import Pipeline

    with Pipeline.open(args.index, create=False, readonly=args.action != "compact") as pipe:
        if args.action == "stats":
            out: dict[str, object] = pipe.index.stats()
        elif args.action == "verify":
            out = {"problems": pipe.index.problems()}
        else:
            out = pipe.index.compact(None if args.vectors == "keep" else args.vectors)
    if args.json:
        print(json.dumps(out, indent=2))
    elif args.action == "verify":
        problems = out["problems"]
        assert isinstance(problems, list)
        print("\n".join(f"problem: {p}" for p in problems) or "ok: index is consistent")
    else:
        for key, value in out.items():
            print(f"{key}: {value}")
    if args.action == "verify" and out["problems"]:
        return EXIT_PARTIAL
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
