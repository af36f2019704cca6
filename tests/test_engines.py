"""Ingest engines: documents encoded together get what each gets alone."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest
from conftest import DATA, license_file

from lateseg import release_models
from lateseg.encode.late import LateEncoder
from lateseg.errors import ConfigError
from lateseg.ingest import load_document
from lateseg.pipeline import Pipeline
from lateseg.scale.engines import encode_document, encode_documents, make_engine
from lateseg.segment import DynamicChunker
from lateseg.types import Document


@pytest.fixture(scope="module")
def docs():
    paths = [
        DATA / "contracts" / "nda.pdf",
        DATA / "sample_repo" / "billing" / "tax.py",
        DATA / "sample_repo" / "billing" / "__init__.py",
        license_file("BSD"),
    ]
    return [load_document(p, root=p.parent) for p in paths]


def _together_and_alone(docs, encoder):
    # A model of this test's own: the buffers a runtime keeps for its largest batch go
    # with it when the module ends, not with the session's encoder.
    release_models()
    chunker = DynamicChunker()
    # Alone: every window in a batch of its own (the smallest token budget).
    single = LateEncoder(dataclasses.replace(encoder.config, batch_tokens=64))
    alone = [encode_document(single, chunker, d) for d in docs]
    # Together: the windows of all documents packed into shared batches of 32 windows.
    shared = LateEncoder(dataclasses.replace(encoder.config, batch_tokens=1 << 13))
    assert shared.batch_tokens == 1 << 13
    assert single.embedder is shared.embedder
    together = encode_documents(shared, chunker, [*docs, Document("/empty.txt", " \n", "text")])
    assert together[-1] == "empty: the file has no text"
    assert sum(len(t[0]) for t in together[:-1]) > 30  # real documents, many chunks
    return alone, together[:-1]


@pytest.mark.slow
def test_documents_encoded_together_get_what_each_gets_alone(docs, fp32_encoder):
    """At fp32 batching changes nothing: the same chunks and vectors to 1e-5."""
    alone, together = _together_and_alone(docs, fp32_encoder)
    for doc, one, many in zip(docs, alone, together, strict=True):
        assert not isinstance(many, str), many
        assert [(c.start, c.end) for c in one[0]] == [(c.start, c.end) for c in many[0]], doc.source
        np.testing.assert_allclose(one[1], many[1], atol=1e-5)


@pytest.mark.slow
def test_the_default_backend_batches_documents_within_its_precision(docs, encoder):
    """On the CPU default (bf16 where the CPU has it) the batch's shapes move vectors by
    rounding only (a mask that leaked across documents would move them by far more): at
    least 95% of the chunks are the same spans, and those have cosine > 0.999."""
    alone, together = _together_and_alone(docs, encoder)
    same, total = 0, 0
    for one, many in zip(alone, together, strict=True):
        assert not isinstance(many, str), many
        spans = {(c.start, c.end): i for i, c in enumerate(many[0])}
        total += len(one[0])
        for i, c in enumerate(one[0]):
            j = spans.get((c.start, c.end))
            if j is None:
                continue
            same += 1
            a, b = one[1][i], many[1][j]
            assert a @ b / np.linalg.norm(a) / np.linalg.norm(b) > 0.999
    assert same >= 0.95 * total


@pytest.mark.slow
def test_the_local_engine_builds_the_index_of_one_document_at_a_time(tmp_path, fp32_encoder):
    encoder = fp32_encoder
    corpus = tmp_path / "docs"
    corpus.mkdir()
    for name in ("BSD", "CC0-1.0"):
        shutil.copy(license_file(name), corpus / f"{name}.txt")
    shutil.copytree(DATA / "sample_repo", corpus / "repo")
    release_models()  # a model of this test's own (see _together_and_alone)
    indexes = {}
    for budget in (64, 1 << 13):
        pipe = Pipeline.open(tmp_path / f"idx{budget}")
        pipe.encoder = LateEncoder(dataclasses.replace(encoder.config, batch_tokens=budget))
        with pipe:
            report = pipe.ingest([corpus], progress=False, workers=0)
            assert not report.failed
            store = pipe.index.store
            rows = store.chunk_rows(sorted(store.all_chunk_ids()))
            indexes[budget] = (
                [(r["source"], r["start"], r["end"]) for r in rows.values()],
                pipe.index.vectors.vectors(sorted(rows)),
            )
    (spans_a, vec_a), (spans_b, vec_b) = indexes.values()
    assert spans_a == spans_b and len(spans_a) > 40
    np.testing.assert_allclose(vec_a, vec_b, atol=1e-5)


def test_engine_names_and_settings_are_checked(encoder):
    with pytest.raises(ConfigError, match="choose one of local, ray"):
        make_engine("spark", encoder, DynamicChunker())
    with pytest.raises(ConfigError, match="address= is for engine='ray'"):
        make_engine("local", encoder, DynamicChunker(), address="10.0.0.5:6379")
    with pytest.raises(ConfigError, match="batch_tokens=8"):
        dataclasses.replace(encoder.config, batch_tokens=8)
