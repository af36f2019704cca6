"""Sweep the toy model of ``lateseg.phase.toy`` over task and model settings: for each
setting, train the named study rows and record recall, the gap between residues mod the
stride, the permutation p, the period found and the slot gains.

It answers: under which settings is the learned-gate model periodic with period = stride,
and does full attention still learn the task there? Settings run in parallel processes
(``--jobs``); on a GPU (``--device cuda``) a grid takes minutes, on 2 CPU cores about
2 minutes per row and setting.

    python bench/toy_sweep.py --rows "full attention" "learned gates, S=4" --jobs 2

``bench/results/toy_sweep_v1.json`` is the sweep of the earlier toy (records padded with
one pad token, width 64, four heads; commit 21926d6 and before): its learned-gate model
never met the bar in 8 settings.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

GRID: list[dict[str, Any]] = [
    {},  # the study's defaults: width 32, one head, values 64, 0-2 fillers between records
    {"heads": 2},
    {"dim": 64},
    {"max_filler": 0},
    {"max_filler": 4},
    {"values": 32},
    {"steps": 5000},
    {"seed": 1},
]
ROWS = ("full attention", "learned gates, S=4")


def _one(job: tuple[dict[str, Any], str, str]) -> dict[str, Any]:
    import torch

    from lateseg.phase.toy import STUDY, ToyConfig, run_variant, weak_slots_match

    torch.set_num_threads(1)
    setting, name, device = job
    variant, changes = STUDY[name]
    config = replace(ToyConfig(), **{**changes, **setting})
    row = run_variant(name, variant, config, device=device, permutations=1000)
    r = row.result
    return {
        "setting": setting,
        "row": name,
        "train_s": row.train_s,
        "accuracy": round(r.overall, 3),
        "gap": round(r.gap, 3),
        "noise_gap": round(r.gap_noise, 3),
        "p": r.p_value,
        "period_found": row.period_found,
        "residues": [round(x["accuracy"], 3) for x in r.residues],
        "slot_gains": [round(g, 3) for g in row.slot_gains],
        "weak_residues_are_low_gain_slots": weak_slots_match(row),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--grid", type=json.loads, help="a JSON list of settings (default: GRID)")
    ap.add_argument("--rows", nargs="+", default=list(ROWS), help="study rows to train")
    ap.add_argument("--out", type=Path, default=Path("bench/results/toy_sweep.json"))
    args = ap.parse_args()
    jobs = [(s, name, args.device) for s in args.grid or GRID for name in args.rows]
    t0 = time.perf_counter()
    ctx = mp.get_context("spawn")
    with ctx.Pool(args.jobs) as pool:
        rows = []
        for row in pool.imap_unordered(_one, jobs):
            rows.append(row)
            print(
                f"{json.dumps(row['setting']):30s} {row['row']:22s} acc {row['accuracy']:.2f} "
                f"gap {row['gap']:.2f} p {row['p']:.4f} period {row['period_found']} "
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
