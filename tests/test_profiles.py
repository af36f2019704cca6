"""Ingest profiles (lateseg.encode.profiles): ``accurate`` is today's settings, a new
index records its profile, an index is extended with its own (another is refused),
``index stats`` shows it, an unknown one is refused by name, and on a CPU without bf16
``lateseg ingest`` names ``--profile fast`` once."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_cli import cli

from lateseg.encode.config import EncoderConfig
from lateseg.encode.profiles import PROFILES, apply_profile, check_profile
from lateseg.errors import ConfigError, IndexStoreError

TEXT = (
    "1. Payment. The Customer shall pay each invoice within thirty days of receipt.\n\n"
    "2. Term. This Agreement runs for two years and renews for one year at a time.\n\n"
    "3. Notice. Either party may end this Agreement by ninety days' written notice.\n"
)
MORE = "".join(
    f"def deliver_{i}(order, office):\n"
    f"    total = sum(item.price for item in order.items) + {i}\n"
    f"    return office.ship(order, total)\n\n\n"
    for i in range(30)
)


def test_accurate_is_todays_default_and_fast_changes_only_profile_fields():
    assert apply_profile(EncoderConfig(), "accurate") == EncoderConfig()
    fast = apply_profile(EncoderConfig(backend="openvino"), "fast")
    assert fast != EncoderConfig(backend="openvino")
    assert fast.backend == "openvino"  # the caller's backend wins over the profile's
    assert {k for k, v in fast.__dict__.items() if EncoderConfig().__dict__[k] != v} <= set(
        PROFILES["fast"]
    )


def test_an_unknown_profile_is_refused_by_name(tmp_path):
    from lateseg.pipeline import Pipeline

    with pytest.raises(ConfigError, match=r"profile='quick'.*accurate, fast"):
        check_profile("quick")
    with pytest.raises(ConfigError, match="profile='quick'"):
        Pipeline.open(tmp_path / "idx", profile="quick")
    assert not (tmp_path / "idx").exists()  # refused before anything is made
    out = cli("ingest", str(tmp_path), "--index", str(tmp_path / "idx"), "--profile", "quick")
    assert out.returncode == 2 and "invalid choice: 'quick'" in out.stderr


def test_a_manifest_with_an_unknown_profile_is_refused(tmp_path, encoder):
    from lateseg.pipeline import Pipeline

    with Pipeline.open(tmp_path / "idx", profile="fast") as pipe:
        assert pipe.index.manifest.profile == "fast"
    path = tmp_path / "idx" / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "profile": "turbo"}))
    with pytest.raises(IndexStoreError, match="profile: 'turbo'; one of accurate, fast"):
        Pipeline.open(tmp_path / "idx", readonly=True)


def test_the_index_records_its_profile_and_is_extended_with_it(tmp_path, encoder):
    from lateseg.encode.late import LateEncoder
    from lateseg.pipeline import Pipeline
    from lateseg.scale.engines import encode_document
    from lateseg.segment import DynamicChunker

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "terms.txt").write_text(TEXT * 6)
    fast_cfg = apply_profile(EncoderConfig(), "fast")
    with Pipeline.open(tmp_path / "fast", profile="fast") as pipe:
        assert pipe.encoder.config == fast_cfg
        pipe.ingest([docs], progress=False)
    with Pipeline.open(tmp_path / "plain") as pipe:
        assert pipe.index.manifest.profile == "accurate"
        assert pipe.encoder.config == EncoderConfig()
    (docs / "more.py").write_text(MORE)  # code: where fast differs from accurate
    with Pipeline.open(tmp_path / "fast") as pipe:  # no profile given: the index's own
        assert pipe.encoder.config == fast_cfg
        pipe.ingest([docs], progress=False)
        assert pipe.index.manifest.profile == "fast"
        doc = pipe.document(docs / "more.py")
        ids = [h.chunk_id for h in pipe.document_hits(docs / "more.py")]
        _, stored = pipe.index.store.vectors_of(ids, pipe.encoder.dim)
    # the new document's vectors are the fast settings', not the default ones
    _, fast = encode_document(LateEncoder(fast_cfg), DynamicChunker(), doc)
    _, accurate = encode_document(LateEncoder(EncoderConfig()), DynamicChunker(), doc)
    assert np.allclose(stored, fast, atol=1e-5)
    assert not np.allclose(stored, accurate, atol=1e-3)
    with pytest.raises(IndexStoreError, match=r"built with profile 'fast'.*leave out"):
        Pipeline.open(tmp_path / "fast", profile="accurate")
    Pipeline.open(tmp_path / "fast", profile="fast", readonly=True).close()


def test_index_stats_shows_the_profile(tmp_path, encoder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "terms.txt").write_text(TEXT)
    index = tmp_path / "idx"
    out = cli("ingest", str(docs), "--index", str(index), "--profile", "fast", "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(cli("index", "stats", "--index", str(index), "--json").stdout)
    assert stats["profile"] == "fast"
    assert "profile: fast" in cli("index", "stats", "--index", str(index)).stdout
    again = cli("ingest", str(docs), "--index", str(index), "--profile", "accurate")
    assert again.returncode == 1 and "built with profile 'fast'" in again.stderr


def test_ingest_names_the_fast_profile_once_on_a_cpu_without_bf16(tmp_path, encoder, monkeypatch):
    from lateseg.encode import runtime

    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(runtime, "cpu_has_bf16", lambda: False)
    monkeypatch.setattr("lateseg.encode.models.cuda_possible", lambda: False)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "terms.txt").write_text(TEXT)
    runs = [
        cli("ingest", str(docs), "--index", str(tmp_path / f"idx{i}"), "--no-progress")
        for i in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    first = [line for line in runs[0].stderr.splitlines() if "--profile fast" in line]
    assert len(first) == 1 and first[0].startswith("lateseg: info: ")
    assert "--profile fast" not in runs[1].stderr  # once, not every time
    (tmp_path / "home" / "notices" / "profile-fast").unlink()
    chosen = cli("ingest", str(docs), "--index", str(tmp_path / "f"), "--profile", "fast")
    assert chosen.returncode == 0 and "--profile fast" not in chosen.stderr
    monkeypatch.setattr(runtime, "cpu_has_bf16", lambda: True)
    bf16 = cli("ingest", str(docs), "--index", str(tmp_path / "b"), "--no-progress")
    assert bf16.returncode == 0 and "--profile fast" not in bf16.stderr
