"""The asked sense, not just the kind: which of the values of the kind asked a sentence
states is the one the question means.

A question's kind (:mod:`lateseg.generate.question`) says what sort of value answers
it; a passage often states several of that sort, about different things. The sense is
what the value must be *of*:

* a count, the thing counted: "how many named users" wants a number of users, not
  "10,000 claims" (the question's head noun against the noun a count states);
* a distance, a length: "how far does the non-compete reach" wants "fifty (50) miles",
  not a count of anything else (:func:`fits`);
* a governing law, the law that governs: "which law governs" wants the clause that says
  the agreement is governed or construed by a law, not one that obliges a party to comply
  with "the laws of the United States";
* the rule, not its exception: "how long must the recipient protect confidential
  information" wants the term of the duty, not the "except that Recipient may retain
  one archival copy … for up to ten (10) years" that follows it
  (:func:`~lateseg.generate.conditions.in_exception`).

:func:`sense_agreement` scores a candidate sentence by these; the extractive answerer
adds it to the candidate's score as a preference, never as a filter.
"""

from __future__ import annotations

import re

from lateseg.generate.question import Asked, equivalents
from lateseg.text.values import Value, find_values
from lateseg.text.words import stem, words

#: The units a distance is stated in (what a count of them counts).
DISTANCE_UNITS = frozenset(
    ["mile", "miles", "kilometer", "kilometers", "kilometre", "kilometres", "km", "meter",
     "meters", "metre", "metres", "m", "feet", "foot", "ft", "yard", "yards", "block", "blocks"]
)  # fmt: skip
# What makes a law the one that governs an agreement (not one a party complies with)
_GOVERNS = re.compile(
    r"\bgovern(?:s|ed|ing)?\b|\bconstrued\b|\binterpret(?:ed|ation)\b|\bchoice\s+of\s+law\b"
    r"|\bapplicable\s+law\b",
    re.IGNORECASE,
)


def fits(asked: Asked, value: Value, text: str) -> bool:
    """Whether ``value`` in ``text`` (of a kind that answers ``asked``) can be what it
    asks for: a distance question's number must count a distance unit ("fifty (50)
    miles", "a 25-mile radius")."""
    if asked.kind != "distance":
        return True
    unit = (value.unit or "").split()
    if not unit:  # "25-mile": the unit joined to the number
        unit = words(text[value.end : value.end + 12].lstrip("-"))[:1]
    return bool(unit) and unit[0] in DISTANCE_UNITS


def counts_head(asked: Asked, value: Value) -> bool | None:
    """Whether count ``value`` counts what the question counts (None: the question names
    nothing counted, or the value states no noun)."""
    if asked.head is None or value.kind != "count" or not value.unit:
        return None
    forms = equivalents(asked.head)
    return any(stem(w) in forms for w in value.unit.split())


def sense_agreement(asked: Asked, text: str) -> float:
    """How well the sentence ``text`` agrees with the sense of ``asked``: 1 when it
    states the thing asked (a law with what makes it govern; a count of the noun the
    question counts), else 0. See the module's docstring."""
    if asked.kind == "law":
        return 1.0 if _GOVERNS.search(text) else 0.0
    if asked.head is not None and asked.kind == "count":
        return 1.0 if any(counts_head(asked, v) for v in find_values(text)) else 0.0
    return 0.0
