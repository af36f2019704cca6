"""The figures of an evaluation, as pure functions over spans, texts and confidences.

``lateseg eval`` (:mod:`lateseg.eval.run`), ``bench/retrieval.py``, ``bench/answers.py``
and ``bench/confidence.py`` all compute their figures here, so a user's numbers and the
published ones cannot drift apart. No model, index or file is touched: every function
takes what was retrieved or answered and the gold, and returns numbers.

Spans are ``(source, start, end)`` character ranges of a document's text (end
exclusive). Definitions (also in ``lateseg eval --help`` and the README):

* **hit@k**: some of the top ``k`` passages covers at least :data:`COVER` (half) of a
  gold span;
* **MRR@10**: 1 / the rank of the first passage that covers half of a gold span, 0 when
  none of the top 10 does;
* **character precision@k / recall@k** (LegalBench-RAG's): of the characters of the top
  ``k`` passages, the share inside a gold span; of the gold spans' characters, the share
  inside one of the top ``k`` passages (overlapping passages count their characters
  once);
* **wrong document (top hit)**: the top passage is from none of the gold's documents;
* **right**: an answer is presented (its phrase shown first, or a generated text), not
  unsure, holding an accepted value, and citing a gold document where the question gives
  one; **wrong shown**: an answer is presented that holds no accepted value or cites no
  gold document; **abstained**: the answer says it is not sure. Right, wrong shown and
  abstained exclude each other (an answer that presents nothing, "the passages do not
  state it", is none of them);
* **expected calibration error**: over bins of confidence (:data:`BINS` equal widths),
  the answers' share in the bin times the gap between their mean confidence and their
  share right, summed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

#: A passage covering at least this share of a gold span is a hit.
COVER = 0.5
#: The rank MRR counts to.
MRR_K = 10
#: Bins of the reliability diagram and the expected calibration error.
BINS = 10
#: The ``min_confidence`` values of the precision–coverage curve.
THRESHOLDS = tuple(i / 20 for i in range(20))

# Curly quotes, primes and apostrophes become ASCII quotes; hyphen and dash variants (and
# the minus sign) become "-".
_ASCII = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u0060\u00b4", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
    }
)


class Span(NamedTuple):
    """A character range ``[start, end)`` of the text of the document ``source``."""

    source: str
    start: int
    end: int

    @property
    def length(self) -> int:
        return max(self.end - self.start, 0)


def normalise_answer(text: str) -> str:
    """Text as answers are compared: curly quotes, apostrophes and dashes as ASCII,
    whitespace collapsed to single spaces, lowercase."""
    return " ".join(text.translate(_ASCII).split()).lower()


def holds_answer(text: str | None, answers: Sequence[str]) -> bool | None:
    """Whether ``text`` holds one of the accepted ``answers``, both normalised (None: no
    accepted value to look for). A form must not continue a longer number or word on its
    left ("60 days" is not in "160 days"; nor "5,000" in "$5,000" or "1.5,000": the
    bench's rule for numbers, kept), nor a number on its right ("5" is not in "50 days").
    A name may follow a dot or a sigil: ``exceptions.PluginFailed`` and ``$EDITOR`` name
    ``PluginFailed`` and ``EDITOR``."""
    if not answers:
        return None
    if not text:
        return False
    flat = normalise_answer(text)
    for a in answers:
        form = normalise_answer(a)
        if not form:
            continue
        head = r"(?<![\w$.])" if form[0].isdigit() else r"(?<!\w)"
        tail = r"(?!\d)" if form[-1].isdigit() else ""
        if re.search(head + re.escape(form) + tail, flat):
            return True
    return False


def overlap(a: Span, b: Span) -> int:
    """Characters ``a`` and ``b`` share (0 for different documents)."""
    if a.source != b.source:
        return 0
    return max(min(a.end, b.end) - max(a.start, b.start), 0)


def covers(passage: Span, gold: Span, share: float = COVER) -> bool:
    """Whether ``passage`` holds at least ``share`` of ``gold``'s characters."""
    return passage.source == gold.source and overlap(passage, gold) >= share * gold.length


def first_cover(ranked: Sequence[Span], golds: Sequence[Span], limit: int = MRR_K) -> int:
    """The 0-based rank of the first of ``ranked[:limit]`` covering half of a gold span,
    -1 where none does."""
    for i, p in enumerate(ranked[:limit]):
        if any(covers(p, g) for g in golds):
            return i
    return -1


def merged(spans: Sequence[Span]) -> list[Span]:
    """``spans`` with those of one document that overlap or touch joined."""
    out: list[Span] = []
    for sp in sorted(spans):
        last = out[-1] if out else None
        if last is not None and last.source == sp.source and sp.start <= last.end:
            out[-1] = Span(last.source, last.start, max(last.end, sp.end))
        else:
            out.append(sp)
    return out


def char_precision_recall(retrieved: Sequence[Span], golds: Sequence[Span]) -> tuple[float, float]:
    """LegalBench-RAG's character precision and recall of ``retrieved`` against
    ``golds`` (disjoint, as its benchmark guarantees): the characters of each retrieved
    span inside each gold span, over all retrieved characters and over all gold
    characters; overlapping retrieved spans are merged first (LegalBench-RAG would count
    such a character twice, and its recall could pass 1). 0 where there is nothing to
    divide by."""
    retrieved = merged(retrieved)
    common = sum(overlap(r, g) for r in retrieved for g in golds)
    total = sum(r.length for r in retrieved)
    relevant = sum(g.length for g in golds)
    return (common / total if total else 0.0, common / relevant if relevant else 0.0)


@dataclass(frozen=True)
class RetrievalGrade:
    """One question's retrieval figures (see the module docstring)."""

    hit: bool
    reciprocal_rank: float
    precision: float
    recall: float
    wrong_document: bool


def grade_retrieval(ranked: Sequence[Span], golds: Sequence[Span], k: int) -> RetrievalGrade:
    """The figures of ``ranked`` (best first, at least :data:`MRR_K` where the search
    gives them) against ``golds``: hit and character precision/recall over the top
    ``k``, the reciprocal rank over the top :data:`MRR_K`."""
    first = first_cover(ranked, golds, max(k, MRR_K))
    precision, recall = char_precision_recall(ranked[:k], golds)
    sources = {g.source for g in golds}
    return RetrievalGrade(
        hit=0 <= first < k,
        reciprocal_rank=1.0 / (first + 1) if 0 <= first < MRR_K else 0.0,
        precision=precision,
        recall=recall,
        wrong_document=bool(ranked) and ranked[0].source not in sources,
    )


@dataclass(frozen=True)
class AnswerGrade:
    """One answer's grades. ``value``: an accepted value is in its text (as answered,
    unsure or not: what a confidence is fitted to); ``right``, ``wrong_shown``,
    ``abstained``: see the module docstring; ``cited_gold``: it cites a gold document
    (None: the question names none)."""

    value: bool | None
    right: bool | None
    wrong_shown: bool
    abstained: bool
    cited_gold: bool | None


def grade_answer(
    text: str,
    shown: str | None,
    unsure: bool,
    cited: Iterable[str],
    answers: Sequence[str],
    gold_sources: Iterable[str] = (),
) -> AnswerGrade:
    """Grade an answer whose whole ``text`` and presented value ``shown`` (its phrase,
    or its generated text; None where it presents none) were given ``unsure`` or not,
    citing the documents ``cited``, against the accepted ``answers`` (none: no value to
    grade) and the documents the gold is in (none: any document may answer)."""
    golds = set(gold_sources)
    cited_gold = bool(golds & set(cited)) if golds else None
    value = holds_answer(text, answers)
    if value is None:
        return AnswerGrade(None, None, False, unsure, cited_gold)
    holds = bool(shown is not None and holds_answer(shown, answers))
    given = shown is not None and not unsure
    wrong = given and (not holds or cited_gold is False)
    right = given and holds and cited_gold is not False
    return AnswerGrade(value, right, wrong, unsure, cited_gold)


def mean(values: Iterable[float | bool]) -> float | None:
    """The mean of ``values`` (None where there are none)."""
    got = [float(v) for v in values]
    return sum(got) / len(got) if got else None


class Bin(NamedTuple):
    """One bin of a reliability diagram: confidences in ``[low, high)`` (the last bin
    holds 1.0 too), how many ``answers``, their mean confidence and share right."""

    low: float
    high: float
    answers: int
    confidence: float
    right: float


def reliability(confidence: Sequence[float], right: Sequence[bool], bins: int = BINS) -> list[Bin]:
    """The non-empty bins of the reliability diagram of ``confidence`` against ``right``."""
    out = []
    which = [min(int(c * bins), bins - 1) for c in confidence]
    for b in range(bins):
        member = [i for i, w in enumerate(which) if w == b]
        if not member:
            continue
        out.append(
            Bin(
                b / bins,
                (b + 1) / bins,
                len(member),
                sum(confidence[i] for i in member) / len(member),
                sum(bool(right[i]) for i in member) / len(member),
            )
        )
    return out


def expected_calibration_error(
    confidence: Sequence[float], right: Sequence[bool], bins: int = BINS
) -> float | None:
    """Sum over bins of (share of answers) x |mean confidence - share right| (None: no
    answers)."""
    n = len(confidence)
    if not n:
        return None
    return sum(
        b.answers / n * abs(b.confidence - b.right) for b in reliability(confidence, right, bins)
    )


class Coverage(NamedTuple):
    """The outcome of one ``min_confidence``: shares of all graded answers given
    (``coverage``), right, wrong shown and unsure, and the share right of those given
    (``accuracy``; NaN where none is given)."""

    threshold: float
    coverage: float
    accuracy: float
    right: float
    wrong_shown: float
    unsure: float


def at_threshold(
    confidence: Sequence[float], right: Sequence[bool], wrong: Sequence[bool], t: float
) -> Coverage:
    """What ``min_confidence=t`` makes of answers always given with these confidences
    and grades: below ``t`` an answer is unsure (not given)."""
    n = max(len(confidence), 1)
    given = [c >= t for c in confidence]
    shown = sum(given)
    hits = sum(g and bool(r) for g, r in zip(given, right, strict=True))
    bad = sum(g and bool(w) for g, w in zip(given, wrong, strict=True))
    return Coverage(
        t,
        shown / n,
        hits / shown if shown else math.nan,
        hits / n,
        bad / n,
        (len(confidence) - shown) / n,
    )


def precision_coverage(
    confidence: Sequence[float],
    right: Sequence[bool],
    wrong: Sequence[bool],
    thresholds: Sequence[float] = THRESHOLDS,
) -> list[Coverage]:
    """:func:`at_threshold` at each of ``thresholds`` (the precision–coverage curve)."""
    return [at_threshold(confidence, right, wrong, t) for t in thresholds]
