"""Hybrid search's fusion (lateseg.retrieve.fusion): each ranking's scores scaled to
[0, 1], combined by weight; and where ``auto`` fuses (questions over a codebase)."""

from __future__ import annotations

import numpy as np
import pytest

from lateseg.answer.question import is_question
from lateseg.ask.options import search_mode
from lateseg.retrieve.fusion import POOL, fuse, fusion_weights, scaled


def test_scores_are_scaled_between_the_lowest_and_the_highest():
    assert scaled([(7, 0.8), (3, 0.5), (9, 0.2)]) == pytest.approx({7: 1.0, 3: 0.5, 9: 0.0})
    assert scaled([(1, 0.4), (2, 0.4)]) == {1: 1.0, 2: 1.0}  # equal: all best
    assert scaled([]) == {}


def test_a_candidate_far_ahead_in_one_ranking_beats_near_ties():
    """Reciprocal-rank fusion saw only ranks: a passage that BM25 puts far ahead of the
    rest (the only one holding the identifier asked for) weighed no more than a near tie.
    Scaled scores keep the gap."""
    dense = [(1, 0.62), (2, 0.61), (4, 0.60), (3, 0.30)]
    lexical = [(4, 30.0), (1, 3.0), (2, 2.9)]
    # by rank alone 1 wins (first and second: 1/61 + 1/62 > 1/63 + 1/61)
    fused = fuse([dense, lexical], (1.0, 1.0))
    assert [cid for cid, _ in fused] == [4, 1, 2, 3]  # every candidate, best first
    assert all(0.0 <= s <= 1.0 for _, s in fused)
    assert fused[0][1] == pytest.approx((0.30 / 0.32 + 1.0) / 2)  # the mean of its scaled


def test_weights_move_the_fusion_and_are_checked():
    dense = [(1, 0.9), (2, 0.1)]
    lexical = [(2, 5.0), (1, 1.0)]
    assert [c for c, _ in fuse([dense, lexical], (1.0, 0.0))] == [1, 2]
    assert [c for c, _ in fuse([dense, lexical], (0.0, 1.0))] == [2, 1]
    assert fuse([dense, lexical], (2.0, 2.0)) == fuse([dense, lexical], (1.0, 1.0))
    # equal fused scores in the order of their IDs, whatever order they came in
    assert [c for c, _ in fuse([[(5, 1.0), (3, 0.0)], [(3, 1.0), (5, 0.0)]], (1, 1))] == [3, 5]
    for bad in ((0.0, 0.0), (1.0, -1.0), (1.0,), (float("nan"), 1.0), (float("inf"), 1.0)):
        assert not fusion_weights(bad)
        with pytest.raises(ValueError, match="weights"):
            fuse([dense, lexical], bad)
    assert fusion_weights((0.3, 0.7)) and fusion_weights((0, 1))


def test_empty_and_single_rankings_and_scores_within_0_and_1():
    assert fuse([[], []], (1, 1)) == []
    assert fuse([[], [(4, 2.5)]], (1, 1)) == [(4, 0.5)]  # a lone candidate is its ranking's best
    assert fuse([[(4, -0.2)], []], (1, 0)) == [(4, 1.0)]  # negative cosines scale too
    rng = np.random.default_rng(7)
    for _ in range(50):
        dense = [
            (int(i), float(s))
            for i, s in zip(rng.permutation(80)[:40], -np.sort(-rng.normal(size=40)), strict=True)
        ]
        lexical = [
            (int(i), float(s))
            for i, s in zip(
                rng.permutation(80)[:30], -np.sort(-rng.gamma(2.0, size=30)), strict=True
            )
        ]
        w = tuple(float(x) for x in rng.uniform(0.01, 3, 2))
        fused = fuse([dense, lexical], w)
        assert all(0.0 <= s <= 1.0 for _, s in fused)
        assert {c for c, _ in fused} == {c for c, _ in dense} | {c for c, _ in lexical}


def test_a_deeper_search_scores_its_first_candidates_as_a_shallow_one():
    """Scaled over the first POOL of each ranking: asking for more (a larger k, a
    filter's retries) does not reorder what a search of POOL found."""
    rng = np.random.default_rng(3)
    dense = [(i, float(s)) for i, s in enumerate(-np.sort(-rng.normal(size=4 * POOL)))]
    ids = rng.permutation(4 * POOL)
    lexical = [
        (int(i), float(s))
        for i, s in zip(ids, -np.sort(-rng.gamma(2.0, size=4 * POOL)), strict=True)
    ]
    shallow = dict(fuse([dense[:POOL], lexical[:POOL]], (1, 1)))
    deep = dict(fuse([dense, lexical], (1, 1)))
    assert all(deep[c] == pytest.approx(s) for c, s in shallow.items())


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("Which function works out the program name?", True),
        ("how does isort decide the section", True),
        ("Are session files encrypted on disk?", True),
        ("Return the number of days in the month.", False),  # a docstring
        ("Do basic configuration for the logging system.", False),
        ("parse config file", False),
    ],
)
def test_a_question_is_told_from_a_description(text, question):
    assert is_question(text) is question


def test_auto_fuses_a_question_over_a_codebase_and_a_question_about_code_anywhere():
    plain = "How does the tool pick the text encoding of a short response?"
    assert search_mode("auto", plain, codebase=True) == "hybrid"
    assert search_mode("auto", plain, codebase=False) == "dense"
    docstring = "Return the text encoding of a short response."
    assert search_mode("auto", docstring, codebase=True) == "dense"
    about_code = "Which exception does clamp() raise?"
    assert search_mode("auto", about_code, codebase=False) == "hybrid"
    assert search_mode("dense", plain, codebase=True) == "dense"
