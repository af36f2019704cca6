"""The index stores' conformance test: every member of
:data:`lateseg.index.stores.STORES` is chosen for its own locations, opens one, writes a
real document with its chunks and vectors, reads them back, finds it by a lexical search,
deletes it, and passes its integrity check throughout. A new store gets this test by
registering.

PostgreSQL runs on a throwaway server (``pg_cluster``: slow, skipped saying why where none
can run)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from conftest import DATA, license_file

from lateseg.index.sqlite.store import DocStore
from lateseg.index.stores import DEFAULT_STORE, STORES, SqliteStore, open_store, store_for
from lateseg.scale.engines import encode_document
from lateseg.segment import FixedChunker
from lateseg.types import Document

SLOW = {"postgres"}  # runs a PostgreSQL server


def _params() -> list:
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in STORES]


def _location(name: str, request, tmp_path: Path) -> str:
    """A new location of the store's own kind."""
    if name == "postgres":
        return str(request.getfixturevalue("postgres").database())
    (tmp_path / "idx").mkdir()
    return str(tmp_path / "idx")


@pytest.fixture(scope="module")
def written(encoder):
    """A real document, its chunks and vectors (what an ingest writes)."""
    path = license_file("BSD")
    doc = Document(str(path), path.read_text("utf-8"), "text")
    chunks, vectors = encode_document(encoder, FixedChunker(48), doc)
    assert len(chunks) > 3
    return doc, hashlib.sha256(path.read_bytes()).hexdigest(), chunks, vectors


def _conforms(name: str, location: str, written) -> None:
    kind = STORES[name]
    assert kind.opens(location) and store_for(location) is kind
    doc, digest, chunks, vectors = written
    dim = vectors.shape[1]
    store = kind.open(location, writable=True, create=True)
    try:
        assert store.counts() == (0, 0) and store.problems(dim) == []
        change = store.replace_document(doc, digest, chunks, vectors, doc.source.encode())
        assert change.added == len(chunks) and len(change.removed) == 0
        assert store.file_hash(doc.source) == digest
        assert store.sources() == [doc.source] and store.counts() == (1, len(chunks))
        # read back: the document, its chunks in order, their vectors
        again = store.document(doc.source)
        assert again is not None and (again.text, again.kind) == (doc.text, doc.kind)
        ids = store.chunk_ids_of_source(doc.source)
        assert len(ids) == len(chunks)
        rows = store.chunk_rows(ids)
        assert [(rows[i]["start"], rows[i]["end"], rows[i]["text"]) for i in sorted(ids)] == [
            (c.start, c.end, c.text) for c in chunks
        ]
        found, stored = store.vectors_of(sorted(ids), dim)
        assert list(found) == sorted(ids)
        np.testing.assert_allclose(stored, vectors, atol=1e-6)
        # lexical search finds the chunk that holds the words
        target = next(c for c in chunks if "MERCHANTABILITY" in c.text)
        hits = store.lexical("merchantability fitness", 3)
        assert hits and sorted(ids)[chunks.index(target)] == hits[0][0]
        assert store.lexical("zyzzyva", 3) == []
        assert store.problems(dim) == []
        # read-only, another connection sees the same
        reader = kind.open(location, writable=False, create=False)
        try:
            assert reader.counts() == (1, len(chunks)) and reader.problems(dim) == []
        finally:
            reader.close()
        # delete
        gone = store.remove_sources([doc.source])
        assert gone is not None and sorted(gone.removed.tolist()) == sorted(ids)
        assert store.document(doc.source) is None and store.counts() == (0, 0)
        assert store.lexical("merchantability", 3) == []
        assert store.remove_sources([doc.source]) is None  # nothing left to remove
        assert store.problems(dim) == []
    finally:
        store.close()


@pytest.mark.parametrize("name", _params())
def test_a_store_writes_reads_searches_and_deletes(name, request, tmp_path, written):
    _conforms(name, _location(name, request, tmp_path), written)


def test_a_location_is_the_store_it_names(tmp_path):
    assert list(STORES) == ["sqlite", "postgres"] and DEFAULT_STORE == "sqlite"
    assert store_for(tmp_path) is STORES["sqlite"]
    assert store_for(str(tmp_path)) is STORES["sqlite"]
    for url in ("postgresql://u@h/db", "postgres://h/db"):
        assert store_for(url) is STORES["postgres"]
    # A folder's store is made in the folder (what Index opens by default).
    store = open_store(tmp_path)
    try:
        assert isinstance(store, DocStore) and (tmp_path / "docstore.sqlite").exists()
    finally:
        store.close()


def test_registering_the_postgres_store_imports_no_driver():
    code = (
        "import sys, lateseg.index.stores as s; "
        "assert 'postgres' in s.STORES and s.store_for('postgresql://h/db').name == 'postgres'; "
        "print('psycopg' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_new_store_is_one_class_and_one_line(tmp_path, written, encoder):
    """A toy store (the SQLite one at ``toy://FOLDER`` locations, its vector cache kept
    apart as a server's is) registered in a few lines is chosen for its locations,
    passes the family's matrix, and a pipeline ingests into it and searches it."""

    @STORES.register
    class ToyStore(SqliteStore):
        name: ClassVar[str] = "toy"
        summary: ClassVar[str] = "SQLite at toy:// locations"
        in_folder: ClassVar[bool] = False

        @classmethod
        def opens(cls, location: object) -> bool:
            return isinstance(location, str) and location.startswith("toy://")

        @classmethod
        def open(cls, location, *, writable=True, create=True):
            return super().open(location.removeprefix("toy://"), writable=writable)

    (tmp_path / "idx").mkdir()
    location = f"toy://{tmp_path / 'idx'}"
    try:
        assert "toy (SQLite at toy:// locations)" in STORES.described()
        assert store_for(location) is ToyStore
        _conforms("toy", location, written)
        assert (tmp_path / "idx" / "docstore.sqlite").exists()
        from lateseg.pipeline import Pipeline

        (tmp_path / "idx2").mkdir()
        with Pipeline.open(f"toy://{tmp_path / 'idx2'}", cache_dir=tmp_path / "cache") as pipe:
            pipe.encoder = encoder
            report = pipe.ingest([DATA / "contracts" / "nda.pdf"], progress=False)
            assert report.ok and not report.failed
            assert pipe.search("confidential information", k=2)
        assert (tmp_path / "idx2" / "docstore.sqlite").exists()
    finally:
        STORES.unregister("toy")
    assert store_for(location) is STORES["sqlite"]  # a folder named toy: again
