"""Clause hierarchy of contracts: ARTICLE / Section / 1. / 1.1 headings as spans.

A first version that recognises the common numbering styles at line starts:
``ARTICLE 12 TERMINATION``, ``Section 12.3 Termination.`` and ``12.3 Termination for
Convenience.``. Each clause span runs to the next clause of the same or a higher level,
and its label is the clause path, e.g. ``"12 Termination > 12.3 Termination for
Convenience"``. Defined terms (``"Term" means …``) become ``definition`` spans.
"""

from __future__ import annotations

import re

from lateseg.types import Span

_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}

_ARTICLE = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:ARTICLE|Article)[ \t]+([0-9]+|[IVXLC]+)\b[ \t.:\-]*(.*)$",
    re.MULTILINE,
)
# "12.3 **Title.** text" / "Section 12.3 Title." / "12. Title" - number, then a short title.
_SECTION = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:Section[ \t]+)?([0-9]+(?:\.[0-9]+)*)\.?[ \t]+\**"
    r"([\"“][A-Z][^\"”\n]{0,60}[\"”]|[A-Z][^\n.]{0,80})",
    re.MULTILINE,
)
_DEFINITION = re.compile(r"[\"“]([A-Z][^\"”\n]{1,60})[\"”]\s+(?:means|shall mean|has the meaning)")


_SENTENCE_STOP = re.compile(r"[.;](?=\s)|\n\s*\n")


def _article_number(token: str) -> str:
    if token.isdigit():
        return token
    total, prev = 0, 0
    for ch in reversed(token):
        v = _ROMAN[ch]
        total += -v if v < prev else v
        prev = max(prev, v)
    return str(total)


def _title(raw: str) -> str:
    title = raw.strip().strip("*").strip().strip('"“”')
    title = title.rstrip(".:").strip()
    return title.title() if title.isupper() else title


def clause_spans(text: str) -> list[Span]:
    """Clause spans with hierarchical labels; empty when the text has no numbering."""
    heads: list[tuple[int, tuple[int, ...], str]] = []
    for m in _ARTICLE.finditer(text):
        art = _article_number(m.group(1))
        heads.append((m.start(), (int(art),), f"{art} {_title(m.group(2))}".strip()))
    article_starts = {h[0] for h in heads}
    for m in _SECTION.finditer(text):
        if m.start() in article_starts:
            continue
        parts = tuple(int(p) for p in m.group(1).split("."))
        if len(parts) > 4 or parts[0] > 500:
            continue  # years, amounts and similar numbers at a line start
        heads.append((m.start(), parts, f"{m.group(1)} {_title(m.group(2))}"))
    heads.sort()
    # A line "12.3 ..." only counts inside ARTICLE 12 (or where there are no articles):
    # this drops numbered list items and amounts that merely look like clause numbers.
    has_articles = bool(article_starts)
    kept: list[tuple[int, tuple[int, ...], str]] = []
    current_article: int | None = None
    for start, num, label in heads:
        if start in article_starts:
            current_article = num[0]
            kept.append((start, num, label))
        elif not has_articles or (len(num) > 1 and num[0] == current_article):
            kept.append((start, num, label))
    spans: list[Span] = []
    for i, (start, num, _label) in enumerate(kept):
        depth = len(num)
        end = len(text)
        for nstart, nnum, _ in kept[i + 1 :]:
            if len(nnum) <= depth:
                end = nstart
                break
        # Only the nearest ancestor at each depth belongs to the path.
        ancestors: dict[int, str] = {}
        for _s, n, lbl in kept[:i]:
            if len(n) < depth and num[: len(n)] == n:
                ancestors[len(n)] = lbl
        path = [ancestors[d] for d in sorted(ancestors)]
        spans.append(Span(start, end, "clause", " > ".join([*path, kept[i][2]])))
    return spans


def definition_spans(text: str) -> list[Span]:
    """``definition`` spans for defined terms: from the quoted term to the end of its
    sentence (or line); the label is the term."""
    spans = []
    for m in _DEFINITION.finditer(text):
        stop = _SENTENCE_STOP.search(text, m.end())
        end = stop.start() + 1 if stop else len(text)
        spans.append(Span(m.start(), end, "definition", m.group(1)))
    return spans
