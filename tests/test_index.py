from __future__ import annotations

import shutil

import numpy as np
import pytest
from conftest import license_file

from lateseg.errors import ConfigError, IndexStoreError
from lateseg.ingest import load_document
from lateseg.pipeline import Pipeline
from lateseg.segment import FixedChunker


@pytest.fixture
def corpus(tmp_path):
    src = tmp_path / "docs"
    src.mkdir()
    for name in ["Apache-2.0", "MPL-2.0", "BSD"]:
        shutil.copy(license_file(name), src / f"{name}.txt")
    (src / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    return src


def _open(folder, encoder, **kw):
    pipe = Pipeline.open(folder, **kw)
    pipe.encoder = encoder  # share the session's loaded model
    return pipe


def _consistent(pipe):
    rows = pipe.index.store.all_chunk_ids()
    assert set(rows) == set(pipe.index.vectors.ids().tolist())


def test_ingest_search_and_incremental_update(tmp_path, corpus, encoder):
    with _open(tmp_path / "idx", encoder) as pipe:
        rep = pipe.ingest([corpus], progress=False)
        assert sorted(rep.added) == sorted(str(p) for p in corpus.glob("*.txt"))
        assert [p for p, _ in rep.failed] == [str(corpus / "broken.pdf")]
        assert "PDF" in rep.failed[0][1]
        _consistent(pipe)
        hits = pipe.search("patent license granted by contributors", k=3)
        assert len(hits) == 3 and hits[0].score >= hits[1].score >= hits[2].score
        for h in hits:
            assert pipe.document(h.source).text[h.start : h.end] == h.text
        assert hits[0].source.endswith(("Apache-2.0.txt", "MPL-2.0.txt"))

        rep2 = pipe.ingest([corpus], progress=False)
        assert rep2.added == [] and len(rep2.unchanged) == 3
        n_before = len(pipe.index.vectors)
        max_id_before = max(pipe.index.store.all_chunk_ids())
        bsd = corpus / "BSD.txt"
        bsd.write_text(bsd.read_text() + "\nAddendum: the cheese clause applies to all cheddar.\n")
        rep3 = pipe.ingest([corpus], progress=False)
        assert rep3.updated == [str(bsd)]
        _consistent(pipe)
        # IDs are never reused: a vector left by a crash can't pass for a new chunk's.
        assert min(pipe.index.store.chunk_ids_of_source(str(bsd))) > max_id_before
        assert len(pipe.index.vectors) >= n_before
        top = pipe.search("cheddar cheese clause", k=1)[0]
        assert top.source == str(bsd) and "cheddar" in top.text

    # Reopened from disk: same answers, settings from the manifest.
    with _open(tmp_path / "idx", encoder) as again:
        assert again.search("cheddar cheese clause", k=1)[0].chunk_id == top.chunk_id


def test_an_old_or_missing_vector_cache_is_brought_up_to_date_and_loses_nothing(
    tmp_path, corpus, encoder
):
    folder = tmp_path / "idx"
    with _open(folder, encoder) as pipe:
        pipe.ingest([corpus / "BSD.txt"], progress=False)
        saved = (folder / "vectors.faiss").read_bytes()
        pipe.ingest([corpus / "MPL-2.0.txt"], progress=False)
        query = "Mozilla Public License source code form"
        before = [(h.chunk_id, round(h.score, 5)) for h in pipe.search(query, k=5)]
    # An older cache (as a crash before the save leaves it): caught up from the log.
    (folder / "vectors.faiss").write_bytes(saved)
    with _open(folder, encoder) as pipe:
        assert pipe.index.notice is None  # nothing to rebuild: the log has the rest
        _consistent(pipe)
        assert pipe.sources() == sorted(str(corpus / n) for n in ("BSD.txt", "MPL-2.0.txt"))
        assert [(h.chunk_id, round(h.score, 5)) for h in pipe.search(query, k=5)] == before
        assert pipe.index.problems() == []
    # No cache at all, or a damaged one: rebuilt from the docstore, same answers.
    for damage in (b"", b"garbage" * 10, saved[:-100]):
        if damage:
            (folder / "vectors.faiss").write_bytes(damage)
        else:
            (folder / "vectors.faiss").unlink()
        with _open(folder, encoder) as pipe:
            assert pipe.index.notice and "rebuilt" in pipe.index.notice
            assert [(h.chunk_id, round(h.score, 5)) for h in pipe.search(query, k=5)] == before
            assert len(pipe.sources()) == 2
        assert (folder / "vectors.faiss").exists() == bool(damage)  # reads write nothing
    with _open(folder, encoder) as pipe:  # a write saves the rebuilt cache
        pipe.ingest([corpus / "Apache-2.0.txt"], progress=False)
    with _open(folder, encoder) as pipe:
        assert pipe.index.notice is None and pipe.index.problems() == []


def test_a_vector_file_from_another_index_is_never_taken_for_this_one(tmp_path, corpus, encoder):
    with _open(tmp_path / "a", encoder) as a, _open(tmp_path / "b", encoder) as b:
        a.ingest([corpus / "BSD.txt"], progress=False)
        b.ingest([corpus / "MPL-2.0.txt", corpus / "Apache-2.0.txt"], progress=False)
        query = "redistribution in binary form"
        before = [(h.chunk_id, round(h.score, 5)) for h in a.search(query, k=3)]
    shutil.copy(tmp_path / "b" / "vectors.faiss", tmp_path / "a" / "vectors.faiss")
    with _open(tmp_path / "a", encoder) as a:
        problems = a.index.problems()
        assert len(problems) == 1 and "belongs to another index" in problems[0]
        assert [(h.chunk_id, round(h.score, 5)) for h in a.search(query, k=3)] == before
        assert a.sources() == [str(corpus / "BSD.txt")]
        a.index.compact()  # saves the cache rebuilt from the docstore
        assert a.index.problems() == []


def test_foreign_files_and_mismatches_are_refused(tmp_path, corpus, encoder):
    folder = tmp_path / "idx"
    with _open(folder, encoder) as pipe:
        pipe.ingest([corpus / "BSD.txt"], progress=False)
        with pytest.raises(IndexStoreError, match="another process"):
            pipe.index.lock()
            other = _open(folder, encoder)
            other.index.lock()
        pipe.index.unlock()
    with pytest.raises(IndexStoreError, match="embedder"):
        Pipeline.open(folder, embedder="some/other-model")
    with pytest.raises(IndexStoreError, match="chunker"):
        Pipeline.open(folder, chunker=FixedChunker(64))
    not_index = tmp_path / "photos"
    not_index.mkdir()
    (not_index / "a.jpg").write_bytes(b"x")
    with pytest.raises(IndexStoreError, match="manifest"):
        Pipeline.open(not_index)
    with pytest.raises(IndexStoreError, match="no index at"):
        Pipeline.open(tmp_path / "typo", create=False)
    assert not (tmp_path / "typo").exists()


def test_fixed_chunker_index_round_trips(tmp_path, corpus, encoder):
    with _open(tmp_path / "idx", encoder, chunker=FixedChunker(96)) as pipe:
        pipe.ingest([corpus / "Apache-2.0.txt"], progress=False)
        assert pipe.search("warranty disclaimer", k=2)
    with _open(tmp_path / "idx", encoder) as pipe:
        assert pipe.chunker.to_dict() == {"type": "fixed", "size": 96}
        vecs = pipe.index.vectors
        assert np.allclose(np.linalg.norm(vecs.index.reconstruct(int(vecs.ids()[0]))), 1, atol=1e-5)


def test_models_can_be_given_as_local_folders(tmp_path, corpus):
    from lateseg.encode.models import resolve_embedder

    folder = resolve_embedder(None)  # the packaged model, named by its path
    with Pipeline.open(tmp_path / "idx", embedder=folder) as pipe:
        pipe.ingest([corpus / "BSD.txt"], progress=False)
        assert pipe.search("redistribution in binary form", k=1)[0].source.endswith("BSD.txt")
    with Pipeline.open(tmp_path / "idx") as pipe:
        assert pipe.encoder.config.model == folder


def test_indexes_from_before_the_vector_mix_keep_pure_late_vectors(tmp_path):
    """A manifest without ``late_weight`` was written when every vector was pure late;
    new documents in that index must be encoded the same way."""
    import json

    folder = tmp_path / "idx"
    with Pipeline.open(folder) as pipe:
        assert pipe.encoder.config.late_weight == 0.5  # the default for new indexes
    manifest = json.loads((folder / "manifest.json").read_text())
    for key in ("late_weight", "code_late_weight"):
        del manifest["embedder"][key]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with Pipeline.open(folder) as pipe:
        cfg = pipe.encoder.config
        assert (cfg.late_weight, cfg.code_late_weight) == (1.0, 1.0)
        assert cfg.window == manifest["embedder"]["window"]


def test_lexical_search_follows_updates_and_removals(tmp_path, corpus, encoder):
    with _open(tmp_path / "idx", encoder) as pipe:
        pipe.ingest([corpus], progress=False)
        hits = pipe.search("patents", k=5, mode="lexical")
        assert len(hits) == 5 and all("patent" in h.text.lower() for h in hits)  # stemmed
        assert hits[0].score >= hits[-1].score
        bsd = corpus / "BSD.txt"
        original = bsd.read_text()
        bsd.write_text(original + "\nAddendum: the cheddar clause applies to all cheeses.\n")
        pipe.ingest([corpus], progress=False)
        top = pipe.search("cheddar", k=3, mode="lexical")
        assert len(top) == 1 and top[0].source == str(bsd) and "cheddar" in top[0].text
        bsd.write_text(original)  # the replaced chunks leave the text index too
        pipe.ingest([corpus], progress=False)
        assert pipe.search("cheddar", k=3, mode="lexical") == []
        # Removing a document (rows cascade) removes its text from the index.
        assert pipe.search("Mozilla", k=3, mode="lexical")
        pipe.remove([str(corpus / "MPL-2.0.txt")])
        assert pipe.search("Mozilla", k=3, mode="lexical") == []
        # Operators in the question are words, not FTS5 syntax.
        assert pipe.search('license AND "NOT (OR', k=2, mode="lexical")


def test_search_modes_and_filters(sample_index):
    pipe = sample_index
    q = "How is an invoice total computed with tax?"
    code = pipe.search(q, k=6, kind="code")
    assert len(code) == 6 and all(h.source.endswith(".py") for h in code)
    pdfs = pipe.search(q, k=6, source="*/contracts/*.pdf", mode="hybrid")
    assert len(pdfs) == 6 and all(h.source.endswith(".pdf") for h in pdfs)
    dense = {h.chunk_id for h in pipe.search(q, k=50, mode="dense")}
    lexical = {h.chunk_id for h in pipe.search(q, k=50, mode="lexical")}
    hybrid = pipe.search(q, k=10, mode="hybrid")
    assert [h.score for h in hybrid] == sorted((h.score for h in hybrid), reverse=True)
    assert {h.chunk_id for h in hybrid} <= dense | lexical
    # Weights move the fusion towards one side.
    lex_heavy = [h.chunk_id for h in pipe.search(q, k=5, mode="hybrid", weights=(0.0, 1.0))]
    assert lex_heavy == [h.chunk_id for h in pipe.search(q, 5, mode="lexical")]
    with pytest.raises(ConfigError, match="mode"):
        pipe.search(q, mode="fuzzy")
    with pytest.raises(ConfigError, match="weights"):
        pipe.search(q, mode="hybrid", weights=(0.0, 0.0))
    assert pipe.search(q, k=3, source="/nowhere/*") == []


def test_prune_removes_documents_whose_files_are_gone(tmp_path, corpus, encoder):
    with _open(tmp_path / "idx", encoder) as pipe:
        pipe.ingest([corpus], progress=False)
        mpl = corpus / "MPL-2.0.txt"
        mpl.unlink()
        kept = pipe.ingest([corpus], progress=False)  # without prune: nothing removed
        assert kept.removed == [] and str(mpl) in pipe.sources()
        rep = pipe.ingest([corpus], progress=False, prune=True)
        assert rep.removed == [(str(mpl), "file gone")] and "1 removed" in rep.summary()
        assert str(mpl) not in pipe.sources()
        _consistent(pipe)
        assert all(h.source != str(mpl) for h in pipe.search("Mozilla Public License", k=10))
        assert pipe.search("Mozilla", k=3, mode="lexical") == []
        # Pruning one folder never touches documents from elsewhere.
        other = tmp_path / "other"
        other.mkdir()
        (other / "note.txt").write_text("A separate note about cheddar and other cheeses.\n")
        pipe.ingest([other], progress=False)
        (corpus / "BSD.txt").unlink()
        rep = pipe.ingest([corpus], progress=False, prune=True)
        assert rep.removed == [(str(corpus / "BSD.txt"), "file gone")]
        assert str(other / "note.txt") in pipe.sources()


def test_prune_removes_what_is_now_ignored_or_a_folder_and_never_a_missing_root(
    tmp_path, corpus, encoder
):
    with _open(tmp_path / "idx", encoder) as pipe:
        pipe.ingest([corpus], progress=False)
        before = pipe.sources()
        assert len(before) == 3
        # An unmounted disk or a renamed folder: nothing under it is pruned.
        moved = tmp_path / "moved"
        corpus.rename(moved)
        rep = pipe.ingest([corpus], progress=False, prune=True)
        assert rep.removed == [] and pipe.sources() == before
        assert rep.failed == [(str(corpus), "no such file or folder")]
        moved.rename(corpus)
        # A file now gitignored, and one replaced by a folder, go, each with its reason.
        (corpus / ".gitignore").write_text("BSD.txt\n")
        apache = corpus / "Apache-2.0.txt"
        apache.unlink()
        apache.mkdir()
        rep = pipe.ingest([corpus], progress=False, prune=True)
        assert sorted(rep.removed) == [
            (str(apache), "now a folder"),
            (str(corpus / "BSD.txt"), "now gitignored"),
        ]
        assert pipe.sources() == [str(corpus / "MPL-2.0.txt")]
        assert pipe.index.problems() == []


def test_a_reader_answers_every_committed_document_while_a_writer_holds_the_index(
    tmp_path, corpus, encoder
):
    folder = tmp_path / "idx"
    with _open(folder, encoder) as pipe:
        pipe.ingest([corpus / "BSD.txt"], progress=False)
    with _open(folder, encoder) as writer, _open(folder, encoder) as reader:
        assert reader.sources() == [str(corpus / "BSD.txt")]
        with writer.index.writer() as w:  # a writer mid-way, its cache not saved yet
            from lateseg.pipeline import encode_document

            doc = load_document(corpus / "MPL-2.0.txt")
            chunks, vecs = encode_document(encoder, writer.chunker, doc)
            w.add(doc, "digest", chunks, vecs)
            # The committed document is answered at once, by every mode; nothing is
            # "work in progress" that a reader could mistake for damage.
            for mode in ("dense", "lexical", "hybrid"):
                hits = reader.search("Mozilla Public License", k=3, mode=mode)
                assert hits[0].source == str(corpus / "MPL-2.0.txt"), mode
            assert reader.index.problems() == []
            with pytest.raises(IndexStoreError, match="another process"):
                reader.index.lock()
    with _open(folder, encoder) as pipe:
        assert len(pipe.sources()) == 2 and pipe.index.problems() == []


def test_vectors_can_be_rebuilt_as_ivf_and_back(tmp_path, corpus, encoder):
    folder = tmp_path / "idx"
    with _open(folder, encoder) as pipe:
        pipe.ingest([corpus], progress=False)
        query = "liability for damages arising from the use of the software"
        exact = [(h.chunk_id, round(h.score, 5)) for h in pipe.search(query, k=8)]
        out = pipe.index.compact("ivf")
        assert out["vectors"] == "ivf" and pipe.index.vectors.kind == "ivf"
        pipe.index.vectors.nprobe = 10**6  # every list: must equal exact search
        assert [(h.chunk_id, round(h.score, 5)) for h in pipe.search(query, k=8)] == exact
        assert pipe.index.problems() == []
    with _open(folder, encoder) as pipe:  # reopened from disk as IVF; updates still work
        assert pipe.index.vectors.kind == "ivf"
        bsd = corpus / "BSD.txt"
        bsd.write_text(bsd.read_text() + "\nAddendum: the cheddar clause applies to all cheeses.\n")
        rep = pipe.ingest([corpus], progress=False)
        assert rep.updated == [str(bsd)] and pipe.index.problems() == []
        _consistent(pipe)
        assert pipe.index.compact("flat")["vectors"] == "flat"
        assert pipe.index.problems() == []
    # Another program's FAISS file is not a cache of this index: rebuilt, with a reason.
    import faiss

    faiss.write_index(faiss.IndexFlatL2(encoder.dim), str(folder / "vectors.faiss"))
    with _open(folder, encoder) as pipe:
        assert "not a lateseg vector cache" in (pipe.index.notice or "")
        assert pipe.index.vectors.kind == "flat" and len(pipe.sources()) == 3


def test_hnsw_index_updates_through_tombstones_and_policy_is_kept(tmp_path, corpus, encoder):
    folder = tmp_path / "idx"
    with _open(folder, encoder, vectors="hnsw") as pipe:
        assert pipe.index.policy == "hnsw"
        pipe.ingest([corpus], progress=False)
        assert pipe.index.vectors.kind == "hnsw"  # applied at the first save
    query = "liability for damages arising from the use of the software"
    with _open(folder, encoder) as pipe:  # the policy is in the manifest
        assert pipe.index.policy == "hnsw" and pipe.index.vectors.kind == "hnsw"
        bsd = corpus / "BSD.txt"
        old = set(pipe.index.store.chunk_ids_of_source(str(bsd)))
        bsd.write_text(bsd.read_text() + "\nAddendum: the cheddar clause applies to all cheeses.\n")
        rep = pipe.ingest([corpus], progress=False)
        assert rep.updated == [str(bsd)]
        assert pipe.index.vectors.tombstones() == len(old)
        assert pipe.index.stats()["removed_not_compacted"] == len(old)
        assert pipe.index.problems() == []
        _consistent(pipe)
        hits = pipe.search("redistribution of source code with or without modification", k=10)
        assert len(hits) == 10 and not {h.chunk_id for h in hits} & old
        assert "cheddar" in pipe.search("which clause covers cheeses", k=3, mode="lexical")[0].text
        out = pipe.index.compact()  # drops the removed nodes, keeps the kind
        assert out["vectors"] == "hnsw" and pipe.index.vectors.tombstones() == 0
        assert pipe.index.problems() == []
        approximate = {h.chunk_id for h in pipe.search(query, k=8)}
        assert pipe.index.compact("auto")["vectors"] == "flat"  # few vectors: exact
        assert pipe.index.policy == "auto"
        assert {h.chunk_id for h in pipe.search(query, k=8)} == approximate
    with _open(folder, encoder) as pipe:
        assert pipe.index.policy == "auto" and pipe.index.vectors.kind == "flat"
    with pytest.raises(ConfigError, match="choose one of"):
        Pipeline.open(tmp_path / "other", vectors="annoy")
    assert not (tmp_path / "other").exists()


def test_verify_reads_one_state_while_a_writer_commits_between_its_reads(tmp_path, corpus, encoder):
    """``index verify`` (``problems``) during an ingest: a writer that commits between
    two of its reads (here: just before it counts the vectors) must not make the
    counters and the rows it compares come from two states."""
    from lateseg.pipeline import encode_document

    folder = tmp_path / "idx"
    with _open(folder, encoder) as pipe:
        pipe.ingest([corpus / "BSD.txt"], progress=False)
    with _open(folder, encoder) as writer, _open(folder, encoder) as reader:
        doc = load_document(corpus / "MPL-2.0.txt")
        chunks, vecs = encode_document(encoder, writer.chunker, doc)
        wrote = []

        def between(statement: str) -> None:
            if not wrote and "COUNT(*), MAX(chunk_id) FROM vectors" in statement:
                with writer.index.writer() as w:
                    w.add(doc, "digest", chunks, vecs)
                wrote.append(statement)

        reader.index.store.db.set_trace_callback(between)
        try:
            assert reader.index.problems() == []
        finally:
            reader.index.store.db.set_trace_callback(None)
        assert wrote  # the writer did commit mid-check
        assert reader.index.problems() == [] and len(reader.sources()) == 2
