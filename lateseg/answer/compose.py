"""Quoted answers composed: the best sentences a quote found, made an
:class:`~lateseg.types.Answer` with its phrase, the sentence that phrase stands in and
its citations.

Every mode shows an answer the same way: the phrase is built here only
(:func:`make_phrase`, also for the copy and generate modes in
:mod:`lateseg.generate.compose`), and a sentence is always a part of its passage
(:meth:`Hit.part <lateseg.types.Hit.part>`). Nothing here ranks, decodes or retrieves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lateseg.answer.phrase import WORDED, answer_phrase
from lateseg.types import NO_PASSAGE, Answer, Hit, Phrase

if TYPE_CHECKING:
    from lateseg.answer.question import Asked

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
    (:func:`~lateseg.answer.phrase.answer_phrase`), or None when that text states
    nothing of the kind asked."""
    end = len(sentence.text) if end is None else end
    found = answer_phrase(asked, sentence.text[start:end])
    if found is None or found[1] <= found[0]:
        return None
    return make_phrase(sentence, [(start + found[0], start + found[1])], asked.kind)


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
