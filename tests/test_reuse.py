"""What the encoder need not compute twice (lateseg.encode.reuse): a text that recurs is
read by the model once, and every copy gets the same embeddings."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import license_file

from lateseg.encode.late import LateEncoder
from lateseg.encode.reuse import Reuse, digest, each_once
from lateseg.scale.encoding import encode_documents
from lateseg.segment import DynamicChunker
from lateseg.types import Document


def test_reuse_keeps_at_most_its_budget_and_forgets_the_least_recently_used():
    keep: Reuse[bytes] = Reuse(10, len)
    keep.put(b"a", b"1234")
    keep.put(b"b", b"1234")
    assert keep.get(b"a") == b"1234"  # now b is the least recently used
    keep.put(b"c", b"1234")
    assert keep.get(b"b") is None and keep.get(b"a") == b"1234" and keep.get(b"c") == b"1234"
    keep.put(b"d", b"x" * 11)  # larger than the whole budget: not kept, nothing evicted
    assert keep.get(b"d") is None and len(keep) == 2
    keep.put(b"a", b"123456789")  # replacing a value counts its new size
    assert keep.get(b"c") is None and len(keep) == 1
    keep.clear()
    assert len(keep) == 0 and keep.get(b"a") is None


def test_digest_tells_apart_every_split_of_the_same_characters():
    assert digest("ab", "c") != digest("a", "bc") != digest("abc")
    assert digest("prose", "x") != digest("code", "x")
    assert digest("a\ud800b") == digest("a\ud800b")  # a lone surrogate still has a key


def test_each_once_embeds_each_distinct_text_once_and_nothing_it_keeps():
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([[len(t), ord(t[0])] for t in texts], dtype=np.float32)

    keep: Reuse[np.ndarray] = Reuse(1 << 20, lambda v: int(v.nbytes))
    got = each_once(["aa", "b", "aa", "ccc", "b"], embed, 2, keep, "p")
    assert calls == [["aa", "b", "ccc"]]
    assert got.tolist() == [[2, 97], [1, 98], [2, 97], [3, 99], [1, 98]]
    got = each_once(["ccc", "dd"], embed, 2, keep, "p")
    assert calls[-1] == ["dd"] and got.tolist() == [[3, 99], [2, 100]]
    each_once(["ccc"], embed, 2, keep, "another prompt")  # another prompt: another text
    assert calls[-1] == ["ccc"]
    assert each_once([], embed, 2, keep).shape == (0, 2)


@pytest.fixture
def counted(encoder, monkeypatch):
    """A new encoder on the session's model, and the rows of every forward pass it runs."""
    enc = LateEncoder(encoder.config)
    rows: list[int] = []
    model = enc.window_embedder
    model.streams()  # batches side by side or not: decided (and measured) before counting
    inner = model.forward_many

    def forward_many(pairs):
        pairs = list(pairs)
        rows.extend(int(mask.sum()) for _, mask in pairs)
        return inner(pairs)

    monkeypatch.setattr(model, "forward_many", forward_many)
    return enc, rows


def test_a_document_that_recurs_is_read_once_and_every_copy_gets_its_embeddings(counted):
    enc, rows = counted
    terms = license_file("GPL-3").read_text()
    code = "def total(items):\n    return sum(i.price for i in items)\n" * 30
    LateEncoder(enc.config).encode_documents([(code, True)])
    code_read = sum(rows)
    rows.clear()
    once = enc.encode_documents([(terms, False)])
    assert sum(rows) > len(once[0])  # the model read it (windows overlap: more than once)
    rows.clear()
    got = enc.encode_documents([(terms, False), (code, True), (terms, False), (code, True)])
    assert got[0] is got[2] is once[0] and got[1] is got[3]  # the licence: not read again
    assert sum(rows) == code_read  # the code, once
    with pytest.raises(ValueError):  # two documents hold one array: nobody may write it
        got[0].vectors[0, 0] = 1.0
    # The same text as prose is another document (other windows)
    rows.clear()
    as_prose = enc.encode_documents([(code, False)])[0]
    assert sum(rows) > 0 and as_prose is not got[1]
    # and a fresh encoder, which has seen nothing, computes the same embeddings
    fresh = LateEncoder(enc.config).encode_documents([(terms, False)])[0]
    np.testing.assert_allclose(fresh.vectors, once[0].vectors, atol=1e-5)


def test_copies_of_a_file_are_read_once_and_chunked_and_embedded_alike(counted, tmp_path):
    enc, rows = counted
    chunker = DynamicChunker()
    text = license_file("Apache-2.0").read_text()
    other = license_file("GPL-3").read_text()
    docs = [
        Document("/a/LICENSE", text, "text"),
        Document("/b/LICENSE", text, "text"),
        Document("/c/COPYING", other, "text"),
    ]
    both = encode_documents(enc, chunker, docs)
    read_both = sum(rows)
    rows.clear()
    fresh = LateEncoder(enc.config)
    one = encode_documents(fresh, chunker, [docs[0], docs[2]])
    assert sum(rows) == read_both  # the copy cost no forward pass
    (a, va), (b, vb), (_, vc) = both  # type: ignore[misc]
    assert [(x.start, x.end) for x in a] == [(x.start, x.end) for x in b]
    assert {x.doc_id for x in a} == {docs[0].id} and {x.doc_id for x in b} == {docs[1].id}
    np.testing.assert_allclose(va, vb, atol=1e-6)  # same text, same title: same vectors
    np.testing.assert_allclose(va, one[0][1], atol=1e-5)
    np.testing.assert_allclose(vc, one[1][1], atol=1e-5)
    assert va is not vb and va.flags.writeable  # what a caller gets is its own


def test_an_ingest_of_a_folder_with_copies_indexes_every_copy(encoder, tmp_path):
    from lateseg.pipeline import Pipeline

    folder = tmp_path / "docs"
    for sub in ("x", "y"):
        (folder / sub).mkdir(parents=True)
        shutil.copy(license_file("BSD"), folder / sub / "LICENSE.txt")
    (folder / "NOTICE.txt").write_text("Copyright the authors. All rights reserved.\n")
    with Pipeline.open(tmp_path / "index") as pipe:
        report = pipe.ingest([folder], progress=False)
        assert not report.failed
        hits = pipe.search("redistribution in binary form", k=4)
    assert {Path(h.source).parent.name for h in hits[:2]} == {"x", "y"}
    assert hits[0].score == pytest.approx(hits[1].score, abs=1e-5)
