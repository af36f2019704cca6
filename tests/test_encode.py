from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import LICENSES

from lateseg.encode.late import EncoderConfig, assign_tokens, plan_windows
from lateseg.errors import ConfigError, OffsetError


def test_windows_cover_every_token_and_each_token_has_one_owner():
    n, window, overlap = 2000, 510, 128
    rng = np.random.default_rng(0)
    tier = (rng.random(n) < 0.05).astype(np.int8)
    wins = plan_windows(n, window, overlap, tier, rng.integers(0, 2**63, n).astype(np.uint64))
    assert wins[0][0] == 0 and wins[-1][1] == n
    for (s0, e0), (s1, e1) in itertools.pairwise(wins):
        assert e1 - s1 <= window and s0 < s1 < e0  # consecutive windows overlap
        assert e0 - s1 >= overlap // 4
    owner = assign_tokens(n, wins)
    assert (owner >= 0).all()
    for t in range(n):
        s, e = wins[owner[t]]
        assert s <= t < e
    # A token is owned by a window where it sees at least ~overlap/8 tokens both sides
    # (except near the document's own edges).
    for t in range(200, n - 200):
        s, e = wins[owner[t]]
        assert min(t - s, e - 1 - t) >= overlap // 8


def test_window_starts_follow_content_not_position():
    n = 1500
    tier = np.zeros(n, dtype=np.int8)
    tier[[400, 420, 430, 860]] = [1, 2, 2, 1]
    keys = np.arange(n, dtype=np.uint64)[::-1].copy()
    wins = plan_windows(n, 510, 128, tier, keys)
    assert wins[1][0] == 430  # a paragraph start beats a sentence start; then smallest key
    # Shift the same content by 7 tokens: the window starts move with it.
    shifted = plan_windows(
        n + 7,
        510,
        128,
        np.concatenate([np.zeros(7, np.int8), tier]),
        np.concatenate([np.full(7, 2**60, np.uint64), keys]),
    )
    assert [s - 7 for s, _ in shifted[2:]] == [s for s, _ in wins[2:]]


def test_config_is_validated():
    with pytest.raises(ConfigError, match="overlap"):
        EncoderConfig(window=100, overlap=60)
    with pytest.raises(ConfigError):
        EncoderConfig(batch_size=0)


def test_short_document_equals_one_plain_forward_pass(encoder):
    text = "The Supplier shall deliver the goods within thirty days of the order."
    tokens = encoder.encode_document(text)
    assert len(tokens) > 5
    starts = tokens.offsets[:, 0]
    assert (np.diff(starts) > 0).all()
    for s, e in tokens.offsets:
        assert text[s:e].strip()
    plain = encoder.embed_texts([text])[0]
    pooled = tokens.pool([(0, len(text))])[0]
    assert np.allclose(plain, pooled, atol=1e-5)


def test_long_document_is_read_in_windows_with_late_context(encoder):
    text = (LICENSES / "GPL-3").read_text()
    tokens = encoder.encode_document(text)
    assert len(tokens) > 4 * encoder.window
    assert tokens.vectors.shape == (len(tokens), encoder.dim)
    assert np.isfinite(tokens.vectors).all() and (np.linalg.norm(tokens.vectors, axis=1) > 0).all()
    # Late chunking: a span's vector depends on its surroundings, so it differs from the
    # same words embedded alone, yet remains close to them.
    start = text.index("15. Disclaimer of Warranty.")
    end = text.index("16. Limitation of Liability.")
    late = tokens.pool([(start, end)])[0]
    naive = encoder.embed_texts([text[start:end]])[0]
    assert 0.6 < float(late @ naive) < 0.9999


def test_pooling_refuses_spans_that_cut_tokens(encoder):
    text = "Indemnification obligations survive termination."
    tokens = encoder.encode_document(text)
    with pytest.raises(OffsetError):
        tokens.pool([(2, len(text))])  # inside the first word's first token
    with pytest.raises(OffsetError, match="no token"):
        tokens.pool([(len(text), len(text))])


def test_queries_and_documents_are_normalised(encoder):
    q = encoder.embed_queries(["notice period", "governing law"])
    assert q.shape == (2, encoder.dim)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-5)
