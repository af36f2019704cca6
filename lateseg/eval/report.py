"""An evaluation's figures and the ways people read them: a terminal table, JSON, and a
report folder (Markdown and HTML with the reliability diagram and the precision–coverage
curve, and every question's row).

Figure names (the keys of :attr:`VariantResult.summary`, the names ``assert_quality``
and ``--fail-under`` take) are defined in :data:`FIGURES`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lateseg.eval import metrics

if TYPE_CHECKING:
    from lateseg.eval.variant import Variant

#: Every figure of a summary, with what it means (``{k}``: the variant's ``k``).
FIGURES = {
    "questions": "questions asked (graded + failed)",
    "failed": "questions that could not be graded and lines left out (listed with reasons)",
    "retrieval_graded": "questions with a gold span, graded for retrieval",
    "hit_at_{k}": "share with a top-k passage covering >= 50% of a gold span",
    "mrr_at_10": "mean of 1/rank of the first passage covering >= 50% of a gold span (0 past 10)",
    "char_precision_at_{k}": "characters of the top-k passages inside a gold span, over theirs "
    "(LegalBench-RAG)",
    "char_recall_at_{k}": "gold characters inside the top-k passages, over the gold's "
    "(LegalBench-RAG)",
    "wrong_document": "share whose top passage is from no gold document",
    "answers_graded": "questions with accepted answers, graded for the answer",
    "right": "share with an accepted value in the answer shown, cited from a gold document",
    "wrong_shown": "share with an answer shown that holds no accepted value or cites no gold "
    "document",
    "abstained": "share answered 'not sure' (below min_confidence)",
    "accuracy": "right among the answers given (not abstained)",
    "unanswerable": "questions marked unanswerable",
    "unanswerable_abstained": "share of those answered 'not sure' or 'not stated'",
    "ece": "expected calibration error of the rated answers (10 bins, as if always given)",
    "ungraded": "questions with nothing to grade (no gold span, no answers, not unanswerable)",
    "seconds_per_question": "mean seconds to search and answer one graded question (the "
    "search graded for retrieval and the one ask makes are both counted)",
}
#: Figures where lower is better: ``--fail-over`` bounds them (``--fail-under`` refuses them).
LOWER_IS_BETTER = {"failed", "wrong_document", "wrong_shown", "abstained", "ece", "ungraded",
                   "seconds_per_question"}  # fmt: skip


@dataclass
class VariantResult:
    """One variant's rows (a dict per graded question), failures and summary."""

    variant: Variant
    rows: list[dict[str, Any]]
    failed: list[dict[str, Any]]
    summary: dict[str, Any]


@dataclass
class EvalReport:
    """What :func:`~lateseg.eval.run.evaluate` measured: per variant, its figures."""

    questions_file: str
    format: str
    variants: list[VariantResult]
    problems: list[dict[str, Any]] = field(default_factory=list)

    def summary(self, variant: str | None = None) -> dict[str, Any]:
        """The figures of ``variant`` (by name; None: the first)."""
        for r in self.variants:
            if variant is None or r.variant.name == variant:
                return r.summary
        raise KeyError(
            f"no variant {variant!r}; the variants are {[r.variant.name for r in self.variants]}"
        )

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {
            "questions_file": self.questions_file,
            "format": self.format,
            "problems": self.problems,
            "variants": [
                {
                    "variant": asdict(r.variant),
                    "summary": r.summary,
                    "failed": r.failed,
                    "rows": r.rows,
                }
                for r in self.variants
            ],
        }

    def table(self) -> str:
        return table(self)


def summarise(
    v: Variant, rows: list[dict[str, Any]], failed: list[dict[str, Any]]
) -> dict[str, Any]:
    """The figures (:data:`FIGURES`) of one variant's rows."""
    k = v.k
    ret = [r["retrieval"] for r in rows if "retrieval" in r]
    ans = [r["answer"] for r in rows if "answer" in r and r["answer"]["right"] is not None]
    nope = [r["answer"] for r in rows if "answer" in r and r["unanswerable"]]
    given = [a for a in ans if not a["unsure"]]
    rated = [a for a in ans if a["confidence"] is not None]
    conf = [float(a["confidence"]) for a in rated]
    raw_right = [bool(a["raw"]["right"]) for a in rated]
    raw_wrong = [bool(a["raw"]["wrong_shown"]) for a in rated]
    out: dict[str, Any] = {
        "questions": len(rows) + len(failed),
        "failed": len(failed),
        "retrieval_graded": len(ret),
        f"hit_at_{k}": metrics.mean(r["hit"] for r in ret),
        "mrr_at_10": metrics.mean(r["reciprocal_rank"] for r in ret),
        f"char_precision_at_{k}": metrics.mean(r["precision"] for r in ret),
        f"char_recall_at_{k}": metrics.mean(r["recall"] for r in ret),
        "wrong_document": metrics.mean(r["wrong_document"] for r in ret),
        "answers_graded": len(ans),
        "right": metrics.mean(a["right"] for a in ans),
        "wrong_shown": metrics.mean(a["wrong_shown"] for a in ans),
        "abstained": metrics.mean(a["unsure"] for a in ans),
        "accuracy": metrics.mean(a["right"] for a in given),
        "unanswerable": len(nope),
        "unanswerable_abstained": metrics.mean(a["abstained"] for a in nope),
        "ece": metrics.expected_calibration_error(conf, raw_right),
        "ungraded": sum("seconds" not in r for r in rows),
        "seconds_per_question": metrics.mean(r["seconds"] for r in rows if "seconds" in r),
        "reliability": [b._asdict() for b in metrics.reliability(conf, raw_right)],
        "coverage_curve": [
            {
                key: (None if isinstance(x, float) and math.isnan(x) else x)
                for key, x in c._asdict().items()
            }
            for c in metrics.precision_coverage(conf, raw_right, raw_wrong)
        ],
    }
    return out


def figure_names(k: int) -> list[str]:
    """The scalar figures of a summary for a variant of ``k`` passages."""
    return [name.format(k=k) for name in FIGURES]


# -- text -------------------------------------------------------------------------------

_COLUMNS = (
    ("hit@{k}", "hit_at_{k}", "pct"),
    ("MRR@10", "mrr_at_10", "num"),
    ("P_char@{k}", "char_precision_at_{k}", "pct"),
    ("R_char@{k}", "char_recall_at_{k}", "pct"),
    ("wrong doc", "wrong_document", "pct"),
    ("right", "right", "pct"),
    ("wrong shown", "wrong_shown", "pct"),
    ("abstained", "abstained", "pct"),
    ("ECE", "ece", "num"),
    ("s/q", "seconds_per_question", "sec"),
    ("failed", "failed", "int"),
)


def _fmt(value: Any, how: str) -> str:
    if value is None:
        return "-"
    if how == "pct":
        return f"{100 * value:.1f}%"
    if how == "num":
        return f"{value:.3f}"
    if how == "sec":
        return f"{value:.2f}"
    return str(value)


def rows_of(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """The summary table's header and one row per variant."""
    ks = {r.variant.k for r in report.variants}
    k = ks.pop() if len(ks) == 1 else None
    columns = list(_COLUMNS)
    if any(r.summary["unanswerable"] for r in report.variants):  # after "abstained"
        columns.insert(8, ("unanswerable abstained", "unanswerable_abstained", "pct"))
    head = ["variant", *(c[0].format(k=k if k is not None else "k") for c in columns)]
    body = []
    for r in report.variants:
        body.append(
            [
                r.variant.name,
                *(_fmt(r.summary.get(c[1].format(k=r.variant.k)), c[2]) for c in columns),
            ]
        )
    return head, body


def table(report: EvalReport) -> str:
    """The summary as an aligned text table, the failures under it."""
    head, body = rows_of(report)
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    first = report.variants[0].summary
    nothing = f", {first['ungraded']} with nothing to grade" if first["ungraded"] else ""
    lines.append(
        f"\n{first['questions']} questions ({first['retrieval_graded']} graded for retrieval, "
        f"{first['answers_graded']} for the answer, {first['unanswerable']} unanswerable"
        f"{nothing}) from {report.questions_file}"
    )
    lines += failures(report)
    return "\n".join(lines)


def failures(report: EvalReport) -> list[str]:
    """One line per question that failed (per variant where they differ) and per line of
    the file left out."""
    out = []
    seen: set[tuple[str, str]] = set()
    for r in report.variants:
        for f in r.failed:
            if (f["id"], f["reason"]) in seen:
                continue
            seen.add((f["id"], f["reason"]))
            where = f" (line {f['line']})" if f.get("line") else ""
            name = f" [{r.variant.name}]" if len(report.variants) > 1 else ""
            out.append(f"failed {f['id']}{where}{name}: {f['reason']}")
    out += [f"left out line {p['line']}: {p['reason']}" for p in report.problems]
    return [f"\n{len(out)} failed:", *out] if out else []


def markdown(report: EvalReport) -> str:
    """The report as Markdown: the table, the definitions, the calibration, the rows."""
    head, body = rows_of(report)
    lines = [f"# lateseg eval: {Path(report.questions_file).name}", ""]
    lines += ["| " + " | ".join(head) + " |", "|" + " --- |" + " ---: |" * (len(head) - 1)]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in body]
    lines += ["", "## Figures", ""]
    lines += [f"* `{name}`: {what}" for name, what in FIGURES.items()]
    for r in report.variants:
        lines += ["", f"## {r.variant.name}", ""]
        rel = r.summary["reliability"]
        if rel:
            lines += ["Reliability (rated answers, as if always given):", "",
                      "| confidence | answers | mean confidence | share right |",
                      "| --- | ---: | ---: | ---: |"]  # fmt: skip
            lines += [f"| {b['low']:.1f}–{b['high']:.1f} | {b['answers']} | {b['confidence']:.2f} "
                      f"| {b['right']:.2f} |" for b in rel]  # fmt: skip
            lines += ["", "| min_confidence | coverage | accuracy | right | wrong shown |",
                      "| ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
            lines += [
                "| " + " | ".join([f"{c['threshold']:.2f}", *(_fmt(c[key], "pct") for key in
                                   ("coverage", "accuracy", "right", "wrong_shown"))]) + " |"
                for c in r.summary["coverage_curve"]
            ]  # fmt: skip
            lines.append("")
        lines += ["| id | question | answer shown | confidence | gold | citation | grade |",
                  "| --- | --- | --- | ---: | --- | --- | --- |"]  # fmt: skip
        for row in r.rows:
            cells = [
                question_cells(row)[key]
                for key in ("id", "question", "shown", "confidence", "gold", "citation", "grade")
            ]
            lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    fails = failures(report)
    if fails:
        lines += ["", "## Failed", ""] + [f"* {f}" for f in fails[1:]]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """A table cell of Markdown: one line, its pipes and angle brackets escaped (a
    question's ``<script>`` stays text where the Markdown is rendered)."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("|", "\\|").replace("\n", " ")
    )  # fmt: skip


def _place(c: dict[str, Any]) -> str:
    name = Path(c["source"]).name
    bits = [name]
    if c.get("page"):
        bits.append(f"p. {c['page']}")
    if c.get("line"):
        bits.append(f"line {c['line']}")
    if c.get("section"):
        bits.append(str(c["section"])[:60])
    return ", ".join(bits)


def question_cells(row: dict[str, Any]) -> dict[str, str]:
    """One question's row as a reader sees it (the Markdown and HTML reports')."""
    a = row.get("answer") or {}
    r = row.get("retrieval") or {}
    gold = row.get("gold") or []
    golds = [
        f"{Path(g['source']).name} [{g['start']}, {g['end']})" if isinstance(g, dict)
        else Path(g).name
        for g in gold
    ]  # fmt: skip
    accepted = " / ".join(row.get("answers") or [])
    grade = []
    if r:
        grade.append("hit" if r["hit"] else "miss")
    if a:
        grade.append(
            "right" if a.get("right") else "wrong shown" if a.get("wrong_shown")
            else "abstained" if a.get("unsure") or a.get("abstained") else "not right"
        )  # fmt: skip
    cite = a.get("citations") or []
    return {
        "id": row["id"],
        "question": row["question"],
        "shown": (a.get("shown") or (a.get("text") or "")[:200]) if a else "",
        "confidence": "-" if a.get("confidence") is None else f"{a['confidence']:.2f}",
        "gold": "; ".join(filter(None, [accepted, *golds]))
        or ("unanswerable" if row.get("unanswerable") else ""),
        "citation": _place(cite[0]) if cite else (_place(r["top"]) if r.get("top") else ""),
        "grade": ", ".join(grade),
    }


def to_json(report: EvalReport) -> str:
    return json.dumps(report.to_dict(), indent=1, default=str)
