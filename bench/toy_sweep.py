"""Sweep the phase study's toy model (``lateseg.phase.toy``) over architecture and
training settings: for each setting, train the variants and record recall, the gap
between residues mod the stride and the permutation p of the period.

It answers one question: under which settings does the *learned-gate* fixed-block model
(the paper's positive control) come out periodic at this scale, and does full attention
still learn the task there? Settings run in parallel processes (``--jobs``); on a GPU
(``--device cuda``) the whole default grid takes a few minutes, on 2 CPU cores hours.

    python bench/toy_sweep.py --device cuda --jobs 12 --out bench/results/toy_sweep.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

GRID: list[dict[str, Any]] = [
    {},  # the study's defaults: conv, local window 2, 1,000 steps
    {"local": 1},
    {"conv": False, "local": 1, "steps": 3000},
    {"conv": False, "local": 1, "steps": 6000, "lr": 1e-3},
    {"conv": False, "local": 2, "steps": 3000},
    {"conv": False, "local": 1, "steps": 3000, "layers": 3},
    {"conv": False, "local": 1, "steps": 3000, "dim": 128},
    {"dim": 32, "heads": 2, "records": 8, "keys": 32, "values": 32, "steps": 2000},
]
VARIANTS = ("full", "fixed", "fixed-uniform", "dynamic")


def _one(job: tuple[dict[str, Any], str, str]) -> dict[str, Any]:
    from lateseg.phase.stats import analyse
    from lateseg.phase.toy import ToyConfig, recall_at_offsets, train_variant

    setting, variant, device = job
    config = replace(ToyConfig(), **setting)
    t0 = time.perf_counter()
    model = train_variant(variant, config, device=device)
    train_s = time.perf_counter() - t0
    row: dict[str, Any] = {
        "setting": setting,
        "config": asdict(config),
        "variant": variant,
        "train_s": round(train_s, 1),
    }
    for scheme in ("prefix", "inside"):
        offs, ok = recall_at_offsets(model, 8, scheme=scheme, per_offset=256)
        r = analyse(offs, ok, config.stride, system=variant, scheme=scheme)
        row[scheme] = {
            "accuracy": round(r.overall, 3),
            "gap": round(r.gap, 3),
            "p": r.p_value,
            "residues": [round(x["accuracy"], 3) for x in r.residues],
        }
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--grid", type=json.loads, help="a JSON list of settings (default: GRID)")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    ap.add_argument("--out", type=Path, default=Path("bench/results/toy_sweep.json"))
    args = ap.parse_args()
    jobs = [(s, v, args.device) for s in args.grid or GRID for v in args.variants]
    t0 = time.perf_counter()
    ctx = mp.get_context("spawn")
    with ctx.Pool(args.jobs) as pool:
        rows = []
        for row in pool.imap_unordered(_one, jobs):
            rows.append(row)
            print(
                f"{json.dumps(row['setting']):70s} {row['variant']:14s} "
                f"prefix acc {row['prefix']['accuracy']:.2f} gap {row['prefix']['gap']:.2f} "
                f"p {row['prefix']['p']:.4f} | inside acc {row['inside']['accuracy']:.2f} "
                f"gap {row['inside']['gap']:.2f} p {row['inside']['p']:.4f} "
                f"({row['train_s']} s)",
                flush=True,
            )
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(  # after every row: a run cut short keeps what it did
                json.dumps(
                    {"device": args.device, "wall_s": time.perf_counter() - t0, "rows": rows},
                    indent=1,
                )
            )
    print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
