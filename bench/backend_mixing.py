"""Do the float backends rank an index alike when it is built with one and searched with
the other? An index of the licence texts and the sample contracts is built with
``openvino`` (fp32) and with ``openvino-bf16``; each is searched with both, for the 110
questions of ``licenses_qa``, ``sample_qa`` and ``contracts_qa`` (k = 5), and the rankings
are compared with those of the index's own backend.

    python bench/backend_mixing.py        # about 4 minutes on 2 CPUs

Writes ``bench/results/backend_mixing.json``. Only meaningful on a CPU with bf16 (else
``openvino-bf16`` runs at fp32 and every ranking agrees trivially).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("openvino", "openvino-bf16")


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from cold_start import cpu

    from lateseg.encode.config import EncoderConfig
    from lateseg.pipeline import Pipeline

    questions = []
    for name in ("licenses_qa.jsonl", "sample_qa.jsonl", "contracts_qa.jsonl"):
        lines = (ROOT / "data" / "eval" / name).read_text().splitlines()
        questions += [json.loads(line)["question"] for line in lines if line.strip()]
    out: dict[str, object] = {"machine": cpu(), "questions": len(questions)}
    with tempfile.TemporaryDirectory(prefix="lateseg-mixing-") as tmp:
        docs = Path(tmp) / "docs"
        shutil.copytree("/usr/share/common-licenses", docs / "licenses")
        shutil.copytree(ROOT / "data" / "contracts", docs / "contracts")
        for built in BACKENDS:
            index = Path(tmp) / f"index-{built}"
            with Pipeline.open(index, embedder=EncoderConfig(backend=built)) as pipe:
                pipe.ingest([docs], progress=False)
            ranked = {}
            for backend in BACKENDS:
                with Pipeline.open(index, backend=backend, readonly=True) as pipe:
                    ranked[backend] = [[h.chunk_id for h in pipe.search(q, k=5)] for q in questions]
            own = ranked[built]
            other = ranked[BACKENDS[1 - BACKENDS.index(built)]]
            pairs = list(zip(own, other, strict=True))
            out[f"built with {built}"] = {
                "top1_same": sum(a[0] == b[0] for a, b in pairs),
                "top5_set_same": sum(set(a) == set(b) for a, b in pairs),
                "top5_order_same": sum(a == b for a, b in pairs),
            }
            print(built, out[f"built with {built}"], flush=True)
    path = ROOT / "bench" / "results" / "backend_mixing.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
