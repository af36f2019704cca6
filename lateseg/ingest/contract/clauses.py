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

from lateseg.ingest.contract.terms import (
    LEAD,
    WINDOW,
    Line,
    clause_title,
    context_ok,
    heading_text,
    is_upper,
    line_tail,
    number_value,
    prev_content,
    recital_spans,
    roman_value,
    signature_spans,
    smart_title,
    split_lines,
    term_definition_spans,
    trim,
)
from lateseg.ingest.toc import toc_spans, toc_titles
from lateseg.types import Span

_EXHIBIT = re.compile(
    r"(EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)"
    r"[ \t]+([A-Z]{1,2}|[0-9]{1,3})((?:[-.][A-Z0-9]{1,3})?)(?![\w.-])[ \t]*[.:\-–—]?[ \t]*"
)
_ARTICLE = re.compile(
    r"(ARTICLE|Article|CHAPTER|Chapter)[ \t]+([0-9]{1,3}|[IVXLC]{1,7})\b[ \t]*[.:\-–—]?[ \t]*"
)
# Sphinx/LaTeX chapter openings: "CHAPTER", then "ONE" (or "23"), then the title, each on
# a line of its own.
_CHAPTER_ALONE = re.compile(r"(CHAPTER|Chapter)[ \t]*$")
_NUMBER = re.compile(
    r"(Section[ \t]+|SECTION[ \t]+|§[ \t]*)?([0-9]{1,3}(?:\.[0-9]{1,3})*)(\.?)"
    r"(?:\(([a-z]{1,5})\))?(?=[ \t*_]|$)[ \t]*(?:[-–—:][ \t]+)?"
)
_ITEM = re.compile(r"\(([a-z]{1,5})\)(?=[ \t]|$)[ \t]*")
_WITNESS = re.compile(r"IN WITNESS WHEREOF|In Witness Whereof")
_CONTAINERS = ("exhibit", "article", "number")


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


def _confirmed_title(text: str, lines: list[Line], i: int, rest: str, listed: str | None) -> str:
    """The body heading's title on line ``i`` (and the lines its title wrapped onto) when
    the table of contents lists its number with a title that starts the same way, else
    "". The title is the body's text: the contents only confirm it."""
    if listed is None:
        return ""
    want = " ".join(listed.split()).casefold()
    title = " ".join(rest.strip(" \t*_").split())
    if not title or not want.startswith(title.casefold()):
        return ""
    for nxt in lines[i + 1 : i + 3]:
        if nxt.blank or len(title) >= len(want):
            break
        more = " ".join(text[nxt.start : min(nxt.end, nxt.start + WINDOW)].split())
        if not want.startswith(f"{title} {more}".casefold()):
            break
        title = f"{title} {more}"
    return title


def _heading_line(rest: str, lines: list[Line], i: int) -> str:
    """``rest`` as a title when line ``i`` reads like a heading on its own: a short
    phrase, no sentence punctuation at its end, a blank line after it."""
    title = " ".join(rest.strip(" \t*_").split())
    after = lines[i + 1] if i + 1 < len(lines) else None
    if not title or len(title) > 100 or len(title.split()) > 12 or (after and not after.blank):
        return ""
    if title.endswith((".", ",", ";", ":")) or not (title[0].isupper() or title[0] in '/"“('):
        return ""
    return title


def _head(text: str, lines: list[Line], i: int, toc: dict[str, str] | None = None) -> _Head | None:
    """The clause-like head that line ``i`` starts with, if any (no context checked);
    ``toc``: number -> title of the table of contents, which confirms headings."""
    toc = toc or {}
    line = lines[i]
    raw = text[line.start : min(line.end, line.start + WINDOW)]
    lead = LEAD.match(raw)
    if lead is None:  # never: the pattern matches the empty string
        return None
    p, decorated = lead.end(), bool(lead.group(1) or lead.group(2))
    start = line.start + line.indent
    whole = line.end - line.start <= WINDOW
    if _WITNESS.match(raw, p):
        return _Head(i, start, "witness")
    m = _EXHIBIT.match(raw, p)
    if m and whole and heading_text(raw[m.end() :]):
        title = smart_title(raw[m.end() :].strip(" \t*_").rstrip(".:").strip())
        kw = m.group(1).capitalize()
        strong = decorated or m.group(1).isupper() or bool(title)
        return _Head(i, start, "exhibit", (), m.group(2) + m.group(3), kw, title, strong)
    chapter = _chapter_alone(text, lines, i, raw, p, toc)
    if chapter is not None:
        return chapter
    m = _ARTICLE.match(raw, p)
    if m and heading_text(raw[m.end() :] if whole else "x y"):
        rest = raw[m.end() :].strip(" \t*_").rstrip(".:").strip()
        nxt = next((x for x in lines[i + 1 : i + 3] if not x.blank), None)
        below = text[nxt.start : nxt.end].strip(" \t#*_") if nxt else ""
        if not rest and is_upper(below) and len(below) < 80:
            rest = below  # "ARTICLE V" with its title on the next line
        tok = m.group(2)
        num = int(tok) if tok.isdigit() else (roman_value(tok.lower()) or 0)
        confirmed = _confirmed_title(text, lines, i, rest, toc.get(str(num)))
        strong = decorated or bool(confirmed) or (m.group(1).isupper() and bool(rest))
        title = confirmed or smart_title(rest)
        return _Head(i, start, "article", (num,), "", "", title, strong)
    m = _NUMBER.match(raw, p)
    if m:
        rest = raw[m.end() :]
        key = tuple(int(x) for x in m.group(2).split("."))
        confirmed = _confirmed_title(text, lines, i, rest, toc.get(m.group(2)))
        title = confirmed or clause_title(rest) or (_heading_line(rest, lines, i) if whole else "")
        dotted, keyword = len(key) > 1, bool(m.group(1))
        if not (m.group(3) or dotted or keyword or decorated or is_upper(rest)):
            return None  # "5 Business Days ..." wrapped onto a line
        start_ok = rest[:1].isupper() or rest[:1] in '"“*_(['
        if rest and not (start_ok or confirmed) and not m.group(4):
            return None
        strong = decorated or bool(title)
        tok = m.group(4) or ""
        return _Head(i, start, "number", key, tok, m.group(2), title, strong, keyword)
    m = _ITEM.match(raw, p)
    if m:
        title = clause_title(raw[m.end() :], 10)
        return _Head(i, start, "item", (), m.group(1), f"({m.group(1)})", title)
    return None


def _chapter_alone(
    text: str, lines: list[Line], i: int, raw: str, p: int, toc: dict[str, str]
) -> _Head | None:
    """A ``CHAPTER`` line followed by its number (``ONE``, ``TWENTYTHREE``, ``7``) and
    its title on the next content lines, as an article head; a title the table of
    contents shows wrapped onto a further line is taken whole."""
    if not _CHAPTER_ALONE.match(raw, p):
        return None
    after = [j for j in range(i + 1, min(i + 6, len(lines))) if not lines[j].blank][:2]
    if len(after) < 2:
        return None
    number_line, title_line = (text[lines[j].start : lines[j].end].strip(" \t#*_") for j in after)
    num = int(number_line) if number_line.isdigit() else number_value(number_line)
    if not num or not heading_text(title_line) or len(title_line) > 120:
        return None
    whole = _confirmed_title(text, lines, after[1], title_line, toc.get(str(num)))
    title = smart_title((whole or title_line).rstrip(".:").strip())
    return _Head(i, lines[i].start + lines[i].indent, "article", (num,), "", "", title, True)


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
    rval = roman_value(token)
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
    lines: list[Line]
    clauses: list[_Node]
    exhibits: list[_Node]
    witnesses: list[_Head]
    head_lines: set[int]  # lines that look like heads, accepted or not
    accepted_lines: set[int]  # lines that start a clause, an exhibit or the signature
    toc: list[Span]  # tables of contents and indexes (no clauses inside)


def _parse(text: str) -> _Parsed:
    """One pass over the lines: accept heads that fit, build the clause tree."""
    lines = split_lines(text)
    toc = toc_spans(text)
    titles = toc_titles(text, toc)
    starts = [s.start for s in toc]
    heads = []
    for i, line in enumerate(lines):
        k = bisect.bisect_right(starts, line.start) - 1
        if line.blank or line.footer or (k >= 0 and line.start < toc[k].end):
            continue  # tables of contents and indexes hold no clauses
        h = _head(text, lines, i, titles)
        if h is not None:
            heads.append(h)
    head_lines = {h.line for h in heads}
    root = _Node("root", 0, "", None)
    stack: list[_Node] = [root]
    clauses: list[_Node] = []
    exhibits: list[_Node] = []
    witnesses: list[_Head] = []
    signing = False
    breaks = iter([*starts, len(text) + 1])  # a table of contents ends what is open
    at = next(breaks)
    for h in heads:
        while at < h.start:
            stack = _end_all(stack, root, at)
            at = next(breaks)
        if h.kind == "witness":
            _close(stack[1:], h.start)
            del stack[1:]
            witnesses.append(h)
            signing = True
            continue
        if not ((h.strong and h.kind != "item") or context_ok(text, lines, h.line)):
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
    if at <= len(text):
        _end_all(stack, root, at)
    _close(stack, len(text))
    for ex in exhibits:
        _close([ex], len(text))
    accepted = {n.line for n in clauses + exhibits} | {w.line for w in witnesses}
    return _Parsed(lines, clauses, exhibits, witnesses, head_lines, accepted, toc)


def _end_all(stack: list[_Node], root: _Node, at: int) -> list[_Node]:
    """Close every open clause and exhibit at ``at``; the root keeps its numbering."""
    _close(stack[1:] if stack[0] is root else stack, at)
    return [root]


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
        k, para = prev_content(lines, j)
        new_para = (para and line.indent <= first.indent) or (first.indent >= 2 and not line.indent)
        if new_para and line_tail(text, lines[k]).endswith((".", ";", ":")):
            return line.start
    return node.end


def _clause_spans(text: str, p: _Parsed) -> list[Span]:
    spans = []
    for node in p.clauses:  # parents come before their children
        end = node.end
        if node.kind in ("letter", "roman"):
            end = min(_item_end(text, p, node), node.parent.end if node.parent else end)
        node.end = trim(text, node.start, end)
        spans.append(Span(node.start, node.end, "clause", node.path()))
    return spans


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
    return term_definition_spans(text, p.clauses)


def contract_structure(text: str) -> list[Span]:
    """Everything this module finds, from one parse: ``clause``, ``definition``,
    ``recital``, ``signature`` and ``exhibit`` spans, and the ``toc`` spans of tables of
    contents and indexes (:mod:`lateseg.ingest.toc`), in document order."""
    p = _parse(text)
    spans = _clause_spans(text, p) + p.toc
    spans += term_definition_spans(text, p.clauses)
    spans += recital_spans(text, p.lines, p.accepted_lines)
    spans += signature_spans(text, p.lines, p.witnesses, p.exhibits)
    spans += [Span(e.start, trim(text, e.start, e.end), "exhibit", e.label) for e in p.exhibits]
    return sorted(spans, key=lambda s: (s.start, -s.end, s.kind))
