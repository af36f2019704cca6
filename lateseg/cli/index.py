"""``lateseg index``: stats, verify, compact, list, remove, reindex."""

from __future__ import annotations

import argparse
import json
from typing import Any

from lateseg.cli import index_docs
from lateseg.cli.options import EXIT_OK, EXIT_PARTIAL, embedder_options, index_location
from lateseg.index.vectors import POLICIES
from lateseg.segment import CHUNKERS


def add(sub: argparse._SubParsersAction) -> None:
    idx = sub.add_parser(
        "index",
        help="inspect or maintain an index: stats, verify, compact, list, remove, reindex",
        description="Inspect or maintain an index; `lateseg index ACTION --help` for each.",
    )
    actions = idx.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, about: str, description: str | None = None) -> argparse.ArgumentParser:
        sp = actions.add_parser(name, help=about, description=description or about)
        index_location(sp, "index folder")
        sp.add_argument("--json", action="store_true", help="print machine-readable JSON")
        return sp

    action(
        "stats",
        "counts, kinds, sizes, and what the index was built with (embedder, chunker, "
        "precision, profile)",
    )
    action(
        "verify",
        "check, changing nothing, that the index is intact (exit 3 if not)",
        "Check, changing nothing, that the store is intact (a folder: SQLite and its text "
        "index; a postgresql:// index: its counters and change log), chunk texts match "
        "their documents, every chunk has its vector in the store, and the vector cache "
        "(vectors.faiss; for a server's index, this machine's copy in --cache-dir) matches "
        "the store vector for vector (exit 3 if not).",
    )
    compact = action(
        "compact",
        "reclaim space and rebuild the vector cache from the store",
        "Reclaim space (SQLite VACUUM; PostgreSQL VACUUM ANALYZE) and rebuild the vector "
        "cache from the store (which also replaces a damaged or foreign vectors.faiss).",
    )
    compact.add_argument(
        "--vectors",
        choices=("keep", *POLICIES),
        default="keep",
        help="rebuild the vector index as exact (flat) or approximate (hnsw, ivf, ivfpq) "
        "and keep that as the index's policy (auto: exact, HNSW from 100,000 vectors); "
        "default keep (compact still drops removed HNSW nodes)",
    )
    action(
        "list",
        "the documents: source, kind, chunks, pages, pages read by OCR, when indexed",
    )
    remove = action(
        "remove",
        "remove documents by path, folder or glob",
        "Remove the documents whose source is PATTERN: a file's path, a folder (every "
        "document under it), or a glob ('*/drafts/*.pdf' anywhere; 'drafts/*' under the "
        "current folder). Each document goes in one transaction; search, the page and MCP "
        "stop returning it at once. Exit 1 when nothing matches.",
    )
    remove.add_argument("patterns", nargs="+", metavar="PATH|GLOB")
    remove.add_argument(
        "--dry-run", action="store_true", help="print what would be removed, remove nothing"
    )
    reindex = action(
        "reindex",
        "encode every document again with another embedder, into a new index",
        "Encode every document of --index again with --embedder (and --chunker) into the "
        "new index --to; --index is only read. The documents come from the index, not "
        "their files, and keep their file hashes, so a later ingest of the same folders "
        "into the new index finds them unchanged.",
    )
    reindex.add_argument(
        "--embedder",
        required=True,
        help="embedding model name or folder for the new index",
    )
    reindex.add_argument(
        "--to",
        required=True,
        metavar="DIR|URL",
        help="the new index: a folder that does not exist or is empty, or an empty "
        "postgresql:// index",
    )
    reindex.add_argument(
        "--chunker",
        choices=tuple(CHUNKERS),
        default=None,
        help="chunker for the new index (default: the old index's)",
    )
    reindex.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    embedder_options(reindex)


def built_with(pipe: Any) -> dict[str, Any]:
    """What the index was built with, from its manifest: the embedder, chunker and
    precision, and the profile and the late windows' own backend where the index records
    them."""
    manifest = pipe.index.manifest
    out = {
        "embedder": manifest.embedder.to_dict(),
        "chunker": dict(manifest.chunker),
        "precision": manifest.precision,
    }
    profile = getattr(manifest, "profile", None)
    if profile is not None:
        out["profile"] = profile
    windows = getattr(manifest, "windows", None)
    if windows is not None:
        out["windows"] = windows
    return out


def run(args: argparse.Namespace) -> int:
    from lateseg.pipeline import Pipeline

    if args.action in index_docs.RUNS:
        return index_docs.RUNS[args.action](args)
    readonly = args.action != "compact"
    with Pipeline.open(
        args.index, create=False, readonly=readonly, cache_dir=args.cache_dir
    ) as pipe:
        if args.action == "stats":
            out: dict[str, object] = {**pipe.stats(), **built_with(pipe)}
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
            if key == "embedder" and isinstance(value, dict):
                value = ", ".join(f"{k}={v}" for k, v in value.items())
            print(f"{key}: {value}")
    if args.action == "verify" and out["problems"]:
        return EXIT_PARTIAL
    return EXIT_OK
