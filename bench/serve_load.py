"""Load on ``lateseg serve``: concurrent clients searching while another process ingests.

    python bench/serve_load.py [--clients 8] [--seconds 60] [--ingest PATH ...]

Builds a fresh index of the sample contracts and codebase, starts ``lateseg serve`` on
127.0.0.1 in a process of its own, then for ``--seconds`` runs ``--clients`` threads
that each search in a loop (the questions of ``data/eval/sample_qa.jsonl``), while a
``lateseg ingest`` process adds the Debian licence texts and the Policy Manual (when
``make testdata`` fetched it) to the same index. Reports requests, errors (any status
but 200, or a failed connection), latency p50 / p95 / p99, and whether the server saw
the ingest's documents without a restart. Writes ``bench/results/serve_load.md`` and
``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
OUT = ROOT / "bench" / "results" / "serve_load.md"
LATESEG = [sys.executable, "-m", "lateseg"]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}


def default_ingest() -> list[str]:
    paths = ["/usr/share/common-licenses"]
    policy = ROOT / ".cache" / "testdata" / "policy.pdf"
    if policy.is_file():
        paths.append(str(policy))
    return paths


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def client(url: str, queries: list[str], until: float, seed: int, out: dict[str, Any]) -> None:
    import httpx

    rng = random.Random(seed)
    with httpx.Client(base_url=url, timeout=30) as http:
        while time.monotonic() < until:
            q = rng.choice(queries)
            t0 = time.perf_counter()
            try:
                r = http.get("/api/search", params={"q": q, "k": 5})
                ok = r.status_code == 200 and bool(r.json()["hits"])
                why = None if ok else f"status {r.status_code}"
            except Exception as e:  # a refused or dropped connection is an error
                ok, why = False, f"{type(e).__name__}: {e}"
            out["latency"].append(time.perf_counter() - t0)
            if not ok:
                out["errors"].append(why)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--ingest", nargs="*", default=None, help="paths the ingest adds")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    import httpx

    queries = [
        json.loads(line)["question"]
        for line in (DATA / "eval" / "sample_qa.jsonl").read_text().splitlines()
        if line.strip()
    ]
    ingest_paths = args.ingest if args.ingest is not None else default_ingest()
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        subprocess.run(
            [*LATESEG, "ingest", str(DATA / "contracts"), str(DATA / "sample_repo"), "--index",
             str(index)], check=True, env=ENV, capture_output=True,
        )  # fmt: skip
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [*LATESEG, "serve", "--index", str(index), "--port", str(port)],
            env=ENV,
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(600):
                try:
                    before = httpx.get(url + "/api/health", timeout=1).json()
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            else:
                raise SystemExit("the server did not start")
            httpx.get(url + "/api/search", params={"q": "warm up"}, timeout=60)
            t_ingest = time.monotonic()
            ingest = subprocess.Popen(
                [*LATESEG, "ingest", *ingest_paths, "--index", str(index)],
                env=ENV,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            until = time.monotonic() + args.seconds
            results: list[dict[str, Any]] = [
                {"latency": [], "errors": []} for _ in range(args.clients)
            ]
            threads = [
                threading.Thread(target=client, args=(url, queries, until, i, results[i]))
                for i in range(args.clients)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            ingest_done = ingest.poll() is not None
            printed, _ = ingest.communicate()  # waits for an ingest that outlasted the load
            summary_line = (printed.strip().splitlines() or [""])[-1]
            ingest_s = time.monotonic() - t_ingest
            after = httpx.get(url + "/api/health", timeout=30).json()
        finally:
            server.terminate()
            server.wait(10)
    latency = [x for r in results for x in r["latency"]]
    errors = [e for r in results for e in r["errors"]]
    report = {
        "when": time.strftime("%Y-%m-%d"),
        "clients": args.clients,
        "seconds": args.seconds,
        "requests": len(latency),
        "errors": len(errors),
        "error_kinds": sorted(set(errors))[:10],
        "requests_per_s": len(latency) / args.seconds,
        "p50_ms": 1000 * statistics.median(latency),
        "p95_ms": 1000 * percentile(latency, 95),
        "p99_ms": 1000 * percentile(latency, 99),
        "max_ms": 1000 * max(latency),
        "ingest": ingest_paths,
        "ingest_finished_during_load": ingest_done,
        "ingest_s": ingest_s,
        "ingest_summary": summary_line,
        "documents_before": before["documents"],
        "documents_after": after["documents"],
        "cpus": os.cpu_count(),
    }
    md = "\n".join(
        [
            "# lateseg serve under load",
            "",
            f"`python bench/serve_load.py` ({report['when']}, {report['cpus']} CPUs): "
            f"{args.clients} clients searching `/api/search` (k=5) for {args.seconds:.0f} s on "
            "127.0.0.1 while another process ingests "
            f"{', '.join(Path(p).name for p in ingest_paths)} into the same index.",
            "",
            "| clients | requests | errors | req/s | p50 ms | p95 ms | p99 ms | max ms |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
            f"| {args.clients} | {report['requests']} | {report['errors']} | "
            f"{report['requests_per_s']:.1f} | {report['p50_ms']:.0f} | {report['p95_ms']:.0f} | "
            f"{report['p99_ms']:.0f} | {report['max_ms']:.0f} |",
            "",
            f"Documents the server reports: {report['documents_before']} before, "
            f"{report['documents_after']} after the ingest (no restart). The ingest took "
            f"{ingest_s:.0f} s"
            + (" (it ended during the load)." if ingest_done else " (it outlasted the load)."),
            "",
        ]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(md, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(md)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
