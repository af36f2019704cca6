"""Answers composed for the modes that run a generator: the span it copied (copy mode),
the text it wrote (generate mode) checked against the passages, and the answer when no
passage fits its budget. The phrase is made as a quote's is
(:func:`lateseg.answer.compose.make_phrase`), so every mode shows an answer the same
way. Nothing here ranks, decodes or retrieves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lateseg.answer.citations import parse_citations
from lateseg.answer.compose import make_phrase, value_phrase
from lateseg.check.support import check_support
from lateseg.text.boundaries import sentence_spans
from lateseg.types import NO_PASSAGE, Answer, Hit, Support

if TYPE_CHECKING:
    from lateseg.answer.question import Asked
    from lateseg.encode.late import LateEncoder


def too_long(dropped: Sequence[Hit], budget: int) -> Answer:
    """The answer when no passage fits the generator's budget (nothing was generated)."""
    return Answer(
        f"None of the {len(dropped)} passages fits the generator's budget of {budget} tokens; "
        "give fewer or shorter passages, or a larger context_tokens.",
        (),
        dropped=tuple(dropped),
        finish="length",
    )


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
    against its evidence (:func:`~lateseg.check.support.check_support`; with
    ``quote``, the extractive answer from the same passages, against it too), citing the
    passages it marks as ``[n]``; an answer with no marker cites the passages that hold
    the evidence of its supported sentences (``cited_by="attribution"``), and none when
    no sentence is supported: closeness alone never makes an answer cited. Its phrase is
    the value where the first supported sentence's evidence states it."""
    if not passages:
        return Answer(NO_PASSAGE, ())
    support = check_support(text, asked, passages, encoder, quote=quote)
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


def __getattr__(name: str) -> object:
    """The quoting names this module held before issue 61, now in
    :mod:`lateseg.answer.compose`."""
    if name in ("KIND_NAMES", "make_phrase", "value_phrase", "quoted"):
        import lateseg.answer.compose

        return getattr(lateseg.answer.compose, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
