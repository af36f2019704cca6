"""Evaluation on a user's own documents and questions: judge-free, deterministic,
character-exact (``lateseg eval``).

Owns the question files (:mod:`~lateseg.eval.questions`: JSONL and LegalBench-RAG's
JSON), the figures (:mod:`~lateseg.eval.metrics`: pure functions that ``bench/`` uses
too), the run over an index (:mod:`~lateseg.eval.run`), and the reports
(:mod:`~lateseg.eval.report`, :mod:`~lateseg.eval.html`). It may import the pipeline,
the answer options and the confidence; nothing below the front ends imports it.

    from lateseg.eval import evaluate, assert_quality
    report = evaluate("questions.jsonl", "idx")
    assert_quality(report, min_hit_at_5=0.8, max_wrong_shown=0.05)
"""

from __future__ import annotations

from collections.abc import Iterable

from lateseg.eval.questions import Gold, Question, QuestionFile, read_questions
from lateseg.eval.report import (
    FIGURES,
    LOWER_IS_BETTER,
    EvalReport,
    VariantResult,
    figure_names,
)
from lateseg.eval.run import evaluate
from lateseg.eval.variant import Variant

__all__ = [
    "FIGURES",
    "LOWER_IS_BETTER",
    "EvalReport",
    "Gold",
    "Question",
    "QuestionFile",
    "Variant",
    "VariantResult",
    "assert_quality",
    "bound_of",
    "evaluate",
    "quality_failures",
    "read_questions",
]


def quality_failures(report: EvalReport, **bounds: float) -> list[str]:
    """The bounds ``report`` breaks, one line each: ``min_NAME=x`` asks figure ``NAME``
    (:data:`~lateseg.eval.report.FIGURES`, with a variant's ``k``: ``hit_at_5``) to be
    at least ``x`` in every variant that has it, ``max_NAME=x`` at most ``x``. A figure a
    variant did not measure (None: no question graded for it) breaks a bound. An unknown
    name is a ``ValueError`` listing the known ones."""
    out = []
    for key, limit in bounds.items():
        side, name = bound_of(key, [r.variant.k for r in report.variants])
        for r in report.variants:
            if name not in figure_names(r.variant.k):
                continue  # hit_at_5 binds the variants of k=5
            got = r.summary.get(name)
            if got is None:
                out.append(f"{r.variant.name}: {name} was not measured (bound {side} {limit})")
            elif (side == "min" and got < limit) or (side == "max" and got > limit):
                word = "below" if side == "min" else "above"
                out.append(f"{r.variant.name}: {name} = {got:.4g}, {word} {limit}")
    return out


def bound_of(key: str, ks: Iterable[int]) -> tuple[str, str]:
    """``key`` (``min_NAME`` or ``max_NAME``) as (side, figure name), checked against the
    figures of variants of ``ks`` passages; a ``ValueError`` naming the known ones."""
    side, _, name = key.partition("_")
    if side not in ("min", "max") or not name:
        raise ValueError(f"{key}: give min_FIGURE or max_FIGURE")
    known = list(dict.fromkeys(n for k in ks for n in figure_names(k)))
    if name not in known:
        raise ValueError(f"{key}: no figure {name!r}; the figures are {', '.join(known)}")
    return side, name


def assert_quality(report: EvalReport, **bounds: float) -> None:
    """Fail (``AssertionError`` carrying the summary table) where ``report`` breaks one of
    ``bounds`` (:func:`quality_failures`), so a pytest test in a user's CI shows what
    fell short and by how much."""
    broken = quality_failures(report, **bounds)
    if broken:
        raise AssertionError(
            "quality bounds broken:\n  " + "\n  ".join(broken) + "\n\n" + report.table()
        )
