from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from conftest import license_file

from lateseg.encode.config import EncoderConfig
from lateseg.encode.late import LateEncoder
from lateseg.encode.windows import assign_tokens, plan_windows
from lateseg.errors import ConfigError, OffsetError


def test_windows_cover_every_token_and_each_token_has_one_owner():
    n, window, overlap = 2000, 510, 128
    rng = np.random.default_rng(0)
    tier = (rng.random(n) < 0.05).astype(np.int8)
    wins = plan_windows(n, window, overlap, tier, rng.integers(0, 2**63, n).astype(np.uint64))
    assert wins[0][0] == 0 and wins[-1][1] == n
    for (s0, e0), (s1, e1) in itertools.pairwise(wins):
        assert e1 - s1 <= window and s0 < s1 < e0  # consecutive windows overlap...
        assert e0 - s1 == overlap  # ...by exactly `overlap` tokens
    owner = assign_tokens(n, wins)
    assert (owner >= 0).all()
    for t in range(n):
        s, e = wins[owner[t]]
        assert s <= t < e
    # A token is owned by a window where it sees at least ~overlap/2 tokens both sides
    # (except near the document's own edges).
    for t in range(200, n - 200):
        s, e = wins[owner[t]]
        assert min(t - s, e - 1 - t) >= overlap // 2 - 1


def test_window_starts_follow_content_not_position():
    n = 3000
    rng = np.random.default_rng(1)
    tier = (rng.random(n) < 0.04).astype(np.int8)  # sentence starts
    tier[[400, 1300, 2200]] = 2  # paragraph starts
    tier[[380, 430]] = 1
    keys = rng.integers(0, 2**63, n).astype(np.uint64)
    wins = plan_windows(n, 510, 128, tier, keys)
    starts = [s for s, _ in wins]
    # The strongest boundary in its neighbourhood starts a window: a paragraph start
    # beats the sentence starts around it, whatever their keys.
    assert {400, 1300, 2200} <= set(starts) and not {380, 430} & set(starts)
    # Shift the same content by 7 tokens (say, a heading prepended): from the first
    # common start on, every window moves with the content.
    shifted = plan_windows(
        n + 7,
        510,
        128,
        np.concatenate([np.full(7, 2, np.int8), tier]),
        np.concatenate([rng.integers(0, 2**63, 7).astype(np.uint64), keys]),
    )
    moved = [(s - 7, e - 7) for s, e in shifted]
    common = sorted(set(wins) & set(moved))
    assert common and common[0][0] <= 400
    assert [w for w in wins if w[0] >= common[0][0]] == [w for w in moved if w[0] >= common[0][0]]
    # A fixed stride has no such property.
    fixed = plan_windows(n, 510, 128)
    fixed_moved = [(s - 7, e - 7) for s, e in plan_windows(n + 7, 510, 128)]
    assert not set(fixed[1:-1]) & set(fixed_moved)


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
    # one window: the late tokens are one forward pass's, pooled over the text's tokens
    ids = encoder.tokenizer(text, add_special_tokens=False)["input_ids"]
    plain = next(encoder._forward([[ids]], encoder.embedder))[0].mean(axis=0)
    pooled = tokens.pool([(0, len(text))])[0]
    assert np.allclose(plain / np.linalg.norm(plain), pooled, atol=1e-5)


def test_long_document_is_read_in_windows_with_late_context(encoder):
    text = license_file("GPL-3").read_text()
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


def test_chunk_vectors_mix_late_and_naive_by_weight(encoder):
    from lateseg.encode.late import LateEncoder

    text = license_file("Apache-2.0").read_text()
    tokens = encoder.encode_document(text)
    spans = [(text.index("4. Redistribution."), text.index("5. Submission of Contributions."))]
    spans[0] = (spans[0][0], spans[0][0] + len(text[slice(*spans[0])].rstrip()))
    late = tokens.pool(spans)
    naive = encoder.embed_texts([text[slice(*spans[0])]])

    def vec(w, code=False):
        enc = LateEncoder(EncoderConfig(late_weight=w, code_late_weight=1.0 - w))
        # the same (model, device, backend) is loaded once per process and shared
        return enc.chunk_vectors(text, tokens, spans, code=code)

    assert np.allclose(vec(1.0), late, atol=1e-6)
    assert np.allclose(vec(0.0), naive, atol=1e-5)
    assert np.allclose(vec(0.0, code=True), late, atol=1e-6)  # the code weight is separate
    half = vec(0.5)[0]
    assert abs(np.linalg.norm(half) - 1) < 1e-5
    # Between the two: closer to each than they are to each other.
    assert half @ late[0] > late[0] @ naive[0] and half @ naive[0] > late[0] @ naive[0]
    with pytest.raises(ConfigError, match="late_weight"):
        EncoderConfig(late_weight=1.5)


def test_texts_embedded_alone_use_the_full_trained_length(encoder):
    """The late window (128) is not a limit on naive embedding (254 for MiniLM)."""
    assert encoder.window == 128 < encoder.max_length == 254
    text = license_file("GPL-3").read_text()
    offsets = encoder.tokenize(text)
    t200, t128 = text[: offsets[200, 0]], text[: offsets[128, 0]]
    a, b = encoder.embed_texts([t200, t128])
    assert a @ b < 0.999  # the tokens past 128 were read


def _model_that_ships_code(tmp_path):
    """A local model folder whose config needs its own Python code (as jina-v2 does):
    the MiniLM weights behind a custom architecture that records when it is imported.
    No sentence-transformers config: the window is the model's 512 positions."""
    import json
    import os

    from lateseg.encode.models import resolve_embedder

    src = Path(resolve_embedder(None))
    folder = tmp_path / "remote-code-model"
    folder.mkdir()
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "model.safetensors"):
        os.symlink(src / name, folder / name)
    config = json.loads((src / "config.json").read_text())
    config["model_type"] = "lateseg-test-bert"
    config["auto_map"] = {
        "AutoConfig": "modeling_test.TestConfig",
        "AutoModel": "modeling_test.TestModel",
    }
    (folder / "config.json").write_text(json.dumps(config))
    marker = tmp_path / "code-ran"
    (folder / "modeling_test.py").write_text(
        "import pathlib\n"
        "from transformers import BertConfig, BertModel\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "class TestConfig(BertConfig):\n"
        "    model_type = 'lateseg-test-bert'\n"
        "class TestModel(BertModel):\n"
        "    config_class = TestConfig\n"
    )
    return folder, marker


def test_models_that_ship_code_run_it_only_when_the_user_opts_in(tmp_path, encoder):
    from lateseg.encode.late import LateEncoder
    from lateseg.errors import ModelError

    folder, marker = _model_that_ships_code(tmp_path)
    refused = LateEncoder(EncoderConfig(model=str(folder)))
    with pytest.raises(ModelError, match="trust_remote_code"):
        refused.dim  # noqa: B018
    assert not marker.exists()  # its code never ran
    trusted = LateEncoder(EncoderConfig(model=str(folder), window=None, trust_remote_code=True))
    assert trusted.max_length == 510 and trusted.window == 510  # all 512 positions
    tokens = trusted.encode_document(license_file("Apache-2.0").read_text())
    assert len(tokens) > 3 * 510  # read in several full-length windows
    assert marker.exists() and tokens.vectors.shape == (len(tokens), encoder.dim)


def test_release_models_forgets_the_models_kept_for_reuse():
    """After :func:`lateseg.release_models` a new encoder loads the model afresh; one
    that holds its model keeps it and still works."""
    import lateseg
    import lateseg.encode.shared as shared

    first = LateEncoder()
    assert LateEncoder().embedder is first.embedder  # one model per process, shared
    lateseg.release_models()
    assert not shared._LOADED and not shared._QUICK
    fresh = LateEncoder()
    assert fresh.embedder is not first.embedder
    assert np.allclose(fresh.embed_queries(["rent"]), first.embed_queries(["rent"]), atol=1e-5)
