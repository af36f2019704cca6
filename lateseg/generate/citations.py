"""Citation markers ``[n]`` in generated text, mapped back to the passages shown."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lateseg.types import Hit

_MARK = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def parse_citations(text: str, passages: Sequence[Hit]) -> list[Hit]:
    """The passages cited as ``[n]`` / ``[n, m]`` in ``text`` (1-based), in first-cited
    order, each once; numbers outside ``1..len(passages)`` are ignored."""
    seen: list[int] = []
    for m in _MARK.finditer(text):
        for num in re.split(r"\s*[,;]\s*", m.group(1)):
            i = int(num) - 1
            if 0 <= i < len(passages) and i not in seen:
                seen.append(i)
    return [passages[i] for i in seen]


def format_passages(passages: Sequence[Hit], budget_chars: int) -> str:
    """Numbered passages with their provenance, truncated to ``budget_chars`` in all."""
    out = []
    per = max(200, budget_chars // max(1, len(passages)))
    for n, h in enumerate(passages, start=1):
        where = h.source.rsplit("/", 1)[-1]
        pages = h.pages()
        if pages is not None:
            where += f", {pages}"
        if h.section:
            where += f", {h.section}"
        body = h.text if len(h.text) <= per else h.text[:per].rsplit(" ", 1)[0] + " ..."
        out.append(f"[{n}] ({where})\n{body}")
    return "\n\n".join(out)
