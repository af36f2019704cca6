"""The ingest engines' conformance test: every member of
:data:`lateseg.scale.engines.ENGINES` runs one tiny real ingest job (a license, a source
file, an empty file, a broken PDF and an unchanged file), and must give, in job order,
what encoding each document alone gives: the same chunks, the same vectors (at fp32, to
float rounding), the same reasons for the files it could not encode. A new engine gets
this test by registering.

The Ray engine starts a small local cluster (slow; skipped, saying why, without Ray)."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from collections.abc import Iterator, Sequence
from typing import ClassVar

import numpy as np
import pytest
from conftest import DATA, license_file

from lateseg import config as settings
from lateseg.cli import parse as parse_cli
from lateseg.encode.late import LateEncoder
from lateseg.errors import ConfigError
from lateseg.ingest.parallel import ParseJob, parse
from lateseg.scale.engines import (
    EMPTY,
    ENGINES,
    Outcome,
    encode_document,
    encode_parsed,
    make_engine,
)
from lateseg.segment import DynamicChunker

SLOW = {"ray"}  # starts a cluster


def _params() -> list:
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in ENGINES]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The jobs of one ingest: two real documents, an empty file, a broken PDF, and an
    unchanged file (its hash already indexed)."""
    folder = tmp_path_factory.mktemp("corpus")
    for source in (license_file("BSD"), DATA / "sample_repo" / "billing" / "tax.py"):
        shutil.copy(source, folder / source.name)
    (folder / "empty.txt").write_text("  \n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    kept = folder / "kept.md"
    kept.write_text("# Kept\n\nThis file is already in the index.\n")
    paths = sorted(folder.iterdir())
    known = {str(kept): hashlib.sha256(kept.read_bytes()).hexdigest()}
    return [ParseJob(str(p), str(folder), known.get(str(p))) for p in paths]


@contextlib.contextmanager
def _ready(name: str) -> Iterator[None]:
    """What an engine needs to run here: for Ray, a small local cluster (as
    tests/test_scale.py starts it), or a skip saying why there is none."""
    if name != "ray":
        yield
        return
    ray = pytest.importorskip("ray", reason="the Ray engine needs Ray: pip install 'lateseg[ray]'")
    from lateseg.scale.ray_engine import local_worker_priority

    local_worker_priority()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _conforms(name: str, encoder, jobs: Sequence[ParseJob]) -> None:
    chunker = DynamicChunker()
    engine = make_engine(name, encoder, chunker, workers=1)
    outcomes = list(engine.run(jobs))
    assert [p.path for p, _ in outcomes] == [j.path for j in jobs]  # in job order
    encoded = 0
    for job, (parsed, result) in zip(jobs, outcomes, strict=True):
        alone = parse(job)
        assert (parsed.digest, parsed.unchanged, parsed.error) == (
            alone.digest,
            alone.unchanged,
            alone.error,
        ), job.path
        if alone.doc is None or alone.unchanged:
            assert result is None, job.path  # nothing to encode
            continue
        assert parsed.doc is not None and parsed.doc.text == alone.doc.text
        # the references from encoders that have met no text (lateseg.encode.reuse): not
        # the engine's own results handed back
        want = encode_parsed(LateEncoder(encoder.config), chunker, [alone])[0]
        if isinstance(want, str):
            assert result == want, job.path  # the same reason
            continue
        assert isinstance(result, tuple), (job.path, result)
        chunks, vectors = result
        ref_chunks, ref_vectors = encode_document(LateEncoder(encoder.config), chunker, alone.doc)
        assert [(c.start, c.end, c.text) for c in chunks] == [
            (c.start, c.end, c.text) for c in ref_chunks
        ], job.path
        np.testing.assert_allclose(vectors, ref_vectors, atol=1e-4)
        encoded += 1
    assert encoded == 2  # the license and the source file
    assert sum(r == EMPTY for _, r in outcomes) == 1
    assert sum(p.error is not None for p, _ in outcomes) == 1  # the broken PDF


@pytest.mark.parametrize("name", _params())
def test_an_engine_gives_what_each_document_alone_gives(name, fp32_encoder, corpus):
    with _ready(name):
        _conforms(name, fp32_encoder, corpus)


def test_an_unknown_engine_lists_the_family(encoder):
    assert list(ENGINES) == ["local", "ray"]
    with pytest.raises(ConfigError, match="engine='spark'; choose one of local, ray"):
        make_engine("spark", encoder, DynamicChunker())


def _cli_engine(name: str) -> str:
    args = parse_cli(
        ["ingest", "x", "--index", "idx", "--engine", name], settings.Config({}, {}, ())
    )
    return str(args.engine)


def test_a_new_engine_is_one_class_and_one_line(fp32_encoder, corpus, capsys):
    """A toy engine (each file parsed and encoded in this process, one at a time)
    registered in a few lines is made by make_engine, offered by the CLI, and passes the
    family's matrix."""

    @ENGINES.register
    class SerialEngine:
        name: ClassVar[str] = "serial"
        summary: ClassVar[str] = "one file at a time, in this process"

        def __init__(self, encoder, chunker):
            self.encoder, self.chunker = encoder, chunker

        @classmethod
        def start(cls, encoder, chunker, *, workers=None, address=None, store_url=None):
            return cls(encoder, chunker)

        def run(self, jobs: Sequence[ParseJob]) -> Iterator[Outcome]:
            for job in jobs:
                parsed = parse(job)
                yield parsed, encode_parsed(self.encoder, self.chunker, [parsed])[0]

    try:
        assert "serial (one file at a time, in this process)" in ENGINES.described()
        assert _cli_engine("serial") == "serial"
        assert isinstance(make_engine("serial", fp32_encoder, DynamicChunker()), SerialEngine)
        _conforms("serial", fp32_encoder, corpus)
    finally:
        ENGINES.unregister("serial")
    with pytest.raises(ConfigError, match="engine='serial'; choose one of local, ray"):
        make_engine("serial", fp32_encoder, DynamicChunker())
    with pytest.raises(SystemExit):
        _cli_engine("serial")
    assert "invalid choice: 'serial'" in capsys.readouterr().err
