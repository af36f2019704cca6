"""Where a code fact lies in its passage (:class:`Fact`), and the line arithmetic the
patterns of :mod:`lateseg.answer.code_facts` share: a line without its indentation, the
lines around a span, the ``def`` or ``class`` a line is in, a signature's end. Every
function here is bounded: no scan runs past its text or its limit.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lateseg.text.words import identifier_words
from lateseg.types import Hit

DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w{1,120})[ \t]*\(", re.MULTILINE)
CLASS = re.compile(r"^[ \t]*class[ \t]+(\w{1,120})\b", re.MULTILINE)

# how far around a fact its lines are read for scoring
AROUND = 3
DOC_CHARS = 400


@dataclass(frozen=True)
class Fact:
    """A fact of ``kind`` in passage ``passage``: the lines ``start``..``end`` that state
    it (offsets in the passage's text), its ``value`` (the phrase's offsets there), the
    ``name`` it is the value of (a parameter, a variable, a function) and the ``context``
    it is scored by."""

    passage: int
    kind: str
    start: int
    end: int
    value: tuple[int, int]
    name: str
    context: str


def line_at(text: str, at: int) -> tuple[int, int]:
    """The line of ``text`` around offset ``at``, without its indentation."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    while start < end and text[start] in " \t":
        start += 1
    return start, len(text[:end].rstrip())


def around(text: str, start: int, end: int, lines: int = AROUND) -> str:
    """``text[start:end]`` with ``lines`` lines either side."""
    a = start
    for _ in range(lines):
        a = max(text.rfind("\n", 0, max(a - 1, 0)), 0)
    b = end
    for _ in range(lines):
        nxt = text.find("\n", b + 1)
        b = len(text) if nxt < 0 else nxt
    return text[a:b]


@functools.lru_cache(maxsize=16)
def _definitions(text: str) -> tuple[list[int], list[str], list[bool]]:
    """Where each ``def`` and ``class`` line of ``text`` ends its match, in order, its
    name and whether it is a class: read once per text, so each fact's enclosing name is
    a binary search (a text of thousands of facts costs no quadratic rescans)."""
    found = sorted(
        (m.end(), m.group(1), rx is CLASS) for rx in (DEF, CLASS) for m in rx.finditer(text)
    )
    return [f[0] for f in found], [f[1] for f in found], [f[2] for f in found]


def enclosing_def(text: str, at: int) -> str:
    """The name of the last ``def`` or ``class`` before offset ``at`` ("" for none)."""
    ends, names, _ = _definitions(text)
    k = bisect.bisect_right(ends, at) - 1
    return names[k] if k >= 0 else ""


def exit_class(name: str) -> bool:
    """Whether a class's name says its members are exit statuses (``ExitCode``,
    ``ExitStatus``, ``ReturnCode``; not ``JSONEncoder``, ``Barcode``, ``HTTPStatus``)."""
    words = {w.lower() for w in identifier_words(name)}
    return "exit" in words or ("return" in words and bool(words & {"code", "codes"}))


#: The most characters between a class's line and a member it is asked about.
MEMBER_REACH = 20_000


def member_of(text: str, m: re.Match[str]) -> str:
    """The class whose body holds the indented name of an assignment matched from its
    line's start (group 1: the name): the last ``class`` line above, indented less, with
    no line between them indented as little (the body has not ended); "" for none (or
    one more than :data:`MEMBER_REACH` characters above)."""
    line, at = m.start(), m.start(1)
    ends, names, is_class = _definitions(text)
    k = bisect.bisect_right(ends, at) - 1
    if k < 0 or not is_class[k] or at == line:
        return ""
    head = text.rfind("\n", 0, ends[k]) + 1
    if line - head > MEMBER_REACH:
        return ""
    indent = len(text[head:at]) - len(text[head:at].lstrip(" \t"))
    for row in text[head:line].splitlines()[1:]:
        if row.strip() and len(row) - len(row.lstrip(" \t")) <= indent:
            return ""  # the class's body ended before the name
    return names[k] if at - line > indent else ""


def signature_end(text: str, open_paren: int, limit: int = 2000) -> int:
    """The offset of the ``)`` closing the ``(`` at ``open_paren`` (bounded scan; the
    end of the scanned text when unbalanced)."""
    close = _closing(text, open_paren, limit)
    return min(len(text), open_paren + limit) if close is None else close


def enclosing_call(text: str, at: int, limit: int = 1500) -> str | None:
    """The call that offset ``at`` is an argument of, from its line's start to its
    closing ``)`` (``parser.add_argument(`` … ``env="TWINE_CERT",`` … ``help=…)``): what
    a keyword argument means is said by the call's other arguments, not by the lines
    around it, which are another call's. None where ``at`` is in no call within
    ``limit`` characters (or in a list or a mapping first)."""
    depth = 0
    for i in range(at - 1, max(-1, at - limit - 1), -1):
        c = text[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                if c != "(":
                    return None
                close = _closing(text, i, limit)
                return None if close is None else text[text.rfind("\n", 0, i) + 1 : close + 1]
            depth -= 1
    return None


def _closing(text: str, open_paren: int, limit: int) -> int | None:
    """The offset of the bracket closing the one at ``open_paren`` within ``limit``
    characters, or None where it does not close there."""
    depth = 0
    for i in range(open_paren, min(len(text), open_paren + limit)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return None


def hit_value(hits: Sequence[Hit], f: Fact) -> str:
    """The text of a fact's value."""
    return hits[f.passage].text[f.value[0] : f.value[1]]
