"""The facts of a text that the support check compares: its values (numbers, amounts,
durations with their units, dates as their numbers) and its names (capitalised words that
do not open a sentence); and :class:`Premises`, what the question gives itself, read once
per check (values and names a question gives are premises, not claims).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lateseg.text.values import find_values, number_word
from lateseg.text.words import STOPWORDS, WORD_PATTERN

if TYPE_CHECKING:
    from lateseg.answer.question import Asked

_TOKEN = re.compile(r"\$?\d[\d,]*(?:\.\d+)?%?|" + WORD_PATTERN)
# Capitalised words that are not names (they open clauses, label things, or are ours).
_NOT_NAMES_WORDS = (
    "according answer appendix article based but clause clauses exhibit however note "
    "paragraph passage passages question schedule section sections therefore"
)
_NOT_NAMES = STOPWORDS | frozenset(_NOT_NAMES_WORDS.split())


def tokens(text: str) -> list[str]:
    """The words and numbers of ``text`` as written (``$1,000``, ``4.5%``, ``AES-256``)."""
    return [m.group(0) for m in _TOKEN.finditer(text)]


def facts(text: str) -> tuple[set[tuple[float, str | None]], set[str]]:
    """The values in ``text`` as ``(amount, unit)`` (unit: a duration's, else None; a
    date as its day and year) and its names (lowercased capitalised words that do not
    open a sentence). ``sixty (60) days`` gives one fact, ``(60.0, "day")``; a clause
    number (``10.2 Cap on Liability``, ``Section 9.3``) gives none: it is not a value."""
    found: set[tuple[float, str | None]] = set()
    for v in find_values(text):
        if not v.is_value:
            continue
        if v.amount is None or v.kind == "date":  # a date or time: its numbers
            found |= {(float(n), None) for n in re.findall(r"\d+", text[v.start : v.end])}
            continue
        found.add((v.amount, v.unit if v.kind == "duration" else None))
    return found, names(text)


def names(text: str, openers: bool = False) -> set[str]:
    """Lowercased capitalised words of ``text`` that do not open a sentence, a clause or a
    list item (``openers=True``: those that do)."""
    out = set()
    for m in re.finditer(r"[A-Z][A-Za-z]*(?:[-'’][A-Za-z]+)*", text):
        word = m.group(0)
        before = text[: m.start()].rstrip(" \t\"'“‘(")
        if (not before or before[-1] in ".!?:;\n]") != openers:
            continue
        if word.lower() in _NOT_NAMES or number_word(word):
            continue
        out.add(word.lower())
    return out


def holds_numbers(numbers: set[tuple[float, str | None]], evidence: str) -> bool:
    """Whether ``evidence`` states every one of ``numbers`` (a duration with its unit)."""
    have, _ = facts(evidence)
    values = {v for v, _ in have}
    return all((v, u) in have if u else v in values for v, u in numbers)


@dataclass(frozen=True)
class Premises:
    """What the question ``asked`` gives itself, read once per check: its ``numbers``
    and ``names`` (:func:`facts`) and its ``tokens`` (:func:`tokens`, lowercased). A
    claim that repeats them claims nothing new."""

    asked: Asked
    numbers: frozenset[tuple[float, str | None]]
    names: frozenset[str]
    tokens: frozenset[str]

    @classmethod
    def of(cls, asked: Asked) -> Premises:
        """The premises of ``asked``."""
        numbers, said = facts(asked.question)
        words = frozenset(w.lower() for w in tokens(asked.question))
        return cls(asked, frozenset(numbers), frozenset(said), words)
