"""A search about code returns each code hit as the function, method or class it lies in
(``passages``: ``lateseg.ask.options.PASSAGES``), each unit once, on real modules nobody
here wrote (data/real/code: humanize, HTTPie)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lateseg.ask.options import UNIT_CHARS, AskOptions, SearchOptions
from lateseg.errors import ConfigError
from lateseg.retrieve.retriever import innermost_unit

os.environ["HF_HUB_OFFLINE"] = "1"

REAL = Path(__file__).resolve().parent.parent / "data" / "real" / "code"
QUESTION = "Which function puts a comma between every three digits of a number?"


@pytest.fixture(scope="module")
def code_index(tmp_path_factory, encoder):
    """An index of a few real modules of both repositories: mostly code, a codebase."""
    from lateseg.pipeline import Pipeline

    root = tmp_path_factory.mktemp("units")
    for src, names in (
        (REAL / "humanize" / "src" / "humanize", ("number.py", "time.py", "filesize.py")),
        (REAL / "httpie" / "httpie", ("status.py", "config.py")),
    ):
        folder = root / "repo" / src.name
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copy(src / name, folder / name)
    pipe = Pipeline.open(root / "index")
    pipe.encoder = encoder
    report = pipe.ingest([root / "repo"], progress=False)
    assert not report.failed, report.failed
    yield pipe
    pipe.close()


def _stored(pipe) -> set[tuple[str, int, int]]:
    return {
        (h.source, h.start, h.end) for s in pipe.sources() for h in pipe.retriever.document_hits(s)
    }


def test_a_code_hit_is_its_whole_innermost_unit_cited_at_its_lines(code_index):
    hits = code_index.search(QUESTION, k=6, passages="units")
    assert len(hits) == 6
    assert len({(h.source, h.start, h.end) for h in hits}) == 6  # each unit once
    stored = _stored(code_index)
    widened = 0
    for h in hits:
        doc = code_index.retriever.document(h.source)
        assert doc.text[h.start : h.end] == h.text
        unit = innermost_unit(doc, h.start, h.end, UNIT_CHARS)
        if unit is None:  # module level, or a unit longer than UNIT_CHARS: its chunk
            assert (h.source, h.start, h.end) in stored
            continue
        assert (unit.start, unit.end) == (h.start, h.end)
        first = h.text.lstrip().splitlines()[0]
        assert first.startswith(("def ", "class ", "async def ", "@")), first
        with open(h.source, encoding="utf-8") as f:
            lines = f.read().splitlines()
        # cited at the unit's own lines, not the chunk's
        assert lines[h.line - 1].strip() == first.strip()
        assert h.line_end - h.line + 1 == len(h.text.rstrip("\n").splitlines())
        widened += (h.source, h.start, h.end) not in stored
    assert widened  # some hit was a chunk inside a longer function
    assert any("def intcomma(" in h.text for h in hits)


def test_chunks_are_the_stored_chunks_and_auto_follows_the_search(code_index):
    stored = _stored(code_index)
    chunks = code_index.search(QUESTION, k=6, passages="chunks")
    assert all((h.source, h.start, h.end) in stored for h in chunks)
    units = code_index.search(QUESTION, k=6, passages="units")
    assert [(h.source, h.start, h.end) for h in chunks] != [
        (h.source, h.start, h.end) for h in units
    ]
    # auto: a question of a codebase is searched as code (hybrid), so it returns units
    auto = code_index.search(QUESTION, k=6)
    assert [(h.source, h.start, h.end) for h in auto] == [(h.source, h.start, h.end) for h in units]
    # a description (not a question) is searched dense, and returns chunks
    said = "Converts an integer to a string containing commas every three digits."
    assert [(h.source, h.start, h.end) for h in code_index.search(said, k=6)] == [
        (h.source, h.start, h.end) for h in code_index.search(said, k=6, passages="chunks")
    ]
    # a mode the caller chose returns chunks unless units are asked for
    hybrid = code_index.search(QUESTION, k=6, mode="hybrid")
    assert all((h.source, h.start, h.end) in stored for h in hybrid)


def test_passages_is_one_option_checked_before_any_work():
    with pytest.raises(ConfigError, match="choose one of auto, chunks, units"):
        SearchOptions(passages="lines")
    with pytest.raises(ConfigError, match="passages='functions'"):
        AskOptions(passages="functions")
    assert AskOptions(passages="chunks").search.passages == "chunks"
    assert SearchOptions().units("hybrid") and not SearchOptions().units("dense")
    assert not SearchOptions(mode="hybrid").units("hybrid")
    assert SearchOptions(mode="dense", passages="units").units("dense")
    assert not SearchOptions(passages="chunks").units("hybrid")


def test_lateseg_eval_compares_chunks_with_units():
    from lateseg.eval.variant import Variant

    chunks = Variant.parse("passages=chunks", Variant())
    assert chunks.passages == "chunks" and chunks.ask_options()["passages"] == "chunks"
    assert "passages" not in Variant().ask_options()  # the default is ask's own
    with pytest.raises(ConfigError, match="passages='lines'"):
        Variant.parse("passages=lines", Variant())


def test_units_fill_k_by_reading_more_chunks_and_stay_whole_when_widened(code_index, monkeypatch):
    from lateseg.ask.code_search import UNIT_READ

    asked: list[int] = []
    search = code_index.retriever.search

    def counted(question, k=5, **kw):
        asked.append(k)
        return search(question, k, **kw)

    monkeypatch.setattr(code_index.retriever, "search", counted)
    k = 25
    hits = code_index.search(QUESTION, k=k, passages="units")
    monkeypatch.undo()
    assert len({(h.source, h.start, h.end) for h in hits}) == len(hits) == k
    assert asked[0] == k * UNIT_READ and asked == sorted(asked)
    stored = len(_stored(code_index))
    # more chunks were read only while the units were fewer than k and more were left
    assert len(asked) == 1 or asked[0] < stored
    # --context grows a unit from the chunks it covers: never back to its chunk
    grown = code_index.expand(hits[:3], 30_000)
    for g, h in zip(grown, hits[:3], strict=True):
        assert g.start <= h.start and h.end <= g.end
        assert code_index.retriever.document(g.source).text[g.start : g.end] == g.text


def test_ask_with_passages_chunks_reads_chunks(code_index):
    stored = _stored(code_index)
    question = "What gets raised if I give clamp() a format it cannot use?"
    answer = code_index.ask(question, passages="chunks", min_confidence=0)
    assert answer.citations
    assert all((c.source, c.start, c.end) in stored for c in answer.citations if c.kind == "code")
    # as asked by default, the clamp() function is read (and cited) whole
    whole = code_index.ask(question, min_confidence=0)
    assert any((c.source, c.start, c.end) not in stored for c in whole.citations)


@pytest.mark.slow  # loads the generator
def test_a_units_search_that_reads_again_scores_each_passage_once(code_index, monkeypatch):
    """A re-ranked units search that reads more chunks while too few units came back
    re-ranks the head of each read, and the generator scores each passage once for the
    question (``rerank``'s memo), not once per read."""
    import lateseg.ask.code_search as code_search
    import lateseg.generate.rerank as module

    # two chunks read per unit wanted: this small index's first read holds too few units
    monkeypatch.setattr(code_search, "UNIT_READ", 2)
    reads: list[int] = []
    search = code_index.retriever.search

    def counted_search(question, k=5, **kw):
        if kw.get("mode") == "hybrid":  # (not the dense read that scores them by cosine)
            reads.append(k)
        return search(question, k, **kw)

    scored: list[str] = []
    real = module.likelihoods

    def counted(generator, question, passages, batch=module.BATCH):
        scored.extend(passages)
        return real(generator, question, passages, batch)

    monkeypatch.setattr(code_index.retriever, "search", counted_search)
    monkeypatch.setattr(module, "likelihoods", counted)
    hits = code_index.search(QUESTION, k=30, passages="units", rerank="generator")
    assert len(hits) == 30 and len(reads) >= 2  # it read again
    assert scored and len(scored) == len(set(scored))  # and scored no passage twice
