"""The Ray engine on a real local Ray cluster (2 CPUs, no mock): it must build the index
the local engine builds, chunk for chunk, from the sample data and part of the standard
library, and keep the local engine's rules for bad and unchanged files."""

from __future__ import annotations

import json
import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest
import ray

from lateseg import Pipeline
from lateseg.cli import main
from lateseg.errors import ConfigError
from lateseg.scale.ray_engine import local_worker_priority

pytestmark = pytest.mark.slow  # starts Ray

ROOT = Path(__file__).resolve().parents[1]
STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.fixture(scope="module")
def cluster():
    local_worker_priority()  # as the engine's own local cluster: not starved by a busy core
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _corpus(tmp_path: Path) -> list[Path]:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    (extra / "empty.txt").write_text("   \n")
    return [
        ROOT / "data" / "contracts",
        ROOT / "data" / "sample_repo",
        STDLIB / "json",  # part of the standard library: five modules
        extra,
    ]


def _snapshot(folder: Path) -> tuple[dict, np.ndarray, dict]:
    with Pipeline.open(folder) as pipe:
        store = pipe.index.store
        rows = store.chunk_rows(sorted(store.all_chunk_ids()))
        vectors = pipe.index.vectors.vectors(sorted(rows))
        docs = {s: store.document(s) for s in store.sources()}
        return rows, vectors, {s: (d.text, d.structure, d.kind) for s, d in docs.items()}


def test_ray_engine_builds_the_index_the_local_engine_builds(cluster, tmp_path, capsys):
    # Exact fp32 on every CPU: Ray's workers batch other documents together than the
    # local engine does, which bf16 (the default where the CPU has it) rounds differently.
    paths = _corpus(tmp_path)
    with Pipeline.open(tmp_path / "local", backend="openvino") as pipe:
        local = pipe.ingest(paths, progress=False)
    args = ["--index", str(tmp_path / "ray"), "--engine", "ray", "--no-progress", "--json"]
    code = main(["ingest", *map(str, paths), *args, "--backend", "openvino"])
    assert code == 0  # failed files are reported; the others indexed (no --strict)
    report = json.loads(capsys.readouterr().out)
    with Pipeline.open(tmp_path / "ray", backend="openvino") as pipe:
        again = pipe.ingest(paths, progress=False, engine="ray")

    assert len(local.added) >= 14
    assert report["added"] == local.added and report["chunks"] == local.chunks
    assert [f["path"] for f in report["failed"]] == [p for p, _ in local.failed]
    assert sorted(Path(p).name for p, _ in local.failed) == ["broken.pdf"]
    # an empty file holds nothing to lose: skipped with its reason, by both engines
    assert "empty.txt" in {Path(p).name for p, _ in local.skipped}
    assert "empty.txt" in {Path(s["path"]).name for s in report["skipped"]}
    rows_l, vec_l, docs_l = _snapshot(tmp_path / "local")
    rows_r, vec_r, docs_r = _snapshot(tmp_path / "ray")
    assert len(rows_l) == local.chunks > 0
    assert rows_r == rows_l  # same chunk IDs, sources, offsets, text, sections, pages
    assert docs_r == docs_l
    assert np.abs(vec_r - vec_l).max() < 1e-5
    # A second Ray ingest parses nothing new and encodes nothing.
    assert len(again.unchanged) == len(local.added) and again.chunks == 0
    assert sorted(Path(p).name for p, _ in again.failed) == ["broken.pdf"]


def test_ray_engine_reencodes_a_changed_file_only(cluster, tmp_path):
    folder = tmp_path / "docs"
    shutil.copytree(ROOT / "data" / "sample_repo", folder)
    with Pipeline.open(tmp_path / "idx") as pipe:
        first = pipe.ingest([folder], progress=False, engine="ray")
        target = sorted(folder.rglob("*.py"))[0]
        target.write_text(target.read_text() + "\n\ndef added_later():\n    return 42\n")
        second = pipe.ingest([folder], progress=False, engine="ray")
        assert second.updated == [str(target)] and len(second.unchanged) == len(first.added) - 1
        hits = pipe.search("added_later returns 42", k=1)
        assert hits[0].source == str(target) and "added_later" in hits[0].text
        assert pipe.index.problems() == []


def test_engine_and_address_are_checked(tmp_path):
    with Pipeline.open(tmp_path / "idx") as pipe:
        with pytest.raises(ConfigError, match="engine='spark'"):
            pipe.ingest([ROOT / "data" / "contracts"], engine="spark")
        with pytest.raises(ConfigError, match="address= is for engine='ray'"):
            pipe.ingest([ROOT / "data" / "contracts"], address="10.0.0.1:6379")


def test_ray_workers_write_a_postgresql_index_themselves(cluster, postgres, tmp_path):
    """With a postgresql:// index the Ray actors write their documents themselves (the
    driver writes none) and the index holds what the local engine builds into a folder."""
    paths = _corpus(tmp_path)
    with Pipeline.open(tmp_path / "local", backend="openvino") as pipe:
        local = pipe.ingest(paths, progress=False)
    url = postgres.database()
    with Pipeline.open(url, backend="openvino", cache_dir=tmp_path / "cache") as pipe:
        driver_writes = []
        write = pipe.index.store.replace_document
        pipe.index.store.replace_document = lambda *a, **k: (
            driver_writes.append(1) or write(*a, **k)
        )  # type: ignore[method-assign]
        report = pipe.ingest(paths, progress=False, engine="ray")
        assert driver_writes == []
        assert sorted(report.added) == sorted(local.added) and report.chunks == local.chunks
        assert sorted(p for p, _ in report.failed) == sorted(p for p, _ in local.failed)
        assert pipe.index.count() == local.chunks  # the driver's cache caught up
        assert pipe.index.problems() == []
        with Pipeline.open(tmp_path / "local", backend="openvino") as lite:
            for source in lite.sources():
                a = {(h.start, h.end, h.text) for h in lite.document_hits(source)}
                assert {(h.start, h.end, h.text) for h in pipe.document_hits(source)} == a
            query = "How many days' notice to terminate for convenience?"
            want = [(h.source, h.start, round(h.score, 4)) for h in lite.search(query, 5)]
            assert [(h.source, h.start, round(h.score, 4)) for h in pipe.search(query, 5)] == want
