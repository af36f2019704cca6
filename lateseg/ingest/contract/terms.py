"""Contract text below the clause tree, and the parts found without it.

:mod:`lateseg.ingest.contract.clauses` builds the clause hierarchy; this module holds what that
parse reads the text with — lines with their indent and page footers, upper and title
case, clause titles, roman numerals, whether a line may start a clause — and the spans
that need no clause numbering: defined terms (``"Term" means …``, ``(the "Term")``,
``referred to as "Term"``), ``WHEREAS`` recitals and the ``IN WITNESS WHEREOF`` signature
block. It never imports the clause parser, which passes in what these need.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from lateseg.text.boundaries import MAX_SENTENCE, DefinitionSentences
from lateseg.text.words import MINOR_WORDS
from lateseg.types import Span

LEAD = re.compile(r"[ \t]*(#{1,6}[ \t]+)?(\*\*|__)?[ \t]*")
_WHEREAS = re.compile(r"(?:WHEREAS|Whereas)\b")
_NOW = re.compile(r"NOW,? THEREFORE|Now,? [Tt]herefore")
_FOOTER = re.compile(r"[ \t]*(?:Page[ \t]+\d+(?:[ \t]+of[ \t]+\d+)?|-?[ \t]*\d{1,4}[ \t]*-?)[ \t]*")
_SIGN_LINE = re.compile(
    r"[ \t]*\**(?:By|Name|Title|Date|Its|Signature|Print(?:ed)? Name)\**:|.*_{5}"
)
_TITLE_STOP = re.compile(r"[.:][*_]*(?=\s|$)")
_BOLD = re.compile(r"(?:\*\*|__)(.{1,120}?)(?:\*\*|__)")
_QUOTED = re.compile(r"[\"“]([^\"”\n]{1,80})[\"”]")


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
WINDOW = 300  # characters of a line looked at for a title; keeps huge lines linear


@dataclass(slots=True)
class Line:
    start: int
    end: int
    indent: int
    blank: bool
    footer: bool


class Marker(Protocol):
    """A head the clause parse accepted: its line index and start offset."""

    line: int
    start: int


class Clause(Protocol):
    """What definitions need of a node of the clause tree."""

    kind: str  # root | exhibit | article | number | letter | roman
    start: int
    end: int

    @property
    def parent(self) -> Clause | None: ...


def split_lines(text: str) -> list[Line]:
    lines, pos, n = [], 0, len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        nl = end
        if end > pos and text[end - 1] == "\r":
            end -= 1  # CRLF: the line's text ends before the CR
        raw = text[pos:end]
        body = raw.lstrip(" \t")
        blank = not body.strip()
        footer = not blank and len(body) < 30 and _FOOTER.fullmatch(body) is not None
        lines.append(Line(pos, end, len(raw) - len(body), blank, footer))
        pos = nl + 1
    return lines


def trim(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing whitespace and page-footer lines."""
    while True:
        while end > start and text[end - 1].isspace():
            end -= 1
        line_start = text.rfind("\n", max(start, end - 200), end) + 1
        if line_start <= start or _FOOTER.fullmatch(text, line_start, end) is None:
            return end
        end = line_start


def prev_content(lines: list[Line], i: int) -> tuple[int, bool]:
    """Index of the content line before line ``i`` (-1 if none) and whether a paragraph
    break (a blank line, not a page break with its footer) lies between them."""
    j, blank, footer = i - 1, False, False
    while j >= 0 and (lines[j].blank or lines[j].footer):
        footer = footer or lines[j].footer
        blank = blank or lines[j].blank
        j -= 1
    return j, blank and not footer


def line_tail(text: str, line: Line) -> str:
    return text[max(line.start, line.end - WINDOW) : line.end].rstrip()


def is_upper(s: str) -> bool:
    return any(c.isalpha() for c in s) and not any(c.islower() for c in s)


def _is_title_case(s: str, max_words: int = 14) -> bool:
    """``"Termination for Convenience"`` yes, ``"Building business hours"`` no."""
    words = s.split()
    first = s.lstrip("\"“'(")[:1]
    if (
        not words
        or len(words) > max_words
        or len(s) > 120
        or not (first.isupper() or first.isdigit())
    ):
        return False
    for w in words:
        core = w.strip("\"“”'’()[],;*")
        if core and core[0].isalpha() and core.lower() not in MINOR_WORDS and not core[0].isupper():
            return False
    return True


def heading_text(s: str, max_words: int = 14) -> bool:
    """True for an empty, upper-case or title-cased heading remainder."""
    s = s.strip(" \t*_").rstrip(".:").strip()
    if not s:
        return True
    if is_upper(s):
        return len(s) <= 120 and len(s.split()) <= max_words and s[0].isalnum()
    return _is_title_case(s, max_words)


def smart_title(s: str) -> str:
    """``"TERM AND TERMINATION"`` -> ``"Term and Termination"``; mixed case is kept."""
    s = " ".join(s.split())
    if not is_upper(s):
        return s
    out = []
    for i, w in enumerate(s.lower().split()):
        if i and w in MINOR_WORDS:
            out.append(w)
            continue
        parts = []
        for p in w.split("-"):
            k = next((j for j, c in enumerate(p) if c.isalpha()), None)
            parts.append(p if k is None else p[:k] + p[k].upper() + p[k + 1 :])
        out.append("-".join(parts))
    return " ".join(out)


def clause_title(rest: str, max_words: int = 14) -> str:
    """The title at the start of a clause's text: bold, a quoted defined term, or a
    title-cased phrase ending in ``.``/``:``; empty when the clause has none."""
    if rest.startswith(("**", "__")):
        m = _BOLD.match(rest)
        if m:
            return smart_title(m.group(1).strip().rstrip(".:").strip())
    m = _QUOTED.match(rest)
    if m:
        return m.group(1).strip()
    stop = _TITLE_STOP.search(rest)
    candidate = rest[: stop.start()] if stop else rest
    candidate = candidate.strip(" \t*_")
    if stop is None and len(rest) >= WINDOW:
        return ""
    words = max_words if stop else min(max_words, 10)  # an unpunctuated title is short
    if candidate and (_is_title_case(candidate, words) or heading_text(candidate, words)):
        return smart_title(candidate)
    if stop and stop.group().startswith(":") and len(candidate.split()) <= 4:
        return candidate if candidate[:1].isupper() else ""  # a label: "Base fee: $100"
    return ""


def roman_value(token: str) -> int | None:
    if not token or any(c not in _ROMAN for c in token):
        return None
    total, prev = 0, 0
    for ch in reversed(token):
        v = _ROMAN[ch]
        total += -v if v < prev else v
        prev = max(prev, v)
    return total if _to_roman(total) == token else None


_UNITS = {w: i for i, w in enumerate([
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
], 1)}  # fmt: skip
_TENS = {w: 20 + 10 * i for i, w in enumerate([
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
])}  # fmt: skip


def number_value(word: str) -> int | None:
    """``"ONE"`` -> 1, ``"TWENTYTHREE"`` / ``"twenty-three"`` -> 23 (1-99), else None."""
    w = re.sub(r"[ \t-]", "", word.lower())
    if w in _UNITS:
        return _UNITS[w]
    for tens, value in _TENS.items():
        rest = w.removeprefix(tens)
        if rest != w and (not rest or _UNITS.get(rest, 10) < 10):
            return value + (_UNITS[rest] if rest else 0)
    return None


def _to_roman(n: int) -> str:
    out = ""
    for v, s in ((100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix")):
        out, n = out + s * (n // v), n % v
    return out + ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii")[n]


def context_ok(text: str, lines: list[Line], i: int) -> bool:
    """May line ``i`` start a clause? Yes after a paragraph break, a heading, or a line
    that ends a sentence or list item; page footers in between are skipped."""
    j, para = prev_content(lines, i)
    if j < 0 or para:
        return True
    prev = lines[j]
    tail = line_tail(text, prev)
    if tail.endswith((".", ";", ":", "!", "?", '"', "”", "'", "’", "_", "*")):
        return True
    heading = prev.end - prev.start < 120 and heading_text(tail)
    return tail.endswith((" and", " or")) or heading


def signature_spans(
    text: str, lines: list[Line], witnesses: Sequence[Marker], exhibits: Sequence[Marker]
) -> list[Span]:
    """From ``IN WITNESS WHEREOF`` to the last signature line (``By:``, ``Name:``,
    ``Title:``, ``Date:``, a signature rule) before the next exhibit."""
    spans = []
    bounds = sorted([e.start for e in exhibits] + [w.start for w in witnesses])
    for w in witnesses:
        i = bisect.bisect_right(bounds, w.start)
        limit = bounds[i] if i < len(bounds) else len(text)
        end = None
        for line in lines[w.line + 1 :]:
            if line.start >= limit:
                break
            if not line.blank and _SIGN_LINE.match(text, line.start, line.end):
                end = line.end
        spans.append(Span(w.start, trim(text, w.start, end or limit), "signature", "Signatures"))
    return spans


def recital_spans(text: str, lines: list[Line], stop_lines: set[int]) -> list[Span]:
    """One ``recital`` span per ``WHEREAS`` paragraph, up to the next recital, ``NOW,
    THEREFORE``, paragraph break or heading (any line in ``stop_lines``)."""
    marks = []
    for i, line in enumerate(lines):
        if not line.blank:
            lead = LEAD.match(text, line.start, line.end)
            pos = lead.end() if lead else line.start
            if _WHEREAS.match(text, pos, line.end):
                marks.append((i, "recital"))
            elif _NOW.match(text, pos, line.end) or i in stop_lines:
                marks.append((i, "stop"))
    spans: list[Span] = []
    for n, (i, kind) in enumerate(marks):
        if kind != "recital":
            continue
        end = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        for j in range(i + 1, end):
            line = lines[j]
            if not line.blank and (prev_content(lines, j)[1] or is_upper(line_tail(text, line))):
                end = j
                break
        start = lines[i].start + lines[i].indent
        stop = lines[end].start if end < len(lines) else len(text)
        label = f"Recital {len(spans) + 1}"
        spans.append(Span(start, trim(text, start, stop), "recital", label))
    return spans


_TERM = r"[\"“]([^\"”]{1,80})[\"”]"
_MEANS = re.compile(
    _TERM + r"(?:[ \t]*,?[ \t]*(?:or|and)[ \t]+" + _TERM + r")?[\s*_]{1,6}(?:shall\s+)?"
    r"(?:means?|ha(?:s|ve)\s+the\s+meanings?|refers?\s+to|is\s+defined)\b"
)
_PAREN = re.compile(  # (the "Effective Date"), ("Client"), (each a "Party" and the "Parties")
    r'\((?:[^()"“”]{0,40}?[\s,])?TERM(?:\s*,?\s*(?:or|and)\b[^()"“”]{0,30}?\sTERM)?\s*\)'.replace(
        "TERM", _TERM
    )
)
_REFERRED = re.compile(  # referred to as a "Party" and together as the "Parties"
    r'\b(?:referred\s+to|known)\b[^."“]{0,60}?\bas\s+(?:(?:a|an|the)\s+)?TERM'
    r'(?:[^."“]{0,40}?\bas\s+(?:(?:a|an|the)\s+)?TERM)?'.replace("TERM", _TERM)
)
_DEF_HEAD = re.compile(r"[#*_\s]*(?:Section\s+|§\s*)?[0-9.]*(?:\([a-z]{1,5}\))?[\s*_]*")


def _term(raw: str | None) -> str | None:
    if raw is None or "\n\n" in raw or raw != raw.strip() or len(raw.split()) > 10:
        return None
    return " ".join(raw.split())


def term_definition_spans(text: str, clauses: Sequence[Clause]) -> list[Span]:
    """``definition`` spans labelled with the defined term (no quotes)."""
    found: list[tuple[int, int, str]] = []
    sentences: DefinitionSentences | None = None
    starts = [c.start for c in clauses]

    def enclosing(pos: int) -> Clause | None:
        i = bisect.bisect_right(starts, pos) - 1
        node = clauses[i] if i >= 0 else None
        while node is not None and node.kind not in ("root", "exhibit") and node.end <= pos:
            node = node.parent  # clauses nest, so the innermost one holding pos is an ancestor
        return node if node is not None and node.kind not in ("root", "exhibit") else None

    for m in _MEANS.finditer(text):
        sentences = sentences or DefinitionSentences(text)
        node = enclosing(m.start())
        limit = min(node.end if node else len(text), m.end() + 2 * MAX_SENTENCE)
        if node and _DEF_HEAD.fullmatch(text, node.start, m.start()):
            end = node.end  # "1.1 "Affiliate" means ...": the whole clause defines it
        else:
            end = trim(text, m.start(), sentences.end_after(m.end(), limit))
        found += [(m.start(), end, t) for t in (_term(m.group(1)), _term(m.group(2))) if t]
    for m in _PAREN.finditer(text):
        sentences = sentences or DefinitionSentences(text)
        start = sentences.start_before(text, m.start())
        found += [(start, m.end(), t) for t in (_term(m.group(1)), _term(m.group(2))) if t]
    for m in _REFERRED.finditer(text):
        sentences = sentences or DefinitionSentences(text)
        start = sentences.start_before(text, m.start())
        end = trim(
            text, start, sentences.end_after(m.end(), min(len(text), m.end() + MAX_SENTENCE))
        )
        found += [(start, end, t) for t in (_term(m.group(1)), _term(m.group(2))) if t]
    return [Span(s, e, "definition", t) for s, e, t in sorted(set(found))]
