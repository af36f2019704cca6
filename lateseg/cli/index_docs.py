"""``lateseg index list``, ``index remove`` and ``index reindex``: the documents of an
index, removing some, and moving them all to another embedder."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from lateseg.cli.options import EXIT_ERROR, EXIT_OK, UsageError, running
from lateseg.index.postgres.glob import glob_regex
from lateseg.index.stores import is_folder

GLOB_CHARS = ("*", "?", "[")


def run_list(args: argparse.Namespace) -> int:
    from lateseg.pipeline import Pipeline

    with Pipeline.open(args.index, create=False, readonly=True, cache_dir=args.cache_dir) as pipe:
        rows = pipe.index.store.catalogue()
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    print(f"{'chunks':>7} {'pages':>5} {'ocr':>4}  {'indexed':<20}  {'kind':<6}  source")
    for r in rows:
        ocr = str(r["ocr_pages"]) if r["ocr_pages"] else "-"
        pages = str(r["pages"]) if r["pages"] else "-"
        when = r["indexed_at"] or "-"
        print(f"{r['chunks']:>7} {pages:>5} {ocr:>4}  {when:<20}  {r['kind']:<6}  {r['source']}")
    chunks = sum(r["chunks"] for r in rows)
    print(f"{len(rows)} documents, {chunks} chunks", file=sys.stderr)
    return EXIT_OK


def matcher(pattern: str) -> Callable[[str], bool]:
    """Which sources ``pattern`` names: a glob (relative to the current folder unless it
    starts with a wildcard or is absolute), else that source exactly (as given, or as an
    absolute path) or every document under that folder."""
    if any(c in pattern for c in GLOB_CHARS):
        absolute = os.path.isabs(pattern) or pattern[:1] in GLOB_CHARS
        regex = glob_regex(pattern if absolute else os.path.join(os.getcwd(), pattern))
        if regex is None:
            raise UsageError(f"{pattern}: not a glob that can match anything (an unclosed '[')")
        compiled = re.compile(regex, re.DOTALL)
        return lambda source: compiled.match(source) is not None
    full = os.path.abspath(pattern)
    names = {pattern, full}
    folder = full.rstrip(os.sep) + os.sep
    return lambda source: source in names or source.startswith(folder)


def run_remove(args: argparse.Namespace) -> int:
    from lateseg.pipeline import Pipeline

    tests = [(p, matcher(p)) for p in args.patterns]
    with Pipeline.open(
        args.index, create=False, readonly=args.dry_run, cache_dir=args.cache_dir
    ) as pipe:
        sources = pipe.sources()
        chosen = [s for s in sources if any(test(s) for _, test in tests)]
        unmatched = [p for p, test in tests if not any(test(s) for s in sources)]
        removed = chosen if args.dry_run else pipe.remove(chosen)
    for pattern in unmatched:
        print(f"lateseg: no indexed document matches {pattern}", file=sys.stderr)
    if args.json:
        print(json.dumps({"removed": removed, "dry_run": args.dry_run}, indent=2))
    else:
        verb = "would remove" if args.dry_run else "removed"
        for source in removed:
            print(f"{verb}: {source}")
    return EXIT_OK if removed else EXIT_ERROR


def run_reindex(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from lateseg.pipeline import Pipeline
    from lateseg.scale.reindex import reindex
    from lateseg.segment import CHUNKERS

    target = args.to
    if is_folder(target):
        path = Path(target)
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise UsageError(f"--to {target} exists and is not an empty folder: name a new one")
        if is_folder(args.index) and path.resolve() == Path(args.index).resolve():
            raise UsageError("--to is --index: reindex writes a new index, the old stays as is")
    with Pipeline.open(args.index, create=False, readonly=True, cache_dir=args.cache_dir) as old:
        chunker = CHUNKERS.make(args.chunker) if args.chunker else old.chunker
        # the new index's own: no --cache-dir (that is the old index's)
        opening = running(args, embedder=args.embedder, chunker=chunker, vectors=old.index.policy)
        with Pipeline.open(target, options=opening) as new:
            total = len(old.sources())
            bar = tqdm(
                total=total, unit="doc", file=sys.stderr,
                disable=True if args.no_progress else None,
            )  # fmt: skip
            with bar:
                done = reindex(
                    old.index, new.index, new.encoder, new.chunker, lambda _: bar.update(1)
                )
            location = new.index.location
    if args.json:
        print(json.dumps({"to": str(location), **done}, indent=2))
    else:
        print(f"reindexed {done['documents']} documents ({done['chunks']} chunks) into {location}")
    return EXIT_OK


RUNS = {"list": run_list, "remove": run_remove, "reindex": run_reindex}
