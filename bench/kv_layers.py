"""Layer-wise index reuse, measured: how alike the chunk sets adjacent layers keep are, and
what sharing one choice over groups of layers saves.

    python bench/kv_layers.py [--limit 20] [--budget 0.25] [--groups 1 2 3 5 6 10]

For the contract questions (their ``k`` passages retrieved as ``ask`` does, the prompt
``generate`` renders, SmolLM2-135M-Instruct on the CPU) the prompt is prefilled once with
the question as the observation window. Then:

* with every layer choosing for itself (``layer_group=1``), the lateseg press's kept
  middle slots per layer, and the Jaccard similarity of each adjacent pair of layers
  (1.0: the same chunks);
* for each group size, the selection's time (scores to kept slots; the prefill is the
  same for all) and its peak Python memory (``tracemalloc``), and how much of each
  layer's own choice the shared one keeps (overlap with the per-layer choice).

What sharing costs in answers is measured by ``bench/kv_answers.py --groups``. Writes
``bench/results/kv_layers.{md,json}``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.answers import set_inputs  # noqa: E402
from bench.cold_start import cpu  # noqa: E402
from bench.kv_answers import budget_arg  # noqa: E402

OUT = ROOT / "bench" / "results" / "kv_layers.md"


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    sa, sb = set(a.tolist()), set(b.tolist())
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def measure(gen: Any, question: str, hits: list, budget: int | float, groups: Sequence[int]):
    import torch

    from lateseg.kv.chunks import content_chunks
    from lateseg.kv.compress import KVConfig, select
    from lateseg.kv.observe import window_scores

    shown, _ = gen.fitted(hits)
    prompt = gen.render(gen.prompt(question, shown))
    window = len(prompt.ids) - prompt.tail_token
    with torch.inference_mode():
        cache, _, obs = gen.prefill(prompt.ids, window)
        scores = window_scores(obs, cache)
    n = len(prompt.ids)
    base = KVConfig.of("lateseg", budget)
    sinks = min(base.sinks, n)
    chunks = content_chunks(
        prompt.text, prompt.offsets, sinks, max(sinks, n - window), base.press.chunk_max_tokens
    )
    fixed = set(range(sinks)) | set(range(n - window, n))

    def middle(kept: np.ndarray) -> np.ndarray:
        return np.asarray([p for p in kept[0].tolist() if p not in fixed])

    out: dict[str, Any] = {"prompt_tokens": n, "groups": {}}
    own = None
    for g in groups:
        config = KVConfig.of("lateseg", budget, layer_group=g)
        tracemalloc.start()
        t0 = time.perf_counter()
        kept = select(config, scores, n, window, chunks)
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        mids = [middle(k) for k in kept]
        if g == 1:
            own = mids
            out["jaccard"] = [jaccard(a, b) for a, b in itertools.pairwise(mids)]
        assert own is not None, "group size 1 comes first"
        out["groups"][g] = {
            "select_ms": 1000 * seconds,
            "peak_kib": peak / 1024,
            "overlap_with_own": statistics.mean(
                jaccard(a, b) for a, b in zip(mids, own, strict=True)
            ),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--budget", type=budget_arg, default=0.25)
    ap.add_argument("--groups", type=int, nargs="+", default=[1, 2, 3, 5, 6, 10])
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    from lateseg.generate.local import LocalGenerator
    from lateseg.pipeline import Pipeline

    groups = [1, *sorted(set(args.groups) - {1})]
    gen = LocalGenerator()
    gen.load()
    paths, records, _ = set_inputs("contracts")
    records = records[: args.limit]
    cases = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, Pipeline.open(Path(tmp) / "index") as pipe:
        pipe.ingest(paths, progress=False)
        for rec in records:
            hits = pipe.retriever.search(rec["question"], args.k)
            cases.append(measure(gen, rec["question"], hits, args.budget, groups))
    layers = len(cases[0]["jaccard"]) + 1
    pairs = [statistics.mean(c["jaccard"][i] for c in cases) for i in range(layers - 1)]
    table = {
        g: {
            key: statistics.mean(c["groups"][g][key] for c in cases)
            for key in ("select_ms", "peak_kib", "overlap_with_own")
        }
        for g in groups
    }
    report = {
        "when": time.strftime("%Y-%m-%d"),
        "cpu": cpu(),
        "budget": args.budget,
        "questions": len(cases),
        "prompt_tokens": statistics.mean(c["prompt_tokens"] for c in cases),
        "jaccard_adjacent": pairs,
        "groups": table,
        "seconds": time.perf_counter() - t0,
    }
    lines = [
        "# Layer-wise index reuse (lateseg press)",
        "",
        f"`python bench/kv_layers.py` ({report['when']}; SmolLM2-135M-Instruct, 30 layers; "
        f"{report['cpu']}): {len(cases)} contract questions, prompts of "
        f"{report['prompt_tokens']:.0f} tokens on average, budget {args.budget}.",
        "",
        "Jaccard similarity of the middle slots adjacent layers keep when each chooses for "
        f"itself: mean {statistics.mean(pairs):.2f}, lowest {min(pairs):.2f} "
        f"(layers {pairs.index(min(pairs))}-{pairs.index(min(pairs)) + 1}), highest "
        f"{max(pairs):.2f}.",
        "",
        "| layers | " + " | ".join(f"{i}-{i + 1}" for i in range(layers - 1)) + " |",
        "| --- | " + " | ".join("---:" for _ in pairs) + " |",
        "| Jaccard | " + " | ".join(f"{p:.2f}" for p in pairs) + " |",
        "",
        "| layer group | selection ms | peak KiB | overlap with each layer's own choice |",
        "| ---: | ---: | ---: | ---: |",
        *(
            f"| {g} | {t['select_ms']:.1f} | {t['peak_kib']:.0f} | {t['overlap_with_own']:.2f} |"
            for g, t in table.items()
        ),
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
