"""The asked sense, not just the kind: which of the values of the kind asked a sentence
states is the one the question means.

A question's kind (:mod:`lateseg.answer.question`) says what sort of value answers
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
  (:func:`~lateseg.answer.conditions.in_exception`);
* the tier the question's own value falls in: "if uptime is 97 %" wants the row "less
  than 99.0 % but at least 95.0 %", not "less than 95.0 %" (:func:`premise_agreement`);
* promptness: "how quickly must it be reported" wants a deadline after the event
  ("within two (2) business days after"), not a notice ahead of one ("at least ten
  (10) business days before");
* the path the question names: "/var/tmp", not "/tmp";
* a requirement ("what must X do", "what has to be") wants what is required (must,
  shall, should), not what may be done; a reason ("why must …") wants the sentence that
  gives one ("necessary for", "because", "so that").

:func:`sense_agreement` scores a candidate sentence by these; the extractive answerer
adds it to the candidate's score as a preference, never as a filter.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lateseg.answer.question import Asked, equivalents
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
    """How well the sentence ``text`` agrees with the sense of ``asked``: the sum of 1
    per sense it states (a law with what makes it govern; a count of the noun the
    question counts; a deadline for a question of promptness; the path the question
    names; a requirement or a reason for a question asking one) and of
    :func:`premise_agreement`. See the module's docstring."""
    total = premise_agreement(asked, text)
    if asked.kind == "law":
        total += 1.0 if _GOVERNS.search(text) else 0.0
    if asked.head is not None and asked.kind == "count":
        total += 1.0 if any(counts_head(asked, v) for v in find_values(text)) else 0.0
    if asked.kind == "duration" and _PROMPT.search(asked.question):
        total += float(_deadline(text))
    wanted = _paths(asked.question)
    if wanted:
        total += float(bool(wanted & _paths(text, nested=True)))
    why = _WHY.search(asked.question)  # "why must …": the must is the premise
    if _REQUIRES.search(asked.question) and asked.kind in ("other", "list") and not why:
        total += 1.0 if _OBLIGES.search(text) else 0.0
    if why:
        total += 1.0 if _BECAUSE.search(text) else 0.0
    return total


# "how quickly must …": a deadline after the event, not a notice ahead of it
_PROMPT = re.compile(r"\bhow\s+(?:quickly|soon|fast|promptly)\b", re.IGNORECASE)
_WITHIN = re.compile(r"\b(?:within|no\s+later\s+than|not\s+later\s+than)\s+$", re.IGNORECASE)
_AHEAD_OF = re.compile(r"\A['’]?\s*(?:\(\d+\)\s*)?(?:\w+\s+){0,3}?(?:before|prior)\b", re.I)


def _deadline(text: str) -> bool:
    """Whether ``text`` states a duration as a deadline ("within two (2) business days
    after …"), not as a time ahead of an event ("… days before", "days' prior notice")."""
    for v in find_values(text):
        if v.kind != "duration":
            continue
        if _WITHIN.search(text[max(0, v.start - 25) : v.start]) and not _AHEAD_OF.match(
            text[v.end : v.end + 40]
        ):
            return True
    return False


_PATH = re.compile(r"(?<![\w/])/[\w.+-]+(?:/[\w.+-]+)*/?")


def _paths(text: str, nested: bool = False) -> set[str]:
    """The absolute paths ``text`` names ("/var/tmp"), without a closing slash; with
    ``nested`` also each one's parents ("/var/tmp/x" names "/var/tmp"), never a
    sibling ("/tmp" is not "/var/tmp")."""
    out = set()
    for m in _PATH.finditer(text):
        path = m.group(0).rstrip("/.")
        if path.count("/") < 1 or len(path) < 2:
            continue
        out.add(path)
        while nested and path.rfind("/") > 0:
            path = path[: path.rfind("/")]
            out.add(path)
    return out


# A question asking what is required ("what must the root filesystem do"), or why
_REQUIRES = re.compile(
    r"\b(?:must|has\s+to|have\s+to|should|shall|needs?\s+to|required)\b", re.IGNORECASE
)
_OBLIGES = re.compile(r"\b(?:must|shall|should|required)\b", re.IGNORECASE)
_WHY = re.compile(r"^\s*why\b|\bfor\s+what\s+(?:reason|purpose)\b", re.IGNORECASE)
_BECAUSE = re.compile(
    r"\bbecause\b|\bso\s+that\b|\bin\s+order\s+(?:to|that)\b|\b(?:necessary|needed|required"
    r"|essential)\s+(?:for|by)\b|\bfor\s+this\s+reason\b|\bthe\s+reason\b|\bdue\s+to\b"
    r"|\bsince\s+(?!\d)|\bthe\s+purpose\b",
    re.IGNORECASE,
)

# Comparisons that make a value a tier's bound: (pattern before it, test of the premise)
_BOUNDS = (
    (r"(?:less|fewer|lower)\s+than|below|under", lambda x, b: x < b),
    (r"(?:more|greater|higher)\s+than|above|over|exceed(?:s|ing)?", lambda x, b: x > b),
    (r"at\s+least|not\s+less\s+than|no\s+less\s+than|a\s+minimum\s+of", lambda x, b: x >= b),
    (r"at\s+most|not\s+more\s+than|no\s+more\s+than|up\s+to|a\s+maximum\s+of", lambda x, b: x <= b),
)
_FAMILY = {"count": "number"}


def _bound(text: str, value: Value) -> Callable[[float, float], bool] | None:
    """The test a comparison before ``value`` puts ("less than 99.0 %": below it), or
    None when no comparison bounds it."""
    before = text[max(0, value.start - 30) : value.start]
    for cue, test in _BOUNDS:
        if re.search(rf"\b(?:{cue})\s+$", before, re.IGNORECASE):
            return test
    return None


def premise_bound(asked: Asked, text: str, value: Value) -> bool:
    """Whether ``value`` in ``text`` bounds a value of the kind the question gives itself
    ("below 99.9 %" for "if uptime is 97 %"): a tier's condition, never its answer."""
    kinds = {_FAMILY.get(k, k) for k, _ in asked.given}
    return _FAMILY.get(value.kind, value.kind) in kinds and _bound(text, value) is not None


def premise_agreement(asked: Asked, text: str) -> float:
    """Whether the tier ``text`` states holds for the value the question gives itself
    ("if uptime in a month is 97 %"): 1 when every bound it puts on a value of that kind
    ("less than 99.0 % but at least 95.0 %") holds for it, -1 when one fails ("less than
    95.0 %"), 0 when it bounds none (or the question gives no value)."""
    given = [v for v in asked.stated if v.amount is not None]
    if not given:
        return 0.0
    held = failed = 0
    for v in find_values(text):
        test = _bound(text, v) if v.amount is not None else None
        if test is None or v.amount is None:
            continue
        for g in given:
            if (
                g.amount is None
                or _FAMILY.get(g.kind, g.kind) != _FAMILY.get(v.kind, v.kind)
                or (
                    g.unit and v.unit and g.unit != v.unit  # "100" bounds "250 licenses"
                )
            ):
                continue
            # a bound equal to the question's value names the tier it asks about
            if g.amount == v.amount or test(g.amount, v.amount):
                held += 1
            else:
                failed += 1
    if failed:
        return -1.0
    return 1.0 if held else 0.0
