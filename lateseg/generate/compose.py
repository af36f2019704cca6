"""Answers composed, for every mode: what a mode found (the best quoted sentence, the
span the generator copied, the text it wrote) made an :class:`~lateseg.types.Answer`
with its phrase, the sentence that phrase stands in and its citations.

The modes differ in how they choose what to show, never in how it is shown: the phrase
is built here only (:func:`make_phrase`), a sentence is always a part of its passage
(:meth:`Hit.part <lateseg.types.Hit.part>`), and an answer whose passages did not fit
the generator says so the same way (:func:`too_long`). Nothing here ranks, decodes or
retrieves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lateseg.generate.citations import parse_citations
from lateseg.generate.phrase import WORDED, answer_phrase
from lateseg.generate.support import check_support
from lateseg.text.boundaries import sentence_spans
from lateseg.types import NO_PASSAGE, Answer, Hit, Phrase, Support

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.generate.question import Asked

#: How the question kinds are named to a reader when no passage states them.
KIND_NAMES = {
    "duration": "a duration",
    "when": "a time or date",
    "date": "a date",
    "percent": "a percentage or rate",
    "money": "an amount",
    "count": "a number",
    "limit": "a limit",
    "distance": "a distance",
}


def make_phrase(sentence: Hit, parts: Sequence[tuple[int, int]], kind: str) -> Phrase:
    """The phrase of ``parts`` (offsets in ``sentence.text``; a list's items are
    several) standing in ``sentence``, asked as ``kind``: the one place a phrase is made,
    so its text is always its parts as the document writes them."""
    return Phrase(
        ", ".join(sentence.text[a:b] for a, b in parts),
        tuple((sentence.start + a, sentence.start + b) for a, b in parts),
        sentence,
        kind,
    )


def value_phrase(
    asked: Asked, sentence: Hit, start: int = 0, end: int | None = None
) -> Phrase | None:
    """The answer phrase inside ``sentence.text[start:end]``
    (:func:`~lateseg.generate.phrase.answer_phrase`), or None when that text states
    nothing of the kind asked."""
    end = len(sentence.text) if end is None else end
    found = answer_phrase(asked, sentence.text[start:end])
    if found is None or found[1] <= found[0]:
        return None
    return make_phrase(sentence, [(start + found[0], start + found[1])], asked.kind)


def too_long(dropped: Sequence[Hit], budget: int) -> Answer:
    """The answer when no passage fits the generator's budget (nothing was generated)."""
    return Answer(
        f"None of the {len(dropped)} passages fits the generator's budget of {budget} tokens; "
        "give fewer or shorter passages, or a larger context_tokens.",
        (),
        dropped=tuple(dropped),
        finish="length",
    )


def _quote(hit: Hit, start: int, end: int) -> str:
    """The quoted text: code verbatim, as in the file (line breaks and indentation);
    other text with whitespace collapsed (PDF line breaks are layout)."""
    if hit.kind == "code":
        return "\n" + hit.text[start:end] + "\n"
    return " ".join(hit.text[start:end].split())


def quoted(
    asked: Asked,
    hits: Sequence[Hit],
    chosen: Sequence[tuple[int, int, int]],
    phrase: Phrase | None,
) -> Answer:
    """The quoted answer: the ``chosen`` sentences (``(passage, start, end)`` in passage
    order), each followed by the number of the passage it cites, and ``phrase``; when
    the question asks for a value that no sentence states, the text says so first."""
    if not chosen:
        return Answer(NO_PASSAGE, (), tuple(hits), "quote", "quote")
    cited: list[int] = []
    parts = []
    for p, start, end in chosen:
        if p not in cited:
            cited.append(p)
        parts.append(f"{_quote(hits[p], start, end)} [{cited.index(p) + 1}]")
    text = " ".join(parts)
    if phrase is None and asked.kind in KIND_NAMES and asked.kind not in WORDED:
        text = f"The passages do not state {KIND_NAMES[asked.kind]} for this. Closest: {text}"
    return Answer(text, tuple(hits[i] for i in cited), tuple(hits), "quote", "quote", phrase=phrase)


def copied(
    asked: Asked,
    shown: Sequence[Hit],
    where: tuple[int, int, int] | None,
    dropped: Sequence[Hit],
    stats: dict[str, Any] | None,
    finish: str | None,
) -> Answer:
    """The copied answer: the span ``where`` (``(passage, start, end)``) of ``shown``
    that the generator copied, as text citing its passage, its phrase the value inside
    it (the span itself when it states none) in the sentence it stands in (or the span,
    when it runs over sentences); supported by construction."""
    if where is None:
        return Answer(
            "The generator copied nothing from the passages.", (), tuple(shown), "copy",
            "copy", stats, dropped=tuple(dropped), finish=finish,
        )  # fmt: skip
    p, a, b = where
    hit = shown[p]
    s, e = next(((x, y) for x, y in sentence_spans(hit.text) if x <= a < y), (a, b))
    sentence = hit.part(min(s, a), max(e, b))
    a, b = a - sentence.start + hit.start, b - sentence.start + hit.start
    phrase = value_phrase(asked, sentence, a, b) or make_phrase(sentence, [(a, b)], asked.kind)
    evidence = sentence.part(a, b, score=1.0)
    support = (Support(evidence.text, 0, len(evidence.text), True, evidence, 1.0, (p + 1,), None),)
    return Answer(
        f"{' '.join(evidence.text.split())} [1]", (hit,), tuple(shown), "copy", "copy",
        stats, support, tuple(dropped), finish=finish, phrase=phrase,
    )  # fmt: skip


def generated(
    text: str,
    asked: Asked,
    passages: Sequence[Hit],
    encoder: LateEncoder,
    stats: dict[str, Any] | None,
    dropped: Sequence[Hit] = (),
    finish: str | None = None,
    model: str | None = None,
    quote: Answer | None = None,
) -> Answer:
    """The generated ``text`` (written by ``model``) as an answer: each sentence checked
    against its evidence (:func:`~lateseg.generate.support.check_support`; with
    ``quote``, the extractive answer from the same passages, against it too), citing the
    passages it marks as ``[n]``; an answer with no marker cites the passages that hold
    the evidence of its supported sentences (``cited_by="attribution"``), and none when
    no sentence is supported: closeness alone never makes an answer cited. Its phrase is
    the value where the first supported sentence's evidence states it."""
    if not passages:
        return Answer(NO_PASSAGE, ())
    support = check_support(text, asked.question, passages, encoder, quote=quote)
    marked = parse_citations(text, passages)
    held = [(s.evidence.source, s.evidence.chunk_id) for s in support if s.supported and s.evidence]
    # a supported sentence cites the passage that holds its evidence (the one it copied
    # from, whatever its marker says); an unsupported answer keeps only its markers
    cited = [p for key in dict.fromkeys(held) for p in passages if (p.source, p.chunk_id) == key]
    if not held:
        cited = marked
    by = "model" if marked and cited == marked else "attribution"
    first = next((s.evidence for s in support if s.supported and s.evidence is not None), None)
    phrase = None if first is None else value_phrase(asked, first)
    return Answer(
        text, tuple(cited), tuple(passages), "generate", by, stats, support, tuple(dropped),
        finish=finish, phrase=phrase, model=model,
    )  # fmt: skip
