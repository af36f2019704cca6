"""The whole phase-robustness study: retrieval, KV-cache and toy-model probes.

    python pipelines/phase_study.py [--out bench/results/phase] [--reduced]

Writes, per probe, ``phase.json``, ``summary.md`` and the plots into ``OUT/<probe>/``
(and the toy models' table and plot as ``OUT/toy.md`` and ``OUT/toy.png``), and
``OUT/study.md`` with every row and the study's verdicts: positive controls (fixed
strides, learned toy gates at stride 4) periodic with p < 0.01 and a gap of at least 15
points, the toy's two ablations (no position encoding, uniform gates) at least 10; negative controls
(full attention, full cache) and lateseg without a significant period (p > 0.05) and a
gap of at most 3 points. ``noise gap`` is the gap that chance alone reaches (95th
percentile over the permutations) at the trials a row has: a gap above 3 points but
below it is reported as within noise, not as flat. About 25 minutes on 2 CPU cores the
first time, 12 once the toy models are cached (``--reduced``: a few).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
PROBES = ("retrieval", "kv", "toy")


def role(system: str, period: int) -> str:
    """``positive`` (should be periodic at this period: a fixed stride equal to it),
    ``negative`` or ``lateseg`` (should be flat), or ``other`` (measured, no
    expectation: SnapKV, LangChain's splitter, a fixed stride at another period)."""
    s = system.lower()
    if s.startswith("toy "):  # lateseg.phase.toy.STUDY's rows
        if "full attention" in s:
            return "negative"
        if "content-defined" in s:
            return "lateseg"
        if "s=4" in s:
            return "positive" if period == 4 else "other"
        if "no pe" in s or "uniform" in s:
            return "ablation"  # the paper's: periodic, a gap of at least 10 points
        return "other"  # stride 2: smaller than stride 4, no bar of its own
    stride = re.search(r"(?:fixed-|c=)(\d+)", s)
    if stride:
        return "positive" if int(stride.group(1)) == period else "other"
    if "full" in s:
        return "negative"
    if "lateseg" in s:
        return "lateseg"
    return "other"


def verdict(r: Any) -> str:
    kind = role(r.system, r.period)
    if kind in ("positive", "ablation"):
        bar = 0.15 if kind == "positive" else 0.10
        return "periodic (as expected)" if r.p_value < 0.01 and r.gap >= bar else "NOT periodic"
    if kind in ("negative", "lateseg"):
        if r.p_value > 0.05 and r.gap <= 0.03:
            return "flat (as expected)"
        if r.p_value > 0.05 and r.gap <= getattr(r, "gap_noise", float("nan")):
            return "no period; gap > 3 pts but within noise"
        return "NOT flat"
    return "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "phase"))
    ap.add_argument("--reduced", action="store_true", help="the small version (minutes)")
    ap.add_argument("--probes", nargs="+", choices=PROBES, default=list(PROBES))
    args = ap.parse_args(argv)

    from lateseg.encode.models import lateseg_home
    from lateseg.phase import study
    from lateseg.phase.harness import write_report
    from lateseg.phase.plotting import pyplot
    from lateseg.phase.toy import write_toy_report

    pyplot()  # the reports have plots: a missing extra fails now, not after the study
    out = Path(args.out)
    for probe in args.probes:
        t0 = time.perf_counter()
        if probe == "retrieval":
            results = study.run_retrieval(reduced=args.reduced, progress=None)
        elif probe == "kv":
            results = study.run_kv(reduced=args.reduced, progress=None)
        elif probe == "toy":
            rows = study.run_toy(reduced=args.reduced, cache_dir=lateseg_home() / "phase-toy")
            results = [row.result for row in rows]
        else:
            ap.error(f"unknown probe {probe!r}")
        seconds = time.perf_counter() - t0
        if probe == "toy":  # the same files as `lateseg phase toy --out OUT`
            write_toy_report(rows, out, {"seconds": round(seconds, 1), "reduced": args.reduced})
        write_report(
            results,
            out / probe,
            f"Phase sensitivity: {probe} probe",
            {"seconds": seconds, "reduced": args.reduced},
        )
        print(f"{probe}: {len(results)} results in {seconds:.0f} s", file=sys.stderr)
    summary = summarise(out, args.reduced)
    print(summary)
    return 0


def summarise(out: Path, reduced: bool) -> str:
    """``study.md`` from every probe's ``phase.json`` under ``out`` (probes can be rerun
    one at a time)."""
    lines = [
        "# Phase-robustness study" + (" (reduced)" if reduced else ""),
        "",
        "| probe | system | scheme | period | accuracy | gap (pts) | noise gap (pts) "
        "| harmonic power | p | verdict |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    timings = {}
    for probe in PROBES:
        path = out / probe / "phase.json"
        if not path.is_file():
            continue
        data = json.loads(path.read_text())
        timings[probe] = data.get("seconds", 0.0)
        for r in data["results"]:
            row = SimpleNamespace(**r)
            lines.append(
                f"| {probe} | {row.system} | {row.scheme} | {row.period} | "
                f"{row.overall_accuracy:.3f} | {100 * row.gap:.1f} | "
                f"{100 * getattr(row, 'gap_noise', float('nan')):.1f} | {row.power_share:.2f} | "
                f"{row.p_value:.4f} | {verdict(row)} |"
            )
    total = sum(timings.values())
    lines += [
        "",
        "Time: "
        + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
        + f"; {total / 60:.1f} min in all (2 CPU cores).",
        "",
        "Command: `python pipelines/phase_study.py" + (" --reduced" if reduced else "") + "`",
        "",
    ]
    text = "\n".join(lines)
    (out / "study.md").write_text(text)
    return text


if __name__ == "__main__":
    sys.exit(main())
