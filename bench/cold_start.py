"""Cold start of the CLI: ``lateseg search`` and ``lateseg ask`` in a fresh process each,
with the query kit (:mod:`lateseg.encode.quick`) against the full model load beside it.

    python bench/cold_start.py [--runs 5]

In a lateseg home of its own (so the user's cache is left alone) it ingests the sample
contracts once, which exports the embedder and leaves the kit. Then, alternating, it runs
each command ``--runs`` times with the kit and ``--runs`` times without it (the kit
folder moved aside: the full sentence-transformers load, as every run did before), and
reports the median wall time of the whole process. Then it times, each in a fresh
process, where the full path's seconds go: the imports of torch, transformers and
sentence-transformers, the model load, the tokenizer, the OpenVINO compile with and
without its cache, and the search itself. Writes ``bench/results/cold_start.md`` and
``.json``; names the CPU and its flags (speed differs 2x between machines).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results" / "cold_start.md"
QUESTION = (
    "How many days' notice must the Client give to terminate the Master Services "
    "Agreement for convenience?"
)

STEPS = r"""
import json, sys, time
t = time.perf_counter(); out = {}
def lap(name):
    global t
    now = time.perf_counter(); out[name] = now - t; t = now
what = sys.argv[1]
if what == "full":
    import torch; lap("import torch")
    import transformers; lap("import transformers")
    import sentence_transformers; lap("import sentence_transformers")
    from lateseg.encode.models import resolve_embedder
    path = resolve_embedder(None); lap("find the model")
    st = sentence_transformers.SentenceTransformer(path, device="cpu"); lap("load the model")
    from transformers import AutoTokenizer
    AutoTokenizer.from_pretrained(path); lap("load its tokenizer (transformers)")
    import openvino as ov; lap("import openvino")
    from pathlib import Path
    from lateseg.home import lateseg_home
    graph = next((lateseg_home() / "onnx").glob("*/model.onnx"))
    ov.Core().compile_model(str(graph), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    lap("OpenVINO compile, no cache")
    cache = lateseg_home() / "openvino-cache"
    ov.Core().compile_model(str(graph), "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                "CACHE_DIR": str(cache)})
    lap("OpenVINO compile, from its cache")
else:
    import lateseg.cli; lap("import lateseg (numpy, faiss, openvino)")
    from lateseg.encode.late import LateEncoder
    enc = LateEncoder(); quick = enc.quick(); lap("kit: tokenizer + cached compile")
    vec = enc.embed_queries([sys.argv[2]]); lap("embed the query")
    from lateseg.pipeline import Pipeline
    pipe = Pipeline.open(sys.argv[3]); pipe.encoder = enc; lap("open the index")
    pipe.search(sys.argv[2], k=5); lap("search")
    out["torch imported"] = float("torch" in sys.modules)
print(json.dumps(out))
"""


def cpu() -> str:
    info = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.+)", info)
    # family and model tell apart CPUs sold under one name ("AMD EPYC": Zen 3 is family
    # 25 model 1, Zen 4 family 25 model 17), whose speeds differ
    family = re.search(r"cpu family\s*:\s*(\d+)", info)
    number = re.search(r"^model\s*:\s*(\d+)", info, re.M)
    name = model.group(1).strip() if model else "unknown CPU"
    if family and number:
        name += f" (family {family.group(1)} model {number.group(1)})"
    flags = sorted(set(re.findall(r"\b(avx512[a-z_0-9]*|avx2|amx[a-z_]*)\b", info)))
    return f"{name}, {os.cpu_count()} CPUs; " + (" ".join(flags) or "no AVX2")


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr[-2000:]}")
    return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="lateseg-cold-"))
    home = work / "home"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LATESEG_HOME": str(home)}
    lateseg = [sys.executable, "-m", "lateseg"]
    index = work / "index"
    try:
        print("ingesting the sample contracts (exports the embedder once)…", flush=True)
        ingest_s = timed([*lateseg, "ingest", str(ROOT / "data" / "contracts"), "--index",
                          str(index)], env)  # fmt: skip
        kits, aside = home / "onnx" / "kits", home / "onnx" / "kits-aside"
        assert kits.is_dir(), "the ingest left no query kit"
        commands = {
            "search": [*lateseg, "search", QUESTION, "--index", str(index)],
            "ask": [*lateseg, "ask", QUESTION, "--index", str(index)],
        }
        times: dict[str, dict[str, list[float]]] = {c: {"full": [], "kit": []} for c in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name]["kit"].append(timed(cmd, env))
                os.replace(kits, aside)  # no kit: the full load (which writes one again)
                try:
                    times[name]["full"].append(timed(cmd, env))
                finally:
                    shutil.rmtree(kits, ignore_errors=True)
                    os.replace(aside, kits)
        steps = {}
        for what in ("full", "kit"):
            run = subprocess.run(
                [sys.executable, "-c", STEPS, what, QUESTION, str(index)],
                env=env, capture_output=True, text=True, timeout=600, check=True,
            )  # fmt: skip
            steps[what] = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    medians = {
        name: {way: statistics.median(v) for way, v in ways.items()} for name, ways in times.items()
    }
    report = {
        "when": time.strftime("%Y-%m-%d"),
        "cpu": cpu(),
        "runs": args.runs,
        "ingest_s": ingest_s,
        "times": times,
        "medians": medians,
        "steps": steps,
    }
    rows = [
        f"| `lateseg {name}` | {m['full']:.2f} s | {m['kit']:.2f} s | {m['full'] / m['kit']:.1f}x |"
        for name, m in medians.items()
    ]
    full_steps = [f"| {k} | {v:.2f} s |" for k, v in steps["full"].items()]
    kit_steps = [f"| {k} | {v:.3f} s |" for k, v in steps["kit"].items() if k != "torch imported"]
    md = "\n".join(
        [
            "# Cold start of the CLI",
            "",
            f"`python bench/cold_start.py --runs {args.runs}` ({report['when']}; {report['cpu']}). "
            "Each run is a fresh process on an index of the 4 sample contracts; median wall "
            "time of the whole process. *Full*: the kit moved aside, so the embedder loads "
            "through sentence-transformers (what every run did before the kit). *Kit*: the "
            "query kit left by the ingest. `ask` answers by quoting (the default).",
            "",
            "| command | full load | with the kit | ratio |",
            "| --- | ---: | ---: | ---: |",
            *rows,
            "",
            "Where the full path's seconds go (one fresh process, steps in order):",
            "",
            "| step | seconds |",
            "| --- | ---: |",
            *full_steps,
            "",
            "The kit's path (one fresh process; torch imported: "
            f"{'yes' if steps['kit'].get('torch imported') else 'no'}):",
            "",
            "| step | seconds |",
            "| --- | ---: |",
            *kit_steps,
            "",
        ]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(md, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
