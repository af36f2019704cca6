"""An index folder and a repository are untrusted input: manifests that try to enable
remote code or carry mistyped fields, folders from an older lateseg, read-only folders,
hostile ``.gitignore`` patterns, names that are not UTF-8, very deep trees, and a file
swapped for a symlink between the walk and the read."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT, license_file

from lateseg.errors import IndexStoreError
from lateseg.index import Index, read_manifest
from lateseg.index.cache import is_cache_file
from lateseg.ingest.folder import walk
from lateseg.ingest.parallel import ParseJob, parse
from lateseg.pipeline import Pipeline

FORMAT1 = ROOT / "tests" / "fixtures" / "format1"


def _open(folder, encoder, **kw):
    pipe = Pipeline.open(folder, **kw)
    pipe.encoder = encoder
    return pipe


@pytest.fixture(scope="module")
def small_index(tmp_path_factory, encoder):
    folder = tmp_path_factory.mktemp("small") / "idx"
    docs = tmp_path_factory.mktemp("docs")
    for name in ("BSD", "Apache-2.0"):
        shutil.copy(license_file(name), docs / f"{name}.txt")
    with _open(folder, encoder) as pipe:
        pipe.ingest([docs], progress=False)
    return folder, docs


def _files(folder: Path) -> dict[str, bytes]:
    """The index's own files (not SQLite's transient -wal/-shm, nor the lock file)."""
    names = ("manifest.json", "docstore.sqlite", "vectors.faiss")
    return {n: (folder / n).read_bytes() for n in names if (folder / n).exists()}


# -- an index from before vectors lived in the docstore ------------------------------
def test_a_format1_index_is_read_as_it_is_then_migrated_on_its_first_write(tmp_path, encoder):
    folder = tmp_path / "index"
    shutil.copytree(FORMAT1 / "index", folder)
    gamma = "/tmp/format1/docs/gamma.txt"  # chunks without vectors (a crash, see README)
    before = _files(folder)
    with _open(folder, encoder) as pipe:
        assert pipe.index.store.legacy and pipe.index.stats()["format"] == 1
        hits = pipe.search("When must invoices be paid?", k=2)
        assert hits[0].source == "/tmp/format1/docs/alpha.txt" and "thirty" in hits[0].text
        assert all(h.source != gamma for h in pipe.search("cheese venture secret", k=5))
        assert pipe.index.problems() == [
            "1 chunks have no vector (index format 1; any write migrates it)"
        ]
    assert _files(folder) == before  # reading changed nothing
    new = tmp_path / "delta.txt"
    new.write_text("Delta Lease. The tenant pays rent monthly in advance.\n")
    with _open(folder, encoder) as pipe:
        pipe.ingest([new], progress=False)  # the first write migrates
        assert not pipe.index.store.legacy
        assert pipe.index.problems() == []
        # The document an interrupted ingest left without vectors was encoded again.
        top = pipe.search("cheese distribution venture confidentiality", k=1)[0]
        assert top.source == gamma
        assert pipe.search("rent paid in advance", k=1)[0].source == str(new)
        assert len(pipe.sources()) == 4
    assert json.loads((folder / "manifest.json").read_text())["version"] == 2
    assert is_cache_file(folder / "vectors.faiss")
    with _open(folder, encoder) as pipe:
        assert pipe.index.notice is None and pipe.index.problems() == []


def test_a_format1_index_without_a_text_index_gains_one_on_migration(tmp_path, encoder):
    folder = tmp_path / "index"
    shutil.copytree(FORMAT1 / "index", folder)
    db = sqlite3.connect(folder / "docstore.sqlite")
    db.executescript(
        "DROP TRIGGER chunks_fts_insert; DROP TRIGGER chunks_fts_delete; DROP TABLE chunks_fts;"
    )
    db.close()
    with _open(folder, encoder) as pipe:
        with pytest.raises(IndexStoreError, match="predates lexical search"):
            pipe.search("invoice", k=2, mode="lexical")
        pipe.index.compact()  # a write: migrates, the text index built from the chunks
        hits = pipe.search("invoice bank transfer", k=2, mode="lexical")
        assert hits[0].source == "/tmp/format1/docs/alpha.txt"
        assert pipe.index.problems() == []


# -- the manifest describes, never enables --------------------------------------------
@pytest.fixture
def evil_model(tmp_path):
    """A copy of the packaged embedder whose config maps AutoModel to code in its
    folder; importing that code writes a marker file."""
    from lateseg.encode.models import resolve_embedder

    folder = tmp_path / "evil-model"
    shutil.copytree(resolve_embedder(None), folder)
    marker = tmp_path / "marker"
    (folder / "modeling_evil.py").write_text(
        "import pathlib\n"
        f"pathlib.Path({str(marker)!r}).write_text('code ran')\n"
        "from transformers import BertModel\n\n\n"
        "class EvilModel(BertModel):\n    pass\n"
    )
    config = json.loads((folder / "config.json").read_text())
    config["auto_map"] = {"AutoModel": "modeling_evil.EvilModel"}
    (folder / "config.json").write_text(json.dumps(config))
    return folder, marker


def _point_at(index: Path, model: Path, **extra) -> None:
    path = index / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["embedder"] = {**manifest["embedder"], "model": str(model), **extra}
    path.write_text(json.dumps(manifest))


def test_a_manifest_cannot_turn_on_remote_code(small_index, evil_model, tmp_path):
    model, marker = evil_model
    folder = tmp_path / "idx"
    shutil.copytree(small_index[0], folder)
    _point_at(folder, model, trust_remote_code=True)
    with pytest.raises(IndexStoreError, match=r"embedder\.trust_remote_code"):
        Pipeline.open(folder).search("warranty", k=1)
    assert not marker.exists()
    # Pointing at the folder alone loads its weights, never its code.
    _point_at(folder, model)
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["embedder"]["trust_remote_code"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with Pipeline.open(folder, readonly=True) as pipe:
        assert pipe.search("redistribution in binary form", k=1)[0].source.endswith("BSD.txt")
    assert not marker.exists()
    # Only the caller's own argument runs it (the fixture's code is live).
    with Pipeline.open(folder, readonly=True, trust_remote_code=True) as pipe:
        pipe.search("warranty", k=1)
    assert marker.read_text() == "code ran"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.pop("embedder"), "embedder: missing"),
        (lambda m: m["embedder"].pop("model"), "embedder.model: missing"),
        (lambda m: m["embedder"].update(window="big"), "embedder.window: 'big' is not an integer"),
        (lambda m: m["embedder"].update(late_weight=True), "embedder.late_weight: true is not"),
        (lambda m: m["embedder"].update(overlap=-3), "embedder: overlap=-3"),
        (lambda m: m["embedder"].update(pool="cls"), "embedder.pool: unknown field"),
        (lambda m: m.update(dim=-1), "dim: -1 is not an integer"),
        (lambda m: m.update(dim="384"), "dim: '384' is not an integer"),
        (lambda m: m.update(chunker=[]), "chunker: [] is not an object"),
        (lambda m: m["chunker"].update(type="magic"), "unknown chunker type 'magic'"),
        (lambda m: m["chunker"].pop("type"), "unknown chunker type None; expected one of"),
        (lambda m: m["chunker"].update(min_tokens="x"), "chunker.min_tokens: 'x' is not"),
        (lambda m: m["chunker"].update(code=5), "chunker.code: 5 is not an object"),
        (lambda m: m.update(vectors="annoy"), "vectors: 'annoy'; choose one of"),
        (lambda m: m.update(version=9), "version: index format 9"),
        (lambda m: m.update(segmenter=-1), "segmenter: -1 is not an integer"),
        (lambda m: m.update(segmenter="1"), "segmenter: '1' is not an integer"),
        (lambda m: m.update(extra=1), "extra: unknown field"),
    ],
)
def test_every_manifest_field_is_checked_and_a_bad_one_named(small_index, tmp_path, edit, message):
    """Opening the folder checks every field (storage reads the chunker section as an
    object naming its type; the chunker's own fields are checked where it is built)."""
    folder = tmp_path / "idx"
    folder.mkdir()
    manifest = json.loads((small_index[0] / "manifest.json").read_text())
    edit(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexStoreError) as e:
        Pipeline.open(folder, readonly=True)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith(str(folder / "manifest.json"))


def test_the_manifest_records_the_segmenter_and_an_older_one_is_said(
    small_index, tmp_path, encoder, caplog
):
    """A new index records SEGMENTER_VERSION; a manifest from before it was recorded
    reads as 0, still opens, and a write to it warns that its documents keep their
    older structure (unchanged files are not parsed again)."""
    from lateseg.segment import SEGMENTER_VERSION

    manifest = json.loads((small_index[0] / "manifest.json").read_text())
    assert manifest["segmenter"] == SEGMENTER_VERSION >= 1
    folder = tmp_path / "old"
    shutil.copytree(small_index[0], folder)
    del manifest["segmenter"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert read_manifest(folder).segmenter == 0
    with caplog.at_level("WARNING"), _open(folder, encoder) as pipe:
        assert pipe.search("warranty", k=1)
    assert "older segmenter (0 < " in caplog.text


def test_a_manifest_that_is_not_json_or_too_large_is_refused(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "lateseg-index", "dim": NaN}')
    with pytest.raises(IndexStoreError, match="NaN is not a JSON number"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_bytes(b" " * (2 << 20))
    with pytest.raises(IndexStoreError, match="not a manifest"):
        read_manifest(tmp_path)


# -- read-only folders and reads that never write --------------------------------------
def test_a_read_only_index_is_searched_and_verified(small_index, tmp_path):
    folder = tmp_path / "ro"
    shutil.copytree(small_index[0], folder)
    for p in [*folder.iterdir(), folder]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    # Root ignores file modes unless it gives up the capabilities that let it.
    prefix = (
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
        if os.geteuid() == 0
        else []
    )
    script = (
        "import sys; from lateseg.cli import main; "
        "sys.exit(main(['search', 'redistribution in binary form', '--index', sys.argv[1], "
        "'-k', '1', '--json']) or main(['index', 'verify', '--index', sys.argv[1]]))"
    )
    try:
        out = subprocess.run(
            [*prefix, sys.executable, "-c", script, str(folder)],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
    finally:
        for p in [folder, *folder.iterdir()]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    assert out.returncode == 0, out.stderr
    hit = json.loads(out.stdout.split("\n]\n")[0] + "\n]")[0]
    assert hit["source"].endswith("BSD.txt")
    assert "ok: index is consistent" in out.stdout
    with (
        pytest.raises(IndexStoreError, match="read-only"),
        Pipeline.open(folder, readonly=True) as pipe,
    ):
        pipe.remove([hit["source"]])


# -- walking a hostile repository ------------------------------------------------------
def test_a_hostile_gitignore_pattern_cannot_stall_the_walk(tmp_path, encoder):
    repo = tmp_path / "repo"
    repo.mkdir()
    # Backtracking regex matchers take minutes per name on this (2.4 s at 8 pairs).
    (repo / ".gitignore").write_text("*a" * 14 + "*b\n" + "secret.txt\n")
    for i in range(20):
        (repo / f"{'a' * 40}{i}.txt").write_text(f"Note {i} about the payment terms.\n")
    (repo / "secret.txt").write_text("not to be indexed\n")
    t0 = time.monotonic()
    with _open(tmp_path / "idx", encoder) as pipe:
        report = pipe.ingest([repo], progress=False)
    assert time.monotonic() - t0 < 30  # hours with a backtracking matcher
    assert len(report.added) == 20 and not report.failed
    assert (str(repo / "secret.txt"), "gitignored") in report.skipped


def test_without_re2_a_pattern_with_too_many_wildcards_is_skipped_with_a_warning(tmp_path, caplog):
    from lateseg.ingest import repo

    ignore = tmp_path / ".gitignore"
    ignore.write_text("*a*a*a*a*a*a*a*a*a*a*b\n*.log\nbuild/**/*.o\n")
    spec = repo._load(ignore, backend="simple")
    assert spec is not None
    assert [p.pattern for p in spec.patterns] == ["*.log", "build/**/*.o"]  # type: ignore[attr-defined]
    assert "too many wildcards" in caplog.text and "*a*a*a" in caplog.text


def test_a_name_that_is_not_utf8_is_indexed_and_the_others_too(tmp_path, encoder):
    folder = tmp_path / "docs"
    folder.mkdir()
    odd = os.fsdecode(bytes(folder) + b"/caf\xe9-notes.txt")  # Latin-1 bytes: not UTF-8
    Path(odd).write_text("The caf\u00e9 opens at seven and closes at noon.\n")
    (folder / "plain.txt").write_text("Plain terms: invoices are paid within thirty days.\n")
    with _open(tmp_path / "idx", encoder) as pipe:
        report = pipe.ingest([folder], progress=False)
        shown = f"{folder}/caf\\xe9-notes.txt"
        assert sorted(report.added) == [shown, str(folder / "plain.txt")], report
        assert pipe.search("when does the cafe open", k=1)[0].source == shown
        assert pipe.document(shown).text.startswith("The caf")
        json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")  # printable
        again = pipe.ingest([folder], progress=False)
        assert len(again.unchanged) == 2
        Path(odd).unlink()
        assert pipe.ingest([folder], progress=False, prune=True).removed == [(shown, "file gone")]
        # A query with a lone surrogate is cleaned, not a crash, in every mode.
        for mode in ("dense", "hybrid", "lexical"):
            assert pipe.search("invoices \udcff paid", k=1, mode=mode)[0].source.endswith(
                "plain.txt"
            )


def test_a_tree_1500_folders_deep_is_ingested(tmp_path, encoder):
    deep = tmp_path / "deep"
    here = deep
    here.mkdir()
    for _ in range(1500):  # (os.makedirs itself recurses once per level)
        here = here / "d"
        here.mkdir()
    (here / "bottom.txt").write_text("The bottom of a very deep tree.\n")
    (deep / "top.txt").write_text("The top of the tree.\n")
    try:
        found = walk([deep])
        assert [f.path for f in found.files] == [here / "bottom.txt", deep / "top.txt"]
        assert not found.failed
        with _open(tmp_path / "idx", encoder) as pipe:
            report = pipe.ingest([deep], progress=False, prune=True)
            assert len(report.added) == 2 and not report.failed
            assert pipe.search("bottom of a deep tree", k=1)[0].source == str(here / "bottom.txt")
    finally:  # from the bottom up: pytest's own clean-up recurses once per level
        while here != deep.parent:
            for f in here.iterdir():
                if f.is_file():
                    f.unlink()
            here.rmdir()
            here = here.parent


def test_a_file_swapped_for_a_symlink_after_the_walk_is_not_read(tmp_path, encoder):
    folder = tmp_path / "docs"
    folder.mkdir()
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("The secret outside the folder: the vault code is 1234.\n")
    target = folder / "notes.txt"
    target.write_text("Ordinary notes about delivery dates.\n")
    (folder / "other.txt").write_text("Other notes about payment.\n")
    elsewhere = tmp_path / "elsewhere.txt"  # made before the walk: another inode
    elsewhere.write_text("Another file's text, moved into the folder's name.\n")
    found = walk([folder])
    # Between the walk and the read: the file becomes a link to outside the folder ...
    target.unlink()
    target.symlink_to(outside)
    job = next(f for f in found.files if f.path == target)
    swapped = parse(ParseJob(str(job.path), str(job.root), None, None, job.identity))
    assert swapped.doc is None and "symlink" in (swapped.error or "")
    # ... or another file takes its name.
    target.unlink()
    os.replace(elsewhere, target)
    replaced = parse(ParseJob(str(job.path), str(job.root), None, None, job.identity))
    assert replaced.doc is None and "replaced by another file" in (replaced.error or "")
    # The same race during a real ingest: nothing from outside is indexed.
    target.unlink()
    target.write_text("Ordinary notes about delivery dates.\n")
    import lateseg.ingest.folder as folder_mod

    real_walk = folder_mod.walk

    def walk_then_swap(paths, cfg=None):
        result = real_walk(paths, cfg)
        target.unlink()
        target.symlink_to(outside)
        return result

    folder_mod.walk = walk_then_swap
    try:
        with _open(tmp_path / "idx", encoder) as pipe:
            report = pipe.ingest([folder], progress=False)
            assert [p for p, _ in report.failed] == [str(target)]
            assert pipe.sources() == [str(folder / "other.txt")]
            assert pipe.search("vault code", k=3, mode="lexical") == []
    finally:
        folder_mod.walk = real_walk


# -- concurrency inside one process ------------------------------------------------------
def test_searches_from_threads_during_a_write_in_the_same_process(small_index, tmp_path, encoder):
    folder = tmp_path / "idx"
    shutil.copytree(small_index[0], folder)
    extra = tmp_path / "extra"
    extra.mkdir()
    for i in range(12):
        (extra / f"n{i}.txt").write_text(f"Note {i}: the supplier delivers on day {i}.\n")
    errors: list[BaseException] = []
    with _open(folder, encoder) as pipe:
        stop = threading.Event()

        def reader() -> None:
            try:
                while not stop.is_set():
                    for h in pipe.search("supplier delivers", k=3, mode="hybrid"):
                        assert pipe.document(h.source).text[h.start : h.end] == h.text
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=reader) for _ in range(2)]
        for t in threads:
            t.start()
        try:
            pipe.ingest([extra], progress=False)
        finally:
            stop.set()
            for t in threads:
                t.join()
        assert not errors, errors[0]
        assert pipe.index.problems() == []


def test_index_opened_read_only_by_the_library_never_writes(small_index, tmp_path):
    folder = tmp_path / "idx"
    shutil.copytree(small_index[0], folder)
    (folder / "vectors.faiss").unlink()  # a cache to rebuild: in memory only
    before = _files(folder)
    manifest = read_manifest(folder)
    assert manifest is not None
    idx = Index(folder, manifest, writable=False)
    try:
        assert idx.notice and idx.count() > 0 and idx.problems() == []
        assert idx.stats()["documents"] == 2
    finally:
        idx.close()
    assert _files(folder) == before
