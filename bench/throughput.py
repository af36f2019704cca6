"""Ingest throughput, side by side in one run: document tokens per second.

Rows, each over the same corpus, model loading (and a backend's one-time export)
excluded, every other cost included:

* ``forward alone``: the embedding model's forward pass on full batches of 130-token
  windows (CPU budget), on torch and on OpenVINO at fp32: the ceilings;
* ``RCTS-500 + naive``: LangChain's RecursiveCharacterTextSplitter (500 characters, no
  overlap) over the read files, then ``SentenceTransformer.encode`` of the chunks
  (batch 32): the pipeline users would pick instead;
* ``lateseg encode stage``: late + dynamic encoding of the parsed documents
  (``encode_documents``: windows, forward, segmentation, pooling, the naive part), with
  the model tokens it reads per document token, its padding share, and the bound those
  passes put on any fp32 encode: the fp32 forward's rate divided by them;
* ``lateseg ingest (BACKEND)``: ``Pipeline.ingest`` into a new index (parse in worker
  processes, encode, segment, write SQLite and FAISS), with the share of its time
  outside the model's forward passes, once per backend and ingest
  profile (``--profiles``: ``accurate``, the default, and ``fast``,
  :mod:`lateseg.encode.profiles`); the row of the CPU default (``openvino-bf16`` where
  the CPU has bf16, else ``openvino``) says so. ``--backends openvino`` measures what a
  CPU without bf16 runs (fp32) on any CPU.

Tokens are the corpus's document tokens (MiniLM tokenizer, no special tokens), the same
numerator for every row, so the ratios compare the pipelines' costs for the same text.
Corpora: ``licenses`` (``/usr/share/common-licenses``) and ``stdlib`` (``--files`` Python
standard-library files of 1-12 KB at evenly spaced positions of the sorted list, tests
excluded: about 250k tokens; larger files make the run long without changing the ratios).

    python bench/throughput.py                                   # both corpora, all rows
    python bench/throughput.py --sets licenses --backends openvino torch
    python bench/throughput.py --sets licenses --repeats 3   # medians, with the spread

Writes ``bench/results/throughput.{md,json}`` (``--out STEM``: ``STEM.{md,json}``).
Compare ratios measured in one run; the absolute figures move with the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cold_start import cpu
from retrieval import timed

OUT = Path(__file__).resolve().parent / "results"
LICENSES = Path("/usr/share/common-licenses")
BACKENDS_DEFAULT = ("openvino", "torch", "openvino-bf16", "onnx", "onnx-int8")


def stdlib_files(count: int) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(
        p
        for p in root.rglob("*.py")
        if not ({"test", "tests", "idlelib", "site-packages", "lib2to3"} & set(p.parts))
        and 1_000 <= p.stat().st_size <= 12_000
    )
    step = max(1, len(files) // count)
    return files[::step][:count]


def corpus(name: str, files: int, into: Path) -> list[Path]:
    """Copies of the corpus's files under ``into`` (ingest walks a folder of them)."""
    if name == "licenses":
        chosen = sorted(p for p in LICENSES.iterdir() if p.is_file())
        base = LICENSES
    else:
        chosen = stdlib_files(files)
        base = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for p in chosen:
        dest = into / p.relative_to(base)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dest)
        out.append(dest)
    return out


WINDOW = 128  # document tokens per window of the forward-alone rows


def forward_alone(
    texts_tokens: int, backend: str, budget: int = 4096, window: int = WINDOW
) -> float:
    """Seconds the bare forward pass needs for ``texts_tokens`` tokens, from a timed run of
    full batches (at least 3 s)."""
    import numpy as np

    from lateseg.encode.config import EncoderConfig
    from lateseg.encode.late import LateEncoder

    enc = LateEncoder(EncoderConfig(backend=backend))
    model = enc.embedder
    batch = max(1, budget // (window + 2))
    ids = np.random.default_rng(0).integers(1000, 20000, (batch, window + 2))
    mask = np.ones_like(ids)
    model.forward(ids, mask)
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 3.0 or done == 0:
        model.forward(ids, mask)
        done += batch * window
    rate = done / (time.perf_counter() - t0)
    return texts_tokens / rate


def peer(texts: list[str]) -> float:
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from sentence_transformers import SentenceTransformer

    from lateseg.encode.models import resolve_embedder

    st = SentenceTransformer(resolve_embedder(None), device="cpu")
    st.encode(["warm up"])
    splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0)

    def run() -> Any:
        chunks = [c for t in texts for c in splitter.split_text(t)]
        return st.encode(chunks, batch_size=32)

    return timed(run)[1]


@contextlib.contextmanager
def wrapped_forward(models: Iterable[Any], wrap: Callable[[Any], Any]) -> Iterator[None]:
    """Inside the block, each of ``models`` (loaded embedders; each once) runs
    ``wrap(its forward)`` instead of its forward pass, and so does the graph that runs its
    batches side by side where it has one (``lateseg.encode.streams``; decided, and
    measured if need be, here, before any timing): the loaded models are shared in this
    process, so their own passes are put back after. ``wrap`` may then be called from
    several threads at once."""
    held = []
    for m in {id(m): m for m in models}.values():
        held.append(m)
        if m.streams() is not None:
            held.append(m.streams())
    inners = [m.forward for m in held]
    for m, inner in zip(held, inners, strict=True):
        m.forward = wrap(inner)
    try:
        yield
    finally:
        for m, inner in zip(held, inners, strict=True):
            m.forward = inner


def encode_stage(paths: list[Path]) -> tuple[float, dict[str, int]]:
    """Seconds of the default encode stage, and what its forward passes held: sequences,
    slots (padding included) and real tokens (counted as they run; a few array sums per
    batch)."""
    from lateseg.encode.late import LateEncoder
    from lateseg.ingest import load_document
    from lateseg.scale.engines import encode_documents
    from lateseg.segment import DynamicChunker

    docs = [load_document(p) for p in paths]
    enc, chunker = LateEncoder(), DynamicChunker()
    enc.embed_queries(["warm up"])
    seen = {"calls": 0, "sequences": 0, "slots": 0, "real": 0}
    lock = threading.Lock()  # passes may run side by side

    def counting(inner: Any) -> Any:
        def forward(ids: Any, mask: Any) -> Any:
            with lock:
                seen["calls"] += 1
                seen["sequences"] += int(ids.shape[0])
                seen["slots"] += int(ids.size)
                seen["real"] += int(mask.sum())
            return inner(ids, mask)

        return forward

    with wrapped_forward([enc.window_embedder, enc.embedder], counting):
        seconds = timed(lambda: encode_documents(enc, chunker, docs))[1]
    return seconds, seen


def ingest(
    folder: Path, backend: str, work: Path, profile: str = "accurate"
) -> tuple[float, int, float]:
    """Seconds of ``Pipeline.ingest`` into a new index, its chunks, and the seconds of
    that spent in the model's forward passes (late windows and naive halves alike)."""
    from lateseg.pipeline import Pipeline

    index = work / f"index-{backend}-{profile}"
    shutil.rmtree(index, ignore_errors=True)  # a new index each time: nothing unchanged
    with Pipeline.open(index, backend=backend, profile=profile) as pipe:
        # load (and export) outside the timing: the queries' path alone does not load the
        # documents' model (it runs torch-free where it can), so both are loaded here
        pipe.encoder.embed_queries(["warm up"])
        inside = [0.0]
        running = [0, 0.0]  # forward passes running now (side by side), since when
        lock = threading.Lock()

        def clocked(inner: Any) -> Any:
            # the wall time while at least one forward pass runs
            def forward(ids: Any, mask: Any) -> Any:
                with lock:
                    if running[0] == 0:
                        running[1] = time.perf_counter()
                    running[0] += 1
                try:
                    return inner(ids, mask)
                finally:
                    with lock:
                        running[0] -= 1
                        if running[0] == 0:
                            inside[0] += time.perf_counter() - running[1]

            return forward

        # the late windows' model, and the model of the texts embedded alone where it
        # is another (a profile's window_backend)
        with wrapped_forward([pipe.encoder.window_embedder, pipe.encoder.embedder], clocked):
            report, seconds = timed(lambda: pipe.ingest([folder], progress=False))
        assert not report.failed, report.failed
        return seconds, pipe.index.count(), inside[0]


@contextlib.contextmanager
def nothing_reused() -> Iterator[None]:
    """The encoder as it was before :mod:`lateseg.encode.reuse`: every text read
    however often it recurs (no key ever matches; short texts embedded as given)."""
    import numpy as np

    import lateseg.encode.late as late

    def each_once(texts: Any, embed: Any, dim: int, keep: Any = None, prompt: str = "") -> Any:
        return embed(list(texts)) if texts else np.zeros((0, dim), np.float32)

    saved = late.digest, late.each_once
    late.digest, late.each_once = (lambda *parts: os.urandom(20)), each_once  # type: ignore[assignment]
    try:
        yield
    finally:
        late.digest, late.each_once = saved


def run_set(
    name: str,
    files: int,
    backends: list[str],
    repeats: int = 1,
    profiles: tuple[str, ...] = ("accurate",),
    unreused: bool = False,
) -> dict[str, Any]:
    """Every row ``repeats`` times, interleaved round by round (drift on a shared machine
    hits every row alike); each row's seconds are the median of its runs."""
    import statistics

    from lateseg.encode.backends import default_backend
    from lateseg.encode.late import LateEncoder
    from lateseg.encode.profiles import PROFILES

    with tempfile.TemporaryDirectory(prefix="lateseg-throughput-") as tmp:
        work = Path(tmp)
        paths = corpus(name, files, work / "corpus")
        texts = [p.read_text("utf-8", errors="replace") for p in paths]
        enc = LateEncoder()
        tokens = sum(len(enc.tokenize(t)) for t in texts)
        print(f"[{name}] {len(paths)} files, {tokens:,} tokens", flush=True)
        rows: dict[str, dict[str, Any]] = {}

        def add(system: str, seconds: float, **extra: Any) -> None:
            row = rows.setdefault(system, {"system": system, "runs": [], **extra})
            row["runs"].append(round(seconds, 2))
            print(f"  {system}: {seconds:.1f} s = {tokens / seconds:,.0f} tok/s", flush=True)

        for round_ in range(repeats):
            if repeats > 1:
                print(f" round {round_ + 1} of {repeats}", flush=True)
            add("forward alone (torch, 128-token windows)", forward_alone(tokens, "torch"))
            add("RCTS-500 + naive (sentence-transformers, batch 32)", peer(texts))
            add("forward alone (openvino, fp32)", forward_alone(tokens, "openvino"))
            seconds, seen = encode_stage(paths)
            # Real tokens include each sequence's [CLS] and [SEP]; the document's own
            # tokens are ``tokens``.
            add(
                "lateseg encode stage (default)",
                seconds,
                forward_calls=seen["calls"],
                sequences=seen["sequences"],
                model_tokens_per_doc_token=round(seen["real"] / tokens, 2),
                slots_per_doc_token=round(seen["slots"] / tokens, 2),
                padding_share=round(1 - seen["real"] / max(seen["slots"], 1), 3),
            )
            for backend in backends:
                for profile in profiles:
                    # a profile that runs a backend of its own (its precision) runs it
                    run = PROFILES[profile]["backend"] or backend
                    seconds, chunks, inside = ingest(work / "corpus", run, work, profile)
                    label = f"default: {run}" if run == default_backend("cpu") else run
                    if profile != "accurate":
                        label += f", --profile {profile}"
                    add(f"lateseg ingest ({label})", seconds, chunks=chunks)
                    rows[f"lateseg ingest ({label})"].setdefault("outside_runs", []).append(
                        round(1 - inside / seconds, 3)
                    )
                    if unreused:  # the same ingest with nothing reused, side by side
                        with nothing_reused():
                            seconds, chunks, _ = ingest(work / "corpus", run, work, profile)
                        add(f"lateseg ingest ({label}, nothing reused)", seconds, chunks=chunks)
    out = list(rows.values())
    for r in out:
        r["seconds"] = round(statistics.median(r["runs"]), 2)
        if "outside_runs" in r:  # the share of the ingest outside the forward passes
            r["outside_forward"] = round(statistics.median(r["outside_runs"]), 3)
    # The bound: the fp32 forward's model tokens per second (its windows carry two
    # special tokens each) over the model tokens the encode reads per document token.
    fp32_model_rate = tokens / out[2]["seconds"] * (WINDOW + 2) / WINDOW
    bound = fp32_model_rate / (out[3]["model_tokens_per_doc_token"])
    out[3]["fp32_bound_tokens_per_s"] = round(bound)
    out[3]["fp32_bound_vs_peer"] = round(bound * out[1]["seconds"] / tokens, 2)
    peer_s = out[1]["seconds"]
    forward_s, default_s = out[0]["seconds"], out[2]["seconds"]
    for r in out:
        r["tokens_per_s"] = round(tokens / r["seconds"])
        r["vs_peer"] = round(peer_s / r["seconds"], 2)
        r["vs_forward"] = round(forward_s / r["seconds"], 2)
        r["vs_default_forward"] = round(default_s / r["seconds"], 2)
        # each run against the peer's run of the same round
        pairs = zip(out[1]["runs"], r["runs"], strict=True)
        r["vs_peer_runs"] = [round(p / x, 2) for p, x in pairs]
    return {"files": len(paths), "tokens": tokens, "repeats": repeats, "rows": out}


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Ingest throughput",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}. Model all-MiniLM-L6-v2 for every row; model "
        "loading and exports excluded. tok/s = the corpus's document tokens / seconds; "
        "`vs ...` are throughput ratios against the RCTS-500 + naive row and the bare "
        "forward passes, measured in the same run.",
    ]
    for name, res in report["sets"].items():
        lines += [
            "",
            f"## {name}: {res['files']} files, {res['tokens']:,} tokens",
            "",
            "| system | chunks | seconds | tok/s | vs peer | vs torch forward "
            "| vs openvino forward |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in res["rows"]:
            runs = r.get("vs_peer_runs", [])
            spread = f" ({min(runs):.2f}-{max(runs):.2f})" if len(runs) > 1 else ""
            lines.append(
                f"| {r['system']} | {r.get('chunks', '')} | {r['seconds']:.1f} | "
                f"{r['tokens_per_s']:,} | {r['vs_peer']:.2f}x{spread} | {r['vs_forward']:.2f}x | "
                f"{r['vs_default_forward']:.2f}x |"
            )
        if res.get("repeats", 1) > 1:
            lines += [
                "",
                f"Each row ran {res['repeats']} times, round by round; seconds are the "
                "median, and `vs peer` gives in brackets the lowest and highest ratio of a "
                "run to the peer's run of the same round.",
            ]
        outside = [r for r in res["rows"] if "outside_forward" in r]
        if outside:
            shares = "; ".join(
                f"{r['system'].removeprefix('lateseg ingest ')} {100 * r['outside_forward']:.0f}%"
                for r in outside
            )
            lines += [
                "",
                f"Share of each ingest outside the model's forward passes (parsing, "
                f"tokenizing, segmentation, pooling, writing; median): {shares}.",
            ]
        stage = [r for r in res["rows"] if "padding_share" in r]
        if stage:
            r = stage[0]
            lines += [
                "",
                f"Encode stage: {r['forward_calls']:,} forward calls, {r['sequences']:,} "
                f"sequences; {r['model_tokens_per_doc_token']:.2f} model tokens per document "
                f"token ({r['slots_per_doc_token']:.2f} with padding); padding share "
                f"{100 * r['padding_share']:.1f}%.",
                "",
                "Bound at fp32: at the fp32 forward's speed (the row above), reading "
                f"{r['model_tokens_per_doc_token']:.2f} model tokens per document token, no "
                f"fp32 encode can pass {r['fp32_bound_tokens_per_s']:,} tok/s = "
                f"{r['fp32_bound_vs_peer']:.2f}x the peer, before parsing, segmentation, "
                "pooling and writing (CPUs without bf16 run the default at fp32).",
            ]
    return "\n".join(lines) + "\n"


def main() -> None:
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", choices=("licenses", "stdlib"), default=None)
    ap.add_argument("--files", type=int, default=200, help="standard-library files (200)")
    ap.add_argument("--backends", nargs="+", choices=BACKENDS_DEFAULT, default=None)
    ap.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="run every row this many times, round by round, and report the median (1)",
    )
    ap.add_argument(
        "--profiles",
        nargs="+",
        choices=("accurate", "fast"),
        default=["accurate", "fast"],
        help="ingest profiles (lateseg.encode.profiles) of the ingest rows, each with "
        "every backend (default: both)",
    )
    ap.add_argument(
        "--nothing-reused",
        action="store_true",
        help="also each ingest row with lateseg.encode.reuse turned off (texts that recur "
        "read again), interleaved with it",
    )
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument(
        "--out", default="throughput", help="results file stem under bench/results (throughput)"
    )
    args = ap.parse_args()
    sets = args.sets or ["licenses", "stdlib"]
    backends = args.backends or list(BACKENDS_DEFAULT)
    report: dict[str, Any] = {
        "command": "python bench/throughput.py " + " ".join(sys.argv[1:]),
        "machine": cpu(),  # model, CPUs and the flags that decide the class of machine
        "sets": {
            name: run_set(
                name, args.files, backends, args.repeats, tuple(args.profiles), args.nothing_reused
            )
            for name in sets
        },
    }
    if not args.no_write:
        OUT.mkdir(exist_ok=True)
        (OUT / f"{args.out}.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
        (OUT / f"{args.out}.md").write_text(markdown(report), "utf-8")
    print(markdown(report))


if __name__ == "__main__":
    main()
