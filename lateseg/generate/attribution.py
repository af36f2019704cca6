"""A generated text made an :class:`~lateseg.types.Answer`: each sentence checked against
its evidence, the passages cited where the evidence lies (not only where the model's
``[n]`` markers point), and the answer phrase where the evidence states it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lateseg.generate.citations import parse_citations
from lateseg.generate.phrase import answer_phrase
from lateseg.generate.question import analyse
from lateseg.generate.support import check_support
from lateseg.types import Answer, Hit, Phrase

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder


def cite(
    text: str,
    question: str,
    passages: Sequence[Hit],
    encoder: LateEncoder,
    stats: dict[str, Any] | None,
    dropped: Sequence[Hit] = (),
    finish: str | None = None,
) -> Answer:
    """The generated ``text`` as an answer: each sentence checked against its evidence
    (:func:`~lateseg.generate.support.check_support`), citing the passages it marks as
    ``[n]``; an answer with no marker cites the passages that hold the evidence of its
    supported sentences (``cited_by="attribution"``), and none when no sentence is
    supported: closeness alone never makes an answer cited."""
    support = check_support(text, question, passages, encoder)
    marked = parse_citations(text, passages)
    held = [(s.evidence.source, s.evidence.chunk_id) for s in support if s.supported and s.evidence]
    # a supported sentence cites the passage that holds its evidence (the one it copied
    # from, whatever its marker says); an unsupported answer keeps only its markers
    cited = [p for key in dict.fromkeys(held) for p in passages if (p.source, p.chunk_id) == key]
    if not held:
        cited = marked
    by = "model" if marked and cited == marked else "attribution"
    first = next((s.evidence for s in support if s.supported and s.evidence is not None), None)
    phrase = None if first is None else evidence_phrase(question, first)
    return Answer(
        text, tuple(cited), tuple(passages), "generative", by, stats, support, tuple(dropped),
        finish=finish, phrase=phrase,
    )  # fmt: skip


def evidence_phrase(question: str, evidence: Hit) -> Phrase | None:
    """The answer phrase inside an evidence sentence (a generated answer's value where
    the document states it), or None when it states no value of the kind asked."""
    asked = analyse(question)
    found = answer_phrase(asked, evidence.text)
    if found is None or found[1] <= found[0]:
        return None
    a, b = evidence.start + found[0], evidence.start + found[1]
    return Phrase(evidence.text[found[0] : found[1]], ((a, b),), evidence, asked.kind)
