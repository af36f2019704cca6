"""Values written in text, with where they are: amounts, percentages, durations, dates,
counts and multiples, and the clause numbers that look like values but are not.

:func:`find_values` reads ``"sixty (60) days'"`` as one duration of 60 days,
``"five hundred thousand dollars ($500,000)"`` as one amount, ``"one and one-half
percent (1.5%)"`` as one percentage and ``"10.2 Cap on Liability"`` or ``"Section 9.3"``
as a *reference*: a clause number, never a value. The support check compares the
values of an answer with those of its evidence; extractive answers look for a value of
the kind a question asks for; answer phrases are cut at a value's span.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

from lateseg.text.words import STOPWORDS, WORD_PATTERN, is_letters

_SMALL = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
NUMBER_WORDS: dict[str, float] = {
    **{w: float(i) for i, w in enumerate(_SMALL)},
    **{w: float(10 * i) for i, w in enumerate(_TENS) if w != "_"},
    **{w: float(v) for w, v in SCALES.items()},
    "half": 0.5,
    "quarter": 0.25,
}
# The unit a duration keeps (singular).
UNITS = {
    **{u: u for u in ("second", "minute", "hour", "day", "week", "month", "year")},
    **{u + "s": u for u in ("second", "minute", "hour", "day", "week", "month", "year")},
}
MODIFIERS = frozenset(
    ["calendar", "business", "working", "consecutive", "full", "additional", "more", "banking"]
)
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = r"(?:" + "|".join(m.capitalize() for m in _MONTHS) + r")"
_DATE = re.compile(
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}\b"
    rf"|\b{_MONTH}\s+\d{{4}}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b"
)
#: A street address: "77 Ferry Landing Road", "1200 Westlake Terrace, Suite 310" (its
#: number is no count).
ADDRESS = re.compile(
    r"\b\d{1,6}\s+(?:[A-Z][a-z]+\s+){1,4}(?:Road|Rd\.|Street|St\.|Avenue|Ave\.|Plaza|Parkway|"
    r"Boulevard|Blvd\.|Drive|Dr\.|Lane|Way|Terrace|Commons|Court|Place|Square|Highway|Landing|"
    r"Bend|Circle|Trail|Row)\b(?:,\s+(?:Suite|Floor|Building)\s+[\w-]+)?"
)
_TIME = re.compile(r"\b\d{1,2}:\d{2}\s*(?:[ap]\.m\.|[AP]M)?", re.IGNORECASE)
# Words that make the number after them a reference to a clause, not a value.
_REFERENCE_WORDS = frozenset(
    [
        "section",
        "sections",
        "article",
        "articles",
        "clause",
        "clauses",
        "paragraph",
        "paragraphs",
        "schedule",
        "exhibit",
        "appendix",
        "chapter",
        "part",
        "item",
        "rule",
        "version",
        "§",
        "§§",
    ]
)
_TOKEN = re.compile(
    r"\$\s?\d{1,3}(?:,\d{3})+(?:\.\d+)?|\$\s?\d+(?:\.\d+)?"
    r"|\d+(?:st|nd|rd|th)\b|\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|\d+(?:\.\d+)*%?"
    r"|" + WORD_PATTERN + r"|§+|\S"
)


@dataclass(frozen=True)
class Value:
    """A value in a text: ``start``/``end`` (its characters), ``kind`` (``"money"``,
    ``"percent"``, ``"duration"``, ``"date"``, ``"time"``, ``"multiple"``, ``"count"``,
    ``"number"``, ``"ordinal"``, ``"address"``, or ``"reference"`` for a clause number),
    its ``amount`` (None for dates and times) and ``unit`` (a duration's unit, singular;
    a count's noun)."""

    start: int
    end: int
    kind: str
    amount: float | None = None
    unit: str | None = None

    @property
    def is_value(self) -> bool:
        """Whether it states a value (a clause number does not)."""
        return self.kind != "reference"


def number_word(word: str) -> bool:
    """Whether ``word`` is a number in words (``sixty``, ``forty-five``, ``one-half``)."""
    parts = word.lower().replace("’", "-").split("-")
    return bool(parts) and all(p in NUMBER_WORDS for p in parts)


def _word_amount(words: list[str]) -> float:
    """The value of number words: ``one hundred eighty`` = 180, ``one and one-half`` = 1.5."""
    total = current = 0.0
    for word in words:
        if word.lower() in ("and", ","):
            continue
        parts = word.lower().replace("’", "-").split("-")
        if parts[-1] in ("half", "quarter"):  # "one-half": a fraction of what comes before
            lead = sum(NUMBER_WORDS[p] for p in parts[:-1]) or 1.0
            current += lead * NUMBER_WORDS[parts[-1]]
            continue
        for part in parts:
            v = NUMBER_WORDS[part]
            if v == 100:
                current = max(current, 1) * 100
            elif v >= 1000:
                total += max(current, 1) * v
                current = 0
            else:
                current += v
    return total + current


def _inner_comma(tokens: list[re.Match[str]], j: int, words: list[str]) -> bool:
    """Whether the comma at ``tokens[j]`` is inside a number in words: after
    ``thousand``, ``million`` or ``billion`` and before number words of a smaller scale
    (``one thousand, two hundred and five``), not between the items of a list (``one
    thousand, two thousand``)."""
    scale = SCALES.get(words[-1].lower(), 0) if words else 0
    if tokens[j].group(0) != "," or scale < 1000:
        return False
    k = j + 1
    while k < len(tokens) and number_word(tokens[k].group(0)):
        if SCALES.get(tokens[k].group(0).lower(), 0) >= scale:
            return False
        k += 1
    return k > j + 1


def _numeral(token: str) -> float | None:
    digits = token.lstrip("$").strip().rstrip("%").replace(",", "")
    if digits.count(".") > 1:
        return None
    with contextlib.suppress(ValueError):
        return float(digits)
    return None


def _reference(text: str, tokens: list[re.Match[str]], i: int) -> bool:
    """Whether the numeral at ``tokens[i]`` is a clause number: one with two dots
    (``5.15.1``); one after ``Section``, ``Article``, ``§`` … or a clause path's ``>``,
    or in a list after one (``Sections 4.4 through 4.7``); a dotted one before such a
    word (``the 11.4 and 11.3 sections``); or one that opens a line and
    is followed by a title word (``10.2 Cap on Liability``, ``11 INSURANCE``)."""
    tok = tokens[i].group(0)
    if tok.count(".") > 1:
        return True
    j = i - 1
    while j >= 0 and (
        tokens[j].group(0).lower() in (",", "and", "or", "through", "to")
        or re.fullmatch(r"\d+(?:\.\d+)*", tokens[j].group(0))
    ):
        j -= 1
    if j >= 0 and (tokens[j].group(0).lower() in _REFERENCE_WORDS or tokens[j].group(0) == ">"):
        return True
    if "." in tok:  # "the 11.4 and 11.3 sections": a dotted numeral before the word
        k = i + 1
        while k < len(tokens) and (
            tokens[k].group(0).lower() in (",", "and", "or")
            or re.fullmatch(r"\d+(?:\.\d+)*", tokens[k].group(0))
        ):
            k += 1
        if k < len(tokens) and tokens[k].group(0).lower() in _REFERENCE_WORDS:
            return True
    if "%" in tok or "$" in tok or "," in tok:
        return False
    line = text.rfind("\n", 0, tokens[i].start()) + 1
    if text[line : tokens[i].start()].strip():
        return False
    k = i + 1
    if k < len(tokens) and tokens[k].group(0) == ".":
        k += 1
    return k < len(tokens) and tokens[k].group(0)[0].isupper()


def find_values(text: str) -> list[Value]:
    """Every value in ``text``, in order, none overlapping: see the module's docstring."""
    out: list[Value] = []
    taken: list[tuple[int, int]] = []
    for m in _DATE.finditer(text):
        out.append(Value(m.start(), m.end(), "date"))
        taken.append((m.start(), m.end()))
    for kind, rx in (("time", _TIME), ("address", ADDRESS)):
        for m in rx.finditer(text):
            if not any(a <= m.start() < b for a, b in taken):
                out.append(Value(m.start(), m.end(), kind))
                taken.append((m.start(), m.end()))
    tokens = [t for t in _TOKEN.finditer(text) if not any(a <= t.start() < b for a, b in taken)]
    i = 0
    while i < len(tokens):
        tok = tokens[i].group(0)
        start = tokens[i].start()
        amount: float | None = None
        j = i
        if re.fullmatch(r"\d+(?:st|nd|rd|th)", tok):  # "14th": an ordinal, no amount
            out.append(Value(start, tokens[i].end(), "ordinal", float(tok[:-2])))
            i += 1
            continue
        if tok[0].isdigit() or tok[0] == "$":
            amount = _numeral(tok)
            if amount is None or _reference(text, tokens, i):
                if amount is not None or re.fullmatch(r"\d+(?:\.\d+)+", tok):
                    out.append(Value(start, tokens[i].end(), "reference", amount))
                i += 1
                continue
            j = i + 1
        elif number_word(tok) and tok.lower() not in SCALES:
            words: list[str] = []
            while j < len(tokens) and (
                number_word(tokens[j].group(0))
                or (
                    tokens[j].group(0).lower() == "and"
                    and j + 1 < len(tokens)
                    and number_word(tokens[j + 1].group(0))
                    and words
                )
                or _inner_comma(tokens, j, words)
            ):
                words.append(tokens[j].group(0))
                j += 1
            amount = _word_amount(words)
        else:
            i += 1
            continue
        money = tok.startswith("$")
        percent = tok.endswith("%")
        # "sixty (60)", "five percent (5%)", "three times (3x)": the numeral repeats
        j, money, percent, kind, scale = _suffix(tokens, j, money, percent)
        if amount is not None and (tok[0].isdigit() or (money and tok[0] == "$")):
            amount *= scale
        if kind == "" and amount is not None:
            kind = "money" if money else "percent" if percent else ""
        end = tokens[j - 1].end()
        unit = None
        if not kind:
            k = j
            while k < len(tokens) and k < j + 2 and tokens[k].group(0).lower() in MODIFIERS:
                k += 1
            word = tokens[k].group(0).lower() if k < len(tokens) else ""
            if word in UNITS:
                kind, unit, end = "duration", UNITS[word], tokens[k].end()
                j = k + 1
            else:
                kind, unit, end, j = _count(tokens, j, end)
        out.append(Value(start, end, kind, amount, unit))
        i = max(j, i + 1)
    return sorted(out, key=lambda v: v.start)


def _suffix(
    tokens: list[re.Match[str]], j: int, money: bool, percent: bool
) -> tuple[int, bool, bool, str, float]:
    """After a number at ``tokens[:j]``: its unit word (``percent``, ``dollars``,
    ``times``, ``million``) and a numeral in brackets repeating it; the index after them,
    whether it is money or a percentage, ``"multiple"`` for ``times``/``3x`` (else ``""``)
    and the scale a numeral takes from the words after it (``$5 million``)."""
    kind = ""
    scale = 1.0
    n = len(tokens)
    word = tokens[j].group(0).lower() if j < n else ""
    if word in ("million", "billion", "thousand"):
        scale = float(SCALES[word])
        j += 1
        word = tokens[j].group(0).lower() if j < n else ""
    if word == "percent":
        percent, j = True, j + 1
    elif word in ("dollars", "dollar", "usd"):
        money, j = True, j + 1
    elif word == "times" or (word in ("x",) and not money):
        kind, j = "multiple", j + 1
    # "(60)", "($500,000.00)", "(5%)", "(3X)"
    if j + 2 < n and tokens[j].group(0) == "(":
        inner = tokens[j + 1].group(0)
        if inner[0].isdigit() or inner[0] == "$":
            k = j + 2
            if k < n and tokens[k].group(0).lower() == "x":
                kind, k = "multiple", k + 1
            if k < n and tokens[k].group(0).lower() in ("million", "billion"):
                k += 1
            if k < n and tokens[k].group(0) == ")":
                money = money or inner.startswith("$")
                percent = percent or inner.endswith("%")
                j = k + 1
    if kind == "" and j < n and tokens[j].group(0).lower() == "percent":
        percent, j = True, j + 1
    return j, money, percent, kind, scale


def _count(tokens: list[re.Match[str]], j: int, end: int) -> tuple[str, str | None, int, int]:
    """A number followed by what it counts (``five hundred (500) Authorized Users``, ``four
    (4) reserved parking permits``): kind ``"count"`` and up to three noun words; else a
    bare ``"number"``."""
    words: list[str] = []
    k = j
    while k < len(tokens) and len(words) < 3:
        w = tokens[k].group(0)
        if not is_letters(w) or w.lower() in STOPWORDS:
            break
        words.append(w)
        end = tokens[k].end()
        k += 1
    if words:
        return "count", " ".join(words).lower(), end, k
    return "number", None, end, j
