"""``lateseg ingest``: add or update files and folders in an index."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from lateseg.cli.options import (
    EXIT_OK,
    EXIT_PARTIAL,
    UsageError,
    common,
    given,
    megabytes,
    profile_option,
    running,
    workers,
)
from lateseg.encode.profiles import DEFAULT_PROFILE, FAST_NOTICE
from lateseg.index.stores import is_folder
from lateseg.index.vectors import POLICIES
from lateseg.scale.engines import ENGINES
from lateseg.segment import CHUNKERS


def add(sub: argparse._SubParsersAction) -> None:
    ing = sub.add_parser(
        "ingest",
        help="add or update files and folders in an index",
        description="Walk PATHs (files or folders), parse every supported file (.pdf .docx "
        ".html .txt .md, source code, other plain text), chunk and embed it, and store it. "
        "Folders honour .gitignore and skip caches, virtualenvs, vendored, generated and "
        "binary files. Unchanged files are not parsed again; every skip and failure is "
        "reported with its reason and never stops the other files.",
        epilog="Examples:\n\n"
        "  lateseg ingest contracts/ --index idx          # again: only what changed\n"
        "  lateseg ingest repo/ notes.md --index idx --prune  # drop files now gone\n"
        "  lateseg ingest scans/ --index idx --ocr force   # every page by OCR\n"
        "  lateseg ingest locked.pdf --index idx --password-env PDF_PASSWORD",
    )
    ing.add_argument("paths", nargs="+", metavar="PATH")
    common(ing)
    profile_option(ing, "a NEW index (an existing index is extended with its own)")
    ing.add_argument(
        "--embedder",
        default=None,
        help="embedding model name or folder for a NEW index (default: packaged all-MiniLM-L6-v2)",
    )
    ing.add_argument(
        "--chunker",
        choices=tuple(CHUNKERS),
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
        choices=tuple(ENGINES),
        default="local",
        help="local (this machine; the default) or ray: parse and encode on a Ray "
        "cluster, this process writing the index (needs lateseg[ray] on every node)",
    )
    ing.add_argument(
        "--address",
        default=None,
        help="Ray cluster to use with --engine ray, e.g. 10.0.0.5:6379 (default: "
        "$RAY_ADDRESS, a running local cluster, else a new one on this machine); only "
        "with --engine ray",
    )
    secret = ing.add_mutually_exclusive_group()
    secret.add_argument(
        "--password-env",
        metavar="VAR",
        default=None,
        help="read the password of encrypted PDFs from the environment variable VAR",
    )
    secret.add_argument(
        "--password-file",
        metavar="FILE",
        default=None,
        help="read the password of encrypted PDFs from FILE (its first line)",
    )
    secret.add_argument(
        "--password",
        default=None,
        help="password of encrypted PDFs, on the command line, where other users see it "
        "(ps, /proc); prefer --password-env or --password-file",
    )
    ing.add_argument(
        "--ocr",
        choices=("auto", "off", "force"),
        default="auto",
        help="auto (default): read scanned pages, pages whose text layer is unreadable, and "
        "PNG/JPEG/TIFF images by OCR (Tesseract; `make ocr` or lateseg[ocr] plus Debian's "
        "tesseract-ocr installs it), a few seconds a page, except images inside a code "
        "repository (a folder with .git or a project file: icons and screenshots); off: "
        "report such pages as not read; force: OCR every page of PDFs and every image too",
    )
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
        type=workers,
        default=None,
        help="processes that parse files (default: none on 2 cores or fewer, else one per "
        "core but one, for 16+ files; 0: none); with --engine ray, the encoder actors "
        "(default: one per GPU, else one per two CPUs of the cluster)",
    )
    ing.add_argument(
        "--max-file-mb",
        type=megabytes,
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


def password(args: argparse.Namespace) -> str | None:
    """The PDF password from ``--password-env VAR``, ``--password-file FILE`` or
    ``--password`` (None: none given)."""
    if args.password_env is not None:
        value = os.environ.get(args.password_env)
        if value is None:
            raise UsageError(f"--password-env {args.password_env}: that variable is not set")
        return value
    if args.password_file is not None:
        try:
            text = Path(args.password_file).read_text(encoding="utf-8")
        except OSError as e:
            raise UsageError(f"--password-file {args.password_file}: {e.strerror}") from None
        lines = text.splitlines()
        return lines[0] if lines else ""
    return args.password


#: The marker, under the lateseg home, of :func:`fast_notice` having been shown.
NOTICE = "notices/profile-fast"


def fast_notice(device: str | None) -> None:
    """On a CPU without bf16, once (a marker under the lateseg home): one line naming
    ``--profile fast`` and what it trades, since the default reads each token about 2.5
    times at fp32 there."""
    from lateseg.encode import runtime
    from lateseg.encode.models import cuda_possible
    from lateseg.home import lateseg_home

    on_gpu = cuda_possible() if device is None else not device.startswith("cpu")
    marker = lateseg_home() / NOTICE
    if on_gpu or runtime.cpu_has_bf16() or marker.exists():
        return
    print(f"lateseg: info: {FAST_NOTICE}", file=sys.stderr, flush=True)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass  # a read-only home: the line shows again next time


def run(args: argparse.Namespace) -> int:
    from lateseg.ingest.folder import WalkConfig
    from lateseg.options import IngestOptions
    from lateseg.pipeline import Pipeline

    if given(args, "address") and args.engine != "ray":
        raise UsageError("--address names a Ray cluster: it acts only with --engine ray")
    secret = password(args)
    chunker = CHUNKERS.make(args.chunker) if args.chunker else None
    if not args.no_progress and sys.stderr.isatty():
        # until the bar shows: a new index may load the model to learn its width
        print("lateseg: loading the model…", end="\r", file=sys.stderr, flush=True)
    opening = running(
        args, embedder=args.embedder, chunker=chunker, vectors=args.vectors,
        cache_dir=args.cache_dir, profile=args.profile,
    )  # fmt: skip
    # a folder this command creates is removed again when nothing was indexed into it
    new_folder = is_folder(args.index) and not os.path.lexists(args.index)
    with Pipeline.open(args.index, options=opening) as pipe:
        if args.profile is None and pipe.index.manifest.profile == DEFAULT_PROFILE:
            fast_notice(args.device)
        walk = WalkConfig(
            max_bytes=int(args.max_file_mb * 1_000_000),
            include_hidden=args.include_hidden,
            honour_gitignore=not args.no_gitignore,
            skip_vendored=not args.keep_vendored,
            skip_generated=not args.keep_generated,
        )
        options = IngestOptions(
            progress=False if args.no_progress else None,
            password=secret,
            ocr=args.ocr,
            workers=args.workers,
            walk_config=walk,
            prune=args.prune,
            engine=args.engine,
            address=args.address,
        )
        report = pipe.ingest(args.paths, options=options)
        # no writer changed it, this command nor another beside it
        untouched = new_folder and pipe.index.store.log_state().seq == 0
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.summary())
        for path, reason in report.removed:
            print(f"removed: {path}: {reason}")
        for path, reason in report.failed:
            print(f"failed: {path}: {reason}")
        for path, reason in report.unread:
            print(f"not read: {path}: {reason}")
    indexed = report.added or report.updated or report.unchanged
    if untouched and not indexed:
        shutil.rmtree(args.index, ignore_errors=True)
        print(f"nothing was indexed: {args.index} was not kept", file=sys.stderr)
    if report.failed and (args.strict or not indexed):
        return EXIT_PARTIAL
    return EXIT_OK
