"""Codebase pipeline: index a repository and find the code that answers a question.

    python pipelines/codebase.py [--repo data/sample_repo] [--index DIR] QUESTION [...]

Prints the best matching units with their qualified names and line ranges.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions", nargs="+")
    ap.add_argument("--repo", default=str(ROOT / "data" / "sample_repo"))
    ap.add_argument("--index", default=None, help="index folder (default: under the cache)")
    ap.add_argument("-k", type=int, default=3)
    args = ap.parse_args(argv)

    from lateseg import Pipeline
    from lateseg.encode.models import lateseg_home

    index = args.index or lateseg_home() / "pipelines" / "codebase-index"
    with Pipeline.open(index) as pipe:
        print(pipe.ingest([args.repo]).summary(), file=sys.stderr)
        for question in args.questions:
            print(f"Q: {question}")
            for hit in pipe.search(question, k=args.k):
                text = pipe.document(hit.source).text
                first = text.count("\n", 0, hit.start) + 1
                last = first + hit.text.count("\n")
                name = hit.section or "(module level)"
                print(f"  {hit.score:.3f}  {hit.source}:{first}-{last}  {name}")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
