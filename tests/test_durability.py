"""Durability and concurrency of an index under real processes: SIGKILL mid-ingest,
readers during an ingest, and incremental re-ingest of a large folder."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import LICENSES

from lateseg.pipeline import Pipeline

NAMES = ["Apache-2.0", "MPL-2.0", "BSD", "Artistic", "CC0-1.0", "LGPL-3"]


@pytest.fixture(scope="module")
def licenses(tmp_path_factory):
    src = tmp_path_factory.mktemp("licenses")
    for name in NAMES:
        if (LICENSES / name).is_file():
            shutil.copy(LICENSES / name, src / f"{name}.txt")
    return src


def _ingest_process(corpus, index) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "lateseg", "ingest", str(corpus), "--index", str(index)),
            *("--workers", "0", "--no-progress"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _state(pipe: Pipeline) -> dict[str, list[tuple[int, int, str, np.ndarray]]]:
    """Per source: its chunks (span, text, vector), in order."""
    out = {}
    for source in pipe.sources():
        ids = sorted(pipe.index.store.chunk_ids_of_source(source))
        rows = pipe.index.store.chunk_rows(ids)
        vecs = pipe.index.vectors.vectors(ids)
        out[source] = [
            (rows[i]["start"], rows[i]["end"], rows[i]["text"], v)
            for i, v in zip(ids, vecs, strict=True)
        ]
    return out


def _same(a, b) -> bool:
    if a.keys() != b.keys():
        return False
    for src in a:
        if [x[:3] for x in a[src]] != [x[:3] for x in b[src]]:
            return False
        if not all(np.allclose(x[3], y[3], atol=1e-5) for x, y in zip(a[src], b[src], strict=True)):
            return False
    return True


@pytest.fixture(scope="module")
def reference(licenses, tmp_path_factory):
    """The uninterrupted result, and how long an ingest process takes."""
    index = tmp_path_factory.mktemp("ref") / "idx"
    t0 = time.monotonic()
    proc = _ingest_process(licenses, index)
    assert proc.wait(timeout=600) == 0, proc.stderr.read() if proc.stderr else ""
    took = time.monotonic() - t0
    with Pipeline.open(index) as pipe:
        return _state(pipe), took


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_ingest_killed_at_a_random_point_leaves_a_consistent_index(
    licenses, reference, tmp_path, seed
):
    expected, took = reference
    index = tmp_path / "idx"
    proc = _ingest_process(licenses, index)
    # Mostly after the model has loaded: while files are being written.
    time.sleep(random.Random(seed).uniform(0.5, 1.0) * took)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    if (index / "manifest.json").exists():
        with Pipeline.open(index) as pipe:  # opens, repairs, answers
            assert pipe.index.problems() == []
            if pipe.sources():
                hits = pipe.search("warranty", k=3, mode="hybrid")
                doc = pipe.document(hits[0].source)
                assert doc is not None and doc.text[hits[0].start : hits[0].end] == hits[0].text
    rerun = _ingest_process(licenses, index)
    assert rerun.wait(timeout=600) == 0, rerun.stderr.read() if rerun.stderr else ""
    with Pipeline.open(index) as pipe:
        assert pipe.index.problems() == []
        assert _same(_state(pipe), expected)


def test_readers_during_an_ingest_never_fail_nor_see_a_chunk_without_its_vector(
    licenses, tmp_path, encoder
):
    index = tmp_path / "idx"
    seed = Pipeline.open(index)  # create it, so readers can open from the start
    seed.close()
    proc = _ingest_process(licenses, index)
    rounds, seen = 0, set()
    try:
        while proc.poll() is None or rounds == 0:
            with Pipeline.open(index) as pipe:
                pipe.encoder = encoder
                for mode in ("dense", "lexical", "hybrid"):
                    hits = pipe.search("license terms and conditions", k=5, mode=mode)
                    ids = [h.chunk_id for h in hits]
                    assert pipe.index.vectors.contains(ids) == set(ids)
                    for h in hits:
                        doc = pipe.document(h.source)
                        assert doc is not None and doc.text[h.start : h.end] == h.text
                seen.add(len(pipe.sources()))
            rounds += 1
    finally:
        proc.wait(timeout=600)
    assert proc.returncode == 0
    # The readers saw the index grow, not only its end state.
    assert rounds >= 3 and len(seen) >= 2, (rounds, seen)


def test_changing_one_file_of_a_thousand_reencodes_only_that_file(tmp_path, encoder):
    corpus = tmp_path / "notes"
    corpus.mkdir()
    rng = random.Random(0)
    words = ["party", "notice", "term", "fee", "supplier", "client", "invoice", "payment"]
    for i in range(1000):
        text = " ".join(rng.choice(words) for _ in range(30))
        (corpus / f"note_{i:04d}.txt").write_text(f"Note {i}. {text}.\n")
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = encoder
        first = pipe.ingest([corpus], progress=False, workers=0)
        assert len(first.added) == 1000 and not first.failed
        encoded = []
        original = encoder.encode_document

        def counting(text, **kw):  # the real encoder, counted
            encoded.append(text)
            return original(text, **kw)

        pipe.encoder.encode_document = counting  # type: ignore[method-assign]
        try:
            changed = corpus / "note_0500.txt"
            changed.write_text("Note 500. The supplier shall cure any breach within ten days.\n")
            again = pipe.ingest([corpus], progress=False, workers=0)
        finally:
            del pipe.encoder.encode_document
        assert again.updated == [str(changed)] and len(again.unchanged) == 999
        assert encoded == [changed.read_text()]
        top = pipe.search("cure a breach within ten days", k=1, mode="lexical")[0]
        assert top.source == str(changed)
