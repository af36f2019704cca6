"""Citation markers ``[n]`` in generated text, mapped back to the passages shown, and
the numbered passages themselves, fitted whole to a token budget."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lateseg.types import Hit

MARK = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
# Between two passages in the prompt.
SEPARATOR = "\n\n"


def marked_numbers(text: str) -> list[int]:
    """The numbers of the ``[n]`` / ``[n, m]`` markers in ``text``, in order."""
    return [int(num) for m in MARK.finditer(text) for num in re.split(r"\s*[,;]\s*", m.group(1))]


def parse_citations(text: str, passages: Sequence[Hit]) -> list[Hit]:
    """The passages cited as ``[n]`` / ``[n, m]`` in ``text`` (1-based), in first-cited
    order, each once; numbers outside ``1..len(passages)`` are ignored."""
    seen: list[int] = []
    for num in marked_numbers(text):
        i = num - 1
        if 0 <= i < len(passages) and i not in seen:
            seen.append(i)
    return [passages[i] for i in seen]


def passage_block(n: int, h: Hit) -> str:
    """Passage ``n`` as the prompt shows it: its number, provenance and whole text."""
    where = h.source.rsplit("/", 1)[-1]
    pages = h.pages()
    if pages is not None:
        where += f", {pages}"
    if h.section:
        where += f", {h.section}"
    return f"[{n}] ({where})\n{h.text}"


def format_passages(passages: Sequence[Hit]) -> str:
    """The passages numbered from 1 with their provenance, each whole."""
    return SEPARATOR.join(passage_block(n, h) for n, h in enumerate(passages, start=1))


def fit_passages(
    passages: Sequence[Hit], budget: int, count: Callable[[str], int]
) -> tuple[list[Hit], list[Hit]]:
    """The passages that fit ``budget`` tokens (``count`` tokenizes), whole and in the
    order given, and those dropped: a passage that does not fit is left out entirely (a
    later, shorter one may still fit), never cut."""
    kept: list[Hit] = []
    dropped: list[Hit] = []
    used = 0
    for h in passages:
        cost = count(passage_block(len(kept) + 1, h) + SEPARATOR)
        if used + cost <= budget:
            kept.append(h)
            used += cost
        else:
            dropped.append(h)
    return kept, dropped
