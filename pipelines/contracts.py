"""Contracts pipeline: index a folder of contracts and answer questions with citations.

    python pipelines/contracts.py [--docs data/contracts] [--index DIR]
                                  [--answer quote|copy|generate] [QUESTION ...]

With no question it answers the public sample questions over the bundled contracts
(``data/eval/sample_qa.jsonl``) and says, for each, whether the cited passage contains the
gold span. Each answer is printed phrase first, as ``lateseg ask`` does; ``--answer``
chooses how it is made (default: ``ask``'s).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions", nargs="*", help="questions (default: the sample questions)")
    ap.add_argument("--docs", default=str(ROOT / "data" / "contracts"))
    ap.add_argument("--index", default=None, help="index folder (default: under the cache)")
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--answer", choices=("quote", "copy", "generate"), default=None)
    args = ap.parse_args(argv)

    from lateseg import Pipeline
    from lateseg.encode.models import lateseg_home

    index = args.index or lateseg_home() / "pipelines" / "contracts-index"
    with Pipeline.open(index) as pipe:
        print(pipe.ingest([args.docs]).summary(), file=sys.stderr)
        if args.questions:
            todo = [{"question": q} for q in args.questions]
        else:
            lines = (ROOT / "data" / "eval" / "sample_qa.jsonl").read_text().splitlines()
            todo = [q for q in map(json.loads, lines) if q["source"].startswith("contracts/")]
        found = 0
        for q in todo:
            answer = pipe.ask(q["question"], k=args.k, answer=args.answer)
            shown = answer.phrase.text if answer.phrase is not None else answer.text
            print(f"Q: {q['question']}\nA: {shown}")
            if answer.phrase is not None:
                print(f'   "{" ".join(answer.phrase.sentence.text.split())}"')
            for n, hit in enumerate(answer.citations, start=1):
                print(f"   [{n}] {hit.cite()}")
            if "gold" in q:
                ok = any(
                    " ".join(q["gold"].split()) in " ".join(h.text.split())
                    for h in answer.citations
                )
                found += ok
                print(f"   gold cited: {'yes' if ok else 'no'}")
            print()
        if any("gold" in q for q in todo):
            print(f"gold cited for {found} of {len(todo)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
