"""Static int8 (``openvino-int8``, :mod:`lateseg.encode.quantize`): which products run at
int8, the calibration windows, the graph's self-check, and what static scales buy: a
document's vectors that do not depend on its batch-mates while documents share batches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import license_file

from lateseg.encode.config import EncoderConfig
from lateseg.encode.late import LateEncoder
from lateseg.errors import ModelError


@pytest.fixture(scope="module")
def int8_encoder():
    enc = LateEncoder(EncoderConfig(backend="openvino-int8"))
    enc.dim  # noqa: B018 - load (export and calibrate once)
    return enc


def test_the_products_at_int8_are_the_widening_ones_with_a_weight(int8_encoder):
    import onnx

    from lateseg.encode.quantize import GRAPH, int8_matmuls

    graph = int8_encoder.embedder.graph
    assert graph is not None and graph.name == GRAPH
    chosen = int8_matmuls(onnx.load(str(graph.with_name("model.onnx"))))
    # all-MiniLM-L6-v2: six layers of query, key, value, attention output, first FFN
    assert len(chosen) == 30
    assert not any(n.endswith("/output/dense/MatMul") and "attention" not in n for n in chosen)
    assert not any(n.endswith("self/MatMul") or n.endswith("self/MatMul_1") for n in chosen)
    assert sum("intermediate" in n for n in chosen) == 6


def test_calibration_windows_are_fixed_and_framed_by_the_special_tokens(int8_encoder):
    from lateseg.encode.quantize import CALIBRATION_WINDOW, MAX_WINDOWS, calibration_windows

    tok = int8_encoder.tokenizer
    windows = calibration_windows(tok)
    assert 10 <= len(windows) <= MAX_WINDOWS
    assert all(len(w) <= CALIBRATION_WINDOW for w in windows)
    assert all(w[0] == tok.cls_token_id and w[-1] == tok.sep_token_id for w in windows)
    assert calibration_windows(tok) == windows


def test_a_graph_too_far_from_fp32_is_refused_and_not_left_behind(
    int8_encoder, tmp_path, monkeypatch
):
    from lateseg.encode import quantize

    fp32 = int8_encoder.embedder.graph.with_name("model.onnx")
    out = tmp_path / quantize.GRAPH
    monkeypatch.setattr(quantize, "MAX_WINDOWS", 8)  # a short calibration: the same path
    cosine = quantize.quantize_static_graph(fp32, out, int8_encoder.tokenizer)
    assert out.is_file() and quantize.MIN_COSINE <= cosine < 1.0
    out.unlink()
    monkeypatch.setattr(quantize, "MIN_COSINE", 1.01)
    with pytest.raises(ModelError, match="token cosine"):
        quantize.quantize_static_graph(fp32, out, int8_encoder.tokenizer)
    assert not out.exists()


def test_int8_vectors_stay_close_to_fp32(int8_encoder, fp32_encoder):
    text = license_file("Apache-2.0").read_text("utf-8")
    a = fp32_encoder.encode_document(text).vectors
    b = int8_encoder.encode_document(text).vectors
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert cos.mean() > 0.97, cos.mean()
    assert not np.allclose(a, b, atol=1e-3)  # int8 indeed


def test_windows_share_batches_by_a_width_of_their_own_length():
    """Static int8: a window's padding is set by its own length (never by its batch-mates),
    and windows of one width share batches across documents; dynamic int8 batches each
    document apart; a float graph batches everything together."""
    from lateseg.encode.windows import WIDTH_STEP, batch_groups

    lengths = [128, 40, 128, 70, 128, 33, 64]
    docs = [0, 0, 1, 1, 2, 2, 3]
    groups, widths = batch_groups(lengths, docs, "openvino-int8")
    assert widths == [128, 64, 128, 96, 128, 64, 64]
    assert all(w % WIDTH_STEP == 0 and w >= n for w, n in zip(widths, lengths, strict=True))
    assert sorted(map(sorted, groups)) == [[0, 2, 4], [1, 5, 6], [3]]
    assert batch_groups([40], [0], "openvino-int8")[1] == [64]  # the same width alone
    _, capped = batch_groups([254, 250, 200], [0, 0, 1], "openvino-int8", most=254)
    assert capped == [254, 254, 224]  # never past the model's longest sequence
    groups, widths = batch_groups(lengths, docs, "onnx-int8")
    assert groups == [[0, 1], [2, 3], [4, 5], [6]] and widths == lengths
    groups, widths = batch_groups(lengths, docs, "openvino")
    assert groups == [list(range(7))] and widths == lengths


@pytest.mark.parametrize("name", ["MPL-2.0", "GPL-3"])
def test_a_documents_int8_vectors_do_not_depend_on_its_batch_mates(
    int8_encoder, fp32_encoder, name
):
    """The same document alone (batches of one window) and among others: its chunks'
    vectors agree far closer than int8 agrees with fp32. Measured on an Intel Xeon without
    bf16: bit-identical; a CPU whose float kernels round with the batch's shape may move
    an activation across an int8 step (as bf16 moves by its steps,
    test_segment_properties)."""
    text = license_file(name).read_text("utf-8")
    others = [(license_file(n).read_text("utf-8"), False) for n in ("Apache-2.0", "BSD")]
    alone = LateEncoder(EncoderConfig(backend="openvino-int8", batch_size=1))
    together = int8_encoder.encode_documents([*others, (text[7:] + " ", False), (text, False)])
    single = alone.encode_document(text).vectors
    exact = fp32_encoder.encode_document(text).vectors

    def spans(x: np.ndarray) -> np.ndarray:
        n = len(x) // 32 * 32
        p = x[:n].reshape(-1, 32, x.shape[1]).mean(1)
        return p / np.linalg.norm(p, axis=1, keepdims=True)

    batching = 1 - (spans(together[-1].vectors) * spans(single)).sum(1)
    quantising = 1 - (spans(exact) * spans(single)).sum(1)
    assert batching.max() <= quantising.mean() / 16, (batching.max(), quantising.mean())


def test_windows_of_several_documents_share_batches(int8_encoder, monkeypatch):
    emb = int8_encoder.window_embedder
    shapes: list[tuple[int, int]] = []
    inner = emb.forward

    def counting(ids, mask):
        shapes.append(ids.shape)
        return inner(ids, mask)

    monkeypatch.setattr(emb, "forward", counting)
    monkeypatch.setattr(emb, "_streams_looked", True)  # one batch at a time: counted
    monkeypatch.setattr(emb, "_streams", None)
    texts = [license_file(n).read_text("utf-8") for n in ("MPL-2.0", "Apache-2.0", "GPL-2")]
    fresh = LateEncoder(EncoderConfig(backend="openvino-int8"))
    fresh.encode_documents([(t + " (copy)", False) for t in texts])
    assert any(b > 1 for b, _ in shapes)
    windows = sum(b for b, _ in shapes)
    assert len(shapes) < windows // 4, shapes  # full batches, not one document's each
    most = fresh.max_length  # no prefix for this model
    assert all(w % 32 == 2 or w == most + 2 for _, w in shapes), shapes  # + CLS and SEP


def test_the_window_backend_is_recorded_and_followed(tmp_path, int8_encoder):
    from lateseg.pipeline import Pipeline

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(license_file("MPL-2.0").read_text("utf-8"), "utf-8")
    config = EncoderConfig(backend="openvino", window_backend="openvino-int8")
    with Pipeline.open(tmp_path / "idx", embedder=config, profile="fast") as pipe:
        pipe.ingest([docs], progress=False)
    with Pipeline.open(tmp_path / "idx", readonly=True) as pipe:
        assert pipe.encoder.window_embedder.backend == "openvino-int8"
        assert pipe.search("termination of the licence", k=1)
    manifest = (tmp_path / "idx" / "manifest.json").read_text("utf-8")
    assert '"windows": "openvino-int8"' in manifest
    assert Path(int8_encoder.embedder.graph).is_file()


def test_a_static_int8_index_is_never_read_with_another_int8(tmp_path, int8_encoder):
    """The two int8 formats move vectors each its own way: neither searches the other's
    index (nor does a float backend)."""
    from lateseg.errors import IndexStoreError
    from lateseg.pipeline import Pipeline

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The Licensee shall pay the fees within thirty days.\n", "utf-8")
    with Pipeline.open(tmp_path / "idx", embedder=EncoderConfig(backend="openvino-int8")) as pipe:
        pipe.ingest([docs], progress=False)
    for other in ("onnx-int8", "openvino"):
        with pytest.raises(IndexStoreError, match="openvino-int8"):
            Pipeline.open(tmp_path / "idx", embedder=EncoderConfig(backend=other), readonly=True)
    with Pipeline.open(tmp_path / "idx", backend="openvino-int8", readonly=True) as pipe:
        assert pipe.search("when are the fees due", k=1)
