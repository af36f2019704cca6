"""Code chunks carry their unit's name and signature (lateseg.encode.fields)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lateseg.encode.config import EncoderConfig
from lateseg.encode.fields import label_words, signature, unit_fields
from lateseg.encode.late import LateEncoder
from lateseg.errors import ConfigError
from lateseg.ingest import load_document
from lateseg.pipeline import Pipeline
from lateseg.segment import DynamicChunker
from lateseg.types import Chunk, Span

BILLING = '''import math

RATE = 0.015


class Invoice:
    """An invoice."""

    def __init__(self, amount):
        self.amount = amount

    @property
    def total_with_tax(self) -> float:
        return round(self.amount * (1 + RATE), 2)


def days_between(a, b):
    return abs((b - a).days)


print(days_between)
'''


def _chunks(doc, encoder):
    return DynamicChunker().chunk(doc, encoder.encode_document(doc.text, code=True))


def test_label_words_and_signature():
    assert label_words("json.JSONDecoder.raw_decode") == "json json decoder raw decode"
    assert label_words("http.client.HTTPResponse.getheader2") == (
        "http client http response getheader 2"
    )
    text = "@property\n@cached\n    def total(self) -> float:\n        return 1\n"
    assert signature(text, Span(0, len(text), "method", "m.A.total")) == (
        "def total(self) -> float:"
    )
    assert signature("@x\n" * 20, Span(0, 60, "function", "f")) == ""  # bounded, no def


def test_unit_fields_name_the_innermost_unit_and_skip_module_code(tmp_path, encoder):
    path = tmp_path / "billing.py"
    path.write_text(BILLING)
    doc = load_document(path, root=tmp_path)
    chunks = _chunks(doc, encoder)
    units = doc.spans("class", "function", "method")

    def innermost(at):
        holding = [s for s in units if s.start <= at < s.end]
        return min(holding, key=lambda s: s.end - s.start) if holding else None

    # Every chunk, and every span cut anywhere in the file: the field names the
    # innermost unit at the middle, or nothing at module level.
    text = doc.text
    cuts = [
        Chunk(doc.id, a, b, text[a:b])
        for a in range(0, len(text), 7)
        for b in (a + 1, a + 40)
        if b <= len(text)
    ]
    for group in (chunks, cuts, list(reversed(cuts))):
        for c, f in zip(group, unit_fields(doc, group), strict=True):
            unit = innermost((c.start + c.end) // 2)
            if unit is None:
                assert f is None, (c, f)
            else:
                assert f == f"{label_words(unit.label)}. {signature(text, unit)}", (c, f)
    fields = unit_fields(doc, cuts)
    assert None in fields and any(f and f.startswith("billing invoice total") for f in fields)
    # Decorators are skipped: the property's field is its def line.
    assert any(
        f == "billing invoice total with tax. def total_with_tax(self) -> float:" for f in fields
    )
    prose = tmp_path / "note.txt"
    prose.write_text("Payment is due in thirty days.\n\nLate payments carry interest.\n")
    pdoc = load_document(prose)
    pchunks = DynamicChunker().chunk(pdoc, encoder.encode_document(pdoc.text))
    assert set(unit_fields(pdoc, pchunks)) == {None}


def test_fields_move_code_vectors_toward_the_unit_and_stay_unit_length(tmp_path, encoder):
    path = tmp_path / "billing.py"
    path.write_text(BILLING)
    doc = load_document(path, root=tmp_path)
    tokens = encoder.encode_document(doc.text, code=True)
    chunks = DynamicChunker().chunk(doc, tokens)
    spans = [(c.start, c.end) for c in chunks]
    fields = unit_fields(doc, chunks)
    plain = encoder.chunk_vectors(doc.text, tokens, spans, code=True)
    mixed = encoder.chunk_vectors(doc.text, tokens, spans, code=True, fields=fields)
    assert np.allclose(np.linalg.norm(mixed, axis=1), 1.0, atol=1e-5)
    named = [i for i, f in enumerate(fields) if f]
    assert named
    own = encoder.embed_texts([fields[i] for i in named])
    for row, i in enumerate(named):
        assert mixed[i] @ own[row] > plain[i] @ own[row] + 1e-3
    for i, f in enumerate(fields):
        if not f:
            assert np.allclose(mixed[i], plain[i], atol=1e-6)
    # Off by weight: code's by code_field_weight, prose's by prose_field_weight.
    off = LateEncoder(EncoderConfig(code_field_weight=0.0))
    assert np.allclose(off.chunk_vectors(doc.text, tokens, spans, code=True, fields=fields), plain)
    no_prose = LateEncoder(EncoderConfig(prose_field_weight=0.0))
    prose = no_prose.chunk_vectors(doc.text, tokens, spans, code=False, fields=fields)
    assert np.allclose(prose, no_prose.chunk_vectors(doc.text, tokens, spans, code=False))
    # Pure late vectors for code and a file with no unit in it: nothing to embed, and
    # nothing to mix in (this failed an assertion once).
    pure = LateEncoder(EncoderConfig(code_late_weight=1.0))
    none = [None] * len(spans)
    assert np.allclose(
        pure.chunk_vectors(doc.text, tokens, spans, code=True, fields=none), tokens.pool(spans)
    )
    with pytest.raises(ConfigError, match="fields for"):
        encoder.chunk_vectors(doc.text, tokens, spans, code=True, fields=fields[:-1])
    with pytest.raises(ConfigError, match="code_field_weight"):
        EncoderConfig(code_field_weight=-0.1)


def test_a_question_finds_the_middle_of_the_function_its_name_answers(tmp_path, encoder):
    """Two files hold one long function each with the same body, split into several
    chunks: the chunks past the ``def`` line differ only by the name around them. With
    fields, the question ranks the fee function's middle chunks above the colour
    function's by a clear margin (the same search with fields off is the control)."""
    lines = "".join(
        f"    step_{i} = rows[{i}].amount * factor + offset_{i % 7}\n" for i in range(60)
    )
    body = lines + "    return sum([" + ", ".join(f"step_{i}" for i in range(60)) + "])\n"
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "fees.py").write_text(f"def compute_late_payment_penalty(rows, factor):\n{body}")
    (repo / "colours.py").write_text(f"def blend_rgb_colour_channels(rows, factor):\n{body}")
    question = "Compute the penalty charged for a late payment."
    q = encoder.embed_queries([question])[0]
    off = LateEncoder(EncoderConfig(code_field_weight=0.0))

    def middle_scores(enc, name):
        doc = load_document(repo / name, root=repo)
        tokens = encoder.encode_document(doc.text, code=True)
        chunks = [c for c in DynamicChunker().chunk(doc, tokens) if "def " not in c.text]
        assert chunks, "the function must span several chunks"
        spans = [(c.start, c.end) for c in chunks]
        vecs = enc.chunk_vectors(
            doc.text, tokens, spans, code=True, fields=unit_fields(doc, chunks)
        )
        return vecs @ q

    with_fields = middle_scores(encoder, "fees.py") - middle_scores(encoder, "colours.py")
    without = middle_scores(off, "fees.py") - middle_scores(off, "colours.py")
    assert (with_fields > without + 0.05).all(), (with_fields, without)
    # The index stores what the encoder gives: its best hit for the question is the fee file.
    pipe = Pipeline.open(tmp_path / "idx")
    pipe.encoder = encoder
    with pipe:
        pipe.ingest([repo], progress=False)
        hits = pipe.search(question, k=3, mode="dense")
        assert hits[0].source.endswith("fees.py")


def test_indexes_from_before_fields_keep_them_off(tmp_path):
    folder = tmp_path / "idx"
    with Pipeline.open(folder) as pipe:
        assert pipe.encoder.config.code_field_weight == 0.3  # the default for new indexes
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["embedder"]["code_field_weight"] == 0.3
    del manifest["embedder"]["code_field_weight"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with Pipeline.open(folder) as pipe:
        assert pipe.encoder.config.code_field_weight == 0.0


def test_a_prose_chunk_knows_its_document_and_section(encoder, tmp_path):
    """Issue 62: the same clause in two documents; each chunk's field names its document's
    title and section path, and its vector moves toward that field."""
    from lateseg.encode.fields import chunk_fields, prose_fields

    path = tmp_path / "pocket_terms.md"
    path.write_text(
        "---\ntitle: Pocket Terms of Service\n---\n\n# Terms\n\n## Refunds\n\n"
        "Refunds are at our sole discretion and are pro-rated to the unused term.\n"
    )
    doc = load_document(path)
    tokens = encoder.encode_document(doc.text)
    chunks = DynamicChunker().chunk(doc, tokens)
    fields = prose_fields(doc, chunks)
    assert fields == chunk_fields(doc, chunks)
    assert all(f is not None and f.startswith("Pocket Terms of Service") for f in fields)
    assert any(f.endswith("Terms > Refunds") for f in fields if f)
    spans = [(c.start, c.end) for c in chunks]
    plain = LateEncoder(EncoderConfig(prose_field_weight=0.0)).chunk_vectors(
        doc.text, tokens, spans
    )
    mixed = encoder.chunk_vectors(doc.text, tokens, spans, fields=fields)
    own = encoder.embed_texts([f or "" for f in fields])
    assert np.allclose(np.linalg.norm(mixed, axis=1), 1.0, atol=1e-5)
    assert all(mixed[i] @ own[i] > plain[i] @ own[i] + 1e-3 for i in range(len(spans)))
