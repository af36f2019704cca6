"""The generator as judge among a code question's facts (``rerank="generator"``), paired.

    python bench/code_judge.py --sets real-build real-codespell ... [--indexes DIR]
                               [--out bench/results/code/judge.md]

Each question of each ``real-<corpus>`` set (``bench/real_corpora.py``) is searched once
with ask's defaults, then quoted from the same passages twice: as ask quotes without a
re-ranker, and as ask quotes with ``rerank="generator"`` (the generator judges among the
facts: :func:`lateseg.answer.code.code_answer`). So the figures isolate the judge: the
re-ranked search, slower, is not part of either row.

Two tables:

* **facts**: for each question of a code kind whose passages state two facts or more of
  the kind asked, whether the fact put first holds the gold value, by the facts' score
  alone and by the score and the judge together (the facts and scores are recorded from
  ``code_answer`` as it runs: nothing is re-implemented here);
* **answers**: right, wrong shown, right if always answered (answerable questions) and
  "not sure" (unanswerable ones), graded as ``bench/answers.py`` grades its quote rows.

``--indexes DIR`` keeps each corpus's index in ``DIR/<corpus>`` (made on first use, brought
up to date on each run: unchanged files are skipped, so a rerun does not encode again and an
index an interrupted run left half-built is finished); without it each set is ingested into
a temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import real_corpora  # noqa: E402
from bench.answers import forms, gold_of, judge_quote, set_inputs, stored_texts  # noqa: E402
from bench.cold_start import cpu  # noqa: E402
from lateseg.answer import code  # noqa: E402
from lateseg.answer.confidence import MIN_CONFIDENCE, zmix  # noqa: E402
from lateseg.answer.question import Asked  # noqa: E402
from lateseg.ask.options import AskOptions  # noqa: E402
from lateseg.eval import metrics  # noqa: E402

OUT = ROOT / "bench" / "results" / "code" / "judge.md"
PLAIN = AskOptions(k=5, answer="quote", min_confidence=0.0)
JUDGED = AskOptions(k=5, answer="quote", min_confidence=0.0, rerank="generator")


class Recorder:
    """What ``code_answer`` scored (its facts, their scores, the constant or code line
    each answers by) and what its judge said, per call; installed over the module's own
    functions for the run."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._by: dict[Any, Any] = {}  # the constant or code line each fact answers by
        self._score, self._judged = code.score_facts, code._judged
        self._constants, self._twins = code.resolve_constants, code.code_twins

    def install(self) -> None:
        def score_facts(asked: Asked, hits: Any, found: Any, encoder: Any) -> np.ndarray:
            score = self._score(asked, hits, found, encoder)
            call = {"hits": hits, "found": list(found), "score": score, "by": dict(self._by)}
            self.calls.append(call)
            self._by = {}
            return score

        def resolve_constants(hits: Any, found: Any) -> Any:
            kept, named = self._constants(hits, found)
            self._by = named
            return kept, named

        def code_twins(hits: Any, found: Any) -> Any:
            twins = self._twins(hits, found)
            self._by = {**self._by, **twins}
            return twins

        def judged(asked: Asked, found: Any, score: np.ndarray, judge: Any) -> np.ndarray:
            def heard(question: str, texts: Sequence[str]) -> np.ndarray:
                said = np.asarray(judge(question, texts), dtype=np.float64)
                self.calls[-1]["said"] = dict(zip(texts, said.tolist(), strict=True))
                return said

            chosen = self._judged(asked, found, score, heard)
            self.calls[-1]["chosen"] = chosen
            return chosen

        code.score_facts, code.resolve_constants = score_facts, resolve_constants
        code.code_twins, code._judged = code_twins, judged

    def start(self) -> None:
        self.calls.clear()
        self._by = {}

    def facts_row(self, golds: list[str]) -> dict[str, Any] | None:
        """The facts of the last unjudged call: how many, which hold the gold, and the
        judge's word on each (from the judged call over the same passages)."""
        if len(self.calls) < 2 or "said" not in self.calls[1]:
            return None
        plain, judged = self.calls[0], self.calls[1]
        hits, found, by = plain["hits"], plain["found"], plain["by"]
        holds = [
            bool(metrics.holds_answer(code.hit_value(hits, by.get(f, f)), golds)) for f in found
        ]
        said = [judged["said"][f.context] for f in found]
        return {
            "n": len(found),
            "holds": holds,
            "score": plain["score"].tolist(),
            "said": said,
            "chosen": np.asarray(judged["chosen"]).tolist(),  # the library's own order
        }


def run_set(name: str, recorder: Recorder, indexes: Path | None) -> list[dict[str, Any]]:
    from lateseg.pipeline import Pipeline

    paths, records, files = set_inputs(name)
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if indexes is not None:
            folder = indexes / name.removeprefix("real-")
        else:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "index"
        pipe = stack.enter_context(Pipeline.open(folder))
        # a kept index is brought up to date (its unchanged files are skipped), so one
        # an interrupted run left half-built is finished, not read as it is
        pipe.ingest(paths, progress=False)
        answerer = pipe.answerer
        texts = stored_texts(pipe, files)
        for rec in records:
            rec, source, span = gold_of(rec, texts)
            prepared = answerer.prepare(rec["question"], PLAIN)
            recorder.start()
            row: dict[str, Any] = {"id": rec["id"], "unanswerable": bool(rec.get("unanswerable"))}
            for tag, options in (("plain", PLAIN), ("judged", JUDGED)):
                got = prepared.missing or answerer.finish(
                    answerer.answer_from(prepared.asked, prepared.hits, options), prepared, 0.0
                )
                graded = judge_quote(got, rec, source, span, None, MIN_CONFIDENCE)
                row[tag] = {
                    "right": graded["correct"],
                    "wrong_shown": graded["wrong_shown"],
                    "not_sure": graded["not_sure"],
                    "right_always": graded["raw"]["correct"],
                    "phrase": graded["phrase"],
                }
            if not row["unanswerable"]:
                row["facts"] = recorder.facts_row(forms(rec.get("answer")))
            rows.append(row)
            print(f"[{name}] {rec['id']}: {row['plain']['phrase']!r} | "
                  f"{row['judged']['phrase']!r}", file=sys.stderr, flush=True)  # fmt: skip
    return rows


def first_right(facts: dict[str, Any], judged: bool) -> bool:
    """Whether the fact put first holds the gold: by the score, or by the order the
    library chose with the judge (``chosen``; runs before it kept ``said`` only)."""
    if not judged:
        order = np.asarray(facts["score"])
    elif "chosen" in facts:
        order = np.asarray(facts["chosen"])
    else:
        order = zmix(np.asarray(facts["score"]), facts["said"])
    return bool(facts["holds"][int(np.argmax(order))])


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# The generator as judge among a code question's facts",
        "",
        f"`{report['command']}` ({report['date']}; {report['machine']}; "
        f"{report['minutes']:.0f} min). Each question searched once with ask's defaults and "
        "quoted twice from the same passages: without a re-ranker and with "
        '`rerank="generator"` (the judge). See `bench/code_judge.py`.',
        "",
        "## Facts: questions with two facts or more of the kind asked, one of them right",
        "",
        "| corpus | such questions | right fact first, score | right fact first, "
        "score + judge | gained | lost |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    total = np.zeros(5, dtype=int)
    for name, rows in report["sets"].items():
        cases = [r["facts"] for r in rows if r.get("facts") and r["facts"]["n"] > 1]
        cases = [f for f in cases if any(f["holds"])]
        a = [first_right(f, False) for f in cases]
        b = [first_right(f, True) for f in cases]
        pairs = list(zip(a, b, strict=True))
        v = np.array([len(cases), sum(a), sum(b), sum(y and not x for x, y in pairs),
                      sum(x and not y for x, y in pairs)])  # fmt: skip
        total += v
        lines.append(f"| {name} | " + " | ".join(map(str, v)) + " |")
    lines += ["| all | " + " | ".join(map(str, total)) + " |", ""]
    lines += [
        "## Answers (min_confidence as shipped)",
        "",
        "| corpus | answerable | right | wrong shown | right if always answered "
        '| unanswerable | "not sure" |',
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    sums: dict[str, list[int]] = {}
    for name, rows in [*report["sets"].items(), ("all", None)]:
        if rows is None:
            cells = sums
        else:
            ans = [r for r in rows if not r["unanswerable"]]
            una = [r for r in rows if r["unanswerable"]]
            cells = {"answerable": [len(ans)] * 2, "unanswerable": [len(una)] * 2}
            for key, group in (("right", ans), ("wrong_shown", ans), ("right_always", ans),
                               ("not_sure", una)):  # fmt: skip
                cells[key] = [sum(bool(r[t][key]) for r in group) for t in ("plain", "judged")]
            for key, pair in cells.items():
                sums[key] = [a + b for a, b in zip(sums.get(key, [0, 0]), pair, strict=True)]
        pair = {key: f"{v[0]} → {v[1]}" for key, v in cells.items()}
        lines.append(
            f"| {name} | {cells['answerable'][0]} | {pair['right']} | {pair['wrong_shown']} | "
            f"{pair['right_always']} | {cells['unanswerable'][0]} | {pair['not_sure']} |"
        )
    lines += ["", "Each cell: without the judge → with it."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", required=True, choices=real_corpora.SET_NAMES)
    ap.add_argument("--indexes", type=Path, default=None, help="keep each corpus's index here")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    recorder = Recorder()
    recorder.install()
    t0 = time.perf_counter()
    report: dict[str, Any] = {
        "command": "python bench/code_judge.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": time.strftime("%Y-%m-%d"),
        "machine": cpu(),
        "sets": {},
    }
    for name in args.sets:
        report["sets"][name] = run_set(name, recorder, args.indexes)
    report["minutes"] = (time.perf_counter() - t0) / 60
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    args.out.write_text(markdown(report), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
