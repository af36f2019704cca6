"""The sweep that chooses the ``fast`` ingest profile (issue 47): recall of every
combination of the measured levers against the best peer, on every set.

Levers (each a field of ``EncoderConfig`` or the backend):

* the encoder's pass: backend ``openvino`` (fp32) or ``onnx-int8``; prose window;
  overlap of adjacent windows (code keeps its full-length windows); the backend of the
  texts embedded alone (the chunks' naive halves and the queries), where it differs;
* the mix, on the same token embeddings: prose ``late_weight`` 0.5 (a naive half) or 1.0
  (pure late), code ``code_late_weight`` 0.25 or 1.0; code's unit fields stay on.

Each encoder setting encodes every corpus once (queries embedded by the same backend, as
an index of that precision would), the dynamic chunker cuts its token embeddings, and
each mix is scored with ``bench/retrieval.py``'s metrics. The bar is the better of
LangChain's recursive splitters (500/0, 1000/200; naive vectors, fp32), the best peers
on every set of ``retrieval.md``: taken from ``retrieval.json`` where it has them (fp32
vectors are the same on every x86 CPU to 1e-6), else scored here (``--run-peers``:
always). ``passes`` is model tokens
read per document token (late windows with their special tokens, plus the chunks
embedded alone), the cost the profile trades.

    python bench/profile_sweep.py                       # every set, every setting
    python bench/profile_sweep.py --sets sample_qa licenses --settings fp32-128-32

Writes ``bench/results/profile_sweep.{json,md}`` (``--out STEM``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.encode.config import EncoderConfig
from lateseg.encode.fields import chunk_fields
from lateseg.encode.late import LateEncoder
from lateseg.segment import DynamicChunker

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cold_start import cpu
from retrieval import (
    OUT,
    SETS,
    Chunked,
    available_sets,
    evaluate,
    langchain_recursive,
    log,
    text_system,
)
from throughput import wrapped_forward

#: name -> (backend, prose window, overlap[, backend of the texts embedded alone: the
#: chunks' naive halves, their unit fields and the queries])
SETTINGS: dict[str, tuple[Any, ...]] = {
    "fp32-128-32": ("openvino", 128, 32),
    "fp32-128-16": ("openvino", 128, 16),
    "fp32-128-24": ("openvino", 128, 24),
    "int8-128-32": ("onnx-int8", 128, 32),
    "int8-128-16": ("onnx-int8", 128, 16),
    "fp32-192-32": ("openvino", 192, 32),
    "int8-128-32, alone fp32": ("onnx-int8", 128, 32, "openvino"),
    "fp32-128-32, alone int8": ("openvino", 128, 32, "onnx-int8"),
}
#: name -> (late_weight, code_late_weight)
MIXES: dict[str, tuple[float, float]] = {
    "naive half (today)": (0.5, 0.25),
    "code pure late": (0.5, 1.0),
    "prose pure late": (1.0, 0.25),
    "pure late": (1.0, 1.0),
}
PEERS = ("LangChain recursive 500/0", "LangChain recursive 1000/200")
BUDGET = "recall@2000"


def encode_corpus(enc: LateEncoder, docs: list[Any]) -> tuple[list[Any], list[Any], int]:
    """Token embeddings and dynamic chunks of every document, and the real tokens the
    forward passes read."""
    seen = [0]
    lock = threading.Lock()  # passes may run side by side

    def counting(inner: Any) -> Any:
        def forward(ids: Any, mask: Any) -> Any:
            with lock:
                seen[0] += int(mask.sum())
            return inner(ids, mask)

        return forward

    with wrapped_forward([enc.window_embedder], counting):
        tokens = enc.encode_documents([(d.text, d.kind == "code") for d in docs])
    chunker = DynamicChunker()
    chunks = [chunker.chunk(d, t) for d, t in zip(docs, tokens, strict=True)]
    return tokens, chunks, seen[0]


def mixed(
    enc: LateEncoder,
    docs: list[Any],
    tokens: list[Any],
    chunks: list[Any],
    mix: tuple[float, float],
    memo: dict[str, np.ndarray],
    alone: LateEncoder | None = None,
) -> tuple[Chunked, int]:
    """The chunk vectors of one mix, and the document tokens embedded a second time
    (texts embedded alone, by ``alone`` where given, else by ``enc``, are kept in
    ``memo``: the mixes of one setting share them)."""
    cfg = dataclasses.replace(enc.config, late_weight=mix[0], code_late_weight=mix[1])
    mixer = LateEncoder(cfg)  # the same loaded model (shared per setting)

    def embed_texts(texts: Any) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in memo]
        if new:
            memo.update(zip(new, (alone or enc).embed_texts(new), strict=True))
        return np.stack([memo[t] for t in texts])

    mixer.embed_texts = embed_texts  # type: ignore[method-assign]
    items, fields, doc_ix, spans = [], [], [], []
    again = 0
    for i, (d, t, cs) in enumerate(zip(docs, tokens, chunks, strict=True)):
        if not cs:
            continue
        s = [(c.start, c.end) for c in cs]
        code = d.kind == "code"
        items.append((d.text, t, s, code))
        fields.append(chunk_fields(d, cs))
        doc_ix += [i] * len(s)
        spans += s
        if (mix[1] if code else mix[0]) < 1.0:
            again += sum(j - k for k, j in (t.token_range(a, b) for a, b in s))
    vecs = np.vstack(mixer.chunk_vectors_many(items, fields))
    arr = np.asarray(spans, dtype=np.int64)
    return Chunked(np.asarray(doc_ix), arr[:, 0], arr[:, 1], vecs, 0.0), again


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--mixes", nargs="+", default=list(MIXES), choices=list(MIXES))
    ap.add_argument(
        "--run-peers",
        action="store_true",
        help="score the peers here even for sets whose rows retrieval.json has",
    )
    ap.add_argument("--out", default="profile_sweep")
    args = ap.parse_args()
    report: dict[str, Any] = {
        "command": "python bench/profile_sweep.py " + shlex.join(sys.argv[1:]),
        "machine": cpu(),
        "sets": {},
    }
    sets = dict(available_sets(args.sets))
    fp32 = LateEncoder(EncoderConfig(backend="openvino"))
    results = OUT / "retrieval.json"
    stored = json.loads(results.read_text("utf-8"))["sets"] if results.is_file() else {}
    for name, es in sets.items():
        doc_tokens = sum(len(fp32.tokenize(d.text)) for d in es.docs)
        q32 = fp32.embed_queries([q.question for q in es.queries])
        rows: dict[str, Any] = {}
        known = stored.get(name, {}).get("systems", {})
        for peer in PEERS:
            if peer in known and not args.run_peers:  # fp32 vectors: the same on any x86 CPU
                rows[peer] = {"summary": known[peer]["summary"], "from": "retrieval.json"}
                continue
            size, overlap = (500, 0) if "500" in peer else (1000, 200)
            run = text_system(fp32, langchain_recursive(size, overlap))
            rows[peer] = {"summary": evaluate(run(es.docs), q32, es, doc_tokens)["summary"]}
        report["sets"][name] = {"tokens": doc_tokens, "queries": len(es.queries), "rows": rows}
        log(f"[{name}] peers done")
    encoders: dict[str, LateEncoder] = {}
    for name, es in sets.items():  # small sets first: every setting, then the next set
        res = report["sets"][name]
        for setting in args.settings:
            backend, window, overlap, *rest = SETTINGS[setting]
            if setting not in encoders:
                cfg = EncoderConfig(backend=backend, window=window, overlap=overlap)
                encoders[setting] = LateEncoder(cfg)
            enc = encoders[setting]
            alone = LateEncoder(EncoderConfig(backend=rest[0])) if rest else None
            t0 = time.perf_counter()
            qvecs = (alone or enc).embed_queries([q.question for q in es.queries])
            tokens, chunks, late = encode_corpus(enc, es.docs)
            memo: dict[str, np.ndarray] = {}
            for mix_name in args.mixes:
                ch, again = mixed(enc, es.docs, tokens, chunks, MIXES[mix_name], memo, alone)
                summary = evaluate(ch, qvecs, es, res["tokens"])["summary"]
                res["rows"][f"{setting}, {mix_name}"] = {
                    "setting": setting,
                    "mix": mix_name,
                    "passes": round((late + again) / res["tokens"], 2),
                    "summary": summary,
                }
            log(f"[{name}] {setting}: {time.perf_counter() - t0:.0f} s")
            write(report, args.out)  # partial results survive an interrupted sweep
    write(report, args.out)
    print(markdown(report))


def write(report: dict[str, Any], stem: str) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    (OUT / f"{stem}.md").write_text(markdown(report), "utf-8")


def markdown(report: dict[str, Any]) -> str:
    names = list(report["sets"])
    lines = [
        "# The fast profile's sweep (issue 47)",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}. Recall@1000 / recall@2000 per set; `passes`: model "
        "tokens read per document token on each set; a cell in bold is below the best "
        "peer's recall@2000 (the `bar` row).",
        "",
        "| row | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    bar = {n: max(report["sets"][n]["rows"][p]["summary"][BUDGET] for p in PEERS) for n in names}
    lines.append("| bar: best peer at 2,000 | " + " | ".join(f"{bar[n]:.3f}" for n in names) + " |")
    keys = [k for n in names for k in report["sets"][n]["rows"]]
    for key in dict.fromkeys(keys):
        cells = []
        for n in names:
            row = report["sets"][n]["rows"].get(key)
            if row is None:
                cells.append("")
                continue
            s = row["summary"]
            at2k = f"{s[BUDGET]:.3f}"
            if key not in PEERS and s[BUDGET] < bar[n]:
                at2k = f"**{at2k}**"
            passes = f" ({row['passes']:.2f})" if "passes" in row else ""
            cells.append(f"{s['recall@1000']:.3f} / {at2k}{passes}")
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
