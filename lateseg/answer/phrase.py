"""The answer phrase: the shortest span of a sentence that answers the question, and the
headings that are never answers (the lists a passage holds: :mod:`lateseg.answer.lists`).

:func:`answer_phrase` cuts, inside a sentence, the value the question asks for ("sixty
(60) days", "$500,000", "the State of California", "/var/lock"), the object of a
limit ("the total amounts paid and payable by Customer …"), the modal clause of a
may/must question, or else the clause that shares most with the question.
:func:`body_start` skips the heading lines a sentence of a PDF opens with ("ARTICLE 12
LIMITATION OF LIABILITY 12.1 General Cap."): a heading is context, never an answer.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from lateseg.answer.cells import in_a_label, other_cell, table_cell
from lateseg.answer.question import Asked, content_words
from lateseg.answer.sense import counts_head, fits, premise_bound
from lateseg.text.values import ADDRESS, Value, find_values
from lateseg.text.words import MINOR_WORDS, MODAL, WORD, stem

_HEAD_WORD = re.compile(r"^(?:ARTICLE|Article|SECTION|Section|CHAPTER|Chapter|PART|Part|"
                        r"EXHIBIT|Exhibit|SCHEDULE|Schedule|APPENDIX|Appendix|ANNEX|Annex|§)"
                        r"\s*[\dIVXLC]+[A-Z]?\b[.:]?")  # fmt: skip
_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.?|\([a-z0-9]+\)|[A-Z]\.)\s+")


def is_heading(line: str) -> bool:
    """Whether ``line`` is only a heading: ``10.2 Cap on Liability.``, ``ARTICLE 12
    LIMITATION OF LIABILITY``, ``2.5 Priorities``, ``EXHIBIT B SERVICE LEVEL AGREEMENT``
    (a number or a heading word and a few title words, no sentence after them)."""
    text = line.strip().rstrip(".:").strip()
    if not text:
        return False
    m = _HEAD_WORD.match(text) or _NUMBERED.match(text)
    rest = text[m.end() :].strip(" .:-–—") if m else text
    words = [w for w in rest.split() if re.search(r"[A-Za-z]", w)]
    if not words:
        return m is not None
    if len(words) > 12 or (re.search(r"[,;]\s", rest) and not rest.isupper()):
        return False
    if re.search(r"\.\s+\S", rest):  # "12.1 General Cap. EXCEPT AS …": a sentence follows
        return False
    if _TERM_VALUE.search(rest):  # "(h) Proportionate Share: 4.16%": a term's value
        return False
    if rest.isupper():
        return len(words) <= 10 and (m is not None or len(words) <= 6)
    titled = all(w[0].isupper() or w.lower() in MINOR_WORDS or not w[0].isalpha() for w in words)
    return bool(m) and titled


# a line that ends in a number after its colon ("Security Deposit: $120,120.00") states a
# term's value; "EXHIBIT B: 2025 FEES" and "Phase 1: 2024 Deliverables" are headings
_TERM_VALUE = re.compile(r":\s*[$€£]?\s?\d[\d,.]*\s*%?$")


def _numbered_title(line: str) -> bool:
    """A numbered line of a few words with no end punctuation ("6.2 Maintainer scripts
    idempotency", "3.1 The package name"): a heading when a blank line follows it."""
    text = line.strip()
    m = re.match(r"\d+(?:\.\d+)*\.?\s+(\S.*)$", text)
    if m is None:
        return False
    return len(m.group(1).split()) <= 10 and not text.endswith((".", ":", ";", ","))


def body_start(text: str) -> int:
    """Where the body of ``text`` (a sentence or passage) begins after the heading lines
    it opens with; ``len(text)`` when it is all heading. A heading and its sentence on
    one line (``12.1 General Cap. EXCEPT AS …``) are told apart at the heading's period."""
    pos = 0
    while pos < len(text):
        nl = text.find("\n", pos)
        line_end = len(text) if nl < 0 else nl
        line = text[pos:line_end]
        if not line.strip():
            pos = line_end + 1
            continue
        if is_heading(line) or (
            nl >= 0 and _numbered_title(line) and not text[nl + 1 :].split("\n", 1)[0].strip()
        ):
            pos = line_end + 1 if nl >= 0 else len(text)
            continue
        # "3.4 Renewal Option. Tenant shall have …": the heading ends at its first period
        m = re.match(r"\s*((?:\d+(?:\.\d+)*\.?|ARTICLE\s+\d+)\s+[^.\n]{1,80}\.)\s+", line)
        if m and is_heading(m.group(1)):
            return pos + m.end()
        return pos + len(line) - len(line.lstrip())
    return len(text)


# -- phrases ----------------------------------------------------------------------------

LIMIT = re.compile(
    r"\b(?:shall\s+not\s+exceed|will\s+not\s+exceed|not\s+to\s+exceed|may\s+not\s+exceed|"
    r"does\s+not\s+exceed|no\s+more\s+than|not\s+more\s+than|up\s+to|at\s+most|limited\s+to|"
    r"not\s+less\s+than|no\s+less\s+than|at\s+least|a\s+minimum\s+of|a\s+maximum\s+of|"
    r"exceed(?:s|ing)?)\s+",
    re.IGNORECASE,
)
_LAW = re.compile(
    r"\blaws?\s+of\s+((?:the\s+)?(?:State|Commonwealth|Province|Republic)\s+of\s+"
    r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*|(?:the\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)"
)
_VENUE = re.compile(
    r"\b(?:[Cc]ourts?|[Tt]ribunal|[Aa]rbitration)\b[^.;]{0,80}?\b(?:located\s+)?(?:in|of|for)\s+(?:the\s+)?"
    r"((?:City\s+and\s+)?(?:County|City|District|State)\s+of\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*"
    r"(?:,\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)?"
    r"|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\s+(?:County|Parish|Borough)(?:,\s+[A-Z][a-z]+)?)"
)
_PATH = re.compile(r"(?<![\w/])(?:/[\w.<>+*-]+)+/?|\b[\w-]+/[\w./<>-]+")
_PLACE = re.compile(
    r"\b(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\s+(?:County|City|Parish|Borough)|"
    r"(?:City|County|State|Commonwealth|Province)\s+of\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
    r"(?:,\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)?"
)
# "Seattle, Washington 98109", "San Jose, California 95134", "the City of Denver"
_CITY = re.compile(
    r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?),\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\s+\d{5}\b"
    r"|\bCity\s+(?:and\s+County\s+)?of\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
)
_PERSON = re.compile(
    r"\b(?!(?:Each|Either|The|This|That|Such|Any|All|No|Both|Neither|Party|Parties|Chief|Vice|"
    r"Senior|Legal|General|Director|Officer|President|Manager)\b)"
    r"[A-Z][a-z]+(?:\s+[A-Z]\.)?\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b"
)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
_CLAUSE_CUT = re.compile(r";\s+|:\s+|,\s+(?:and|or|but|provided|except|unless)\b|\.\s+")
_RATE_TAIL = re.compile(
    r"\s+(?:per|a|each|every)\s+(?:[A-Za-z]+\s+){0,3}?"
    r"(?:hour|day|week|month|year|annum|occurrence|claim|foot|feet|user|unit|zone|incident|"
    r"person|employee|seat|license|copy|page|word|contract\s+year|calendar\s+month|"
    r"Authorized\s+User|rentable\s+square\s+foot)s?\b",
    re.IGNORECASE,
)


def _stems(words: Iterable[str]) -> set[str]:
    return {stem(w) for w in words}


def _near(
    text: str,
    spans: list[tuple[int, int]],
    asked: Asked,
    prefer: list[int] | None = None,
) -> tuple[int, int] | None:
    """Of ``spans`` in ``text``, the one the question points at: the lowest ``prefer``
    rank, then the most question words right before it (counted three times: "monthly
    installment $40,040"), in it (twice) or within 60 characters of it, then the nearest
    to one of them, then the first."""
    if not spans:
        return None
    want = _stems(asked.words)
    words = [(m.start(), m.end()) for m in WORD.finditer(text) if stem(m.group(0)) in want]

    def key(n: int) -> tuple[int, int, float, int]:
        s, e = spans[n]
        near = sum(
            3 if s - 25 <= a < s else 2 if s <= a and b <= e else 1
            for a, b in words
            if a >= s - 60 and b <= e + 60
        )
        dist = min((abs(a - (s + e) / 2) for a, _ in words), default=0.0)
        return (prefer[n] if prefer else 0, -near, dist, s)

    return spans[min(range(len(spans)), key=key)]


def _joined(text: str, end: int) -> int:
    """``end`` moved past a unit joined to the number before it: ``2`` + ``-kilometer``."""
    m = WORD.match(text, end + 1) if text[end : end + 1] == "-" else None
    return m.end() if m else end


def _with_tail(text: str, end: int) -> int:
    """``end`` moved past a rate's tail: ``$38.50`` + `` per rentable square foot``."""
    m = _RATE_TAIL.match(text, end)
    return m.end() if m else end


def value_phrase(
    asked: Asked, text: str, values: list[Value] | None = None
) -> tuple[int, int] | None:
    """The span of ``text`` holding the value ``asked`` for (None: no such value)."""
    values = find_values(text) if values is None else values
    wanted = [
        v
        for v in values
        if v.kind in asked.values
        and (v.kind, v.amount) not in asked.given
        and fits(asked, v, text)
        and not premise_bound(asked, text, v)
    ]
    if asked.kind == "limit":
        # the value right after "shall not exceed", "not less than" …; "the greater of
        # (A) … or (B) …" whole; else what the limit names, to the end of its clause
        for m in LIMIT.finditer(text):
            if re.match(
                r"(?:the\s+)?(?:greater|lesser|higher|lower)\s+of\b", text[m.end() :], re.I
            ):
                return m.end(), _clause_end(text, m.end())
            after = [v for v in wanted if m.end() <= v.start <= m.end() + 40]
            if after:
                return after[0].start, _with_tail(text, after[0].end)
        cues = list(LIMIT.finditer(text))
        if cues:
            m = cues[0]
            cut = _CLAUSE_CUT.search(text, m.end())
            end = cut.start() if cut else len(text.rstrip(". "))
            return m.end(), end
    spans = [(v.start, _with_tail(text, v.end) if v.kind == "money" else v.end) for v in wanted]
    if asked.kind == "distance":  # "a 2-kilometer radius": the unit joined to the number
        spans = [(s, _joined(text, e)) for s, e in spans]
    units = _rates(asked.question)
    ahead = bool(_AHEAD.search(asked.question))
    # the kind preferred first, then a rate the question names ("monthly", "per square
    # foot"), then for "how far ahead" a duration before the event ("90 days before"),
    # then a count of what the question counts ("how many users": users)
    prefer = [
        8 * asked.values.index(v.kind)
        + (0 if not units or _rated(text, s, e, units) else 4)
        + (0 if not ahead or _BEFORE.match(text[e : e + 40]) else 2)
        + (1 if counts_head(asked, v) is False else 0)
        for v, (s, e) in zip(wanted, spans, strict=True)
    ]
    found = _near(text, spans, asked, prefer)
    return None if found is None else _ranged(text, found, wanted)


# Rates and totals a question may name, and how a text says them near a value.
_RATE_WORDS = (
    (r"\bmonthly\b|\bper\s+month\b|\beach\s+month\b|\ba\s+month\b", r"month"),
    (
        r"\bannual(?:ly)?\b|\byearly\b|\bper\s+(?:year|annum)\b|\ba\s+year\b|\beach\s+year\b",
        r"annual|year|annum",
    ),
    (r"\bhourly\b|\bper\s+hour\b|\ban\s+hour\b", r"hour"),
    (r"\bdaily\b|\bper\s+day\b", r"\bday\b|daily"),
    (r"\bper\s+(?:rentable\s+)?square\s+(?:foot|feet)\b|\bper\s+sq", r"square\s+f|sq\.?\s*f"),
    (r"\btotal\b|\bin\s+all\b|\baltogether\b", r"total|aggregate"),
    (r"\bper\s+(?:user|seat)\b|\beach\s+(?:extra\s+|additional\s+)?user\b", r"user|seat"),
)
# A question about how far ahead something must be done: the duration before the event.
_AHEAD = re.compile(
    r"\bhow\s+far\s+(?:ahead|in\s+advance)\b|\bin\s+advance\b|\bbeforehand\b|\bahead\b"
    r"|\bhow\s+much\s+(?:\w+\s+)?(?:notice|warning)\b|\bwhen\s+must\b.*\b(?:notify|tell|inform)\b",
    re.IGNORECASE,
)
_BEFORE = re.compile(
    r"\A['’]?\s*(?:\(\d+\)\s*)?(?:\w+\s+){0,3}?(?:before|prior|in\s+advance|notice)\b", re.I
)


def _rates(question: str) -> list[str]:
    """The patterns of the rates (or total) ``question`` asks about."""
    return [near for asks, near in _RATE_WORDS if re.search(asks, question, re.I)]


def _rated(text: str, start: int, end: int, units: list[str]) -> bool:
    """Whether the value at ``start..end`` (its tail included) or the 25 characters
    before it say one of the rates ``units`` ("monthly installment $40,040")."""
    around = text[max(0, start - 25) : end]
    return any(re.search(u, around, re.I) for u in units)


_BOUND = re.compile(
    r"(?:no\s+(?:earlier|later|sooner|less|more)\s+than|not\s+(?:earlier|later|less|more)\s+than|"
    r"at\s+(?:least|most)|within|up\s+to|between|from|for|after|before|of)\s+$",
    re.IGNORECASE,
)


def _ranged(text: str, span: tuple[int, int], values: list[Value]) -> tuple[int, int]:
    """``span`` with what bounds it: "no earlier than twelve (12) months and no later than
    nine (9) months" whole (two values of one kind joined by and/or/to), and a bound
    word before it ("at least", "within", "no later than")."""
    start, end = span
    joint = re.compile(
        r"\s*(?:and|or|to|through|-|–)\s+(?:(?:no|not)\s+\w+\s+than\s+|at\s+\w+\s+)?"
    )
    for v in values:  # the other end of a range, after or before it
        after, before = text[end : v.start], text[v.end : start]
        if v.start >= end and len(after) <= 40 and joint.fullmatch(after):
            end = v.end
            break
        if v.end <= start and len(before) <= 40 and joint.fullmatch(before):
            start = v.start
            break
    m = _BOUND.search(text[max(0, start - 30) : start])
    if m and not m.group(0).lower().startswith(("for", "after", "before", "of", "from")):
        start = max(0, start - 30) + m.start()
    return start, end


def typed_phrase(asked: Asked, text: str) -> tuple[int, int] | None:
    """The span of ``text`` that states what ``asked`` asks for: a value of its kind, a
    governing law, a venue, place or path, an address, a person, a quoted name, a modal
    clause; None when the text states no such thing (or the question asks for none)."""
    if asked.quantity:
        return value_phrase(asked, text)
    if asked.kind == "definition":
        return defining_phrase(asked, text)
    spans: list[tuple[int, int]] = []
    if asked.kind == "law":
        spans = [m.span(1) for m in _LAW.finditer(text)]
    elif asked.kind == "place" and re.search(r"\b(?:city|town)\b", asked.question, re.I):
        spans = [m.span(1) if m.group(1) else m.span(2) for m in _CITY.finditer(text)]
    elif asked.kind == "place":
        spans = [m.span(1) for m in _VENUE.finditer(text)]
        spans = spans or [m.span() for m in _PATH.finditer(text)]
        spans = spans or [m.span() for m in ADDRESS.finditer(text)]
        spans = spans or [m.span() for m in _PLACE.finditer(text)]
    elif asked.kind in ("address", "party"):
        found = ADDRESS if asked.kind == "address" else _PERSON
        spans = [m.span() for m in found.finditer(text)]
        if asked.kind == "party":
            spans = [s for s in spans if not _echo(text[s[0] : s[1]], asked)]
        return _near(text, spans, asked, _owners(text, spans, asked))
    elif asked.kind == "other" and re.search(
        r"\b(?:name|called|term|title)\b", asked.question, re.I
    ):
        spans = [m.span(1) for m in _QUOTED.finditer(text)]
    elif asked.kind == "modal":
        modal = [m.start() for m in MODAL.finditer(text)]
        at = _near(text, [(p, p + 1) for p in modal], asked)
        if at is None:
            return None
        return _subject_start(text, at[0]), _clause_end(text, at[0])
    if asked.kind in ("party", "place", "other"):
        spans = [s for s in spans if not _echo(text[s[0] : s[1]], asked)]
    return _near(text, spans, asked)


_LABEL = re.compile(r"\(\s*(?:the\s+|each,\s+a\s+)?[\"“]([^\"”]{2,40})[\"”]\s*\)")


def _owners(text: str, spans: list[tuple[int, int]], asked: Asked) -> list[int]:
    """Per span (an address, a person), whose it is by the defined term that follows it
    before the next one ("77 Ferry Landing Road, Hoboken … ("Provider")"): 0 when that
    term is a word of the question ("the service provider's address"), 2 when it is
    another party's, 1 when none follows."""
    want = _stems(asked.words)
    out = []
    for n, (_, end) in enumerate(spans):
        stop = spans[n + 1][0] if n + 1 < len(spans) else len(text)
        m = _LABEL.search(text, end, min(stop, end + 120))
        out.append(1 if m is None else 0 if _stems(content_words(m.group(1))) & want else 2)
    return out


def defining_phrase(asked: Asked, text: str) -> tuple[int, int] | None:
    """Where ``text`` defines the term a definition question asks about (``"Downtime"
    means any period …``): the definition after "means", to the end of its sentence; None
    when it does not define that term."""
    if not asked.term:
        return None
    term = re.escape(asked.term).replace(r"\ ", r"\s+")
    m = re.search(
        rf"[\"“]?{term}[\"”]?\s*(?:\([^)]*\)\s*)?(?:means|shall\s+mean|has\s+the\s+meaning|"
        rf"refers\s+to|is\s+defined\s+as|includes)\s+",
        text,
        re.IGNORECASE,
    )
    if m is None:
        return None
    return m.end(), len(text.rstrip(" .;"))


def _echo(span: str, asked: Asked) -> bool:
    """Whether a candidate phrase only repeats the question's own words."""
    words = content_words(span)
    return bool(words) and _stems(words) <= _stems(asked.words)


def _subject_start(text: str, modal: int) -> int:
    """The start of the clause the modal verb at ``modal`` belongs to."""
    cuts = [
        m.end()
        for m in re.finditer(r"[;:]\s+|,\s+(?=(?:and|or|but|except|unless)\b)", text[:modal])
    ]
    return cuts[-1] if cuts else len(text[:modal]) - len(text[:modal].lstrip())


def _clause_end(text: str, start: int) -> int:
    m = re.compile(r";\s|\.\s|\.$").search(text, start)
    end = m.start() if m else len(text)
    return len(text[:end].rstrip(" ,"))


def best_clause(asked: Asked, text: str) -> tuple[int, int]:
    """The clause of ``text`` (cut at ``;``, ``:`` and sentence ends) sharing most content
    words with the question; the whole text when it has one clause."""
    want = _stems(asked.words)
    cuts = [0, *[m.end() for m in re.finditer(r";\s+|:\s+|\.\s+", text)], len(text)]
    best, score = (0, len(text)), -1.0
    for a, b in itertools.pairwise(cuts):
        seg = text[a:b]
        words = _stems(content_words(seg))
        s = len(words & want) - 0.001 * len(seg)
        if seg.strip() and s > score:
            lead = len(seg) - len(seg.lstrip())
            best, score = (a + lead, a + len(seg.rstrip(" ;:."))), s
    return best


#: Question kinds that ask for a value but may be answered in words: a limit ("the
#: fees paid in the twelve months before the claim"), a time ("upon receipt").
WORDED = ("limit", "when")


def answer_phrase(asked: Asked, text: str) -> tuple[int, int] | None:
    """The shortest span of ``text`` (a sentence) that answers ``asked``: in a table row,
    the cell of the column asked about (:func:`~lateseg.answer.cells.table_cell`); else
    what :func:`typed_phrase` finds, else the value of a key the question states
    (:func:`~lateseg.answer.cells.other_cell`), else (for a question answered by text, or one of
    :data:`WORDED`) the clause sharing most with the question. None when a value is
    asked for and the sentence states none."""
    found = table_cell(asked, text)
    if found is not None:
        return found
    found = typed_phrase(asked, text)
    if found is None:
        found = other_cell(asked, text)
    if found is None and text.strip() and not (asked.quantity and asked.kind not in WORDED):
        found = best_clause(asked, text)
    if found is not None and in_a_label(text, *found):
        return None  # a column's header ("Directory"), never the answer
    return found
