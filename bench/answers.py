"""Answer accuracy, side by side: extractive, generated, generated with a compressed KV
cache, and the default ``ask`` (generated, replaced by the extractive answer when no
sentence of it is supported).

    python bench/answers.py [--sets contracts licenses] [--modes ...] [--generator NAME]
                            [--k 3] [--limit N]

Sets (``data/eval``, see its README): ``contracts``, the contract questions of
``sample_qa.jsonl`` and all of ``contracts_qa.jsonl`` over ``data/contracts/*.pdf`` (the
index also holds ``data/sample_repo``, as the demo's does); ``licenses``,
``licenses_qa.jsonl`` over ``/usr/share/common-licenses``. Each set gets its own fresh
index, built with the library's defaults.

Metrics per set and mode:

* **accuracy**: of the questions with a gold ``answer`` value, the share whose answer text
  holds one of its forms, both normalised (:func:`normalise`);
* **wrong shown**: the share of those answers that are wrong yet presented as the answer
  (for the checked modes, an unsupported model answer is not presented: its extractive
  replacement is);
* **cites gold**: the share of answers with a cited passage that covers at least half of
  the gold span; **citation precision**: of all cited passages, the share that do;
* **supported**: the share of generated sentences that the support check accepts;
* **s/answer**: mean seconds per answer (retrieval included).

The support check's similarity threshold is swept too: for each threshold, what the
``ask`` mode (generated, else extractive) would score. That table is how
``lateseg.generate.support.MIN_SIMILARITY`` was chosen.

Writes ``bench/results/answers.md`` and ``.json``. Offline (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DATA / "eval"))

from check_sample_qa import normalise_answer  # noqa: E402

from bench.retrieval import find_squashed  # noqa: E402

OUT = ROOT / "bench" / "results" / "answers.md"
LICENSES = Path("/usr/share/common-licenses")
MODES = ("extractive", "generated", "kv128", "ask", "quote-first", "nearest")
# generator settings of the prompt variants (LocalGenerator.style / .order)
VARIANTS = {"quote-first": {"style": "quote-first"}, "nearest": {"order": "nearest"}}
THRESHOLDS = (0.0, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def contract_records() -> list[dict[str, Any]]:
    sample = [
        r
        for r in read_jsonl(DATA / "eval" / "sample_qa.jsonl")
        if r["source"].startswith("contracts/")
    ]
    return sample + read_jsonl(DATA / "eval" / "contracts_qa.jsonl")


def set_inputs(name: str) -> tuple[list[Path], list[dict[str, Any]], dict[str, Path]]:
    """The paths to ingest, the records, and each record source's file."""
    if name == "contracts":
        records = contract_records()
        paths = [DATA / "contracts", DATA / "sample_repo"]
        files = {r["source"]: DATA / r["source"] for r in records}
    elif name == "licenses":
        records = read_jsonl(DATA / "eval" / "licenses_qa.jsonl")
        paths = sorted(p for p in LICENSES.iterdir() if p.is_file() and not p.is_symlink())
        files = {r["source"]: LICENSES / r["source"] for r in records}
    else:
        raise SystemExit(f"unknown set {name!r}; choose contracts or licenses")
    return paths, records, files


def normalise(text: str) -> str:
    """Lowercase, whitespace collapsed, quotes and dashes as ASCII (the eval sets' rule)."""
    return normalise_answer(text)


def forms(answer: str | list[str] | None) -> list[str]:
    if answer is None:
        return []
    return [answer] if isinstance(answer, str) else list(answer)


def correct(text: str, answer: str | list[str] | None) -> bool | None:
    """Whether ``text`` holds a form of the gold ``answer`` (None: no gold value)."""
    alts = forms(answer)
    if not alts:
        return None
    flat = normalise(text)
    # a numeral form must stand alone: "60 days" is not in "160 days"
    return any(re.search(r"(?<![\w$.])" + re.escape(normalise(a)), flat) for a in alts)


def covers(hit: Any, source: str, span: tuple[int, int] | None) -> bool:
    if span is None or hit.source != source:
        return False
    return min(hit.end, span[1]) - max(hit.start, span[0]) >= 0.5 * (span[1] - span[0])


def judge(
    answer: Any, rec: dict[str, Any], source: str, span: tuple[int, int] | None, shown: bool
) -> dict:
    """One answer's grades; ``shown``: it is generated text presented as the answer."""
    cites = [covers(h, source, span) for h in answer.citations]
    return {
        "generated_shown": shown,
        "text": answer.text,
        "correct": correct(answer.text, rec.get("answer")),
        "cites": len(cites),
        "cites_gold": any(cites),
        "gold_cites": sum(cites),
        "sentences": len(answer.support),
        "supported": sum(s.supported for s in answer.support),
        "finish": answer.finish,
    }


def run_set(
    name: str, modes: Sequence[str], k: int, generator: str | None, limit: int | None
) -> dict:
    from lateseg.generate.support import check_support
    from lateseg.pipeline import Pipeline

    paths, records, files = set_inputs(name)
    if limit:
        records = records[:limit]
    rows: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        Pipeline.open(Path(tmp) / "index", generator=generator) as pipe,
    ):
        pipe.ingest(paths, progress=False)
        texts = {src: pipe.document(str(f.resolve())) for src, f in files.items()}
        gen_modes = [m for m in modes if m in ("generated", "kv128", "ask")]
        for n, rec in enumerate(records, 1):
            doc = texts[rec["source"]]
            span = find_squashed(doc.text, rec["gold"])
            row: dict[str, Any] = {
                "id": rec["id"],
                "answer": rec.get("answer"),
                "gold_found": span is not None,
            }
            t0 = time.perf_counter()
            ext = pipe.ask(rec["question"], k=k, extractive=True)
            ext_s = time.perf_counter() - t0
            add(seconds, "extractive", ext_s)
            row["extractive"] = judge(ext, rec, doc.source, span, False)
            if gen_modes:
                t0 = time.perf_counter()
                gen = pipe.ask(rec["question"], k=k, fallback=False)
                gen_s = time.perf_counter() - t0
                add(seconds, "generated", gen_s)
                row["generated"] = judge(gen, rec, doc.source, span, True)
                # the sweep: facts-only verdicts and each sentence's similarity
                facts_only = check_support(
                    gen.text, rec["question"], gen.context, pipe.encoder, -1.0
                )
                row["generated"]["sweep"] = [(s.supported, s.similarity) for s in facts_only]
                ok = bool(gen.supported)
                row["ask"] = judge(gen if ok else ext, rec, doc.source, span, ok)
                row["ask"]["replaced"] = not ok
                add(seconds, "ask", gen_s + (0.0 if ok else ext_s))
            for variant in (m for m in modes if m in VARIANTS):
                t0 = time.perf_counter()
                with settings(pipe.generator, **VARIANTS[variant]):
                    var = pipe.ask(rec["question"], k=k, fallback=False)
                add(seconds, variant, time.perf_counter() - t0)
                row[variant] = judge(var, rec, doc.source, span, True)
            if "kv128" in modes:
                t0 = time.perf_counter()
                kv = pipe.ask(rec["question"], k=k, kv_budget=128, fallback=False)
                add(seconds, "kv128", time.perf_counter() - t0)
                row["kv128"] = judge(kv, rec, doc.source, span, True)
            rows.append(row)
            print(
                f"[{name} {n}/{len(records)}] {rec['id']}: "
                + " ".join(f"{m}={row[m]['correct']}" for m in modes if m in row),
                file=sys.stderr,
                flush=True,
            )
    return {"rows": rows, "seconds": seconds, "summary": summarise(rows, modes, seconds)}


@contextlib.contextmanager
def settings(gen: Any, **values: Any) -> Iterator[None]:
    """The generator with ``values`` set for the block, restored after."""
    old = {k: getattr(gen, k) for k in values}
    for k, v in values.items():
        setattr(gen, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(gen, k, v)


def add(seconds: dict[str, float], mode: str, s: float) -> None:
    seconds[mode] = seconds.get(mode, 0.0) + s


def summarise(rows: list[dict], modes: Sequence[str], seconds: dict[str, float]) -> dict:
    out = {}
    for m in modes:
        rs = [r[m] for r in rows if m in r]
        graded = [r for r in rs if r["correct"] is not None]
        shown_wrong = [r for r in graded if r["generated_shown"] and not r["correct"]]
        cited = sum(r["cites"] for r in rs)
        sentences = sum(r["sentences"] for r in rs)
        out[m] = {
            "answers": len(rs),
            "graded": len(graded),
            "accuracy": sum(r["correct"] for r in graded) / len(graded) if graded else None,
            "wrong_shown": len(shown_wrong) / len(graded) if graded and m != "extractive" else None,
            "cites_gold": sum(r["cites_gold"] for r in rs) / len(rs) if rs else None,
            "citation_precision": sum(r["gold_cites"] for r in rs) / cited if cited else None,
            "supported": sum(r["supported"] for r in rs) / sentences if sentences else None,
            "replaced": sum(bool(r.get("replaced")) for r in rs) if m == "ask" else None,
            "s_per_answer": seconds.get(m, 0.0) / len(rs) if rs else None,
        }
    return out


def sweep(rows: list[dict]) -> list[dict]:
    """What ``ask`` scores if a sentence is supported at similarity >= t (facts checked)."""
    out = []
    for t in THRESHOLDS:
        graded = right = wrong_shown = replaced = 0
        for r in rows:
            if "generated" not in r or r["generated"]["correct"] is None:
                continue
            ok = any(facts and sim >= t for facts, sim in r["generated"]["sweep"])
            shown = r["generated"] if ok else r["extractive"]
            graded += 1
            right += bool(shown["correct"])
            replaced += not ok
            wrong_shown += ok and not shown["correct"]
        if graded:
            out.append(
                {
                    "threshold": t,
                    "accuracy": right / graded,
                    "wrong_generated_shown": wrong_shown / graded,
                    "replaced": replaced / graded,
                }
            )
    return out


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Answer accuracy",
        "",
        f"`python bench/answers.py` ({report['when']}; generator `{report['generator']}`, "
        f"k={report['k']}, CPU). Accuracy: the gold value is in the answer; wrong shown: "
        "a wrong answer presented as the answer; cites gold: a cited passage covers the gold "
        "span; supported: generated sentences the support check accepts.",
        "",
    ]
    for name, res in report["sets"].items():
        n = len(res["rows"])
        graded = next(iter(res["summary"].values()))["graded"]
        lines += [
            f"## {name} ({n} questions, {graded} with a gold value)",
            "",
            "| mode | accuracy | wrong shown | cites gold | citation precision | supported "
            "| replaced | s/answer |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for m, s in res["summary"].items():
            lines.append(
                f"| {m} | {pct(s['accuracy'])} | {pct(s['wrong_shown'])} | {pct(s['cites_gold'])} "
                f"| {pct(s['citation_precision'])} | {pct(s['supported'])} "
                f"| {'-' if s['replaced'] is None else s['replaced']} "
                f"| {s['s_per_answer']:.1f} |"
            )
        if res.get("sweep"):
            lines += [
                "",
                "Support threshold sweep (`ask` = generated when a sentence passes, else "
                "extractive):",
                "",
                "| similarity >= | accuracy | wrong generated shown | replaced |",
                "| ---: | ---: | ---: | ---: |",
            ]
            for s in res["sweep"]:
                lines.append(
                    f"| {s['threshold']:.2f} | {pct(s['accuracy'])} | "
                    f"{pct(s['wrong_generated_shown'])} | {pct(s['replaced'])} |"
                )
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["contracts", "licenses"])
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--generator", help="causal LM name or folder (default: the library's)")
    ap.add_argument("--k", type=int, default=3, help="passages per answer (default 3: the demo's)")
    ap.add_argument("--limit", type=int, default=None, help="first N questions of each set")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    from lateseg.encode.models import DEFAULT_GENERATOR

    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d"),
        "generator": args.generator or DEFAULT_GENERATOR,
        "k": args.k,
        "sets": {},
    }
    for name in args.sets:
        res = run_set(name, args.modes, args.k, args.generator, args.limit)
        res["sweep"] = sweep(res["rows"])
        report["sets"][name] = res
    text = markdown(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
