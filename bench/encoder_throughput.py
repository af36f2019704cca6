"""Encoder throughput: document tokens per second through lateseg's late encoder.

Three numbers per device and token budget (tokens per forward batch, padding included):

* ``library``: ``LateEncoder.encode_document`` over every document of the corpus, one
  document at a time: tokenization, window planning, the forward passes and the copy
  back to NumPy;
* ``batched``: ``LateEncoder.encode_documents`` over rounds of documents, as ``lateseg
  ingest`` runs it now (``lateseg.scale.engines.LocalEngine``): the windows of a round's
  documents share batches of up to the budget;
* ``forward``: the model alone on full batches of windows of the same size (the ceiling).

On CUDA the model runs in bf16 (the encoder's default there); the token vectors of a few
documents are compared with the fp32 CPU ones (cosine). The numbers feed the scaling
estimate in ``bench/results/scale.md``.

    python bench/encoder_throughput.py --device cuda --batch-tokens 4096 65536 262144

(the GPU check of issue 16; not run in the session that added ``batched``: its task had
no GPU). On 2 CPU cores ``batched`` and ``library`` are within noise of each other:
MiniLM's CPU throughput is flat past about 16 windows a batch.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

SUFFIXES = {".py", ".md", ".txt", ".rst", ".toml"}


def corpus(roots: list[Path], max_tokens: int, encoder: Any) -> list[str]:
    texts, total = [], 0
    for root in roots:
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for f in files:
            if f.suffix not in SUFFIXES or not f.is_file() or ".venv" in f.parts:
                continue
            text = f.read_text("utf-8", errors="replace")
            if len(text) < 200:
                continue
            texts.append(text)
            total += len(encoder.tokenize(text))
            if total >= max_tokens:
                return texts
    return texts


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def library(
    model: str | None, device: str, budget: int, texts: list[str], *, together: bool
) -> dict[str, Any]:
    from lateseg.encode.config import EncoderConfig
    from lateseg.encode.late import LateEncoder
    from lateseg.scale.engines import CHARS_PER_TOKEN, ROUND_BATCHES

    enc = LateEncoder(
        EncoderConfig(model=model or EncoderConfig.model, device=device, batch_tokens=budget)
    )
    enc.encode_document(texts[0][::-1])  # load and warm up (not texts[0]: it would be
    # kept, lateseg.encode.reuse, and not read again inside the timing)
    _sync(device)
    t0 = time.perf_counter()
    if together:
        tokens, pending, size = 0, [], 0
        limit = ROUND_BATCHES * CHARS_PER_TOKEN * budget
        for t in [*texts, None]:
            if t is not None:
                pending.append((t, False))
                size += len(t)
            if pending and (t is None or size >= limit):
                tokens += sum(len(e) for e in enc.encode_documents(pending))
                pending, size = [], 0
    else:
        tokens = sum(len(enc.encode_document(t)) for t in texts)
    _sync(device)
    dt = time.perf_counter() - t0
    return {"tokens": tokens, "seconds": round(dt, 3), "tokens_per_s": round(tokens / dt)}


def forward(model: str | None, device: str, budget: int, window: int, reps: int) -> dict[str, Any]:
    import numpy as np

    from lateseg.encode.config import EncoderConfig
    from lateseg.encode.late import LateEncoder

    enc = LateEncoder(EncoderConfig(model=model or EncoderConfig.model, device=device))
    model = enc.embedder
    batch = max(1, budget // (window + 2))
    ids = np.random.default_rng(0).integers(1000, 20000, (batch, window + 2))
    mask = np.ones_like(ids)
    for _ in range(2):
        model.forward(ids, mask)
    t0 = time.perf_counter()
    for _ in range(reps):
        model.forward(ids, mask)  # host copy included, as the library needs it
    dt = time.perf_counter() - t0
    tokens = reps * batch * window
    return {"tokens": tokens, "seconds": round(dt, 3), "tokens_per_s": round(tokens / dt)}


def agreement(model: str | None, device: str, texts: list[str]) -> dict[str, float]:
    from lateseg.encode.config import EncoderConfig
    from lateseg.encode.late import LateEncoder

    ref = LateEncoder(EncoderConfig(model=model or EncoderConfig.model, device="cpu"))
    dev = LateEncoder(EncoderConfig(model=model or EncoderConfig.model, device=device))
    cos = []
    for t in texts:
        a, b = ref.encode_document(t).vectors, dev.encode_document(t).vectors
        na = a / np.linalg.norm(a, axis=1, keepdims=True)
        nb = b / np.linalg.norm(b, axis=1, keepdims=True)
        cos.append((na * nb).sum(1))
    c = np.concatenate(cos)
    return {"tokens": int(c.size), "cosine_mean": float(c.mean()), "cosine_min": float(c.min())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--model", default=None, help="embedder name or folder (default: lateseg's)")
    ap.add_argument(
        "--batch-tokens", type=int, nargs="+", default=[4096], help="tokens per forward batch"
    )
    ap.add_argument("--corpus", type=Path, nargs="+", default=[Path("lateseg"), Path("README.md")])
    ap.add_argument("--max-tokens", type=int, default=200_000)
    ap.add_argument("--forward-reps", type=int, default=20)
    ap.add_argument("--out", type=Path, default=Path("bench/results/encoder_throughput.json"))
    args = ap.parse_args()

    from lateseg.encode.config import EncoderConfig
    from lateseg.encode.late import LateEncoder

    probe = LateEncoder(EncoderConfig(model=args.model or EncoderConfig.model, device="cpu"))
    texts = corpus(args.corpus, args.max_tokens, probe)
    window = probe.window or 128
    result: dict[str, Any] = {
        "device": args.device,
        "host": platform.node(),
        "documents": len(texts),
        "window": window,
        "runs": [],
    }
    if args.device.startswith("cuda"):
        import torch

        result["gpu"] = torch.cuda.get_device_name(0)
        result["agreement_bf16_vs_cpu_fp32"] = agreement(args.model, args.device, texts[:3])
        print("agreement", result["agreement_bf16_vs_cpu_fp32"], flush=True)
    for b in args.batch_tokens:
        row = {
            "batch_tokens": b,
            "library": library(args.model, args.device, b, texts, together=False),
            "batched": library(args.model, args.device, b, texts, together=True),
            "forward": forward(args.model, args.device, b, window, args.forward_reps),
        }
        result["runs"].append(row)
        print(json.dumps(row), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
