"""Code ingestion speed: lateseg's code units next to loaders that give no structure.

    python bench/ingest_code.py [--limit N] [--repeat R]

Over every ``.py`` file of the Python standard library that decodes as UTF-8
(``sysconfig.get_paths()["stdlib"]``, site-packages excluded), side by side in one run,
after one warm-up read so every row sees a warm page cache, each row the best of
``--repeat`` rounds run round robin:

* ``open().read()``: the floor, text and nothing else;
* LangChain ``TextLoader``: one Document per file, no structure;
* ``ast.parse`` alone: the floor of any ast-based structure (spans not collected);
* lateseg ``read_text`` + ``code_units``: text plus module/class/function/method spans;
* lateseg ``RepoFilter``: the skip decision for every file of the stdlib tree.

For the tree-sitter languages the test snippets (``tests/test_ingest_code.py``) are
repeated into ~100 KB files and parsed (best of ``--repeat``). Writes
``bench/results/ingest_code.json`` and ``.md``. Needs the ``bench`` extra
(``langchain-community``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import sys
import sysconfig
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results"
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def stdlib_files(limit: int | None) -> list[Path]:
    files = []
    for p in sorted(STDLIB.rglob("*.py")):
        if "site-packages" in p.parts or "dist-packages" in p.parts:
            continue
        try:
            p.read_bytes().decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # TextLoader(encoding="utf-8") could not read it: same files for all
        files.append(p)
    return files[:limit] if limit else files


def module_name(p: Path) -> str:
    return ".".join(p.relative_to(STDLIB).with_suffix("").parts)


def best(fn: Callable[[], int], repeat: int) -> tuple[float, int]:
    """(best wall seconds, units counted) over ``repeat`` runs of ``fn``."""
    times, units = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        units = fn()
        times.append(time.perf_counter() - t)
    return min(times), units


def python_rows(files: list[Path], repeat: int) -> list[dict]:
    with warnings.catch_warnings():  # langchain-community announces its sunset on import
        warnings.simplefilter("ignore", DeprecationWarning)
        from langchain_community.document_loaders import TextLoader

    from lateseg.ingest.code.units import code_units
    from lateseg.ingest.text import read_text

    size_mb = sum(p.stat().st_size for p in files) / 1e6

    def plain() -> int:
        for p in files:
            with open(p, encoding="utf-8") as f:
                f.read()
        return 0

    def langchain() -> int:
        for p in files:
            TextLoader(str(p), encoding="utf-8").load()
        return 0

    def ast_only() -> int:
        for p in files:
            try:
                ast.parse(p.read_text("utf-8"))
            except SyntaxError:
                continue
        return 0

    def lateseg() -> int:
        return sum(len(code_units(read_text(p), module_name(p), "python")) for p in files)

    plain()  # warm the page cache
    rows = []
    methods = [
        ("open().read()", plain),
        ("LangChain TextLoader", langchain),
        ("ast.parse alone (no spans)", ast_only),
        ("lateseg read_text + code_units", lateseg),
    ]
    times: dict[str, list[float]] = {name: [] for name, _ in methods}
    units: dict[str, int] = {}
    for _ in range(repeat):  # round robin, so drift in machine load hits every row alike
        for name, fn in methods:
            t = time.perf_counter()
            units[name] = fn()
            times[name].append(time.perf_counter() - t)
    for name, _ in methods:
        rows.append(
            {
                "method": name,
                "files": len(files),
                "mb": size_mb,
                "seconds": min(times[name]),
                "units": units[name],
            }
        )
    base = rows[0]["seconds"]
    for r in rows:
        r["files_per_s"] = r["files"] / r["seconds"]
        r["mb_per_s"] = r["mb"] / r["seconds"]
        r["units_per_s"] = r["units"] / r["seconds"]
        r["x_read_time"] = r["seconds"] / base
    return rows


def filter_row(repeat: int) -> dict:
    from lateseg.ingest.repo import RepoFilter

    def run() -> int:
        flt, n = RepoFilter(STDLIB), 0
        for dirpath, dirnames, filenames in os.walk(STDLIB):
            here = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if flt.skip_dir(here / d) is None)
            for name in filenames:
                flt.skip_file(here / name)
                n += 1
        return n

    secs, files = best(run, repeat)
    return {
        "method": "RepoFilter over the stdlib tree",
        "files": files,
        "seconds": secs,
        "files_per_s": files / secs,
    }


def tree_sitter_rows(repeat: int) -> list[dict]:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_ingest_code import CASES

    from lateseg.ingest.code.units import code_units

    rows = []
    for language, (snippet, _) in sorted(CASES.items()):
        text = snippet * max(1, 100_000 // len(snippet.encode("utf-8")))
        secs, units = best(lambda t=text, lang=language: len(code_units(t, "m", lang)), repeat)
        kb = len(text.encode("utf-8")) / 1e3
        rows.append(
            {
                "language": language,
                "kb": kb,
                "units": units,
                "seconds": secs,
                "kb_per_s": kb / secs,
                "units_per_s": units / secs,
            }
        )
    return rows


def markdown(py: list[dict], flt: dict, ts: list[dict], command: str) -> str:
    n, mb = py[0]["files"], py[0]["mb"]
    lines = [
        f"# Code ingestion speed ({n} stdlib .py files, {mb:.1f} MB, Python "
        f"{platform.python_version()})",
        "",
        "| method | files/s | MB/s | units | units/s | time × read |",
        "|---|---|---|---|---|---|",
    ]
    for r in py:
        units = f"{r['units']:,}" if r["units"] else "none"
        ups = f"{r['units_per_s']:,.0f}" if r["units"] else "-"
        lines.append(
            f"| {r['method']} | {r['files_per_s']:,.0f} | {r['mb_per_s']:.1f} | "
            f"{units} | {ups} | {r['x_read_time']:.1f} |"
        )
    lines += [
        "",
        f"{flt['method']}: {flt['files']:,} files (all types) in {flt['seconds']:.2f} s, "
        f"{flt['files_per_s']:,.0f} files/s.",
        "",
        "Tree-sitter languages (test snippets repeated to ~100 KB):",
        "",
        "| language | KB | units | KB/s | units/s |",
        "|---|---|---|---|---|",
    ]
    for r in ts:
        lines.append(
            f"| {r['language']} | {r['kb']:.0f} | {r['units']:,} | "
            f"{r['kb_per_s']:,.0f} | {r['units_per_s']:,.0f} |"
        )
    lines += ["", "Units include the module span (one per file).", "", f"Command: `{command}`"]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="only the first N stdlib files")
    ap.add_argument("--repeat", type=int, default=1, help="best of R runs per row")
    args = ap.parse_args()
    files = stdlib_files(args.limit)
    py = python_rows(files, args.repeat)
    flt = filter_row(args.repeat)
    ts = tree_sitter_rows(args.repeat)
    command = "python bench/ingest_code.py" + "".join(
        f" --{k} {v}" for k, v in vars(args).items() if v not in (None, 1)
    )
    OUT.mkdir(parents=True, exist_ok=True)
    result = {
        "python": py,
        "repo_filter": flt,
        "tree_sitter": ts,
        "command": command,
        "python_version": platform.python_version(),
        "stdlib": str(STDLIB),
    }
    (OUT / "ingest_code.json").write_text(json.dumps(result, indent=2) + "\n")
    md = markdown(py, flt, ts, command)
    (OUT / "ingest_code.md").write_text(md)
    sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
