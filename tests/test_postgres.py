"""The PostgreSQL store against a real server (``pg_cluster``; skipped, saying why, where
none can run): the same index as SQLite's from the same files, source globs as SQLite
matches them, two writers at once with separate caches, a server restart mid-ingest,
and the CLI on a ``postgresql://`` index."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from urllib.parse import urlsplit

import numpy as np
import pytest
from conftest import DATA, ROOT, license_file
from test_durability import NAMES, Worker

from lateseg.errors import IndexStoreError
from lateseg.index.postgres import PgStore, shown_url
from lateseg.index.postgres.glob import glob_regex
from lateseg.pipeline import Pipeline
from lateseg.types import Chunk, Document

pytestmark = pytest.mark.slow  # runs PostgreSQL

QUERIES = (
    "How many days' notice to terminate for convenience?",
    "Which law governs the agreement?",
    "How is confidential information protected?",
    "What is the monthly rent?",
)


def _chunks(pipe: Pipeline) -> dict[str, list[tuple[int, int, str]]]:
    out = {}
    for source in pipe.sources():
        rows = pipe.index.store.chunk_rows(pipe.index.store.chunk_ids_of_source(source))
        out[source] = sorted((r["start"], r["end"], r["text"]) for r in rows.values())
    return out


def test_source_globs_match_what_sqlite_glob_matches(postgres):
    """The source filter on PostgreSQL (a regular expression made from the glob) agrees
    with SQLite's GLOB on random patterns and names, wildcards, sets and specials."""
    import sqlite3

    import psycopg

    rng = random.Random(7)
    alphabet = "ab/.-_*?[]^\\ é$(|+{"
    pairs = []
    for n in range(4000):
        name = "".join(rng.choice("ab/.-_]^[é\\$(") for _ in range(rng.randint(0, 7)))
        if n % 2:  # a random pattern
            pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7)))
        else:  # the name with some characters made wildcards or sets (more matches)
            pattern = "".join(
                rng.choice(["?", "*", f"[{c}x]", f"[^{c}]", "[!-~]", c, c]) for c in name
            )
        pairs.append((pattern, name))
    lite = sqlite3.connect(":memory:")
    want = [bool(lite.execute("SELECT ? GLOB ?", (n, p)).fetchone()[0]) for p, n in pairs]
    with psycopg.connect(postgres.url(), autocommit=True) as db:
        got = db.execute(
            "SELECT n ~ r FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS t(n, r, i) "
            "ORDER BY i",
            ([n for _, n in pairs], [glob_regex(p) or "^(?!)" for p, _ in pairs]),
        ).fetchall()
    wrong = [(p, n, w) for (p, n), w, (g,) in zip(pairs, want, got, strict=True) if w != g]
    assert not wrong, wrong[:10]
    assert sum(want) > 800  # the sample holds matches, not only misses
    assert glob_regex("a[b") is None  # a set never closed: GLOB matches nothing


@pytest.fixture(scope="module")
def both(postgres, encoder, tmp_path_factory):
    """The sample contracts ingested into SQLite and into PostgreSQL."""
    pipes = []
    for location in (tmp_path_factory.mktemp("lite") / "idx", postgres.database()):
        cache = tmp_path_factory.mktemp("cache") if isinstance(location, str) else None
        pipe = Pipeline.open(location, cache_dir=cache)
        pipe.encoder = encoder
        report = pipe.ingest([DATA / "contracts"], progress=False, workers=0)
        assert not report.failed and len(report.added) == 4
        pipes.append(pipe)
    yield pipes
    for pipe in pipes:
        pipe.close()


def test_postgresql_holds_the_same_index_as_sqlite(both):
    lite, pg = both
    assert pg.index.location.startswith("postgresql://")
    assert _chunks(pg) == _chunks(lite)
    assert pg.index.problems() == [] and lite.index.problems() == []
    for query in QUERIES:
        a = [(h.source, h.start, h.end, h.page, h.section) for h in lite.search(query, 5)]
        b = [(h.source, h.start, h.end, h.page, h.section) for h in pg.search(query, 5)]
        assert a == b, query
        scores = [h.score for h in pg.search(query, 5)]
        assert np.allclose(scores, [h.score for h in lite.search(query, 5)], atol=1e-6)
    stats = pg.index.stats()
    assert stats["documents"] == 4 and stats["vectors"] == stats["chunks"] > 0
    assert stats["bytes"]["postgresql"] > 0 and "vectors.faiss" in stats["bytes"]
    doc = pg.document(str(DATA / "contracts" / "msa.pdf"))
    assert doc.text == lite.document(str(DATA / "contracts" / "msa.pdf")).text
    boxes = pg.index.store.line_boxes(doc.id, len(doc.text))
    assert boxes and boxes == lite.index.store.line_boxes(doc.id, len(doc.text))


def test_lexical_search_and_filters_on_postgresql(both):
    lite, pg = both
    hits = pg.search("governing law", 5, mode="lexical")
    assert hits and all("govern" in h.text.lower() or "law" in h.text.lower() for h in hits)
    nda = pg.search("confidential information", 5, mode="lexical", source="*/nda.*")
    assert nda and {h.source.rsplit("/", 1)[-1] for h in nda} == {"nda.pdf"}
    dense = pg.search("confidential information", 5, source="*/n?a.pdf")
    assert [h.source for h in dense] == [h.source for h in lite.search(
        "confidential information", 5, source="*/n?a.pdf")]  # fmt: skip
    assert pg.search("termination", 3, kind="code") == []
    assert pg.search("the of and", 3, mode="lexical") == []  # stop words only
    # Operators of any query syntax are words here, never syntax.
    assert pg.search("law') | !(x & 'y", 3, mode="lexical")
    fused = pg.search("governing law of the agreement", 5, mode="hybrid")
    assert len(fused) == 5
    assert all(0.0 <= h.score <= 1.0 for h in fused)  # scaled scores, averaged
    # what auto reads to tell a codebase: chunks per kind, the same on both stores
    assert pg.index.store.chunk_kinds() == lite.index.store.chunk_kinds()
    assert sum(pg.index.store.chunk_kinds().values()) == pg.index.stats()["chunks"]


def test_a_readonly_open_and_a_missing_index(postgres, tmp_path):
    url = postgres.database()
    with pytest.raises(IndexStoreError, match="no lateseg index"):
        Pipeline.open(url, create=False)
    with pytest.raises(IndexStoreError, match="no lateseg index"):
        Pipeline.open(url, readonly=True)
    with pytest.raises(IndexStoreError, match="cache_dir"):
        Pipeline.open(tmp_path / "idx", cache_dir=tmp_path / "c")
    Pipeline.open(url, cache_dir=tmp_path / "w").close()  # makes the tables and manifest
    with Pipeline.open(url, readonly=True, cache_dir=tmp_path / "r") as pipe:
        doc = Document("/x.txt", "Some text.", "text")
        with pytest.raises(IndexStoreError, match="read-only"):
            pipe.index.store.replace_document(doc, "0" * 64, [], np.zeros((0, 384)))
    assert shown_url("postgresql://ann:secret@db.example/idx") == (
        "postgresql://ann:***@db.example/idx"
    )


def test_store_writes_are_logged_in_order_and_verified(postgres):
    """Rows, vectors and the change log through the store itself: replace, remove, the
    counters, and a damaged row that ``problems`` names."""
    store = PgStore(postgres.database())
    try:
        dim = 4
        doc = Document("/a.txt", "one two. three four.", "text")
        chunks = [Chunk(doc.id, 0, 8, "one two."), Chunk(doc.id, 9, 20, "three four.")]
        c1 = store.replace_document(doc, "h1", chunks, np.ones((2, dim), np.float32))
        c2 = store.replace_document(doc, "h2", chunks[:1], np.ones((1, dim), np.float32))
        assert (c1.seq, c1.first_id, c1.added) == (1, 0, 2)
        assert (c2.seq, c2.first_id, c2.added, c2.removed.tolist()) == (2, 2, 1, [0, 1])
        assert store.log_state().vectors == 1 and store.file_hash("/a.txt") == "h2"
        assert [c.seq for c in store.changes_since(0)] == [1, 2]
        assert store.problems(dim) == []
        store.db.execute("UPDATE lateseg_chunks SET start = start + 1")
        assert any("differs from their document" in p for p in store.problems(dim))
        store.db.execute("UPDATE lateseg_chunks SET start = start - 1")
        c3 = store.remove_sources(["/a.txt", "/missing.txt"])
        assert c3 is not None and c3.removed.tolist() == [2]
        assert store.remove_sources(["/a.txt"]) is None
        assert store.log_state() == type(store.log_state())(3, 1, 0)
        assert store.problems(dim) == []
    finally:
        store.close()


@pytest.fixture
def two_folders(tmp_path):
    """Licence texts in two folders, one per writer."""
    out = []
    for half in (NAMES[:2], [*NAMES[2:], "MIT"]):
        folder = tmp_path / f"part{len(out)}"
        folder.mkdir()
        for name in half:
            path = license_file(name) if name != "MIT" else DATA / "contracts" / "nda.pdf"
            target = folder / (name + (".pdf" if name == "MIT" else ".txt"))
            target.write_bytes(path.read_bytes())
        out.append(folder)
    return out


def test_two_writers_at_once_with_their_own_caches_lose_nothing(
    postgres, two_folders, tmp_path, encoder
):
    """Two processes ("machines": separate cache folders) ingest different folders into
    one index at the same time; the index verifies clean, and each process finds the
    other's documents on its next search, without reopening."""
    url = postgres.database()
    Pipeline.open(url, cache_dir=tmp_path / "c0").close()
    workers = [Worker("serve"), Worker("serve")]
    try:
        for i, w in enumerate(workers):
            w("open", index=url, cache_dir=str(tmp_path / f"c{i + 1}"))
        for w, folder in zip(workers, two_folders, strict=True):
            w.send("ingest", paths=[str(folder)])
        reports = [w.receive() for w in workers]
        assert all(not r["failed"] for r in reports)
        every = sorted(str(p) for f in two_folders for p in f.iterdir())
        for w in workers:
            assert w("sources") == every
        for w, other in zip(workers, reversed(two_folders), strict=True):
            theirs = sorted(other.iterdir())[0]
            text = theirs.read_text() if theirs.suffix == ".txt" else "confidential information"
            top = w("search", query=text[:300], k=1)
            assert top[0][0] == str(theirs)
    finally:
        for w in workers:
            w("close")
            w.close()
    with Pipeline.open(url, readonly=True, cache_dir=tmp_path / "c1") as pipe:
        assert pipe.index.problems() == []
        assert len(pipe.sources()) == len(every)
    done = subprocess.run(
        [sys.executable, "-m", "lateseg", "index", "verify", "--index", url,
         "--cache-dir", str(tmp_path / "c2")],
        capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "consistent" in done.stdout


def test_a_server_restart_mid_ingest_loses_nothing(postgres, tmp_path, encoder):
    """The server stops (every connection cut) and starts again while an ingest runs in
    another process: the ingest reconnects and finishes, and the index holds every file."""
    corpus = tmp_path / "files"
    corpus.mkdir()
    for name in NAMES:
        paragraphs = license_file(name).read_text().split("\n\n")
        for i in range(0, len(paragraphs), 3):
            (corpus / f"{name}-{i}.txt").write_text("\n\n".join(paragraphs[i : i + 3]) + "\n")
    files = sorted(str(p) for p in corpus.iterdir())
    url = postgres.database()
    w = Worker("serve")
    try:
        w("open", index=url, cache_dir=str(tmp_path / "c"))
        w("ingest", paths=[files[0]])  # the model is loaded: the next ingest writes at once
        # held before it writes its second document (the first is written): the restart
        # comes mid-ingest on a fast machine as on a busy one
        gate = tmp_path / "go"
        w.send("ingest", paths=[str(corpus)], gate=str(gate), pause_at=2)
        reached = gate.with_name("go.reached")
        deadline = time.monotonic() + 600  # a ceiling for a hung worker, not a pace
        while not reached.exists() and not w.answered() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert reached.exists(), "the ingest was not held before its second document"
        postgres.restart()
        gate.touch()
        report = w.receive()
        assert not report["failed"], report["failed"]
        assert w("sources") == files
        w("close")
    finally:
        w.close()
    with Pipeline.open(url, readonly=True, cache_dir=tmp_path / "v") as pipe:
        assert pipe.index.problems() == []
        assert pipe.sources() == files


def test_the_cli_on_a_postgresql_index(postgres, tmp_path):
    url = postgres.database()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    cache = ["--cache-dir", str(tmp_path / "c")]

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "lateseg", *args], capture_output=True, text=True,
            env=env, cwd=ROOT, check=False,
        )  # fmt: skip

    done = cli("search", "rent", "--index", url, *cache)
    assert done.returncode != 0 and "no lateseg index" in done.stderr
    done = cli("ingest", str(DATA / "contracts" / "lease.pdf"), "--index", url, *cache)
    assert done.returncode == 0, done.stderr
    done = cli("search", "monthly rent", "--index", url, "--json", "-k", "1")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["source"].endswith("lease.pdf")
    done = cli("index", "stats", "--index", url, "--json", *cache)
    stats = json.loads(done.stdout)
    assert stats["documents"] == 1 and stats["location"] == url


def test_langchain_serve_and_compact_on_postgresql(postgres, tmp_path, encoder):
    """The LangChain vector store writes a server's index, ``serve`` (another machine's
    cache) answers from it, and ``compact`` leaves it verifying clean."""
    from fastapi.testclient import TestClient
    from langchain_core.documents import Document as LCDocument

    from lateseg.integrations.langchain import LatesegVectorStore
    from lateseg.serve.app import create_app
    from lateseg.serve.service import Service

    url = postgres.database()
    text = "# Escrow\n\nThe Escrow Agent shall release the deposit within nine (9) days."
    pipe = Pipeline.open(url, cache_dir=tmp_path / "a")
    pipe.encoder = encoder
    store = LatesegVectorStore(index=pipe)
    try:
        store.add_documents(
            [LCDocument(page_content=text, id="escrow-1"),
             LCDocument(page_content="A short note about lunch.", id="note")]
        )  # fmt: skip
        assert store.similarity_search("when is the deposit released", k=1)[0].id == "escrow-1"
        store.delete(["note"])
    finally:
        store.close()
    service = Service(url, cache_dir=str(tmp_path / "b"), encoder=encoder)
    try:
        client = TestClient(create_app(service), base_url="http://127.0.0.1:8765")
        hits = client.get("/api/search", params={"q": "when is the deposit released"}).json()
        assert hits["hits"][0]["text"].endswith("nine (9) days.")
        assert len(hits["hits"]) == 1  # the note is gone
        health = client.get("/api/health").json()
        assert health["index"] == urlsplit(url).path.strip("/")
        assert health["documents"] == 1
    finally:
        service.close()
    with Pipeline.open(url, cache_dir=tmp_path / "a") as pipe:
        sizes = pipe.index.compact()
        assert sizes["bytes_after"] > 0 and sizes["vectors"] == "flat"
        assert pipe.index.problems() == []


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_files_whose_names_show_alike_are_refused_on_both_stores(backend, request, tmp_path):
    """A file named ``caf\\xe9.txt`` in Latin-1 bytes shows as the literal name
    ``caf\\\\xe9.txt`` of another file: the second write is refused, the first kept."""
    from lateseg.errors import IngestError
    from lateseg.index.sqlite.store import DocStore

    if backend == "sqlite":
        store = DocStore(tmp_path / "docstore.sqlite")
    else:
        store = PgStore(request.getfixturevalue("postgres").database())
    try:
        doc = Document("/d/caf\\xe9.txt", "Opens at seven.", "text")
        chunk = [Chunk(doc.id, 0, 15, "Opens at seven.")]
        store.replace_document(doc, "h1", chunk, np.ones((1, 4), np.float32), b"/d/caf\xe9.txt")
        with pytest.raises(IngestError, match="rename one"):
            store.replace_document(
                doc, "h2", chunk, np.ones((1, 4), np.float32), b"/d/caf\\xe9.txt"
            )
        assert store.file_hash(doc.source) == "h1" and store.log_state().seq == 1
        store.replace_document(doc, "h3", chunk, np.ones((1, 4), np.float32), b"/d/caf\xe9.txt")
        assert store.file_hash(doc.source) == "h3"  # the same file again: replaced
    finally:
        store.close()
