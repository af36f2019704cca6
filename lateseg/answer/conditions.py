"""The conditions a question states, and whether a sentence's conditions are the same.

A contract often states one value per branch: "If Landlord is in default, Tenant may
terminate on ten (10) days' notice" and "If Landlord is not in default, … one hundred
eighty (180) days' notice". Both hold every word of "what notice is required if the
landlord is not in default?"; what tells them apart is the polarity of those words: the
question's "not in default" against each branch's "in default" or "not in default".

:func:`condition_words` reads the clause after the question's "if", "when", "unless", "in
the event" … as words, each with whether a negation ("not", "no", "without", "other
than", "unless" …) comes before it in its part of the clause ("without cause and no
change in control": ``cause`` and ``change``/``control`` negated).
:func:`condition_agreement` scores a sentence by the polarity of those it holds: the
opposite polarity counts against it, a negated condition held negated for it. A value
in an exception ("except that …") is not the rule a question asks about unless it asks
about an exception (:func:`in_exception`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lateseg.text.values import number_word
from lateseg.text.words import STOPWORDS, stem, words

# Where a question's condition starts (not at its start: "When must …" asks a time).
_MARKER = re.compile(
    r"(?<=\S)\s+(?:if|when|whenever|where|unless|provided\s+that|assuming|once|"
    r"in\s+(?:the\s+)?(?:event|case)\s+(?:that|of)?)\s+(.+)$",
    re.IGNORECASE | re.DOTALL,
)
# What ends one part of a condition and starts the next.
_PART = re.compile(r"[,;:()]|\s(?:and|or|but|nor|then|if|when|unless|except|provided)\s", re.I)
# What negates the words after it in its part.
_NEGATION = re.compile(
    r"\b(?:not|no|never|without|unless|other\s+than|absent|except|neither|nor|none)\b|n['’]t\b",
    re.IGNORECASE,
)


# What opens an exception to the rule a sentence states.
_EXCEPTION = re.compile(
    r"\bexcept\b|\bprovided,?\s+however\b|\bsave\s+that\b|\bnotwithstanding\b|\bexcluding\b",
    re.IGNORECASE,
)
# A question that asks about an exception ("what is excepted", "which exception applies").
_ASKS_EXCEPTION = re.compile(r"\bexcept\w*|\bnotwithstanding\b|\bcarve[- ]?outs?\b", re.I)


@dataclass(frozen=True)
class Condition:
    """One word of a question's condition: its ``forms`` (stems of it and of the words
    that say the same: :func:`~lateseg.answer.question.equivalents`) and whether it is
    ``negated``."""

    word: str
    forms: frozenset[str]
    negated: bool


def polarised(text: str) -> list[tuple[str, bool]]:
    """The words of ``text`` but stop words, each with whether a negation comes before
    it in its part of the text (parts end at punctuation and at "and", "or", "but" …)."""
    out: list[tuple[str, bool]] = []
    for part in _PART.split(text):
        if not part or not part.strip():
            continue
        cue = _NEGATION.search(part)
        at = cue.end() if cue else len(part)
        for said, negated in ((part[:at], False), (part[at:], True)):
            out += [
                (w, negated)
                for w in words(said)
                if w not in STOPWORDS and len(w) > 1 and not number_word(w)
            ]
    return out


def condition_words(question: str) -> list[tuple[str, bool]]:
    """The words of the condition ``question`` states (after "if", "unless", "in the
    event" …), each with whether it is negated; none when it states no condition."""
    m = _MARKER.search(question)
    if m is None:
        return []
    unless = m.group(0).lstrip().lower().startswith("unless")
    out: dict[str, bool] = {}
    for w, negated in polarised(m.group(1)):
        out.setdefault(w, negated != unless)
    return list(out.items())


def condition_agreement(conds: tuple[Condition, ...], text: str) -> float:
    """How well sentence ``text`` states the conditions ``conds``, by polarity only (a
    word it merely shares with the question is overlap, counted elsewhere): per condition
    word, -1 when the sentence holds it only with the opposite polarity ("in default" for
    "not in default", or the reverse), 1 when a negated one is held negated too, else 0;
    their mean (0 without conditions)."""
    if not conds:
        return 0.0
    said: dict[str, set[bool]] = {}
    for w, negated in polarised(text):
        said.setdefault(stem(w), set()).add(negated)
    total = 0.0
    for c in conds:
        polarity = set().union(*(said.get(f, set()) for f in c.forms))
        if c.negated in polarity:
            total += 1.0 if c.negated else 0.0
        elif polarity:
            total -= 1.0
    return total / len(conds)


def in_exception(question: str, text: str, at: int) -> bool:
    """Whether the value at ``at`` in sentence ``text`` stands in an exception to the
    rule the sentence states ("…, except that Recipient may retain one archival copy …
    for up to ten (10) years") while ``question`` asks about no exception. An exception
    that opens the sentence ("Except for the Excluded Claims, each party's liability
    shall not exceed …") ends at its comma: the rule after it is no exception."""
    if _ASKS_EXCEPTION.search(question) is not None:
        return False
    cues = list(_EXCEPTION.finditer(text, 0, at))
    if not cues:
        return False
    cue = cues[-1]
    if any(c.isalpha() for c in text[: cue.start()]):  # ", except that …" to its end
        return True
    comma = text.find(",", cue.end())
    return comma < 0 or at < comma
