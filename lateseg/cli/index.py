"""``lateseg index``: stats, verify, compact."""

from __future__ import annotations

import argparse
import json

from lateseg.cli.options import EXIT_OK, EXIT_PARTIAL, index_location
from lateseg.index.vectors import POLICIES


def add(sub: argparse._SubParsersAction) -> None:
    idx = sub.add_parser(
        "index",
        help="inspect or maintain an index: stats, verify, compact",
        description="stats: counts, kinds and sizes. verify: check, changing nothing, "
        "that the store is intact (a folder: SQLite and its text index; a postgresql:// "
        "index: its counters and change log), chunk texts match their documents, every "
        "chunk has its vector in the store, and the vector cache (vectors.faiss; for a "
        "server's index, this machine's copy in --cache-dir) matches the store vector for "
        "vector (exit 3 if not). compact: reclaim space (SQLite VACUUM; PostgreSQL VACUUM "
        "ANALYZE) and rebuild the vector cache from the store (which also replaces a "
        "damaged or foreign vectors.faiss).",
    )
    idx.add_argument("action", choices=("stats", "verify", "compact"))
    index_location(idx, "index folder")
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


def run(args: argparse.Namespace) -> int:
    from lateseg.pipeline import Pipeline

    readonly = args.action != "compact"
    with Pipeline.open(
        args.index, create=False, readonly=readonly, cache_dir=args.cache_dir
    ) as pipe:
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
