"""Where every second of an ingest goes (issue 65), and the model's bare forward bound.

    python bench/ingest_accounting.py --sets licenses stdlib --backends openvino-bf16 openvino

For each corpus (``bench/throughput.py``'s: ``licenses``, ``stdlib``) and backend, one
``Pipeline.ingest`` into a new index (model loading and export excluded, as there), timed
by stage. Each stage's time is its own (exclusive: a stage called inside another is taken
out of the outer one), so the rows add up to the whole ingest:

* **parse wait**: the encode loop waiting for parsed documents (``parse_all``; parsing runs
  in worker processes, so this is the parse time not hidden behind encoding);
* **tokenise**: the tokenizer over each document (``LateEncoder._tokenize``);
* **windows and batches**: building the windows, packing them into batches, stitching
  the windows' token vectors back (``LateEncoder.encode_documents`` itself);
* **padding and copies**: the batch arrays made and the outputs sliced
  (``LateEncoder._forward`` itself);
* **forward**: the model's forward passes (every model: late windows and chunks
  embedded alone);
* **segmentation**: boundaries chosen (``DynamicChunker.chunk``);
* **unit fields**: the qualified names and titles mixed into code chunks
  (``chunk_fields``);
* **pooling and naive half**: chunk vectors pooled and mixed
  (``LateEncoder.chunk_vectors_many`` itself);
* **write**: SQLite rows, the FAISS vectors and the change log (``Writer.add``);
* **other**: the rest (walking the folder, hashing, reports, waits between stages).

**Bare forward**: the same model and backend on random token IDs at every shape of a grid
(batch 1-64 x sequence 32-512; 1 s each), without tokenising, padding or pooling. Its
best rate is the **bound**: the time the ingest's real (unpadded) model tokens need at
that rate, and at the rate of the very shapes the ingest ran (each shape timed bare and
weighted by how often it ran) — the difference is what batch shapes cost.

The ingest is accounted with its batches run one at a time (``LATESEG_STREAMS=1``:
exclusive stage clocks cannot follow passes run side by side, ``lateseg.encode.streams``).

Writes ``bench/results/ingest_accounting.{md,json}`` (``--out STEM``). Name the CPU's
flags with every figure (the header does).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cold_start import cpu
from throughput import corpus

OUT = Path(__file__).resolve().parent / "results"
BATCHES = (1, 4, 8, 16, 32, 64)
LENGTHS = (32, 64, 128, 256, 512)
SHAPE_SECONDS = 1.0  # per shape of the grid
RAN_SECONDS = 0.2  # per shape the ingest ran (hundreds of them on a large corpus)


class Clock:
    """Exclusive seconds per stage: a stage entered inside another stops the outer's clock."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.stack: list[tuple[str, float]] = []
        self.shapes: Counter[tuple[int, int]] = Counter()
        self.real_tokens = 0
        self.by_model: defaultdict[str, Counter[tuple[int, int]]] = defaultdict(Counter)
        self.model_tokens: Counter[str] = Counter()

    def enter(self, stage: str) -> None:
        now = time.perf_counter()
        if self.stack:
            outer, since = self.stack[-1]
            self.seconds[outer] += now - since
        self.stack.append((stage, now))

    def leave(self) -> None:
        now = time.perf_counter()
        stage, since = self.stack.pop()
        self.seconds[stage] += now - since
        if self.stack:
            self.stack[-1] = (self.stack[-1][0], now)

    def timing(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.enter(stage)
            try:
                return fn(*args, **kwargs)
            finally:
                self.leave()

        return timed

    def waiting(self, stage: str, fn: Callable[..., Iterator[Any]]) -> Callable[..., Any]:
        """``fn``, a generator function, with the time spent in its ``next`` clocked."""

        @functools.wraps(fn)
        def gen(*args: Any, **kwargs: Any) -> Iterator[Any]:
            it = iter(fn(*args, **kwargs))
            while True:
                self.enter(stage)
                try:
                    item = next(it)
                except StopIteration:
                    return
                finally:
                    self.leave()
                yield item

        return gen


def patched(clock: Clock) -> list[tuple[Any, str, Any]]:
    """The stage functions wrapped with ``clock``; returns what to put back."""
    from lateseg.encode.late import LateEncoder
    from lateseg.index.writer import Writer
    from lateseg.ingest import parallel
    from lateseg.scale import encoding
    from lateseg.segment.dynamic import DynamicChunker

    spots: list[tuple[Any, str, Callable[[Any], Any]]] = [
        (parallel, "parse_all", lambda f: clock.waiting("parse wait", f)),
        (LateEncoder, "_tokenize", lambda f: clock.timing("tokenise", f)),
        (LateEncoder, "encode_documents", lambda f: clock.timing("windows and batches", f)),
        # a generator of batches: its own time is taken as it yields each
        (LateEncoder, "_forward", lambda f: clock.waiting("padding and copies", f)),
        (LateEncoder, "chunk_vectors_many", lambda f: clock.timing("pooling and naive half", f)),
        (DynamicChunker, "chunk", lambda f: clock.timing("segmentation", f)),
        (encoding, "chunk_fields", lambda f: clock.timing("unit fields", f)),
        (Writer, "add", lambda f: clock.timing("write", f)),
    ]
    undo = []
    for owner, name, wrap in spots:
        inner = getattr(owner, name)
        undo.append((owner, name, inner))
        setattr(owner, name, wrap(inner))
    return undo


def account(
    folder: Path, backend: str, work: Path, profile: str, windows: str | None = None
) -> tuple[dict[str, Any], list[Any]]:
    """One ingest of ``folder`` clocked by stage, and the models that ran it (the late
    windows' first)."""
    from throughput import wrapped_forward

    from lateseg.pipeline import Pipeline

    clock = Clock()
    from lateseg.encode.config import EncoderConfig

    index = work / f"index-{backend}-{profile}-{windows}"
    config = EncoderConfig(backend=backend, window_backend=windows)
    with Pipeline.open(index, embedder=config, profile=profile) as pipe:
        pipe.encoder.embed_queries(["warm up"])  # load (and export) outside the timing

        def forward(role: str) -> Callable[[Any], Any]:
            def wrap(inner: Any) -> Any:
                def run(ids: Any, mask: Any) -> Any:
                    clock.shapes[(int(ids.shape[0]), int(ids.shape[1]))] += 1
                    clock.by_model[role][(int(ids.shape[0]), int(ids.shape[1]))] += 1
                    clock.real_tokens += int(mask.sum())
                    clock.model_tokens[role] += int(mask.sum())
                    return clock.timing("forward", inner)(ids, mask)

                return run

            return wrap

        undo = patched(clock)
        models = [pipe.encoder.window_embedder, pipe.encoder.embedder]
        # each model's batches apart (the windows' and the texts embedded alone), where a
        # profile reads them with two models
        roles = ["windows", "texts"] if models[0] is not models[1] else ["windows"]
        try:
            with contextlib.ExitStack() as stack:
                for model, role in zip(models, roles, strict=False):
                    stack.enter_context(wrapped_forward([model], forward(role)))
                clock.enter("other")
                t0 = time.perf_counter()
                report = pipe.ingest([folder], progress=False)
                total = time.perf_counter() - t0
                clock.leave()
        finally:
            for owner, name, inner in undo:
                setattr(owner, name, inner)
        assert not report.failed, report.failed
        return {
            "backend": backend,
            "profile": profile,
            "window_backend": pipe.encoder.window_embedder.backend,
            "seconds": total,
            "stages": dict(clock.seconds),
            "shapes": {f"{b}x{n}": c for (b, n), c in sorted(clock.shapes.items())},
            "real_tokens": clock.real_tokens,
            "by_model": {
                role: {
                    "backend": model.backend,
                    "real_tokens": clock.model_tokens[role],
                    "shapes": {f"{b}x{n}": c for (b, n), c in sorted(clock.by_model[role].items())},
                }
                for model, role in zip(models, roles, strict=False)
            },
            "chunks": pipe.index.count(),
        }, models[: len(roles)]


def bare_forward(
    model: Any, shapes: list[tuple[int, int]], seconds: float = SHAPE_SECONDS
) -> dict[tuple[int, int], float]:
    """Real tokens per second of ``model.forward`` at each (batch, length), all real
    (timed for at least ``seconds`` and two passes)."""
    rates = {}
    rng = np.random.default_rng(0)
    for b, n in shapes:
        ids = rng.integers(1000, 20000, (b, n))
        mask = np.ones_like(ids)
        model.forward(ids, mask)  # a new shape compiles or plans once
        done, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds or done < 2 * b * n:
            model.forward(ids, mask)
            done += b * n
        rates[(b, n)] = done / (time.perf_counter() - t0)
    return rates


def run(
    name: str, files: int, backend: str, profile: str, work: Path, windows: str | None = None
) -> dict[str, Any]:
    from lateseg.encode.late import LateEncoder

    paths = corpus(name, files, work / "corpus")
    tokens = sum(len(LateEncoder().tokenize(p.read_text("utf-8", errors="replace"))) for p in paths)
    row, models = account(work / "corpus", backend, work, profile, windows)
    grid = [(b, n) for b in BATCHES for n in LENGTHS if b * n <= 16384]
    print(f"[{name} {backend} {profile}] bare forward over {len(grid)} shapes", flush=True)
    rates = bare_forward(models[0], grid)
    best = max(rates, key=rates.__getitem__)
    # bare seconds of the very batches the ingest ran, each by the model that ran it:
    # slots (padding included) at each shape's bare rate
    shape_seconds = 0.0
    bound_seconds = 0.0
    for model, part in zip(models, row["by_model"].values(), strict=True):
        own = rates if model is models[0] else bare_forward(model, grid)
        ran = {tuple(int(x) for x in k.split("x")): c for k, c in part["shapes"].items()}
        at = {**own, **bare_forward(model, [s for s in ran if s not in own], RAN_SECONDS)}
        part["seconds_bare"] = sum(c * b * n / at[(b, n)] for (b, n), c in ran.items())
        part["best_rate"] = max(own.values())
        shape_seconds += part["seconds_bare"]
        bound_seconds += part["real_tokens"] / part["best_rate"]
    row.update(
        corpus=name,
        document_tokens=tokens,
        tok_per_s=tokens / row["seconds"],
        model_tokens_per_document_token=row["real_tokens"] / tokens,
        bare={f"{b}x{n}": r for (b, n), r in sorted(rates.items())},
        best_shape=f"{best[0]}x{best[1]}",
        best_rate=rates[best],
        bound_seconds=bound_seconds,
        shapes_seconds=shape_seconds,
    )
    row["bound_tok_per_s"] = tokens / row["bound_seconds"]
    row["of_bound"] = row["bound_seconds"] / row["seconds"]
    return row


def length_bound(r: dict[str, Any]) -> float:
    """Seconds the ingest's real tokens need at the best bare rate for their windows'
    length: each batch it ran counted at the best rate of the grid at the grid length
    nearest its own (a late window's length is what gives its tokens their context, so
    it cannot be shortened to the fastest shape); real tokens shared out by slots."""
    slots = {k: c * int(k.split("x")[0]) * int(k.split("x")[1]) for k, c in r["shapes"].items()}
    real_per_slot = r["real_tokens"] / max(sum(slots.values()), 1)
    best = {n: max(v for k, v in r["bare"].items() if int(k.split("x")[1]) == n) for n in LENGTHS}
    return sum(
        v * real_per_slot / best[min(LENGTHS, key=lambda x: abs(x - int(k.split("x")[1])))]
        for k, v in slots.items()
    )


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Ingest accounting: where every second goes (issue 65)",
        "",
        f"Command: `{report['command']}`. Machine: {report['cpu']}.",
        "",
        "Each stage's own seconds (exclusive), so the rows add up to the ingest;"
        " `bench/ingest_accounting.py` says what each stage holds.",
        "",
    ]
    for r in report["rows"]:
        s = r["seconds"]
        lines += [
            f"## {r['corpus']}, {r['backend']} (profile {r['profile']}, windows on "
            f"{r['window_backend']})",
            "",
            f"{r['document_tokens']:,} document tokens, {r['chunks']:,} chunks, "
            f"{s:.1f} s = **{r['tok_per_s']:,.0f} tok/s**; the model read "
            f"{r['model_tokens_per_document_token']:.2f} real tokens per document token.",
            "",
            "| stage | seconds | share |",
            "| --- | ---: | ---: |",
        ]
        for stage, sec in sorted(r["stages"].items(), key=lambda kv: -kv[1]):
            lines.append(f"| {stage} | {sec:.2f} | {sec / s:.0%} |")
        lines += [
            "",
            f"* Bare forward, best shape {r['best_shape']}: {r['best_rate']:,.0f} tok/s. The "
            f"ingest's real tokens at that rate (each model's at its own best, where two "
            f"read): {r['bound_seconds']:.1f} s, a bound of "
            f"{r['bound_tok_per_s']:,.0f} document tok/s; the ingest ran at "
            f"**{r['of_bound']:.0%} of its bound**.",
            f"* Each batch at the best bare rate for its own length (the grid length "
            f"nearest it): {length_bound(r):.1f} s, **{length_bound(r) / s:.0%} of the "
            "ingest**: the bound where windows keep their length.",
            f"* The batches the ingest ran, timed bare at their own shapes (padding "
            f"included): {r['shapes_seconds']:.1f} s, against {r['stages'].get('forward', 0):.1f} s"
            " of forward inside the ingest.",
            *[
                f"* Read by {p['backend']} ({role}): {p['real_tokens']:,} real tokens; its "
                f"batches bare {p['seconds_bare']:.1f} s; its best bare rate "
                f"{p['best_rate']:,.0f} tok/s."
                for role, p in r.get("by_model", {}).items()
                if len(r["by_model"]) > 1
            ],
            "* Shapes run (batch x length: count): "
            + ", ".join(f"{k}: {v}" for k, v in r["shapes"].items()),
            "",
            "Bare forward, real tok/s by shape:",
            "",
            "| batch \\ length | " + " | ".join(str(n) for n in LENGTHS) + " |",
            "| --- |" + " ---: |" * len(LENGTHS),
        ]
        for b in BATCHES:
            cells = [r["bare"].get(f"{b}x{n}") for n in LENGTHS]
            lines.append(
                f"| {b} | " + " | ".join("–" if c is None else f"{c:,.0f}" for c in cells) + " |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["licenses", "stdlib"])
    ap.add_argument("--files", type=int, default=200, help="stdlib files (200, as throughput.py)")
    ap.add_argument("--backends", nargs="+", default=None, help="default: the CPU's default")
    ap.add_argument("--profiles", nargs="+", default=["accurate"])
    ap.add_argument(
        "--window-backends",
        nargs="+",
        default=[None],
        help="the late windows' backends to account, each a run (default: the profile's)",
    )
    ap.add_argument("--out", default="ingest_accounting")
    ap.add_argument("--render", type=Path, help="only write the Markdown of this JSON report")
    args = ap.parse_args(argv)
    os.environ["LATESEG_STREAMS"] = "1"  # one batch at a time: see the docstring
    if args.render:
        text = markdown(json.loads(args.render.read_text()))
        (OUT / f"{args.out}.md").write_text(text)
        print(text)
        return 0
    from lateseg.encode.backends import default_backend

    backends = args.backends or [default_backend("cpu")]
    rows = []
    for name in args.sets:
        for backend in backends:
            for profile in args.profiles:
                for windows in args.window_backends:
                    with tempfile.TemporaryDirectory(prefix="lateseg-accounting-") as tmp:
                        row = run(name, args.files, backend, profile, Path(tmp), windows)
                    print(json.dumps({k: v for k, v in row.items() if k != "bare"}), flush=True)
                    rows.append(row)
    report = {
        "command": " ".join(["python bench/ingest_accounting.py", *(argv or sys.argv[1:])]),
        "cpu": cpu(),
        "rows": rows,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.out}.json").write_text(json.dumps(report, indent=1) + "\n")
    text = markdown(report)
    (OUT / f"{args.out}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
