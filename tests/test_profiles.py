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
from lateseg.encode.profiles import PROFILES, apply_profile, check_profile, with_profile_windows
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


@pytest.mark.parametrize(
    ("backend", "bf16", "windows"),
    [
        ("openvino", True, "onnx-int8"),
        ("onnx", True, "onnx-int8"),
        ("openvino-bf16", True, None),
        ("openvino-bf16", False, "onnx-int8"),  # a CPU without bf16 runs it at fp32
        ("onnx-int8", True, None),
        ("onnx-int8", False, None),
    ],
)
def test_fast_reads_windows_in_int8_only_where_the_run_reads_fp32_on_the_cpu(
    backend, bf16, windows, monkeypatch
):
    """bf16 reads windows faster than int8 (profile_fast.md); int8 runs need nothing; the
    caller's own window backend is kept; accurate names none. Whether the CPU has bf16
    is set here, so the answer does not depend on the machine the test runs on."""
    import lateseg.encode.backends as backends

    monkeypatch.setattr(backends, "cpu_has_bf16", lambda: bf16)
    fast = with_profile_windows(apply_profile(EncoderConfig(backend=backend), "fast"), "fast")
    assert fast.window_backend == windows and fast.backend == backend
    accurate = apply_profile(EncoderConfig(backend=backend), "accurate")
    assert with_profile_windows(accurate, "accurate").window_backend is None
    own = EncoderConfig(backend=backend, window_backend="openvino")
    assert with_profile_windows(own, "fast").window_backend == "openvino"
    gpu = EncoderConfig(backend="torch", device="cuda")
    assert with_profile_windows(gpu, "fast").window_backend is None
    # windows on the CPU whatever the device of the rest (a Ray actor moved to a GPU)
    assert EncoderConfig(device="cuda", window_backend="onnx-int8").device == "cuda"
    with pytest.raises(ConfigError, match="window"):
        EncoderConfig(window_backend="tensorrt")


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
    # as this machine's CPU runs it (int8 windows where the default reads at fp32)
    fast_cfg = with_profile_windows(apply_profile(EncoderConfig(), "fast"), "fast")
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


def test_a_fast_index_at_fp32_reads_its_windows_in_int8_and_the_rest_at_fp32(tmp_path, encoder):
    """Late windows by the int8 graph, the chunks' own texts and the queries by the fp32
    one (the index's precision): the stored vectors are those mixes, not fp32 windows',
    and the index keeps reading them so when reopened with the run's default backend."""
    from lateseg.encode.late import LateEncoder
    from lateseg.pipeline import Pipeline
    from lateseg.scale.engines import encode_document
    from lateseg.segment import DynamicChunker

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "terms.txt").write_text(TEXT * 6)
    with Pipeline.open(tmp_path / "idx", profile="fast", backend="openvino") as pipe:
        assert pipe.encoder.window_embedder.backend == "onnx-int8"
        assert pipe.encoder.embedder.backend == "openvino"
        assert pipe.index.manifest.precision == "fp32"
        pipe.ingest([docs], progress=False)
        doc = pipe.document(docs / "terms.txt")
        ids = [h.chunk_id for h in pipe.document_hits(docs / "terms.txt")]
        _, stored = pipe.index.store.vectors_of(ids, pipe.encoder.dim)
        queries = pipe.encoder.embed_queries(["When is an invoice due?"])
    cfg = apply_profile(EncoderConfig(backend="openvino"), "fast")
    fp32 = LateEncoder(cfg)
    _, mixed = encode_document(
        LateEncoder(with_profile_windows(cfg, "fast")), DynamicChunker(), doc
    )
    _, plain = encode_document(fp32, DynamicChunker(), doc)
    assert np.allclose(stored, mixed, atol=1e-5)
    assert not np.allclose(stored, plain, atol=1e-3)  # the windows were not read at fp32
    assert np.allclose(queries, fp32.embed_queries(["When is an invoice due?"]), atol=1e-5)
    with Pipeline.open(tmp_path / "idx", readonly=True) as pipe:  # the run's default backend
        assert pipe.encoder.embedder.backend == "openvino"  # an fp32 index stays fp32
        assert pipe.encoder.window_embedder.backend == "onnx-int8"


def test_int8_windows_give_a_document_what_it_gets_alone(encoder):
    """An int8 graph scales a batch's activations together: each document's windows are
    batched apart, so what else is encoded with it changes nothing (batched together, a
    licence's token vectors moved to cosine 0.974 beside a code file)."""
    from lateseg.encode.late import LateEncoder

    enc = LateEncoder(EncoderConfig(backend="openvino", window_backend="onnx-int8"))
    terms = TEXT * 8
    code = 'def f(x):\n    return {"zz": x ** 9999}\n' * 40
    alone = enc.encode_documents([(terms, False)])[0].vectors
    # read as prose: windows of one length, so the old packing put them in one batch
    beside = LateEncoder(enc.config)  # a new encoder: none of the texts met before
    beside = beside.encode_documents([(code, False), (terms, False), (MORE, True)])[1].vectors
    assert np.array_equal(alone, beside)


def test_bf16_asked_of_a_cpu_without_it_reads_fp32_so_its_windows_are_int8(monkeypatch):
    monkeypatch.setattr("lateseg.encode.backends.cpu_has_bf16", lambda: False)
    config = apply_profile(EncoderConfig(backend="openvino-bf16"), "fast")
    assert with_profile_windows(config, "fast").window_backend == "onnx-int8"
    monkeypatch.setattr("lateseg.encode.backends.cpu_has_bf16", lambda: True)
    assert with_profile_windows(config, "fast").window_backend is None


def test_an_index_reads_its_windows_as_its_manifest_records_on_any_cpu(tmp_path, encoder):
    """A fast index made where windows were read at fp32 or bf16 never gets int8 windows
    later, and one made with int8 windows keeps them under another backend: an index
    never mixes the two. The manifest's field is validated."""
    from lateseg.index import read_manifest
    from lateseg.pipeline import Pipeline

    with Pipeline.open(tmp_path / "bf16", profile="fast", backend="openvino-bf16") as pipe:
        assert pipe.encoder.config.window_backend is None or not runtime_has_bf16()
    made = read_manifest(tmp_path / "bf16")
    with Pipeline.open(tmp_path / "int8", profile="fast", backend="openvino") as pipe:
        assert pipe.encoder.config.window_backend == "onnx-int8"
    assert read_manifest(tmp_path / "int8").windows == "onnx-int8"
    shown = cli("index", "stats", "--index", str(tmp_path / "int8"), "--json")
    assert json.loads(shown.stdout)["windows"] == "onnx-int8"
    assert json.loads((tmp_path / "int8" / "manifest.json").read_text())["windows"] == "onnx-int8"
    if made.windows is None:  # made with bf16 windows: read at fp32 now, still no int8
        with Pipeline.open(tmp_path / "bf16", backend="openvino") as pipe:
            assert pipe.encoder.config.window_backend is None
    with Pipeline.open(tmp_path / "int8", backend="onnx") as pipe:  # another fp32 runtime
        assert pipe.encoder.config.window_backend == "onnx-int8"
    path = tmp_path / "int8" / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "windows": "tensorrt"}))
    with pytest.raises(IndexStoreError, match="windows: 'tensorrt'; one of onnx-int8"):
        Pipeline.open(tmp_path / "int8", readonly=True)


def runtime_has_bf16() -> bool:
    from lateseg.encode.runtime import cpu_has_bf16

    return cpu_has_bf16()


def test_windows_that_cannot_load_are_read_by_the_main_model(encoder, monkeypatch, caplog):
    from lateseg.encode import late
    from lateseg.errors import ModelError

    real = late.shared_embedder

    def refusing(config):
        if config.backend == "onnx-int8":
            raise ModelError("backend='onnx-int8' needs the package 'onnxruntime'")
        return real(config)

    monkeypatch.setattr(late, "shared_embedder", refusing)
    enc = late.LateEncoder(EncoderConfig(backend="openvino", window_backend="onnx-int8"))
    with caplog.at_level("WARNING"):
        tokens = enc.encode_document(TEXT)
    assert enc.window_embedder is enc.embedder
    assert "onnxruntime" in caplog.text
    plain = late.LateEncoder(EncoderConfig(backend="openvino")).encode_document(TEXT)
    assert np.array_equal(tokens.vectors, plain.vectors)
