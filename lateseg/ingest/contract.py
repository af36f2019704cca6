"""Structure of contracts: clause hierarchy, definitions, recitals, signature, exhibits.

Works on Markdown sources and on PDF-extracted text alike (single newlines inside
paragraphs, indented list items, "Page X of N" footers). Clause heads are looked for at
line starts only — ``ARTICLE 12`` / ``Article XII``, ``Section 12.3``, ``12.``, ``12.3``,
``12.3(a)``, ``(a)`` and roman ``(i)`` — and a candidate is accepted only where it fits:

* **Sequence.** ``12.3`` needs an open ``12`` (article or clause) and must follow ``12.2``
  closely; ``(b)`` must follow ``(a)``; ``(i)`` after ``(h)`` is a letter, otherwise a
  roman subitem. Numbers inside sentences, amounts, dates and page numbers that happen to
  start a line do not fit and are dropped.
* **Context.** Unless the head is unmistakable (a Markdown heading, a bold or title-cased
  clause title, an upper-case ``ARTICLE``), the line before it must end a sentence or an
  item (``.``, ``;``, ``:``, ``and``/``or``) or be a heading: a wrapped PDF line that
  starts with ``(b)`` or ``Article 7.`` mid-sentence is no clause.

Each clause runs to the next clause of the same or a higher level, an exhibit, the
signature block, or the end; list items (``(a)``) also end where the paragraph after the
list starts. Labels are paths: ``"12 Termination > 12.3 Termination for Convenience >
(a)"``; inside ``EXHIBIT A`` the exhibit is the root (``"Exhibit A Fee Schedule > 1"``).
``contract_structure`` adds defined terms, recitals, the signature block and exhibits.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from lateseg.types import Span

_LEAD = re.compile(r"[ \t]*(#{1,6}[ \t]+)?(\*\*|__)?[ \t]*")
_EXHIBIT = re.compile(
    r"(EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)"
    r"[ \t]+([A-Z]{1,2}|[0-9]{1,3})((?:[-.][A-Z0-9]{1,3})?)(?![\w.-])[ \t]*[.:\-–—]?[ \t]*"
)
_ARTICLE = re.compile(r"(ARTICLE|Article)[ \t]+([0-9]{1,3}|[IVXLC]{1,7})\b[ \t]*[.:\-–—]?[ \t]*")
_NUMBER = re.compile(
    r"(Section[ \t]+|SECTION[ \t]+|§[ \t]*)?([0-9]{1,3}(?:\.[0-9]{1,3})*)(\.?)"
    r"(?:\(([a-z]{1,5})\))?(?=[ \t*_]|$)[ \t]*(?:[-–—:][ \t]+)?"
)
_ITEM = re.compile(r"\(([a-z]{1,5})\)(?=[ \t]|$)[ \t]*")
_WITNESS = re.compile(r"IN WITNESS WHEREOF|In Witness Whereof")
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


_SMALL = _words(
    "a an the and or nor but of to for in on at by with from into upon as per via vs this that "
    "its under over than not no be is are"
)
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_CONTAINERS = ("exhibit", "article", "number")
_WINDOW = 300  # characters of a line looked at for a title; keeps huge lines linear


@dataclass(slots=True)
class _Line:
    start: int
    end: int
    indent: int
    blank: bool
    footer: bool


@dataclass
class _Head:
    """A line that may start a clause, an exhibit or the signature block."""

    line: int
    start: int
    kind: str  # exhibit | article | number | item | witness
    key: tuple[int, ...] = ()
    token: str = ""  # item letters ("a", "iv"), exhibit id, or number suffix item
    written: str = ""  # the number as written ("12.3", "(a)"); for an exhibit its keyword
    title: str = ""
    strong: bool = False
    keyword: bool = False


@dataclass(eq=False)
class _Node:
    kind: str  # root | exhibit | article | number | letter | roman
    start: int
    label: str
    parent: _Node | None
    key: tuple[int, ...] = ()
    line: int = 0
    end: int = -1
    last_num: int | None = None
    l1_style: str | None = None
    l1_titled: bool | None = None
    last_dotted: tuple[int, ...] = ()

    def path(self) -> str:
        parts: list[str] = []
        node: _Node | None = self
        while node is not None and node.kind != "root":
            parts.append(node.label)
            node = node.parent
        return " > ".join(reversed(parts))


def _lines(text: str) -> list[_Line]:
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
        lines.append(_Line(pos, end, len(raw) - len(body), blank, footer))
        pos = nl + 1
    return lines


def _roman_value(token: str) -> int | None:
    if not token or any(c not in _ROMAN for c in token):
        return None
    total, prev = 0, 0
    for ch in reversed(token):
        v = _ROMAN[ch]
        total += -v if v < prev else v
        prev = max(prev, v)
    return total if _to_roman(total) == token else None


def _to_roman(n: int) -> str:
    out = ""
    for v, s in ((100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix")):
        out, n = out + s * (n // v), n % v
    return out + ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii")[n]


def _is_upper(s: str) -> bool:
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
        if core and core[0].isalpha() and core.lower() not in _SMALL and not core[0].isupper():
            return False
    return True


def _heading_text(s: str, max_words: int = 14) -> bool:
    """True for an empty, upper-case or title-cased heading remainder."""
    s = s.strip(" \t*_").rstrip(".:").strip()
    if not s:
        return True
    if _is_upper(s):
        return len(s) <= 120 and len(s.split()) <= max_words and s[0].isalnum()
    return _is_title_case(s, max_words)


def smart_title(s: str) -> str:
    """``"TERM AND TERMINATION"`` -> ``"Term and Termination"``; mixed case is kept."""
    s = " ".join(s.split())
    if not _is_upper(s):
        return s
    out = []
    for i, w in enumerate(s.lower().split()):
        if i and w in _SMALL:
            out.append(w)
            continue
        parts = []
        for p in w.split("-"):
            k = next((j for j, c in enumerate(p) if c.isalpha()), None)
            parts.append(p if k is None else p[:k] + p[k].upper() + p[k + 1 :])
        out.append("-".join(parts))
    return " ".join(out)


def _clause_title(rest: str, max_words: int = 14) -> str:
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
    if stop is None and len(rest) >= _WINDOW:
        return ""
    words = max_words if stop else min(max_words, 10)  # an unpunctuated title is short
    if candidate and (_is_title_case(candidate, words) or _heading_text(candidate, words)):
        return smart_title(candidate)
    if stop and stop.group().startswith(":") and len(candidate.split()) <= 4:
        return candidate if candidate[:1].isupper() else ""  # a label: "Base fee: $100"
    return ""


def _prev_content(lines: list[_Line], i: int) -> tuple[int, bool]:
    """Index of the content line before line ``i`` (-1 if none) and whether a paragraph
    break (a blank line, not a page break with its footer) lies between them."""
    j, blank, footer = i - 1, False, False
    while j >= 0 and (lines[j].blank or lines[j].footer):
        footer = footer or lines[j].footer
        blank = blank or lines[j].blank
        j -= 1
    return j, blank and not footer


def _tail(text: str, line: _Line) -> str:
    return text[max(line.start, line.end - _WINDOW) : line.end].rstrip()


def _context_ok(text: str, lines: list[_Line], i: int) -> bool:
    """May line ``i`` start a clause? Yes after a paragraph break, a heading, or a line
    that ends a sentence or list item; page footers in between are skipped."""
    j, para = _prev_content(lines, i)
    if j < 0 or para:
        return True
    prev = lines[j]
    tail = _tail(text, prev)
    if tail.endswith((".", ";", ":", "!", "?", '"', "”", "'", "’", "_", "*")):
        return True
    heading = prev.end - prev.start < 120 and _heading_text(tail)
    return tail.endswith((" and", " or")) or heading


def _head(text: str, lines: list[_Line], i: int) -> _Head | None:
    """The clause-like head that line ``i`` starts with, if any (no context checked)."""
    line = lines[i]
    raw = text[line.start : min(line.end, line.start + _WINDOW)]
    lead = _LEAD.match(raw)
    if lead is None:  # never: the pattern matches the empty string
        return None
    p, decorated = lead.end(), bool(lead.group(1) or lead.group(2))
    start = line.start + line.indent
    whole = line.end - line.start <= _WINDOW
    if _WITNESS.match(raw, p):
        return _Head(i, start, "witness")
    m = _EXHIBIT.match(raw, p)
    if m and whole and _heading_text(raw[m.end() :]):
        title = smart_title(raw[m.end() :].strip(" \t*_").rstrip(".:").strip())
        kw = m.group(1).capitalize()
        strong = decorated or m.group(1).isupper() or bool(title)
        return _Head(i, start, "exhibit", (), m.group(2) + m.group(3), kw, title, strong)
    m = _ARTICLE.match(raw, p)
    if m and _heading_text(raw[m.end() :] if whole else "x y"):
        rest = raw[m.end() :].strip(" \t*_").rstrip(".:").strip()
        nxt = next((x for x in lines[i + 1 : i + 3] if not x.blank), None)
        below = text[nxt.start : nxt.end].strip(" \t#*_") if nxt else ""
        if not rest and _is_upper(below) and len(below) < 80:
            rest = below  # "ARTICLE V" with its title on the next line
        tok = m.group(2)
        num = int(tok) if tok.isdigit() else (_roman_value(tok.lower()) or 0)
        strong = decorated or (m.group(1).isupper() and bool(rest))
        return _Head(i, start, "article", (num,), "", "", smart_title(rest), strong)
    m = _NUMBER.match(raw, p)
    if m:
        rest = raw[m.end() :]
        key = tuple(int(x) for x in m.group(2).split("."))
        title = _clause_title(rest)
        dotted, keyword = len(key) > 1, bool(m.group(1))
        if not (m.group(3) or dotted or keyword or decorated or _is_upper(rest)):
            return None  # "5 Business Days ..." wrapped onto a line
        if rest and not (rest[0].isupper() or rest[0] in '"“*_([') and not m.group(4):
            return None
        strong = decorated or bool(title)
        tok = m.group(4) or ""
        return _Head(i, start, "number", key, tok, m.group(2), title, strong, keyword)
    m = _ITEM.match(raw, p)
    if m:
        title = _clause_title(raw[m.end() :], 10)
        return _Head(i, start, "item", (), m.group(1), f"({m.group(1)})", title)
    return None


def _place_number(stack: list[_Node], h: _Head) -> int | None:
    """Index in ``stack`` of the parent of numbered head ``h``, or None when the number
    does not continue the numbering (then it is no clause)."""
    scope, key = stack[0], h.key
    if len(key) == 1:
        if scope.l1_style == "article" or (scope.l1_titled and not h.title):
            return None
        prev = scope.last_num
        fits = (key[0] <= 3 or h.keyword) if prev is None else prev < key[0] <= prev + 3
        return 0 if fits else None
    for i in range(len(stack) - 1, 0, -1):
        node = stack[i]
        if node.kind in ("article", "number") and node.key == key[:-1]:
            prev = node.last_num
            fits = key[-1] <= 5 if prev is None else prev < key[-1] <= prev + 5
            return i if fits else None
    if len(key) == 2 and scope.l1_style is None and key > scope.last_dotted:
        return 0  # numbering by sections only ("1.1", "1.2", "2.1" without "1.")
    return None


def _place_item(stack: list[_Node], token: str) -> tuple[int, str, int] | None:
    """(parent index, ``letter``/``roman``, ordinal) for an ``(x)`` head, or None."""
    containers = [i for i, n in enumerate(stack) if n.kind in _CONTAINERS]
    if not containers:
        return None
    ci = containers[-1]
    letter = next((i for i in range(ci + 1, len(stack)) if stack[i].kind == "letter"), None)
    roman = next((i for i in range(ci + 1, len(stack)) if stack[i].kind == "roman"), None)
    lval = ord(token) - 96 if len(token) == 1 else None
    rval = _roman_value(token)
    if roman is not None and rval == stack[roman].key[0] + 1:
        return roman - 1, "roman", rval
    if letter is not None and lval == stack[letter].key[0] + 1:
        return ci, "letter", lval
    if letter is not None and roman is None and rval == 1:
        return letter, "roman", 1
    if lval == 1:
        return ci, "letter", 1
    if rval == 1 and letter is None:
        return ci, "roman", 1
    return None


def _close(nodes: list[_Node], at: int) -> None:
    for n in nodes:
        if n.end < 0:
            n.end = at


@dataclass
class _Parsed:
    lines: list[_Line]
    clauses: list[_Node]
    exhibits: list[_Node]
    witnesses: list[_Head]
    head_lines: set[int]  # lines that look like heads, accepted or not
    accepted_lines: set[int]  # lines that start a clause, an exhibit or the signature


def _parse(text: str) -> _Parsed:
    """One pass over the lines: accept heads that fit, build the clause tree."""
    lines = _lines(text)
    heads = []
    for i, line in enumerate(lines):
        h = None if line.blank or line.footer else _head(text, lines, i)
        if h is not None:
            heads.append(h)
    head_lines = {h.line for h in heads}
    root = _Node("root", 0, "", None)
    stack: list[_Node] = [root]
    clauses: list[_Node] = []
    exhibits: list[_Node] = []
    witnesses: list[_Head] = []
    signing = False
    for h in heads:
        if h.kind == "witness":
            _close(stack[1:], h.start)
            del stack[1:]
            witnesses.append(h)
            signing = True
            continue
        if not ((h.strong and h.kind != "item") or _context_ok(text, lines, h.line)):
            continue
        if h.kind == "exhibit":
            _close(stack, h.start)
            label = " ".join(x for x in (h.written, h.token, h.title) if x)
            stack = [_Node("exhibit", h.start, label, None, line=h.line)]
            exhibits.append(stack[0])
            signing = False
            continue
        if signing and not (h.kind == "article" and h.strong):
            continue  # names and dates of the signature block
        signing = False
        node = _accept(stack, h)
        if node is not None:
            clauses.append(node)
    _close(stack, len(text))
    for ex in exhibits:
        _close([ex], len(text))
    accepted = {n.line for n in clauses + exhibits} | {w.line for w in witnesses}
    return _Parsed(lines, clauses, exhibits, witnesses, head_lines, accepted)


def _push(stack: list[_Node], at: int, node: _Node) -> _Node:
    """Make ``node`` a child of ``stack[at]``, closing the clauses it ends."""
    _close(stack[at + 1 :], node.start)
    del stack[at + 1 :]
    node.parent = stack[at]
    stack.append(node)
    return node


def _accept(stack: list[_Node], h: _Head) -> _Node | None:
    """Push the node for head ``h`` onto ``stack`` if it fits the numbering."""
    scope = stack[0]
    label = f"{h.written} {h.title}".strip()
    if h.kind == "article":
        scope.l1_style, scope.last_num = "article", h.key[0]
        label = f"{h.key[0]} {h.title}".strip()
        return _push(stack, 0, _Node("article", h.start, label, None, h.key, h.line))
    if h.kind == "number" and h.token:  # "12.3(a)": a letter of the open clause 12.3
        at = next((i for i in range(len(stack) - 1, 0, -1) if stack[i].key == h.key), None)
        if at is None or stack[at].kind != "number" or len(h.token) != 1:
            return None
        lval = ord(h.token) - 96
        prev = stack[at + 1] if at + 1 < len(stack) and stack[at + 1].kind == "letter" else None
        if lval != 1 and not (prev and lval == prev.key[0] + 1):
            return None
        label = f"{h.written}({h.token}) {h.title}".strip()
        return _push(stack, at, _Node("letter", h.start, label, None, (lval,), h.line))
    if h.kind == "number":
        at = _place_number(stack, h)
        if at is None:
            return None
        if len(h.key) == 1:
            scope.l1_style = scope.l1_style or "number"
            if scope.l1_titled is None:
                scope.l1_titled = bool(h.title)
        elif at == 0:
            scope.last_dotted = h.key
        stack[at].last_num = h.key[-1]
        return _push(stack, at, _Node("number", h.start, label, None, h.key, h.line))
    placed = _place_item(stack, h.token)
    if placed is None:
        return None
    at, kind, ordinal = placed
    return _push(stack, at, _Node(kind, h.start, label, None, (ordinal,), h.line))


def _trim(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing whitespace and page-footer lines."""
    while True:
        while end > start and text[end - 1].isspace():
            end -= 1
        line_start = text.rfind("\n", max(start, end - 200), end) + 1
        if line_start <= start or _FOOTER.fullmatch(text, line_start, end) is None:
            return end
        end = line_start


def _item_end(text: str, p: _Parsed, node: _Node) -> int:
    """Where list item ``node`` ends: at the first plain paragraph after it (the text
    that follows a list belongs to the clause above the list, not to its last item)."""
    lines, first = p.lines, p.lines[node.line]
    for j in range(node.line + 1, len(lines)):
        line = lines[j]
        if line.start >= node.end:
            break
        if line.blank or line.footer or j in p.head_lines:
            continue
        if text[line.start + line.indent] in "-*•":
            continue
        k, para = _prev_content(lines, j)
        new_para = (para and line.indent <= first.indent) or (first.indent >= 2 and not line.indent)
        if new_para and _tail(text, lines[k]).endswith((".", ";", ":")):
            return line.start
    return node.end


def _clause_spans(text: str, p: _Parsed) -> list[Span]:
    spans = []
    for node in p.clauses:  # parents come before their children
        end = node.end
        if node.kind in ("letter", "roman"):
            end = min(_item_end(text, p, node), node.parent.end if node.parent else end)
        node.end = _trim(text, node.start, end)
        spans.append(Span(node.start, node.end, "clause", node.path()))
    return spans


def _signature_spans(text: str, p: _Parsed) -> list[Span]:
    """From ``IN WITNESS WHEREOF`` to the last signature line (``By:``, ``Name:``,
    ``Title:``, ``Date:``, a signature rule) before the next exhibit."""
    spans = []
    bounds = sorted([e.start for e in p.exhibits] + [w.start for w in p.witnesses])
    for w in p.witnesses:
        i = bisect.bisect_right(bounds, w.start)
        limit = bounds[i] if i < len(bounds) else len(text)
        end = None
        for line in p.lines[w.line + 1 :]:
            if line.start >= limit:
                break
            if not line.blank and _SIGN_LINE.match(text, line.start, line.end):
                end = line.end
        spans.append(Span(w.start, _trim(text, w.start, end or limit), "signature", "Signatures"))
    return spans


def _recital_spans(text: str, p: _Parsed) -> list[Span]:
    """One ``recital`` span per ``WHEREAS`` paragraph, up to the next recital, ``NOW,
    THEREFORE``, paragraph break or heading."""
    lines = p.lines
    marks = []
    for i, line in enumerate(lines):
        if not line.blank:
            lead = _LEAD.match(text, line.start, line.end)
            pos = lead.end() if lead else line.start
            if _WHEREAS.match(text, pos, line.end):
                marks.append((i, "recital"))
            elif _NOW.match(text, pos, line.end) or i in p.accepted_lines:
                marks.append((i, "stop"))
    spans: list[Span] = []
    for n, (i, kind) in enumerate(marks):
        if kind != "recital":
            continue
        end = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        for j in range(i + 1, end):
            line = lines[j]
            if not line.blank and (_prev_content(lines, j)[1] or _is_upper(_tail(text, line))):
                end = j
                break
        start = lines[i].start + lines[i].indent
        stop = lines[end].start if end < len(lines) else len(text)
        label = f"Recital {len(spans) + 1}"
        spans.append(Span(start, _trim(text, start, stop), "recital", label))
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
_SENTENCE_END = re.compile(r"[.!?][\"”’'*_)]*(?=\s|$)|\n[ \t]*\n")
_ABBREVIATIONS = _words("inc corp co ltd llc no nos vs mr ms mrs dr st jr sr sec art")
_SPACE = re.compile(r"\s*")
_MAX_SENTENCE = 2000
_DEF_HEAD = re.compile(r"[#*_\s]*(?:Section\s+|§\s*)?[0-9.]*(?:\([a-z]{1,5}\))?[\s*_]*")


class _Sentences:
    """Sentence ends of a text (positions just after ``.``/``!``/``?`` or a blank line),
    skipping abbreviations such as ``Inc.``, ``No.`` and ``a.m.``."""

    def __init__(self, text: str) -> None:
        self.ends: list[int] = []
        for m in _SENTENCE_END.finditer(text):
            if m.group().startswith("."):
                word = text[max(0, m.start() - 12) : m.start()].split()
                w = word[-1].lower() if word else ""
                if len(w) == 1 or "." in w or w in _ABBREVIATIONS:
                    continue
            self.ends.append(m.end())

    def end_after(self, pos: int, default: int) -> int:
        i = bisect.bisect_left(self.ends, pos + 1)
        return min(self.ends[i], default) if i < len(self.ends) else default

    def start_before(self, text: str, pos: int) -> int:
        """Start of the sentence holding ``pos``, at most ``_MAX_SENTENCE`` back."""
        i = bisect.bisect_right(self.ends, pos) - 1
        start = self.ends[i] if i >= 0 else 0
        if start < pos - _MAX_SENTENCE:
            start = text.find(" ", pos - _MAX_SENTENCE, pos) + 1 or pos - _MAX_SENTENCE
        m = _SPACE.match(text, start, pos)
        return m.end() if m else start


def _term(raw: str | None) -> str | None:
    if raw is None or "\n\n" in raw or raw != raw.strip() or len(raw.split()) > 10:
        return None
    return " ".join(raw.split())


def _definition_spans(text: str, clauses: list[_Node]) -> list[Span]:
    """``definition`` spans labelled with the defined term (no quotes)."""
    found: list[tuple[int, int, str]] = []
    sentences: _Sentences | None = None
    starts = [c.start for c in clauses]

    def enclosing(pos: int) -> _Node | None:
        i = bisect.bisect_right(starts, pos) - 1
        node = clauses[i] if i >= 0 else None
        while node is not None and node.kind not in ("root", "exhibit") and node.end <= pos:
            node = node.parent  # clauses nest, so the innermost one holding pos is an ancestor
        return node if node is not None and node.kind not in ("root", "exhibit") else None

    for m in _MEANS.finditer(text):
        sentences = sentences or _Sentences(text)
        node = enclosing(m.start())
        limit = min(node.end if node else len(text), m.end() + 2 * _MAX_SENTENCE)
        if node and _DEF_HEAD.fullmatch(text, node.start, m.start()):
            end = node.end  # "1.1 "Affiliate" means ...": the whole clause defines it
        else:
            end = _trim(text, m.start(), sentences.end_after(m.end(), limit))
        found += [(m.start(), end, t) for t in (_term(m.group(1)), _term(m.group(2))) if t]
    for m in _PAREN.finditer(text):
        sentences = sentences or _Sentences(text)
        start = sentences.start_before(text, m.start())
        found += [(start, m.end(), t) for t in (_term(m.group(1)), _term(m.group(2))) if t]
    for m in _REFERRED.finditer(text):
        sentences = sentences or _Sentences(text)
        start = sentences.start_before(text, m.start())
        end = _trim(text, start, sentences.end_after(m.end(), m.end() + _MAX_SENTENCE))
        found += [(start, end, t) for t in (_term(m.group(1)), _term(m.group(2))) if t]
    return [Span(s, e, "definition", t) for s, e, t in sorted(set(found))]


def clause_spans(text: str) -> list[Span]:
    """``clause`` spans with path labels (see the module docstring); empty when the text
    has no clause numbering."""
    return _clause_spans(text, _parse(text))


def definition_spans(text: str) -> list[Span]:
    """``definition`` spans: ``"Term" means …`` (also ``shall mean``, ``has the
    meaning``) from the term to the end of its sentence — or of its clause when the
    clause is the definition — and parenthetical ``(the "Term")`` / ``referred to as
    "Term"`` definitions from the start of their sentence. Labels are the terms."""
    p = _parse(text)
    _clause_spans(text, p)  # sets the clauses' final ends
    return _definition_spans(text, p.clauses)


def contract_structure(text: str) -> list[Span]:
    """Everything this module finds, from one parse: ``clause``, ``definition``,
    ``recital``, ``signature`` and ``exhibit`` spans, in document order."""
    p = _parse(text)
    spans = _clause_spans(text, p)
    spans += _definition_spans(text, p.clauses)
    spans += _recital_spans(text, p) + _signature_spans(text, p)
    spans += [Span(e.start, _trim(text, e.start, e.end), "exhibit", e.label) for e in p.exhibits]
    return sorted(spans, key=lambda s: (s.start, -s.end, s.kind))
