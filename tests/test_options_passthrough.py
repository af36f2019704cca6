"""Every option of an open, an ingest and an ask reaches the layer that acts on it.

The facade (``Pipeline.open``, ``Pipeline.ingest``, ``Pipeline.ask_many``) and the CLI
each build one :class:`~lateseg.options.OpenOptions`, :class:`~lateseg.options.IngestOptions`
or :class:`~lateseg.ask.options.AskOptions` and hand it down. These tests guard the
failure that made them: an option accepted at the top and silently dropped on the way.
Each table of values below must name every field, so a new option fails here until it is
shown to pass through; a value that does not arrive fails by name.
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from types import SimpleNamespace

import pymupdf
import pytest
from conftest import DATA

import lateseg.pipeline as pipeline_module
from lateseg.ask.options import AskOptions
from lateseg.encode.config import EncoderConfig
from lateseg.errors import ConfigError, IndexStoreError
from lateseg.generate.remote.config import LLMConfig
from lateseg.ingest.folder import WalkConfig
from lateseg.options import OPEN_DEFAULTS, IngestOptions, OpenOptions
from lateseg.pipeline import Pipeline
from lateseg.segment import FixedChunker

LLM = LLMConfig(url="http://127.0.0.1:9/v1", model="m")

#: A non-default value of every open option.
OPEN_VALUES = {
    "embedder": "sentence-transformers/all-mpnet-base-v2",
    "chunker": FixedChunker(),
    "generator": "my/generator",
    "device": "cpu",
    "vectors": "flat",
    "create": False,
    "readonly": True,
    "trust_remote_code": True,
    "backend": "openvino",
    "cache_dir": "/nowhere/cache",
    "profile": "fast",
}
#: A non-default value of every ingest option.
INGEST_VALUES = {
    "progress": True,
    "password": "u",
    "ocr": "off",
    "workers": 3,
    "walk_config": WalkConfig(include_hidden=True),
    "prune": True,
    "engine": "ray",
    "address": "10.0.0.5:6379",
}
#: Keywords that give each ask option a non-default value (some need a companion).
ASK_VALUES = {
    "k": {"k": 2},
    "answer": {"answer": "copy"},
    "mode": {"mode": "hybrid"},
    "source": {"source": "*/billing/*"},
    "kind": {"kind": "code"},
    "include_toc": {"include_toc": True},
    "rerank": {"rerank": "generator"},
    "context": {"context": 900},
    "kv_budget": {"kv_budget": 128},
    "kv_method": {"kv_method": "snapkv", "kv_budget": 128},
    "prefill": {"prefill": "sparse"},
    "fallback": {"fallback": False},
    "min_confidence": {"min_confidence": 0.9},
    "llm": {"llm": LLM},
    "context_tokens": {"llm": LLM, "context_tokens": 500},
    "passages": {"passages": "chunks"},
}


def _fields(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if f.init]


class _Stop(Exception):
    """Raised by a spy once it has seen what was handed down."""


def _spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list:
    seen: list = []

    def spy(*args, **kwargs):
        seen.append((args, kwargs))
        raise _Stop

    monkeypatch.setattr(owner, name, spy)
    return seen


# -- the lists agree ----------------------------------------------------------------------


def test_the_tables_name_every_option():
    assert sorted(OPEN_VALUES) == sorted(_fields(OpenOptions))
    assert sorted(INGEST_VALUES) == sorted(_fields(IngestOptions))
    assert sorted(ASK_VALUES) == sorted(_fields(AskOptions))
    for name, value in OPEN_VALUES.items():
        assert getattr(OPEN_DEFAULTS, name) != value, name
    for name, value in INGEST_VALUES.items():
        assert getattr(IngestOptions(), name) != value, name


def test_the_facade_takes_each_option_as_a_keyword():
    """``Pipeline.open`` and ``Pipeline.ingest`` keep their keywords: exactly the
    options' fields (and ``options=`` itself; ``repair`` does nothing), same defaults."""
    for method, cls, extra in (
        (Pipeline.open, OpenOptions, {"options", "repair"}),
        (Pipeline.ingest, IngestOptions, {"options"}),
    ):
        params = {
            p.name: p
            for p in inspect.signature(method).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }
        assert set(params) - extra == set(_fields(cls)), method.__name__
        for f in dataclasses.fields(cls):
            assert params[f.name].default == f.default, (method.__name__, f.name)


# -- each option arrives -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(OPEN_VALUES))
def test_an_open_option_reaches_open_folder(name, monkeypatch, tmp_path):
    seen = _spy(monkeypatch, pipeline_module, "open_folder")
    with pytest.raises(_Stop):
        Pipeline.open(tmp_path / "idx", **{name: OPEN_VALUES[name]})
    (folder, options), _ = seen[0]
    assert folder == tmp_path / "idx"
    assert options == dataclasses.replace(OPEN_DEFAULTS, **{name: OPEN_VALUES[name]})


@pytest.mark.parametrize("name", sorted(INGEST_VALUES))
def test_an_ingest_option_reaches_ingest_paths(name, monkeypatch):
    seen = _spy(monkeypatch, pipeline_module, "ingest_paths")
    given = {name: INGEST_VALUES[name]}
    if name == "address":
        given["engine"] = "ray"
    pipe = SimpleNamespace(index="index", encoder="encoder", chunker="chunker")
    with pytest.raises(_Stop):
        Pipeline.ingest(pipe, ["docs"], **given)  # type: ignore[arg-type]
    args, _ = seen[0]
    assert args[:4] == ("index", "encoder", "chunker", ["docs"])
    assert args[4] == IngestOptions(**given)


def test_the_engine_options_reach_the_engine(monkeypatch):
    import lateseg.scale.ingest as ingest

    seen = _spy(monkeypatch, ingest, "make_engine")
    index = SimpleNamespace(store=SimpleNamespace(concurrent_writers=False, url=None))
    options = IngestOptions(engine="ray", address="10.0.0.5:6379", workers=3)
    with pytest.raises(_Stop):
        ingest.ingest_paths(index, "encoder", "chunker", ["docs"], options)  # type: ignore[arg-type]
    args, kwargs = seen[0]
    assert args == ("ray", "encoder", "chunker")
    assert kwargs == {"workers": 3, "address": "10.0.0.5:6379", "store_url": None}


@pytest.mark.parametrize("name", sorted(ASK_VALUES))
def test_an_ask_option_reaches_ask_many(name):
    seen = []
    answerer = SimpleNamespace(ask_many=lambda *a, **kw: seen.append((a, kw)) or [])
    pipe = SimpleNamespace(_answerer=answerer)
    Pipeline.ask_many(pipe, ["q"], document="d", **ASK_VALUES[name])  # type: ignore[arg-type]
    (questions, options), kwargs = seen[0]
    assert questions == ["q"] and kwargs == {"document": "d", "stream": None}
    assert options == AskOptions.of(**ASK_VALUES[name])
    assert getattr(options, name) != getattr(AskOptions(), name)


def test_ask_many_applies_or_refuses_each_option_never_ignores_it(sample_index, monkeypatch):
    """The search options select the shared context's passages; the options of one
    question's own context or writer are refused by name, before any work."""
    for name in ("context", "min_confidence", "llm", "context_tokens", "answer"):
        with pytest.raises(ConfigError, match=f"shared context: .*{name}") as caught:
            sample_index.ask_many(["notice period?"], **ASK_VALUES[name])
        assert "cannot apply" in str(caught.value)
    with pytest.raises(ConfigError, match="shared context: answer='quote' cannot apply"):
        sample_index.ask_many(["notice period?"], answer="quote")
    seen = _spy(monkeypatch, sample_index.answerer, "local_generator")
    searched = []
    search = sample_index.answerer.search
    monkeypatch.setattr(
        sample_index.answerer, "search", lambda q, o, **kw: searched.append(o) or search(q, o)
    )
    with pytest.raises(_Stop):  # the passages are found; the generator is next
        sample_index.ask_many(
            ["How is a total computed?"], k=2, mode="lexical", kind="code", kv_budget=64
        )
    assert seen and [(o.k, o.mode, o.kind) for o in searched] == [(2, "lexical", "code")]


# -- a real round trip: each option acts ----------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, encoder):
    """A small index of two text files, its folder and the encoder's precision."""
    docs = tmp_path_factory.mktemp("docs")
    (docs / "notice.txt").write_text("Either party may terminate with thirty days' notice.\n")
    (docs / "doomed.txt").write_text("This file is removed before the second ingest.\n")
    folder = tmp_path_factory.mktemp("tiny") / "index"
    with Pipeline.open(folder) as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([docs], progress=False, workers=0)
        assert len(report.added) == 2, report
    return folder, docs


#: What each open option does on reopening an existing index, seen from outside.
OPEN_EFFECTS = {
    "embedder": (IndexStoreError, "was built with embedder"),
    "chunker": (IndexStoreError, "was built with chunker"),
    "generator": lambda pipe: pipe.generator_name == "my/generator",
    "device": lambda pipe: pipe.encoder.config.device == "cpu",
    "vectors": lambda pipe: pipe.index.policy == "flat",
    "create": None,  # below: a missing folder is refused
    "readonly": lambda pipe: pipe.index.store.readonly,
    "trust_remote_code": lambda pipe: pipe.encoder.config.trust_remote_code,
    "backend": lambda pipe: pipe.encoder.config.backend == "openvino",
    "cache_dir": (IndexStoreError, r"cache_dir \(--cache-dir\) is for a postgresql"),
    "profile": (IndexStoreError, "leave out profile='fast'"),
}


@pytest.mark.parametrize("name", sorted(OPEN_EFFECTS))
def test_each_open_option_acts_on_a_real_index(name, tiny, tmp_path):
    assert sorted(OPEN_EFFECTS) == sorted(_fields(OpenOptions))
    folder, _ = tiny
    effect = OPEN_EFFECTS[name]
    given = {name: OPEN_VALUES[name]}
    if name == "create":
        with pytest.raises(IndexStoreError, match="no index at"):
            Pipeline.open(tmp_path / "missing", **given)
        assert not (tmp_path / "missing").exists()
        return
    if name != "readonly":
        given.setdefault("readonly", name != "vectors")
    if isinstance(effect, tuple):
        with pytest.raises(effect[0], match=effect[1]):
            Pipeline.open(folder, **given)
        return
    with Pipeline.open(folder, **given) as pipe:
        assert effect(pipe), name
    with Pipeline.open(folder, options=OpenOptions(**given)) as pipe:  # the same, as one
        assert effect(pipe), name


def _locked_pdf(path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The locked schedule lists forty widgets.")
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    doc.close()


def test_ingest_options_act_on_a_real_index(tiny, encoder, capsys):
    """One ingest with a non-default value of each option that acts on the files:
    the password opens a locked PDF, the walk takes a hidden file, OCR off skips an
    image, prune removes a file now gone, progress draws a bar. (``workers``,
    ``engine`` and ``address`` reach the engine: above.)"""
    folder, docs = tiny
    _locked_pdf(docs / "locked.pdf")
    (docs / ".hidden.txt").write_text("A hidden note about the renewal term.\n")
    scan = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 600, 800), False)
    scan.clear_with(255)  # a blank page, large enough to be one
    scan.save(docs / "scan.png")
    (docs / "doomed.txt").unlink()
    with Pipeline.open(folder) as pipe:
        pipe.encoder = encoder
        capsys.readouterr()
        options = {k: v for k, v in INGEST_VALUES.items() if k not in ("engine", "address")}
        report = pipe.ingest([docs], **{**options, "workers": 0})
        err = capsys.readouterr().err
    added = {Path(s).name for s in report.added}
    assert {"locked.pdf", ".hidden.txt"} <= added, report
    assert [(Path(s).name, why) for s, why in report.removed] == [("doomed.txt", "file gone")]
    assert any(s.endswith("scan.png") and "--ocr off" in why for s, why in report.skipped), report
    assert "ingest" in err  # the bar, drawn although stderr is not a terminal


# -- unknown names and both forms ------------------------------------------------------------


def test_unknown_option_names_are_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="unknown open option colour; the options are embedder"):
        OpenOptions.of(colour="red")
    with pytest.raises(ConfigError, match="unknown ingest option threads; the options are"):
        IngestOptions.of(threads=4)
    assert OpenOptions.of(device="cpu") == OpenOptions(device="cpu")
    pipe = SimpleNamespace(_answerer=SimpleNamespace(ask_many=lambda *a, **kw: []))
    with pytest.raises(ConfigError, match="unknown ask option top"):
        Pipeline.ask_many(pipe, ["q"], top=3)  # type: ignore[arg-type]
    # the facade's own keywords are Python's: a misspelt one is named
    with pytest.raises(TypeError, match="readonyl"):
        Pipeline.open(tmp_path / "idx", readonyl=True)  # type: ignore[call-arg]
    assert not (tmp_path / "idx").exists()


def test_options_and_keywords_are_not_both_given(tmp_path):
    with pytest.raises(ConfigError, match="not both"):
        Pipeline.open(tmp_path / "idx", options=OpenOptions(), device="cpu")
    pipe = SimpleNamespace(index=None, encoder=None, chunker=None)
    with pytest.raises(ConfigError, match="not both"):
        Pipeline.ingest(pipe, ["x"], options=IngestOptions(), prune=True)  # type: ignore[arg-type]
    assert not (tmp_path / "idx").exists()


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"vectors": "kd"}, "vectors='kd'; choose one of"),
        ({"profile": "quick"}, r"profile='quick' is not an ingest profile"),
    ],
)
def test_open_options_are_checked_with_the_layers_messages(given, message, tmp_path):
    with pytest.raises(ConfigError, match=message):
        OpenOptions(**given)
    with pytest.raises(ConfigError, match=message):
        Pipeline.open(tmp_path / "idx", **given)
    assert not (tmp_path / "idx").exists()


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"engine": "spark"}, "engine='spark'; choose one of local, ray"),
        ({"address": "10.0.0.1:6379"}, "address= is for engine='ray'"),
        ({"ocr": "maybe"}, "ocr='maybe'; one of"),
    ],
)
def test_ingest_options_are_checked_with_the_layers_messages(given, message):
    with pytest.raises(ConfigError, match=message):
        IngestOptions(**given)
    pipe = SimpleNamespace(index=None, encoder=None, chunker=None)
    with pytest.raises(ConfigError, match=message):
        Pipeline.ingest(pipe, [str(DATA / "contracts")], **given)  # type: ignore[arg-type]


# -- the command line builds them once --------------------------------------------------------


class _Opened:
    """What ``Pipeline.open`` gives the CLI here: records the options it was given."""

    def __init__(self, store: dict) -> None:
        self.store = store
        self.index = SimpleNamespace(manifest=SimpleNamespace(profile="fast"))

    def __enter__(self) -> _Opened:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def ingest(self, paths, *, options):
        self.store["ingest"] = options
        raise _Stop


def test_lateseg_ingest_hands_every_option_down(monkeypatch, tmp_path):
    from lateseg import cli

    got: dict = {}

    def opened(folder, *, options):
        got["folder"], got["open"] = folder, options
        return _Opened(got)

    monkeypatch.setattr(Pipeline, "open", staticmethod(opened))
    monkeypatch.setenv("PDF_PASSWORD", "u")
    args = cli.parse(
        [
            "ingest", str(tmp_path / "docs"), "--index", str(tmp_path / "idx"),
            "--embedder", "my/embedder", "--chunker", "fixed", "--vectors", "flat",
            "--profile", "fast", "--device", "cpu", "--backend", "openvino",
            "--trust-remote-code", "--cache-dir", str(tmp_path / "cache"),
            "--no-progress", "--password-env", "PDF_PASSWORD", "--ocr", "off",
            "--workers", "3", "--include-hidden", "--prune", "--engine", "ray",
            "--address", "10.0.0.5:6379",
        ]
    )  # fmt: skip
    with pytest.raises(_Stop):
        cli.RUNS["ingest"](args)
    assert got["open"] == OpenOptions(
        embedder="my/embedder", chunker=FixedChunker(), device="cpu", vectors="flat",
        trust_remote_code=True, backend="openvino", cache_dir=str(tmp_path / "cache"),
        profile="fast",
    )  # fmt: skip
    ingest = got["ingest"]
    assert (ingest.progress, ingest.password, ingest.ocr, ingest.workers) == (False, "u", "off", 3)
    assert (ingest.prune, ingest.engine, ingest.address) == (True, "ray", "10.0.0.5:6379")
    assert ingest.walk_config.include_hidden


@pytest.mark.parametrize("command", ["search", "ask"])
def test_lateseg_search_and_ask_open_as_the_command_line_says(command, monkeypatch, tmp_path):
    from lateseg import cli

    got = {}

    def opened(folder, *, options):
        got["open"] = options
        raise _Stop

    monkeypatch.setattr(Pipeline, "open", staticmethod(opened))
    argv = [
        command, "q", "--index", str(tmp_path), "--device", "cpu", "--backend", "onnx",
        "--trust-remote-code", "--cache-dir", "c",
    ]  # fmt: skip
    if command == "ask":
        argv += ["--generator", "my/generator"]
    with pytest.raises(_Stop):
        cli.RUNS[command](cli.parse(argv))
    assert got["open"] == OpenOptions(
        device="cpu", backend="onnx", trust_remote_code=True, cache_dir="c", readonly=True,
        generator="my/generator" if command == "ask" else None,
    )  # fmt: skip


def test_encoder_config_embedder_passes_through(monkeypatch, tmp_path):
    seen = _spy(monkeypatch, pipeline_module, "open_folder")
    config = EncoderConfig(device="cpu")
    with pytest.raises(_Stop):
        Pipeline.open(tmp_path, embedder=config)
    assert seen[0][0][1].embedder is config
