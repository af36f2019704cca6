"""Content-defined anchors (winnowing): local, so shifts move them exactly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lateseg.anchors import local_maxima, text_keys


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=300),
    st.integers(1, 30),
    st.integers(0, 2**31),
)
def test_anchors_are_local_maxima_spaced_beyond_the_radius(gaps, radius, seed):
    positions = np.cumsum(np.asarray(gaps) + 1)
    scores = np.random.default_rng(seed).integers(0, 5, len(positions)).astype(float)
    anchors = local_maxima(positions, scores, radius)
    assert (np.diff(anchors) > radius).all()
    score_at = dict(zip(positions.tolist(), scores.tolist(), strict=True))
    for a in anchors:
        near = positions[np.abs(positions - a) <= radius]
        assert score_at[int(a)] == max(score_at[int(p)] for p in near)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=20, max_size=300),
    st.lists(st.integers(0, 20), min_size=0, max_size=40),
    st.integers(1, 30),
    st.integers(0, 2**31),
)
def test_a_prefix_moves_no_anchor_past_its_reach(gaps, prefix_gaps, radius, seed):
    rng = np.random.default_rng(seed)
    positions = np.cumsum(np.asarray(gaps) + 1)
    scores = rng.random(len(positions))
    anchors = local_maxima(positions, scores, radius)
    shift = int(np.sum(np.asarray(prefix_gaps) + 1)) + 1
    pre_pos = np.cumsum(np.asarray(prefix_gaps, dtype=np.int64) + 1)
    moved = local_maxima(
        np.concatenate([pre_pos, positions + shift]),
        np.concatenate([rng.random(len(pre_pos)), scores]),
        radius,
    )
    far = anchors[anchors > positions[0] + radius]
    assert set((moved - shift).tolist()) >= set(far.tolist())


def test_text_keys_depend_on_the_text_around_a_position_only():
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    pos = np.asarray([text.index("delta"), text.index("theta")])
    k1 = text_keys(text, pos)
    k2 = text_keys("PREFIX " * 9 + text, pos + len("PREFIX ") * 9)
    assert np.array_equal(k1, k2) and ((k1 >= 0) & (k1 < 1)).all() and k1[0] != k1[1]
