"""The chunkers' conformance test: every member of :data:`lateseg.segment.CHUNKERS` runs
through the same matrix (the way kvpress runs every press through one), so a new chunker
gets the family's whole test by registering.

A chunker must describe itself (``to_dict``) so that an index's manifest rebuilds an equal
chunker, refuse a setting it does not have, and cut a real document into chunks that
tile it (``check_chunks``), the same ones every time."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import ClassVar

import pytest
from conftest import ROOT, license_file

from lateseg import config as settings
from lateseg.cli import parse
from lateseg.errors import ConfigError
from lateseg.segment import CHUNKERS, chunker_from_dict
from lateseg.segment.spans import chunks_from_boundaries
from lateseg.types import Document, check_chunks


@pytest.fixture(scope="module")
def documents(encoder):
    """Real documents and their token embeddings: a license (prose, several thousand
    tokens) and a source file (code: the dynamic chunker's other configuration)."""
    prose = license_file("Apache-2.0").read_text("utf-8")
    code = (ROOT / "lateseg" / "registry.py").read_text("utf-8")
    docs = [Document("/t/apache.txt", prose, "text"), Document("/t/registry.py", code, "code")]
    out = [(doc, encoder.encode_document(doc.text, code=doc.kind == "code")) for doc in docs]
    return out, encoder.encode_document("")


# Settings other than the defaults, for the members whose settings this test knows (a new
# member is checked with its defaults).
OTHER_SETTINGS = {
    "dynamic": {"min_tokens": 8, "target_tokens": 24, "max_tokens": 48, "semantic_weight": 0.5},
    "fixed": {"size": 40},
}


def _made(name: str) -> list:
    """The member with its defaults, and with other settings where known."""
    other = OTHER_SETTINGS.get(name)
    return [CHUNKERS.make(name)] + ([CHUNKERS.from_dict({"type": name, **other})] if other else [])


def _round_trips(name: str) -> None:
    for chunker in _made(name):
        described = chunker.to_dict()
        assert described["type"] == name
        # through JSON, as a manifest stores it
        again = chunker_from_dict(json.loads(json.dumps(described)))
        assert type(again) is type(chunker) and again.to_dict() == described
        assert CHUNKERS.from_dict(described).to_dict() == described
    for key, value in OTHER_SETTINGS.get(name, {}).items():
        assert _made(name)[1].to_dict()[key] == value  # the settings are kept


def _tiles(name: str, documents) -> None:
    real, nothing = documents
    for (doc, tokens), chunker in itertools.product(real, _made(name)):
        chunks = chunker.chunk(doc, tokens)
        check_chunks(doc, chunks)
        assert len(chunks) > 1, (name, doc.source)  # a real document is cut somewhere
        assert all(c.doc_id == doc.id and c.end > c.start for c in chunks)
        # deterministic: a chunker rebuilt from its description cuts the same spans
        again = chunker_from_dict(chunker.to_dict()).chunk(doc, tokens)
        assert [(c.start, c.end) for c in again] == [(c.start, c.end) for c in chunks]
    empty = Document("/t/empty.txt", "", "text")
    assert len(nothing) == 0 and CHUNKERS.make(name).chunk(empty, nothing) == []


def _refuses_unknown_settings(name: str) -> None:
    with pytest.raises(ConfigError, match="bogus"):
        CHUNKERS.from_dict({"type": name, "bogus": 1})
    with pytest.raises(ConfigError, match="bogus"):
        chunker_from_dict({"type": name, "bogus": 1})


@pytest.mark.parametrize("name", list(CHUNKERS))
def test_a_chunker_rebuilds_from_its_description(name):
    _round_trips(name)


@pytest.mark.parametrize("name", list(CHUNKERS))
def test_a_chunker_tiles_a_real_document_the_same_way_every_time(name, documents):
    _tiles(name, documents)


@pytest.mark.parametrize("name", list(CHUNKERS))
def test_a_chunker_refuses_a_setting_it_does_not_have(name):
    _refuses_unknown_settings(name)


def test_the_family_is_the_registry_and_the_cli_lists_it():
    assert list(CHUNKERS) == ["dynamic", "fixed"]  # dynamic first: the default
    with pytest.raises(ConfigError, match="unknown chunker type 'magic'; expected one of dynamic"):
        chunker_from_dict({"type": "magic"})
    with pytest.raises(ConfigError, match=r"\[\] is not an object"):
        chunker_from_dict([])


def _cli_chunker(name: str) -> str:
    args = parse(["ingest", "x", "--index", "idx", "--chunker", name], settings.Config({}, {}, ()))
    return str(args.chunker)


def test_a_new_chunker_is_one_class_and_one_line(documents, capsys):
    """A toy chunker (two halves) registered in a few lines is rebuilt from a manifest's
    description, offered by the CLI, and passes the family's whole matrix."""

    @CHUNKERS.register
    @dataclass(frozen=True)
    class HalvesChunker:
        name: ClassVar[str] = "halves"
        summary: ClassVar[str] = "two chunks of equal token counts"

        def chunk(self, doc, tokens):
            n = len(tokens)
            return chunks_from_boundaries(doc, tokens.offsets, [0, n // 2, n] if n else [])

        def to_dict(self):
            return {"type": "halves"}

    try:
        assert chunker_from_dict({"type": "halves"}) == HalvesChunker()
        assert "halves (two chunks of equal token counts)" in CHUNKERS.described()
        assert _cli_chunker("halves") == "halves"
        _round_trips("halves")
        _tiles("halves", documents)
        _refuses_unknown_settings("halves")  # a dataclass's fields are its settings
    finally:
        CHUNKERS.unregister("halves")
    with pytest.raises(ConfigError, match="unknown chunker type 'halves'"):
        chunker_from_dict({"type": "halves"})
    with pytest.raises(SystemExit):
        _cli_chunker("halves")
    assert "invalid choice: 'halves'" in capsys.readouterr().err
