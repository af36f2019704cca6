"""The model layer: sentence-transformers' own pooling and prompts, and the CPU backends.

The models here are small random-initialised BERTs saved as sentence-transformers folders
in the test (the MiniLM tokenizer, no download): one CLS-pooled with query/document
prompts, one with a Dense head. Their vectors mean nothing; what is checked is that
lateseg computes exactly what sentence-transformers computes for them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from lateseg.encode.config import EncoderConfig
from lateseg.encode.late import LateEncoder
from lateseg.errors import ConfigError, ModelError

QUERIES = [
    "Within how many days must the Client give notice of termination?",
    "governing law",
    "Which party bears the cost of an audit when the discrepancy exceeds five percent?",
]
PROMPTS = {"query": "query: ", "document": "passage: "}


def _save_st_model(folder: Path, *, pooling: str, dense: bool = False) -> Path:
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense, Normalize, Pooling
    from transformers import AutoTokenizer, BertConfig, BertModel

    from lateseg.encode.models import resolve_embedder

    torch.manual_seed(0)
    raw = folder.parent / f"{folder.name}-raw"
    tok = AutoTokenizer.from_pretrained(resolve_embedder(None))
    config = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=256,
    )
    BertModel(config).save_pretrained(raw)
    tok.save_pretrained(raw)
    from sentence_transformers.base.modules import Transformer

    first = Transformer(str(raw), max_seq_length=128)
    modules = [first, Pooling(64, pooling_mode=pooling)]
    if dense:
        modules.append(Dense(64, 32))
    modules.append(Normalize())
    SentenceTransformer(modules=modules, prompts=PROMPTS).save(str(folder))
    return folder


@pytest.fixture(scope="module")
def cls_model(tmp_path_factory) -> Path:
    return _save_st_model(tmp_path_factory.mktemp("st") / "cls-model", pooling="cls")


def test_queries_and_texts_equal_sentence_transformers_own_cls_pooling(cls_model):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(cls_model), device="cpu")
    assert st[1].get_config_dict()["pooling_mode"] == "cls"
    enc = LateEncoder(EncoderConfig(model=str(cls_model), backend="openvino"))  # exact fp32
    got = enc.embed_queries(QUERIES)
    want = st.encode(QUERIES, prompt_name="query", normalize_embeddings=True)
    assert np.allclose(got, want, atol=1e-5)
    passages = ["The Client may terminate on sixty (60) days' written notice.", "x " * 300]
    got_docs = enc.embed_texts(passages)
    want_docs = st.encode(passages, prompt_name="document", normalize_embeddings=True)
    assert np.allclose(got_docs, want_docs, atol=1e-5)  # the long one truncated as ST does
    # Mean pooling (what every model got before) gives other vectors: the check has teeth.
    mean = st.encode(QUERIES, prompt_name="query", output_value="token_embeddings")
    pooled = np.stack([np.asarray(m).mean(axis=0) for m in mean])
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    assert not np.allclose(got, pooled, atol=1e-3)


def test_mean_pooled_models_average_the_texts_tokens_as_late_vectors_do(fp32_encoder):
    """MiniLM pools by mean: queries average the same tokens a late vector averages (the
    text's, without [CLS]/[SEP], which sentence-transformers includes)."""
    from sentence_transformers import SentenceTransformer

    from lateseg.encode.models import resolve_embedder

    st = SentenceTransformer(resolve_embedder(None), device="cpu")
    tokens = st.encode(QUERIES, output_value="token_embeddings")
    inner = np.stack([np.asarray(t)[1:-1].mean(axis=0) for t in tokens])
    inner /= np.linalg.norm(inner, axis=1, keepdims=True)
    got = fp32_encoder.embed_queries(QUERIES)
    assert np.allclose(got, inner, atol=1e-5)
    with_specials = st.encode(QUERIES, normalize_embeddings=True)
    assert not np.allclose(got, with_specials, atol=1e-3)


def test_explicit_prefix_replaces_the_models_prompt(cls_model):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(cls_model), device="cpu")
    enc = LateEncoder(EncoderConfig(model=str(cls_model), backend="openvino", query_prefix="q: "))
    want = st.encode(QUERIES, prompt="q: ", normalize_embeddings=True)
    assert np.allclose(enc.embed_queries(QUERIES), want, atol=1e-5)


def test_late_vectors_still_mean_pool_the_chunks_tokens(cls_model):
    enc = LateEncoder(EncoderConfig(model=str(cls_model), device="cpu", late_weight=1.0))
    text = "First clause. The Supplier shall deliver within thirty days.\n\nSecond clause."
    tokens = enc.encode_document(text)
    start = text.index("The Supplier")
    end = text.index("days.") + 5
    i, j = tokens.token_range(start, end)
    mean = tokens.vectors[i:j].mean(axis=0)
    vec = enc.chunk_vectors(text, tokens, [(start, end)])[0]
    assert np.allclose(vec, mean / np.linalg.norm(mean), atol=1e-6)


def test_a_model_with_a_dense_head_is_refused(tmp_path):
    folder = _save_st_model(tmp_path / "dense-model", pooling="mean", dense=True)
    with pytest.raises(ModelError, match="Dense"):
        LateEncoder(EncoderConfig(model=str(folder), device="cpu")).embed_queries(["x"])


@pytest.mark.parametrize(
    "backend", ["openvino", "openvino-bf16", "onnx", "onnx-int8", "openvino-int8"]
)
def test_cpu_backends_give_the_torch_models_vectors(cls_model, tmp_path, monkeypatch, backend):
    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("lateseg.encode.shared._LOADED", {})  # export afresh into this home
    torch_enc = LateEncoder(EncoderConfig(model=str(cls_model), backend="torch", device="cpu"))
    enc = LateEncoder(EncoderConfig(model=str(cls_model), backend=backend))
    text = "Section 1. Definitions.\n\n" + "The Licensee shall pay the fees. " * 60
    want, got = torch_enc.encode_document(text), enc.encode_document(text)
    assert np.array_equal(want.offsets, got.offsets)
    cos = np.sum(want.vectors * got.vectors, 1) / (
        np.linalg.norm(want.vectors, axis=1) * np.linalg.norm(got.vectors, axis=1)
    )
    queries = torch_enc.embed_queries(QUERIES) * enc.embed_queries(QUERIES)
    if backend in ("onnx-int8", "openvino-int8", "openvino-bf16"):  # close, not equal
        assert cos.min() > 0.9 and queries.sum(axis=1).min() > 0.95
    else:  # fp32: the same vectors
        assert np.allclose(want.vectors, got.vectors, atol=1e-4)
        assert queries.sum(axis=1).min() > 0.99999
    exports = list((tmp_path / "home" / "onnx").glob("*/*.onnx"))
    assert exports, "the export is cached under the lateseg home"


def test_backend_choice_is_checked():
    with pytest.raises(ConfigError, match="onnx-int8"):
        EncoderConfig(backend="tensorrt")
    with pytest.raises(ConfigError, match="CPU"):
        EncoderConfig(backend="onnx", device="cuda")


@pytest.mark.parametrize(
    ("backend", "missing", "hint"),
    [
        ("onnx", "onnxruntime", "pip install onnxruntime"),
        ("openvino", "openvino", "pip install openvino"),
    ],
)
def test_a_backend_that_cannot_load_says_what_to_install(
    cls_model, tmp_path, monkeypatch, backend, missing, hint
):
    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed
    monkeypatch.setattr("lateseg.encode.shared._LOADED", {})  # not the one loaded above
    enc = LateEncoder(EncoderConfig(model=str(cls_model), backend=backend))
    with pytest.raises(ModelError, match=hint):
        enc.embed_queries(["x"])


def test_the_cpu_default_is_openvino_bf16_where_the_cpu_has_it_else_exact_fp32(
    encoder, fp32_encoder
):
    """On a CPU the default backend is OpenVINO: bf16 where the CPU computes in bf16
    (its vectors within 1% of fp32), else fp32; the explicit ``openvino`` is the torch
    model's vectors anywhere."""
    from lateseg.encode.backends import cpu_has_bf16

    default = encoder._load().backend
    assert default == ("openvino-bf16" if cpu_has_bf16() else "openvino")
    text = (Path("/usr/share/common-licenses") / "Apache-2.0").read_text()[:6000]
    a, b = encoder.encode_document(text).vectors, fp32_encoder.encode_document(text).vectors
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert cos.min() > 0.99, cos.min()
    if default == "openvino":
        assert np.allclose(a, b, atol=1e-6)


def test_openvino_fp32_is_the_torch_models_vectors(fp32_encoder):
    encoder = fp32_encoder
    torch_enc = LateEncoder(EncoderConfig(backend="torch", device="cpu"))
    text = (Path("/usr/share/common-licenses") / "Apache-2.0").read_text()[:6000]
    a, b = encoder.encode_document(text), torch_enc.encode_document(text)
    assert np.allclose(a.vectors, b.vectors, atol=1e-4)
    assert np.allclose(encoder.embed_queries(QUERIES), torch_enc.embed_queries(QUERIES), atol=1e-5)


def test_the_automatic_backend_falls_back_to_torch_when_a_model_cannot_be_exported(
    cls_model, tmp_path, monkeypatch, caplog
):
    """A model the ONNX exporter cannot take still works by default (on torch); asking
    for an exported backend by name gives the error."""

    def refuse(net, path):
        raise ModelError("cannot export the embedder to ONNX: unsupported operator")

    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("lateseg.encode.backends._export_onnx", refuse)
    monkeypatch.setattr("lateseg.encode.shared._LOADED", {})
    enc = LateEncoder(EncoderConfig(model=str(cls_model), device="cpu"))
    assert enc.embed_queries(["x"]).shape == (1, 64)
    assert enc._load().backend == "torch"
    assert "runs on torch instead" in caplog.text
    with pytest.raises(ModelError, match="unsupported operator"):
        LateEncoder(EncoderConfig(model=str(cls_model), backend="openvino")).embed_queries(["x"])


# -- the query kit: queries without torch (lateseg.encode.quick) -------------------------

TRICKY = [
    *QUERIES,
    "  padded with spaces  ",
    "Ünïcödé — “quotes”, ½ and an emoji 😀",
    "What is the cap on liability? " * 60,  # past the model's length: truncated alike
    "def parse_header(raw: bytes) -> dict[str, str]:",
]


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A lateseg home of the test's own, nothing loaded in this process yet."""
    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("lateseg.encode.shared._LOADED", {})
    monkeypatch.setattr("lateseg.encode.shared._QUICK", {})
    return tmp_path / "home"


def _kit_after_full_load(model: Path, **config) -> tuple[LateEncoder, LateEncoder]:
    """A fully loaded encoder (which leaves the kit) and a cold one (which uses it)."""
    full = LateEncoder(EncoderConfig(model=str(model), backend="openvino", **config))
    full._load()
    cold = LateEncoder(EncoderConfig(model=str(model), backend="openvino", **config))
    return full, cold


@pytest.mark.parametrize("prefix", ["", "q: "])
def test_a_kit_gives_the_full_pipelines_vectors_cls_pooled_with_prompts(cls_model, home, prefix):
    full, cold = _kit_after_full_load(cls_model, query_prefix=prefix)
    assert cold.quick() is not None and cold._model is None
    assert np.allclose(cold.embed_queries(TRICKY), full.embed_queries(TRICKY), atol=1e-5)
    assert np.allclose(cold.embed_texts(TRICKY), full.embed_texts(TRICKY), atol=1e-5)
    assert cold._model is None, "the cold encoder never loaded the model"
    # the prompts matter here ("query: " against "passage: "), by far more than the
    # tolerance (the random model's vectors differ little): the check has teeth
    apart = np.abs(cold.embed_queries(TRICKY[:1]) - cold.embed_texts(TRICKY[:1])).max()
    assert apart > 1e-4


@pytest.mark.skipif(
    __import__("lateseg.encode.models").encode.models.cuda_possible(),
    reason="with a GPU driver the default path is torch's",
)
def test_the_default_model_embeds_queries_from_its_kit_exactly(encoder, monkeypatch):
    monkeypatch.setattr("lateseg.encode.shared._QUICK", {})
    cold = LateEncoder()
    assert cold.quick() is not None, "the session's encoder left no kit"
    assert np.allclose(cold.embed_queries(TRICKY), encoder.embed_queries(TRICKY), atol=1e-5)
    assert np.allclose(cold.embed_texts(TRICKY), encoder.embed_texts(TRICKY), atol=1e-5)
    assert cold._model is None


def test_a_changed_model_folder_is_a_new_key(cls_model, home, tmp_path):
    import shutil

    from lateseg.encode.quick import load_kit

    model = tmp_path / "copy"
    shutil.copytree(cls_model, model)
    _kit_after_full_load(model)
    assert load_kit(str(model)) is not None
    weights = next(model.rglob("*.safetensors"))
    weights.write_bytes(weights.read_bytes())  # rewritten: a new modification time
    assert load_kit(str(model)) is None
    again = LateEncoder(EncoderConfig(model=str(model), backend="openvino"))
    import lateseg.encode.shared as late

    late._QUICK.clear()
    late._LOADED.clear()  # as a new process would
    assert again.quick() is None  # the full path runs, and leaves a kit for the new files
    again.embed_queries(["x"])
    assert again._model is not None and load_kit(str(model)) is not None


def test_kits_of_models_changed_or_gone_are_pruned(cls_model, home, tmp_path):
    """The kit cache holds the models in use: a new kit removes those of rewritten and
    deleted model folders (and unreadable ones), and keeps the others'."""
    import shutil

    import lateseg.encode.shared as late
    from lateseg.encode.quick import fingerprint, kits_home, load_kit

    kept, changed, gone = (tmp_path / n for n in ("kept", "changed", "gone"))
    for folder in (kept, changed, gone):
        shutil.copytree(cls_model, folder)
        _kit_after_full_load(folder)
        late._LOADED.clear()
    old_key = fingerprint(changed)
    weights = next(changed.rglob("*.safetensors"))
    weights.write_bytes(weights.read_bytes())  # rewritten: a new modification time
    shutil.rmtree(gone)
    (kits_home() / "junk").mkdir()
    assert len(list(kits_home().iterdir())) == 4
    _kit_after_full_load(changed)  # the new kit prunes
    assert sorted(p.name for p in kits_home().iterdir()) == sorted(
        [fingerprint(kept), fingerprint(changed)]
    )
    assert old_key != fingerprint(changed)
    assert load_kit(str(kept)) is not None and load_kit(str(changed)) is not None


@pytest.mark.parametrize(
    "tamper",
    [
        {"graphs": {"model.onnx": "../../../../etc/passwd"}},
        {"graphs": {"model.onnx": "/etc/passwd"}},
        {"pooling": "max"},
        {"max_length": 10**12},
        {"special_ids": "all"},
        {"version": 99},
        "not json",
    ],
)
def test_a_tampered_kit_is_ignored_and_the_full_path_answers(cls_model, home, tamper):
    import json

    from lateseg.encode.quick import kits_home

    full, cold = _kit_after_full_load(cls_model)
    want = full.embed_queries(QUERIES)
    (kit,) = kits_home().glob("*/kit.json")
    if isinstance(tamper, dict):
        kit.write_text(json.dumps({**json.loads(kit.read_text()), **tamper}))
    else:
        kit.write_text(tamper)
    import lateseg.encode.shared as late

    late._QUICK.clear()
    assert cold.quick() is None
    assert np.allclose(cold.embed_queries(QUERIES), want, atol=1e-5)


def test_no_kit_for_a_pooling_it_cannot_reproduce(tmp_path, home):
    from lateseg.encode.quick import kits_home

    model = _save_st_model(tmp_path / "max-model", pooling="max")
    _, cold = _kit_after_full_load(model)
    assert not list(kits_home().glob("*/kit.json"))
    assert cold.quick() is None


def test_a_cold_search_imports_neither_torch_nor_sentence_transformers(sample_index, encoder):
    import subprocess

    code = (
        "import sys; from lateseg.cli import main; "
        f"rc = main(['search', 'notice of termination', '--index', {str(sample_index.folder)!r}]); "
        "print(rc, 'torch' in sys.modules, 'sentence_transformers' in sys.modules, "
        "'transformers' in sys.modules, file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "msa.pdf" in out.stdout
    assert out.stderr.split()[-4:] == ["0", "False", "False", "False"], out.stderr


def test_an_int8_index_is_searched_in_int8_and_a_float_one_never(cls_model, tmp_path, monkeypatch):
    """The manifest keeps the vectors' precision class: a run whose backend makes the other
    class (queries, new documents) is refused by name, reading or writing."""
    from lateseg.errors import IndexStoreError
    from lateseg.index import read_manifest
    from lateseg.pipeline import Pipeline

    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "terms.txt").write_text("The Licensee shall pay the fees within thirty days. " * 20)
    model = str(cls_model)
    int8, float_ = tmp_path / "int8", tmp_path / "float"
    with Pipeline.open(int8, embedder=EncoderConfig(model=model, backend="onnx-int8")) as pipe:
        pipe.ingest([docs], progress=False)
    with Pipeline.open(float_, embedder=EncoderConfig(model=model, backend="openvino")) as pipe:
        pipe.ingest([docs], progress=False)
    assert read_manifest(int8).precision == "int8"
    assert read_manifest(float_).precision == "fp32"
    refused = [(int8, None), (int8, "openvino"), (int8, "torch"), (float_, "onnx-int8")]
    for folder, backend in refused:
        with pytest.raises(IndexStoreError, match="onnx-int8"):
            Pipeline.open(folder, backend=backend, readonly=True)
    with Pipeline.open(int8, backend="onnx-int8", readonly=True) as pipe:
        assert pipe.search("when are the fees due?", k=1)
    for backend in (None, "torch", "onnx"):  # the float backends share the float index
        with Pipeline.open(float_, backend=backend, readonly=True) as pipe:
            assert pipe.search("when are the fees due?", k=1)
    manifest = json.loads((float_ / "manifest.json").read_text())
    (float_ / "manifest.json").write_text(json.dumps({**manifest, "precision": "int4"}))
    with pytest.raises(IndexStoreError, match="precision: 'int4'"):
        Pipeline.open(float_, readonly=True)


def test_an_index_is_searched_in_the_precision_it_was_built_in(cls_model, tmp_path, monkeypatch):
    """The manifest records fp32 or bf16. A run that leaves the backend to lateseg embeds
    an fp32 index at fp32 even where the CPU default is bf16: queries then equal exact
    fp32 queries. A bf16 index keeps the default, and an older ``float`` index too."""
    from lateseg.encode.backends import cpu_has_bf16
    from lateseg.index import read_manifest
    from lateseg.pipeline import Pipeline

    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "terms.txt").write_text("The Licensee shall pay the fees within thirty days. " * 20)
    model = str(cls_model)
    built = {}
    for backend in ("openvino", "openvino-bf16"):
        built[backend] = folder = tmp_path / backend
        with Pipeline.open(folder, embedder=EncoderConfig(model=model, backend=backend)) as pipe:
            pipe.ingest([docs], progress=False)
    bf16 = cpu_has_bf16()
    assert read_manifest(built["openvino"]).precision == "fp32"
    assert read_manifest(built["openvino-bf16"]).precision == ("bf16" if bf16 else "fp32")
    exact = LateEncoder(EncoderConfig(model=model, backend="openvino")).embed_queries(QUERIES)
    default = LateEncoder(EncoderConfig(model=model)).embed_queries(QUERIES)
    assert bf16 == (not np.allclose(default, exact, atol=1e-6))  # bf16 moves vectors here

    with Pipeline.open(built["openvino"], readonly=True) as pipe:  # the backend left open
        assert np.allclose(pipe.encoder.embed_queries(QUERIES), exact, atol=1e-6)
        assert pipe.search("when are the fees due?", k=1)
        assert pipe.index.stats()["vector_precision"] == "fp32"
    with Pipeline.open(built["openvino-bf16"], readonly=True) as pipe:
        assert np.allclose(pipe.encoder.embed_queries(QUERIES), default, atol=1e-6)
    # a backend the caller names is kept: the float formats may be read across
    with Pipeline.open(built["openvino"], backend="openvino-bf16", readonly=True) as pipe:
        assert np.allclose(pipe.encoder.embed_queries(QUERIES), default, atol=1e-6)
    # an index from before the formats were told apart: the run's default, as before
    manifest = json.loads((built["openvino"] / "manifest.json").read_text())
    (built["openvino"] / "manifest.json").write_text(json.dumps({**manifest, "precision": "float"}))
    with Pipeline.open(built["openvino"], readonly=True) as pipe:
        assert np.allclose(pipe.encoder.embed_queries(QUERIES), default, atol=1e-6)


@pytest.mark.slow
def test_float_backends_rank_an_index_alike(tmp_path, fp32_encoder):
    """An index made on OpenVINO fp32 is ranked the same when its queries are embedded on
    torch: the float class is one class (bf16 keeps the top hit: speed_levers.md)."""
    from lateseg.pipeline import Pipeline

    licenses = Path("/usr/share/common-licenses")
    if not (licenses / "Apache-2.0").is_file():
        pytest.skip("/usr/share/common-licenses is missing")
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("Apache-2.0", "MPL-2.0"):
        (docs / f"{name}.txt").write_text((licenses / name).read_text()[:20000])
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = fp32_encoder
        pipe.ingest([docs], progress=False)
    with Pipeline.open(tmp_path / "idx", backend="torch", readonly=True) as pipe:
        on_torch = [pipe.search(q, k=10) for q in QUERIES]
    with Pipeline.open(tmp_path / "idx", readonly=True) as pipe:
        pipe.encoder = fp32_encoder
        on_default = [pipe.search(q, k=10) for q in QUERIES]
    for a, b in zip(on_torch, on_default, strict=True):
        assert [h.chunk_id for h in a] == [h.chunk_id for h in b]
        assert np.allclose([h.score for h in a], [h.score for h in b], atol=1e-5)
