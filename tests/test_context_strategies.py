"""The budget arithmetic of the three context strategies bench/answers.py compares at one
token budget (bench/context_strategies.py): none may exceed the budget, top-k cuts only
the hit where the budget runs out, and fixed windows tile the document. No model."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.context_strategies import (
    cut,
    fixed_context,
    fixed_windows,
    topk_context,
)
from lateseg.answer.citations import SEPARATOR, passage_block
from lateseg.generate.remote.context import fit_context
from lateseg.generate.writer import estimate_tokens
from lateseg.types import Document, Hit, Span

SENTENCES = [
    f"Clause {i}. The Supplier shall deliver item {i} within {10 + i} days of the order. "
    for i in range(40)
]
DOC = Document("/docs/msa.pdf", "".join(SENTENCES), "pdf")


def words(text: str) -> int:
    """A count that is not the characters' (one token a space-separated piece)."""
    return len(text.split())


def hits_of(doc: Document, order: list[int]) -> list[Hit]:
    """Sentence ``i`` of ``doc`` as a hit, for each ``i`` in rank ``order``."""
    starts = [0]
    for s in SENTENCES:
        starts.append(starts[-1] + len(s))
    return [
        Hit(doc.source, starts[i], starts[i + 1], doc.text[starts[i] : starts[i + 1]],
            1.0 - r / 100, chunk_id=i, doc_id=doc.id)
        for r, i in enumerate(order)
    ]  # fmt: skip


def shown(fit, count, widest) -> int:
    return sum(count(passage_block(widest, h) + SEPARATOR) for h in fit.passages)


@pytest.mark.parametrize("count", [estimate_tokens, words])
@pytest.mark.parametrize("budget", [30, 75, 120, 500])
def test_topk_keeps_rank_order_and_cuts_only_where_the_budget_ends(count, budget):
    hits = hits_of(DOC, [7, 2, 30, 11, 5, 19])
    fit = topk_context(hits, budget, count)
    assert fit.tokens == shown(fit, count, len(hits)) <= budget
    whole = [h for h in fit.passages if h.end - h.start == len(h.text) and h in hits]
    # the kept hits are the first ones of the ranking, in rank order, whole but the last
    assert [h.chunk_id for h in fit.passages] == [h.chunk_id for h in hits[: len(fit.passages)]]
    assert whole == list(fit.passages[: len(whole)])
    assert len(fit.passages) - len(whole) <= 1
    for h in fit.passages:  # every passage, cut or not, is the document's text there
        assert DOC.text[h.start : h.end] == h.text
    if len(fit.passages) > len(whole):  # the cut one is as long as the budget allows
        part = fit.passages[-1]
        full = hits[len(whole)]
        assert full.text.startswith(part.text) and len(part.text) < len(full.text)
        longer = cut(full, len(part.text) + 1)
        assert (
            fit.tokens
            - count(passage_block(len(hits), part) + SEPARATOR)
            + count(passage_block(len(hits), longer) + SEPARATOR)
            > budget
        )
    kept = {h.chunk_id for h in fit.passages}
    assert {h.chunk_id for h in fit.dropped} == {h.chunk_id for h in hits} - kept
    if budget >= shown(fit_context(hits, 10**6, count), count, len(hits)):
        assert fit.passages == tuple(hits) and not fit.dropped  # nothing to cut


def test_topk_stops_at_the_first_hit_that_does_not_fit():
    hits = hits_of(DOC, [3, 4, 5])
    one = estimate_tokens(passage_block(3, hits[0]) + SEPARATOR)
    fit = topk_context(hits, one + 4, estimate_tokens)  # hits[1]: its header and 1 char take 5
    assert fit.passages == (hits[0],)
    assert fit.dropped == (hits[1], hits[2])


@pytest.mark.parametrize("count,size", [(estimate_tokens, 16), (words, 9), (estimate_tokens, 1)])
def test_fixed_windows_tile_the_document_at_a_fixed_size(count, size):
    pages = (Span(0, 1500, "page", "1"), Span(1500, len(DOC.text), "page", "2"))
    doc = Document(DOC.source, DOC.text, "pdf", pages)
    windows = fixed_windows(doc, size, count)
    assert windows[0].start == 0 and windows[-1].end == len(doc.text)
    for a, b in itertools.pairwise(windows):
        assert a.end == b.start  # contiguous: the cuts fall wherever they fall
    for w in windows:
        assert doc.text[w.start : w.end] == w.text
        assert count(w.text) <= size
        assert w.page == (1 if w.start < 1500 else 2)
        assert w.page_end == (1 if w.end <= 1500 else 2)
    if count is estimate_tokens:  # the estimate is characters / 4: exact windows
        assert {len(w.text) for w in windows[:-1]} == {4 * size}


def test_fixed_context_fits_whole_windows_in_document_order():
    windows = fixed_windows(DOC, 32, estimate_tokens)
    ranked = [windows[i] for i in (9, 1, 14, 3, 20, 0)]
    fit = fixed_context(ranked, 140, estimate_tokens)
    assert fit.tokens == shown(fit, estimate_tokens, len(ranked)) <= 140
    assert all(w in windows for w in fit.passages)  # never cut
    assert [w.start for w in fit.passages] == sorted(w.start for w in fit.passages)
    assert set(fit.passages) == set(ranked[: len(fit.passages)])  # best first
