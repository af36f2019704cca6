"""The HTML page of an evaluation report: the summary table, the reliability diagram and
the precision–coverage curve (inline SVG: no script, no download), and every question's
row; citations link to ``lateseg serve``'s document views where its URL is given."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lateseg.eval.report import (
    FIGURES,
    EvalReport,
    failures,
    markdown,
    question_cells,
    rows_of,
    to_json,
)

#: Plot size in pixels, its margin for the axes' labels, and its top margin for the title.
W, H, M, TOP = 320, 250, 40, 28
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _xy(x: float, y: float) -> str:
    return f"{M + x * (W - M - 10):.1f},{H - M - y * (H - M - TOP):.1f}"


def _axes(title: str, xlabel: str, ylabel: str) -> list[str]:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img" '
        f'aria-label="{_e(title)}">',
        f'<text x="{W / 2}" y="14" text-anchor="middle" font-size="13">{_e(title)}</text>',
        f'<polyline fill="none" stroke="#444" points="{_xy(0, 1)} {_xy(0, 0)} {_xy(1, 0)}"/>',
    ]
    for t in (0, 0.5, 1):
        x0, y0 = _xy(t, 0).split(",")
        out.append(
            f'<text x="{x0}" y="{float(y0) + 14}" text-anchor="middle" font-size="10">{t:g}</text>'
        )
        x1, y1 = _xy(0, t).split(",")
        out.append(
            f'<text x="{float(x1) - 4}" y="{float(y1) + 3}" text-anchor="end" '
            f'font-size="10">{t:g}</text>'
        )
    out.append(
        f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle" font-size="11">{_e(xlabel)}</text>'
    )
    out.append(
        f'<text x="10" y="{H / 2}" text-anchor="middle" font-size="11" '
        f'transform="rotate(-90 10 {H / 2})">{_e(ylabel)}</text>'
    )
    return out


def reliability_svg(report: EvalReport) -> str:
    """Share right against mean confidence per bin, one line per variant, the diagonal
    dotted (a calibrated confidence lies on it)."""
    out = _axes("Reliability", "confidence", "share right")
    out.append(
        f'<polyline fill="none" stroke="#999" stroke-dasharray="3,3" '
        f'points="{_xy(0, 0)} {_xy(1, 1)}"/>'
    )
    for i, r in enumerate(report.variants):
        bins = r.summary["reliability"]
        if not bins:
            continue
        colour = COLOURS[i % len(COLOURS)]
        pts = " ".join(_xy(b["confidence"], b["right"]) for b in bins)
        out.append(f'<polyline fill="none" stroke="{colour}" points="{pts}"/>')
        for b in bins:
            x, y = _xy(b["confidence"], b["right"]).split(",")
            out.append(
                f'<circle cx="{x}" cy="{y}" r="3" fill="{colour}">'
                f"<title>{b['answers']} answers</title></circle>"
            )
    return "\n".join([*out, "</svg>"])


def coverage_svg(report: EvalReport) -> str:
    """Accuracy of the answers given against the share given, over ``min_confidence``."""
    out = _axes("Precision–coverage", "coverage (share answered)", "accuracy of answers given")
    for i, r in enumerate(report.variants):
        pts = [
            c
            for c in r.summary["coverage_curve"]
            if c["accuracy"] is not None and c["coverage"] > 0
        ]
        if not pts:
            continue
        colour = COLOURS[i % len(COLOURS)]
        out.append(
            f'<polyline fill="none" stroke="{colour}" '
            f'points="{" ".join(_xy(c["coverage"], c["accuracy"]) for c in pts)}"/>'
        )
        for c in {(c["coverage"], c["accuracy"]): c for c in pts}.values():  # one per point
            x, y = _xy(c["coverage"], c["accuracy"]).split(",")
            out.append(
                f'<circle cx="{x}" cy="{y}" r="2.5" fill="{colour}">'
                f"<title>min_confidence {c['threshold']:.2f}</title></circle>"
            )
    return "\n".join([*out, "</svg>"])


def _link(viewer: str | None, c: dict[str, Any], label: str) -> str:
    """``label`` linked to the cited span in ``lateseg serve``'s viewer at ``viewer``
    (its page's ``#open=DOC&start=S&end=E``: a PDF's page with the span highlighted, a
    text or code file scrolled to it)."""
    if not viewer or not c.get("doc_id"):
        return _e(label)
    doc = quote(str(c["doc_id"]), safe="")
    url = f"{viewer.rstrip('/')}/#open={doc}&start={int(c['start'])}&end={int(c['end'])}"
    return f'<a href="{_e(url)}">{_e(label)}</a>'


#: A row's class by its answer's grade.
_GRADES = (("right", "right"), ("wrong", "wrong_shown"), ("abst", "unsure"))

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;white-space:nowrap}.right{background:#e8f5e9}
.wrong{background:#fdecea}.abst{background:#fff8e1}.plots{display:flex;gap:2em;flex-wrap:wrap}
dt{font-family:monospace}.legend span{margin-right:1.5em}
"""


def page(report: EvalReport, viewer: str | None = None) -> str:
    """The report as one self-contained HTML page."""
    head, body = rows_of(report)
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>lateseg eval: {_e(Path(report.questions_file).name)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>lateseg eval: {_e(Path(report.questions_file).name)}</h1>",
        "<table id=summary><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>",
    ]
    for row in body:
        parts.append(
            "<tr>"
            + "".join(f"<td{' class=n' if i else ''}>{_e(c)}</td>" for i, c in enumerate(row))
            + "</tr>"
        )
    parts.append("</table>")
    legend = "".join(
        f'<span style="color:{COLOURS[i % len(COLOURS)]}">&#9632; {_e(r.variant.name)}</span>'
        for i, r in enumerate(report.variants)
    )
    parts += [f"<div class=legend>{legend}</div>", "<div class=plots>", reliability_svg(report),
              coverage_svg(report), "</div>"]  # fmt: skip
    parts.append("<details><summary>What the figures mean</summary><dl>")
    parts += [f"<dt>{_e(n)}</dt><dd>{_e(w)}</dd>" for n, w in FIGURES.items()]
    parts.append("</dl></details>")
    fails = failures(report)
    if fails:
        parts.append(f"<h2>{_e(fails[0].strip())}</h2><ul id=failed>")
        parts += [f"<li>{_e(f)}</li>" for f in fails[1:]]
        parts.append("</ul>")
    for r in report.variants:
        heads = ("id", "question", "answer shown", "confidence", "gold", "citation", "grade")
        parts += [f"<h2>{_e(r.variant.name)}</h2>", "<table class=rows><tr>"]
        parts[-1] += "".join(f"<th>{h}</th>" for h in heads) + "</tr>"
        for graded in r.rows:
            c = question_cells(graded)
            a = graded.get("answer") or {}
            cls = next((n for n, key in _GRADES if a.get(key)), "")
            top = (graded.get("retrieval") or {}).get("top")
            cites = a.get("citations") or ([top] if top else [])
            cite = _link(viewer, cites[0], c["citation"]) if cites else ""
            parts.append(
                f'<tr class="{cls}"><td>{_e(c["id"])}</td><td>{_e(c["question"])}</td>'
                f"<td>{_e(c['shown'])}</td><td class=n>{_e(c['confidence'])}</td>"
                f"<td>{_e(c['gold'])}</td><td>{cite}</td><td>{_e(c['grade'])}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(report: EvalReport, folder: str | Path, viewer: str | None = None) -> list[Path]:
    """``report.md``, ``report.html`` and ``report.json`` in ``folder`` (made); with
    ``viewer`` (the URL ``lateseg serve`` answers at), citations link to it."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        ("report.md", markdown(report)),
        ("report.html", page(report, viewer)),
        ("report.json", to_json(report)),
    ):
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
