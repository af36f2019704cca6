"""Every figure the README states comes from ``bench/results/``; ``--help`` states none
without citing it.

A measured figure in README.md is followed by a marker naming its source:

* ``0.90x <!-- bench: throughput.json sets.licenses.rows[system=lateseg ingest (default:
  openvino-bf16)].vs_peer -->``: a JSON path under ``bench/results/`` (``key``,
  ``"key with. dots"``, ``[n]``, ``[field=value&other=value]``), optionally scaled
  (``*100`` for a share shown as a percentage, ``/60`` for seconds shown as minutes);
* ``0.42 % <!-- bench: ocr_engines.md "tesseract" -->``: a markdown file, and text that
  picks its line; the figure is one of that line's numbers (inside a table, write a
  pipe in that text as ``\\|``, as GitHub's tables need).

The marker checks the last number before it on its line, within the rounding shown (0.90
matches 0.895 to 0.905; ``14k`` matches 13,500 to 14,500). A default or a limit that
carries a unit (``512 MB``) is marked ``<!-- setting: lateseg/path.py -->``: the number
must be written in that file. Any other number with a unit of time, speed, size or share
(``%``, ``x``, ``ms``, ``s``, ``tok/s``, ``chunks/s``, ``pages/s``, ``GB``, ``minutes``…)
outside code is a figure without a source, and fails.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"

_NUMBER = re.compile(
    r"(?<![\w.@/$#-])(?P<sign>[+−-](?=\d))?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<k>k\b)?"
)
_UNIT = re.compile(
    r"\s?(?:%|×|x(?![\w-])|ms\b|s\b|seconds?\b|minutes?\b|min\b|hours?\b|GPU-hours\b|"
    r"tok/s|tokens/s|chunks/s|pages/s|files/s|GB\b|GiB\b|MB\b|MiB\b|KiB\b)"
)
_RANGE = re.compile(r"\s?[–-]\s?\d[\d,.]*k?" + _UNIT.pattern)  # the first end of "2–7%"
_MARKER = re.compile(r"<!--\s*(?P<kind>bench|setting):\s*(?P<body>.*?)\s*-->")
_SPEED = re.compile(r"\s?(?:×|x(?![\w-])|ms\b|s\b|seconds?\b|minutes?\b|tok/s|chunks/s|pages/s)")
_MACHINE = re.compile(r"AMD|Intel|EPYC|Xeon|H200|GPU|\bCPUs?\b|cores?\b")


def _value(text: str) -> tuple[float, float]:
    """A figure as written: its value and half its last shown digit."""
    m = _NUMBER.search(text)
    assert m, text
    digits = m["num"].replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    value, tol = float(digits), 0.5 * 10.0**-decimals
    if m["k"]:
        value, tol = value * 1000, 500.0
    if m["sign"] in ("−", "-"):
        value = -value
    return value, tol + 1e-9


def _path(data: Any, selector: str) -> Any:
    """Follow ``a.b[2][name=x]."c.d"`` through parsed JSON."""
    token = re.compile(
        r'\.?(?:"(?P<q>[^"]*)"|\[(?P<i>\d+)\]|\[(?P<f>[^=\]]+)=(?P<v>[^\]]*)\]|(?P<k>[^.\["]+))'
    )
    pos = 0
    while pos < len(selector):
        m = token.match(selector, pos)
        assert m and m.end() > pos, f"bad path {selector!r} at {selector[pos:]!r}"
        pos = m.end()
        if m["i"] is not None:
            data = data[int(m["i"])]
        elif m["f"] is not None:
            # [field=value] or [field=value&other=value]: the one row that has them all
            pairs = f"{m['f']}={m['v']}".split("&")
            want = dict(pair.split("=", 1) for pair in pairs)
            found = [row for row in data if all(str(row.get(k)) == v for k, v in want.items())]
            assert len(found) == 1, f"{m.group(0)!r} picks {len(found)} rows"
            data = found[0]
        else:
            data = data[m["q"] if m["q"] is not None else m["k"]]
    return data


def check_marker(figure: str, kind: str, body: str) -> str | None:
    """None if ``figure`` matches what the marker cites, else what is wrong."""
    value, tol = _value(figure)
    body = body.replace("\\|", "|")  # a pipe inside a table cell is written \|
    if kind == "setting":
        source = ROOT / body.split()[0]
        if not source.is_file():
            return f"{figure}: no file {body}"
        written = {
            n.replace("_", "").replace(",", "")
            for n in re.findall(r"\d[\d_,]*(?:\.\d+)?", source.read_text())
        }
        # as written, or a share written as a fraction (0.2 for 20%)
        ok = any(
            abs(f - abs(value)) < tol or abs(f * 100 - abs(value)) < tol
            for f in (float(n) for n in written if n.count(".") <= 1)
        )
        return None if ok else f"{figure}: not written in {body}"
    name, _, rest = body.partition(" ")
    source = RESULTS / name
    if not source.is_file():
        return f"{figure}: no file bench/results/{name}"
    scale = re.search(r"\s([*/])(\d+(?:\.\d+)?)$", rest)
    factor = 1.0 if not scale else float(scale[2]) if scale[1] == "*" else 1 / float(scale[2])
    selector = rest[: scale.start()].strip() if scale else rest.strip()
    if name.endswith(".md"):
        pick = re.fullmatch(r'"(?P<text>[^"]*)"', selector)
        lines = [ln for ln in source.read_text().splitlines() if not pick or pick["text"] in ln]
        numbers = [_value(m.group(0))[0] * factor for ln in lines for m in _NUMBER.finditer(ln)]
        ok = any(abs(n - value) < tol for n in numbers)
        return None if ok else f"{figure}: not on the lines of {name} that {selector or 'it'} picks"
    got = float(_path(json.loads(source.read_text()), selector)) * factor
    return None if abs(got - value) < tol else f"{figure}: {name} {selector} is {got:g}"


def _prose(text: str) -> list[tuple[int, str]]:
    """README lines outside fenced code, with inline code spans blanked."""
    out, fenced = [], False
    for no, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append((no, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)))
    return out


def figures(text: str) -> tuple[list[tuple[int, str, str, str]], list[tuple[int, str]]]:
    """(marked figures: line, figure, kind, body), (numbers with a unit and no marker)."""
    marked, unmarked = [], []
    for no, line in _prose(text):
        covered: set[int] = set()
        last_end = 0
        for mk in _MARKER.finditer(line):
            before = [m for m in _NUMBER.finditer(line, last_end, mk.start())]
            assert before, f"README.md:{no}: a marker with no figure before it"
            fig = before[-1]
            covered.add(fig.start())
            unit = _UNIT.match(line, fig.end())
            marked.append(
                (no, fig.group(0) + (unit.group(0) if unit else ""), mk["kind"], mk["body"])
            )
            last_end = mk.end()
        plain = _MARKER.sub(lambda m: " " * len(m.group(0)), line)
        for m in _NUMBER.finditer(plain):
            unit = _UNIT.match(plain, m.end()) or _RANGE.match(plain, m.end())
            if m.start() not in covered and unit:
                unmarked.append((no, m.group(0) + unit.group(0)))
    return marked, unmarked


def _paragraph(text: str, no: int) -> str:
    """The paragraph (or table) that holds line ``no``."""
    lines = text.splitlines()
    start = end = no - 1
    while start > 0 and lines[start - 1].strip():
        start -= 1
    while end < len(lines) - 1 and lines[end + 1].strip():
        end += 1
    if lines[start].startswith("|") and start > 1:  # a table: with the text that leads in
        start -= 2
        while start > 0 and lines[start - 1].strip():
            start -= 1
    return "\n".join(lines[start : end + 1])


# -- the checker itself -------------------------------------------------------------------


def test_the_checker_finds_an_unmarked_figure_and_a_wrong_one(tmp_path, monkeypatch) -> None:
    marked, unmarked = figures(
        "It runs at 2.5x the peer and answers 89% <!-- bench: x.json a -->.\n"
    )
    assert unmarked == [(1, "2.5x")]
    assert marked == [(1, "89%", "bench", "x.json a")]
    assert figures("costs 2-7% of it")[1] == [(1, "2-7%")]  # a range is two figures
    _, none = figures("```\nmake  # 5 s\n```\n`--timeout 5 s` and 384-d vectors, 10 files\n")
    assert none == []
    # results files of its own: the real ones change with every rerun
    monkeypatch.setattr(sys.modules[__name__], "RESULTS", tmp_path)
    rows = [
        {"system": "peer", "vs_peer": 1.0},
        {"system": "ingest (default: bf16)", "vs_peer": 0.9},
    ]
    (tmp_path / "speed.json").write_text(json.dumps({"sets": {"lic": {"rows": rows}}}))
    row = "sets.lic.rows[system=ingest (default: bf16)].vs_peer"
    assert check_marker("0.90x", "bench", f"speed.json {row}") is None
    assert check_marker("0.95x", "bench", f"speed.json {row}") is not None
    (tmp_path / "answers.json").write_text(json.dumps({"contracts": {"accuracy": 0.984}}))
    assert check_marker("98%", "bench", "answers.json contracts.accuracy *100") is None
    assert check_marker("97%", "bench", "answers.json contracts.accuracy *100") is not None
    (tmp_path / "stores.md").write_text("| sqlite | 7,913 |\n| postgres | 5,245 |\n")
    assert check_marker("7,913", "bench", 'stores.md "sqlite"') is None
    assert check_marker("5,245", "bench", 'stores.md "sqlite"') is not None
    assert check_marker("1%", "bench", "missing.json a") is not None


# -- the README ---------------------------------------------------------------------------


README = (ROOT / "README.md").read_text(encoding="utf-8")
MARKED, UNMARKED = figures(README)


def test_every_measured_figure_in_the_readme_has_a_source() -> None:
    assert len(MARKED) >= 10  # the README states its figures, and they are found
    assert UNMARKED == [], "figures without a <!-- bench: ... --> marker: " + ", ".join(
        f"README.md:{no}: {fig}" for no, fig in UNMARKED
    )


@pytest.mark.parametrize(
    ("no", "figure", "kind", "body"), MARKED, ids=[f"L{m[0]}:{m[1]}" for m in MARKED]
)
def test_each_marked_figure_matches_its_results_file(
    no: int, figure: str, kind: str, body: str
) -> None:
    problem = check_marker(figure, kind, body)
    assert problem is None, f"README.md:{no}: {problem}"


def test_each_measured_speed_names_its_machine() -> None:
    nameless = [
        f"README.md:{no}: {fig}"
        for no, fig, kind, _ in MARKED
        if kind == "bench"
        and _SPEED.fullmatch(fig[len(_NUMBER.match(fig).group(0)) :])  # type: ignore[union-attr]
        and not _MACHINE.search(_paragraph(README, no))
    ]
    assert nameless == []


# -- --help -------------------------------------------------------------------------------


def _help_texts(parser: argparse.ArgumentParser, where: str = "lateseg") -> list[tuple[str, str]]:
    out = [(where, parser.description or ""), (where, parser.epilog or "")]
    for action in parser._actions:
        out.append(
            (f"{where} {'/'.join(action.option_strings) or action.dest}", str(action.help or ""))
        )
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _help_texts(sub, f"{where} {name}")
    return out


def test_help_states_no_speed_without_its_source() -> None:
    from lateseg.cli import _parser

    texts = _help_texts(_parser())
    assert len(texts) > 50
    claim = re.compile(
        r"(?<!default )(?<!default: )(?<![\w.])\d+(?:\.\d+)?\s?(?:x(?![\w-])|×|ms\b|seconds?\b|"
        r"minutes?\b|tok/s|chunks/s|pages/s)|\b(?:faster|fastest|slower|quicker)\b"
    )
    unsourced = [
        f"{where}: {claim.search(t).group(0)!r}"
        for where, t in texts
        if claim.search(t) and "bench/results/" not in t
    ]  # type: ignore[union-attr]
    assert unsourced == []


def test_the_quick_start_is_two_commands() -> None:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = [
        ln.split("#")[0].strip()
        for b in blocks
        for ln in b.splitlines()
        if ln.split("#")[0].strip()
    ]
    assert commands == ["make demo", "make test"]
    assert "## Contents" in README.split("## Quick start", 1)[0]  # a table of contents first


def test_the_readmes_links_within_it_and_to_files_resolve() -> None:
    def anchor(heading: str) -> str:  # GitHub's: lower case, punctuation dropped, - for spaces
        return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

    headings = {anchor(h) for h in re.findall(r"^#+ (.*)$", README, re.M)}
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    assert len(links) > 10
    broken = [
        link
        for link in links
        if (link[1:] not in headings if link.startswith("#") else not (ROOT / link).exists())
    ]
    assert broken == []
