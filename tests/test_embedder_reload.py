"""An embedder folder rewritten under a running process (a server) is noticed at the
next embedding: the same weights in new files go on serving, loaded again; different
weights are refused from then on, as the index's vectors were made by the old ones."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from lateseg.encode.config import EncoderConfig
from lateseg.encode.late import LateEncoder
from lateseg.encode.models import resolve_embedder
from lateseg.errors import ModelError

pytestmark = pytest.mark.slow  # loads and exports three fresh copies of the embedder

QUERIES = ["How many days' notice must the Client give?"]


@pytest.fixture()
def folder(tmp_path):
    dest = tmp_path / "embedder"
    shutil.copytree(resolve_embedder(None), dest)
    return dest


def _rewrite(folder, scale: float | None) -> None:
    """Write the weights file again (a deploy replacing the model), the same weights or
    every tensor multiplied by ``scale``, with a later modification time."""
    from safetensors.torch import load_file, save_file

    path = folder / "model.safetensors"
    tensors = load_file(path)
    if scale is not None:
        torch = pytest.importorskip("torch")
        gen = torch.Generator().manual_seed(0)
        tensors = {
            k: v + scale * torch.randn(v.shape, generator=gen) * v.std()
            if v.is_floating_point() and v.numel() > 1
            else v
            for k, v in tensors.items()
        }
    save_file(tensors, str(path), metadata={"format": "pt"})
    later = path.stat().st_mtime + 10
    os.utime(path, (later, later))


def test_the_same_weights_rewritten_are_loaded_again_and_serve(folder):
    enc = LateEncoder(EncoderConfig(model=str(folder), backend="torch"))
    before = enc.embed_queries(QUERIES)
    first = enc.embedder
    _rewrite(folder, scale=None)
    after = enc.embed_queries(QUERIES)
    assert enc.embedder is not first  # the new files were loaded
    np.testing.assert_allclose(after, before, atol=1e-5)
    enc.encode_document("The Client may terminate on sixty (60) days' notice.")


def test_different_weights_rewritten_are_refused_from_then_on(folder):
    """On the default backend (an exported graph where the CPU allows)."""
    enc = LateEncoder(EncoderConfig(model=str(folder)))
    enc.embed_queries(QUERIES)
    _rewrite(folder, scale=0.5)
    with pytest.raises(ModelError, match="rewritten with a different model"):
        enc.embed_queries(QUERIES)
    with pytest.raises(ModelError, match="rewritten"):  # not only once
        enc.encode_document("The Client may terminate on sixty (60) days' notice.")
    # a new encoder (a restart, a new index) reads the new files
    fresh = LateEncoder(EncoderConfig(model=str(folder)))
    assert fresh.embed_queries(QUERIES).shape == (1, 384)


def test_an_unchanged_folder_is_not_loaded_twice(folder):
    enc = LateEncoder(EncoderConfig(model=str(folder), backend="torch"))
    enc.embed_queries(QUERIES)
    first = enc.embedder
    enc.embed_queries(QUERIES)
    enc.encode_document("Sixty (60) days.")
    assert enc.embedder is first
    assert LateEncoder(EncoderConfig(model=str(folder), backend="torch")).embedder is first
