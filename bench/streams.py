"""Batches side by side against one at a time, on this CPU (issue 65,
``lateseg.encode.streams``).

    python bench/streams.py [--backends openvino-bf16 openvino] [--rounds 3]

Per backend, interleaved round by round (medians, each round's ratio listed):

* **calibration**: what lateseg measures at first use (``timed_ratio``): the forward
  pass on 2n batches of 32 x 128 random tokens, one at a time on the latency graph
  (what lateseg runs without streams) against n at a time on the throughput graph
  (``Streams.run``);
* **encode**: ``LateEncoder.encode_documents`` of the licence texts (Debian's
  ``/usr/share/common-licenses``), a new encoder each time, streams on against off.

Writes ``bench/results/streams.{md,json}``; the header names the CPU and its flags.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from cold_start import cpu

OUT = Path(__file__).parent / "results"
LICENSES = Path("/usr/share/common-licenses")


def run(backend: str, rounds: int) -> dict[str, Any]:
    from lateseg.encode.config import EncoderConfig
    from lateseg.encode.late import LateEncoder
    from lateseg.encode.runtime import compile_streams
    from lateseg.encode.streams import SHAPE, Streams, timed_ratio

    texts = [p.read_text("utf-8", "replace") for p in sorted(LICENSES.iterdir()) if p.is_file()]
    model = LateEncoder(EncoderConfig(backend=backend)).embedder
    assert model.graph is not None, backend
    streams = Streams(*compile_streams(model.graph, backend, None))
    b, n = SHAPE
    rows: dict[str, list[float]] = {"calibration": [], "encode": []}
    tokens = sum(len(model.tokenizer(t)["input_ids"]) for t in texts)
    for r in range(rounds):
        rows["calibration"].append(timed_ratio(model.forward, streams))
        took = {}
        for mode in ("off", "on") if r % 2 == 0 else ("on", "off"):  # each first in turn
            model._streams, model._streams_looked = (streams if mode == "on" else None), True
            enc = LateEncoder(EncoderConfig(backend=backend))
            t0 = time.perf_counter()
            enc.encode_documents([(t, False) for t in texts])
            took[mode] = time.perf_counter() - t0
        rows["encode"].append(took["off"] / took["on"])
        print(
            f"[{backend}] round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f}x" for k, v in rows.items())
        )
    model._streams, model._streams_looked = None, False  # decided again on next use
    return {
        "backend": backend,
        "streams": streams.n,
        "shape": f"{b}x{n}",
        "licence_tokens": tokens,
        "rows": {k: {"median": statistics.median(v), "runs": v} for k, v in rows.items()},
    }


def markdown(report: dict[str, Any]) -> str:
    out = [
        "# Batches side by side (OpenVINO streams) against one at a time",
        "",
        f"Command: `{report['command']}`. Machine: {report['cpu']}.",
        "",
        "Ratios above 1: side by side is faster. `calibration`: what "
        "`lateseg.encode.streams.timed_ratio` measures at first use, 2n batches of 32 x 128 "
        "random tokens (side by side is used from "
        "`lateseg.encode.streams.GAIN`); `encode`: `LateEncoder.encode_documents` of the "
        "licence texts, streams on against off, a new encoder (nothing reused) each time. "
        "Medians of interleaved rounds, each round in brackets.",
        "",
        "| backend | streams | calibration | encode |",
        "| --- | ---: | ---: | ---: |",
    ]
    for r in report["rows"]:
        cells = [
            f"{r['rows'][k]['median']:.2f}x ({', '.join(f'{x:.2f}' for x in r['rows'][k]['runs'])})"
            for k in ("calibration", "encode")
        ]
        out.append(f"| {r['backend']} | {r['streams']} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backends", nargs="+", default=["openvino-bf16", "openvino"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="streams")
    args = ap.parse_args(argv)
    report = {
        "command": " ".join(["python bench/streams.py", *(argv or sys.argv[1:])]),
        "cpu": cpu(),
        "rows": [run(b, args.rounds) for b in args.backends],
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.out}.json").write_text(json.dumps(report, indent=1) + "\n")
    text = markdown(report)
    (OUT / f"{args.out}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
