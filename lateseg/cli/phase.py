"""``lateseg phase``: test a pipeline for periodic weak spots (phase sensitivity)."""

from __future__ import annotations

import argparse
import json
import sys

from lateseg.cli.options import EXIT_OK, EXIT_USAGE


def add(sub: argparse._SubParsersAction) -> None:
    ph = sub.add_parser(
        "phase",
        help="test a pipeline for periodic weak spots (phase sensitivity)",
        description="Shift a needle fact one padding unit (one token) at a time, run the "
        "systems of a probe, and report per-residue accuracy (offset mod P) with Wilson "
        "95% intervals, the residue gap, the share of spectral power at the harmonics of "
        "1/P with a permutation p-value, and plots. retrieval: fixed-size chunkers, "
        "LangChain's recursive splitter and lateseg on a needle clause; kv: KV-cache "
        "compressors (fixed ChunkKV, SnapKV, lateseg) on the default generator; toy: the "
        "paper's controlled result at CPU scale: six tiny LMs trained from scratch on "
        "needle key-value recall (full attention; learned-gate block compression at "
        "strides 4 and 2; without position encoding; uniform gates; content-defined "
        "blocks), recall grouped by the needle's position mod the stride; writes toy.md, "
        "toy.json and toy.png (the first run trains the six models, which takes minutes on a "
        "CPU: bench/results/phase/toy.json records the time; later runs reuse them). "
        "The PNG plots need matplotlib: pip install 'lateseg[plot]'.",
    )
    ph.add_argument("probe", choices=("retrieval", "kv", "toy"), help="which probe to run")
    ph.add_argument("--out", required=True, metavar="DIR", help="folder for JSON, PNG, markdown")
    ph.add_argument(
        "--period",
        type=int,
        default=None,
        help="period to test (default: retrieval 16 = the fixed chunk size; kv 4, 8 and 10; "
        "toy: each model's stride, not settable)",
    )
    ph.add_argument(
        "--offsets",
        type=int,
        default=None,
        help="offsets 0..N-1 (default 2-4 periods; not for toy)",
    )
    ph.add_argument(
        "--scheme",
        choices=("prefix", "inside", "both"),
        default="both",
        help="prefix: padding before everything; inside: padding moves only the needle; "
        "both (the default)",
    )
    ph.add_argument("--text", default=None, help="haystack text file (default: Apache-2.0)")
    ph.add_argument("--reduced", action="store_true", help="the small, fast version")
    ph.add_argument("--no-progress", action="store_true", help="hide progress bars")
    ph.add_argument("--json", action="store_true", help="print the results as JSON")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from lateseg.phase import study
    from lateseg.phase.harness import write_report
    from lateseg.phase.plotting import pyplot

    pyplot()  # every probe's report has plots: a missing extra fails now, not after the run
    schemes = ("prefix", "inside") if args.scheme == "both" else (args.scheme,)
    text = Path(args.text) if args.text else None
    progress = False if args.no_progress else None
    if args.probe == "retrieval":
        results = study.run_retrieval(
            text=text,
            period=args.period or 16,
            offsets=args.offsets,
            schemes=schemes,
            reduced=args.reduced,
            progress=progress,
        )
    elif args.probe == "kv":
        results = study.run_kv(
            text=text,
            periods=(args.period,) if args.period else (4, 8, 10),
            offsets=args.offsets,
            schemes=schemes,
            reduced=args.reduced,
            progress=progress,
        )
    else:
        return _toy(args)
    paths = write_report(results, Path(args.out), f"Phase sensitivity: {args.probe} probe")
    return _show(args, [r.to_dict() for r in results], paths)


def _show(args: argparse.Namespace, rows: list[dict], paths: dict, took: str = "") -> int:
    """Print the report (its markdown, or the rows as JSON with ``--json``) and, on
    stderr, the files written."""
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(paths["markdown"].read_text())
    print(f"wrote {', '.join(str(p) for p in paths.values())}{took}", file=sys.stderr)
    return EXIT_OK


def _toy(args: argparse.Namespace) -> int:
    """Train (or load from the lateseg home's cache) the toy models and write ``toy.md``,
    ``toy.json`` and ``toy.png`` into ``--out``."""
    import time
    from pathlib import Path

    from lateseg.home import lateseg_home
    from lateseg.phase import study
    from lateseg.phase.toy import write_toy_report

    if args.offsets is not None or args.period is not None or args.text is not None:
        print(
            "lateseg phase toy: --offsets, --period and --text do not apply (the period "
            "is each model's stride, trials are fresh sequences)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    t0 = time.perf_counter()

    def say(name: str) -> None:
        if not args.no_progress:
            print(f"toy: {name} (trained once, then cached)", file=sys.stderr, flush=True)

    rows = study.run_toy(reduced=args.reduced, cache_dir=lateseg_home() / "phase-toy", progress=say)
    seconds = time.perf_counter() - t0
    paths = write_toy_report(
        rows, Path(args.out), {"seconds": round(seconds, 1), "reduced": args.reduced}
    )
    return _show(args, [r.to_dict() for r in rows], paths, f" in {seconds:.0f} s")
