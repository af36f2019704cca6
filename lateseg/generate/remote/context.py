"""The context a model is given when its KV cache is out of reach (a model behind a URL):
whole content-defined chunks under a token budget, the text form of the KV press. Pure:
the tokens are counted by the function given (the server's tokenizer, or a stated
estimate)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lateseg.answer.citations import SEPARATOR, passage_block
from lateseg.errors import ConfigError
from lateseg.types import Hit


@dataclass(frozen=True)
class ContextFit:
    """The passages chosen, in the order the prompt numbers them from 1 (``[n]`` cites
    ``passages[n - 1]``), those left out, and the tokens the chosen ones take."""

    passages: tuple[Hit, ...]
    dropped: tuple[Hit, ...]
    tokens: int


def fit_context(hits: Sequence[Hit], budget: int, count_tokens: Callable[[str], int]) -> ContextFit:
    """The ``hits`` (ranked, best first) that fit ``budget`` tokens, each whole, chosen
    best first: a hit that does not fit is left out and a later, shorter one may still
    fit; a chunk is never cut, since a cut clause can state the opposite of the whole.

    Then put in document order: documents in the order of their best hit, each
    document's passages by position, so the model reads a clause and the one after it
    in the order they were written. Each passage is counted as the prompt shows it
    (number, provenance, text, separator), with the largest number it can get, so
    renumbering never breaks the budget."""
    if budget < 1:
        raise ConfigError(f"context_tokens={budget} must be at least 1")
    widest = max(len(hits), 1)
    kept: list[Hit] = []
    dropped: list[Hit] = []
    used = 0
    for h in hits:
        cost = count_tokens(passage_block(widest, h) + SEPARATOR)
        if used + cost <= budget:
            kept.append(h)
            used += cost
        else:
            dropped.append(h)
    first: dict[str, int] = {}
    for i, h in enumerate(kept):
        first.setdefault(h.source, i)
    ordered = sorted(kept, key=lambda h: (first[h.source], h.start, h.end))
    return ContextFit(tuple(ordered), tuple(dropped), used)
