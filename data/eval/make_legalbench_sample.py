"""Write ``legalbench_sample.json``: the contract questions of ``sample_qa.jsonl`` and
``contracts_qa.jsonl`` in LegalBench-RAG's benchmark format, over the Markdown sources of
the sample contracts (``data/sources/contracts/*.md``, the corpus folder ``data/sources``).

Run from the repository root::

    python data/eval/make_legalbench_sample.py

Each test is ``{"query", "snippets": [{"file_path", "span": [start, end]}]}``, the span
the gold text's character offsets in its Markdown file (every gold occurs there exactly
once: ``check_sample_qa.py``), as LegalBench-RAG's spans are offsets into its corpus
files. ``lateseg eval data/eval/legalbench_sample.json --corpus data/sources`` reads it
over an index of ``data/sources/contracts``.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent
OUT = DATA / "eval" / "legalbench_sample.json"


def tests() -> list[dict]:
    out = []
    for name in ("sample_qa.jsonl", "contracts_qa.jsonl"):
        for line in (DATA / "eval" / name).read_text(encoding="utf-8").splitlines():
            rec = json.loads(line) if line.strip() else None
            if not rec or not rec.get("source_md"):
                continue
            path = rec["source_md"].removeprefix("sources/")
            text = (DATA / "sources" / path).read_text(encoding="utf-8")
            start = text.find(rec["gold"])
            if start < 0 or text.find(rec["gold"], start + 1) >= 0:
                raise SystemExit(f"{rec['id']}: the gold is not once in {path}")
            span = [start, start + len(rec["gold"])]
            out.append({"query": rec["question"], "snippets": [{"file_path": path, "span": span}]})
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps({"tests": tests()}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
