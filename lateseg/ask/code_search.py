"""How an ask retrieves for a question about code (``Asked.code``): the units it names by
name read first, the constants its defaults name read last, and the scale of a hybrid
search that ``"auto"`` chose.

* :func:`has_code`: whether the index holds code at all; :func:`is_codebase`: whether
  what a search looks in is mostly code. A question worded as one about
  code ("what is the default …") asked of contracts is asked as any other question:
  :meth:`Answerer.prepare <lateseg.ask.answering.Answerer.prepare>` clears its ``code``.
* :func:`with_named_code`: the functions, methods and classes the question names
  (:func:`~lateseg.retrieve.symbols.named_units`) before the hits, scored as the best.
* :func:`named_values`: for a question about a default, the chunks that assign the
  constants the hits name as values (``default=defaults.MAX_LINE_LENGTH``).
* :func:`cosine_scored`: hits that a hybrid search chose, scored by their cosine.
* :func:`searched`: a search's best passages, code hits as whole units where
  :data:`~lateseg.ask.options.PASSAGES` says; :func:`without_nested`: passages less
  those another one holds.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lateseg.answer.code import names_asked
from lateseg.answer.code_facts import assigns, constants_named, facts, hit_value
from lateseg.ask.options import MAX_SEARCH_K, UNIT_CHARS
from lateseg.errors import IndexStoreError
from lateseg.generate.rerank import RERANK_TOP
from lateseg.retrieve.fusion import POOL
from lateseg.retrieve.symbols import named_units

if TYPE_CHECKING:
    from lateseg.answer.question import Asked
    from lateseg.ask.options import SearchOptions
    from lateseg.retrieve.retriever import Retriever
    from lateseg.types import Hit


def has_code(retriever: Retriever) -> bool:
    """Whether the index holds a document of kind ``code``."""
    return bool(retriever.index.store.kinds().get("code"))


#: A search looks in a codebase where at least this share of its chunks are code.
CODEBASE_SHARE = 0.5


def is_codebase(retriever: Retriever, kind: str | None = None) -> bool:
    """Whether a search of documents of ``kind`` (any, for None) looks in a codebase: at
    least :data:`CODEBASE_SHARE` of its chunks are code (a repository's READMEs and
    docs beside its sources; not contracts with a sample script)."""
    if kind is not None:
        return kind == "code"
    counts = retriever.chunk_kinds()
    return counts.get("code", 0) >= CODEBASE_SHARE * max(sum(counts.values()), 1)


def asked_of(retriever: Retriever, asked: Asked) -> Asked:
    """``asked`` as a question about code of this index: worded as one about code, it is
    any other question of an index without code, and so is a default asked in a
    contract's words too ("how many days", "the default …":
    :func:`~lateseg.answer.question.weakly_default`) of an index that is not mostly
    code (:func:`is_codebase`: contracts beside a sample script)."""
    if asked.code is not None and (not has_code(retriever) or (
            asked.weak_code and not is_codebase(retriever))):  # fmt: skip
        return dataclasses.replace(asked, code=None)
    return asked


def with_named_code(
    retriever: Retriever,
    asked: Asked,
    hits: list[Hit],
    *,
    source: str | None = None,
    kind: str | None = None,
    sources: Sequence[str] | None = None,
) -> list[Hit]:
    """``hits`` after the units ``asked`` names that they lack, each scored as the best
    hit, and before the chunks that assign the constants the hits name as defaults, for
    a question about a default (:func:`named_values`), or that read the variable or raise
    the exception the docs among them state (:func:`code_stating`); none where the search is of
    another kind than code, and none from an index without lexical search (one made
    before it, read-only)."""
    if not hits or kind not in (None, "code"):
        return hits
    try:
        found = named_units(retriever, asked.question, sources=sources, source=source)
    except IndexStoreError:
        return hits
    if asked.code == "default":  # the code that reads a variable it names, then constants
        reads = variables_read(retriever, asked.question, hits, sources=sources, source=source)
        hits = reads + hits
        values = named_values(retriever, hits, sources=sources, source=source)
    elif asked.code in STATED_IN_CODE:
        values = code_stating(retriever, asked.code, hits, sources=sources, source=source)
    else:
        values = []
    top = max(h.score for h in hits)
    have = {h.chunk_id for h in hits}
    named = [dataclasses.replace(h, score=top) for h in found if h.chunk_id not in have]
    have |= {h.chunk_id for h in named}
    return named + hits + [h for h in values if h.chunk_id not in have]


#: The most constants one question's hits bring in by name.
MOST_CONSTANTS = 3
# chunks looked at per constant: its assignment ranks high for its name
_LOOKED_AT = 10


def named_values(
    retriever: Retriever,
    hits: Sequence[Hit],
    *,
    source: str | None = None,
    sources: Sequence[str] | None = None,
) -> list[Hit]:
    """For each constant (at most :data:`MOST_CONSTANTS`, in the hits' order) that a
    default in the code of ``hits`` has as its value (``default=defaults.MAX_LINE_LENGTH``,
    ``def f(x=TIMEOUT)``; not ``level=logging.DEBUG`` in a call), the chunk
    of code that assigns it (``MAX_LINE_LENGTH = 79``), found by the index's lexical
    search and scored as the hit that names it; the answerer quotes the constant's own
    line (:func:`~lateseg.answer.code.resolve_constants`)."""
    code = [h for h in hits if h.kind == "code"]
    named = constants_named(code, facts("default", code))
    out: list[Hit] = []
    for name, by in list(named.items())[:MOST_CONSTANTS]:
        found = _lexical_code(retriever, name, source=source, sources=sources)
        if found is None:
            return out
        mine = next((c for c in found if assigns(c.text, name)), None)
        if mine is not None and all(mine.chunk_id != o.chunk_id for o in out):
            out.append(dataclasses.replace(mine, score=code[by.passage].score))
    return out


def variables_read(
    retriever: Retriever,
    question: str,
    hits: Sequence[Hit],
    *,
    source: str | None = None,
    sources: Sequence[str] | None = None,
) -> list[Hit]:
    """For a question about a default that names environment variables ("if I never set
    PIPX_BIN_DIR", at most :data:`MOST_CONSTANTS`), the chunk of code that reads each
    (``get_expanded_environ`` given ``PIPX_BIN_DIR``) and that ``hits`` lack, found by the
    index's lexical search and scored as the best hit: the default is what that code
    falls back to (``self._default_bin = DEFAULT_PIPX_BIN_DIR``, whose constant
    :func:`named_values` then reads)."""
    if not hits:
        return []
    top = max(h.score for h in hits)
    variables = [n for n in names_asked(question) if not n.startswith("-")]
    wanted = [(name, top) for name in variables[:MOST_CONSTANTS]]
    return _stating(retriever, "env", wanted, hits, source=source, sources=sources)


def _stating(
    retriever: Retriever,
    kind: str,
    wanted: Sequence[tuple[str, float]],
    hits: Sequence[Hit],
    *,
    source: str | None = None,
    sources: Sequence[str] | None = None,
) -> list[Hit]:
    """For each ``(value, score)`` of ``wanted``, in order, the first chunk of code the
    index's lexical search finds for ``value`` that states it as a fact of ``kind``
    (reads that variable, raises that exception) and that ``hits`` (and the chunks
    found before it) lack, scored ``score``; as far as the index has lexical search."""
    have = {h.chunk_id for h in hits}
    out: list[Hit] = []
    for value, score in wanted:
        found = _lexical_code(retriever, value, source=source, sources=sources)
        if found is None:
            return out
        mine = next((c for c in found if any(hit_value([c], f) == value for f in facts(kind, [c]))),
                    None)  # fmt: skip
        if mine is not None and mine.chunk_id not in have:  # (a hit that states it: enough)
            out.append(dataclasses.replace(mine, score=score))
            have.add(mine.chunk_id)
    return out


def _lexical_code(
    retriever: Retriever,
    name: str,
    *,
    source: str | None = None,
    sources: Sequence[str] | None = None,
) -> list[Hit] | None:
    """The first :data:`_LOOKED_AT` chunks of code the index's lexical search finds for
    ``name``; None from an index made before lexical search."""
    try:
        return retriever.search(
            name, _LOOKED_AT, mode="lexical", kind="code", sources=sources, source=source
        )
    except IndexStoreError:
        return None


#: The facts code states where the docs say them too: an environment variable read, an
#: exception raised.
STATED_IN_CODE = ("env", "exception")


def code_stating(
    retriever: Retriever,
    kind: str,
    hits: Sequence[Hit],
    *,
    source: str | None = None,
    sources: Sequence[str] | None = None,
) -> list[Hit]:
    """For each value (at most :data:`MOST_CONSTANTS`, in the hits' order) that the docs
    among ``hits`` state as a fact of ``kind`` (``$COOKIECUTTER_CONFIG``, "raises
    ``OutputDirExistsException``"), the chunk of code that states it too (reads that
    variable, raises that exception), found by the index's lexical search and scored as
    the passage of the docs that said it: docs may corroborate, code answers
    (:func:`~lateseg.answer.code.code_twins`)."""
    docs = [h for h in hits if h.kind != "code"]
    said: dict[str, int] = {}
    for f in facts(kind, docs):
        said.setdefault(hit_value(docs, f), f.passage)
    wanted = [(v, docs[p].score) for v, p in said.items() if v not in _BUILTIN][:MOST_CONSTANTS]
    return _stating(retriever, kind, wanted, hits, source=source, sources=sources)


# Python's own names (ValueError, KeyError): raised all over a codebase, so the first
# raise found says nothing about the one the docs mean
_BUILTIN = frozenset(dir(builtins))


def cosine_scored(
    retriever: Retriever, question: str, hits: list[Hit], select: dict[str, Any]
) -> list[Hit]:
    """``hits`` in their order, each scored by its cosine similarity to ``question`` (of
    the best :data:`~lateseg.retrieve.fusion.POOL` dense hits; one not among them,
    found by its words only, scores the least of those): a hybrid search that ``"auto"``
    chose scores its hits as a dense one does, the scale the answerer's confidence was
    fitted on (a fused value is not a cosine)."""
    if not hits:
        return hits
    dense = retriever.search(question, max(POOL, len(hits)), **{**select, "mode": "dense"})
    cosine = {h.chunk_id: h.score for h in dense}
    floor = min(cosine.values(), default=0.0)
    return [dataclasses.replace(h, score=cosine.get(h.chunk_id, floor)) for h in hits]


#: A units search reads this many chunks for each unit it returns (the chunks of one
#: unit that rank fold into it), and this many times more while too few units came back.
UNIT_READ = 4


def searched(
    retriever: Retriever,
    question: str,
    options: SearchOptions,
    select: dict[str, Any],
    rerank: Callable[[list[Hit], int], list[Hit]] | None = None,
    scored: bool = True,
) -> list[Hit]:
    """The best ``options.k`` passages for ``question``: :meth:`Retriever.search
    <lateseg.retrieve.retriever.Retriever.search>` with ``select`` (an index made before
    lexical search searches a hybrid that ``"auto"`` chose dense instead, and ``select``
    says so), hybrid hits scored by cosine where ``scored`` (:func:`cosine_scored`), the
    best re-ranked by ``rerank(hits, n)``. Where ``options.units`` says, each code hit is
    widened to the function, method or class it lies in (:meth:`Retriever.units
    <lateseg.retrieve.retriever.Retriever.units>`, up to
    :data:`~lateseg.ask.options.UNIT_CHARS`), a unit two hits share given once at the
    better hit's place, reading :data:`UNIT_READ` times ``k`` chunks, and that many times
    more while too few units came back (at most
    :data:`~lateseg.ask.options.MAX_SEARCH_K`)."""
    auto = options.mode == "auto"

    def ranked(n: int) -> list[Hit]:
        want = max(n, RERANK_TOP) if rerank is not None else n
        try:
            hits = retriever.search(question, want, **select)
        except IndexStoreError:
            if not (auto and select["mode"] == "hybrid"):
                raise
            select["mode"] = "dense"
            hits = retriever.search(question, want, **select)
        if select["mode"] == "hybrid" and scored:
            hits = cosine_scored(retriever, question, hits, select)
        return hits if rerank is None else rerank(hits, n)

    k = options.k
    if not options.units(select["mode"]):
        return ranked(k)
    n = min(k * UNIT_READ, MAX_SEARCH_K)
    while True:
        hits = ranked(n)
        if not options.units(select["mode"]):  # fell back to dense: chunks, as dense gives
            return hits[:k]
        units = retriever.units(hits, UNIT_CHARS, most=k)
        if len(units) >= k or len(hits) < n or n >= MAX_SEARCH_K:
            return units[:k]
        n = min(n * UNIT_READ, MAX_SEARCH_K)


def without_nested(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` less those inside another of them (a method whose class is given too)."""
    return [
        h for h in hits
        if not any(o is not h and o.source == h.source and o.start <= h.start and h.end <= o.end
                   and (o.start, o.end) != (h.start, h.end) for o in hits)
    ]  # fmt: skip
