"""Retrieval: ranked chunks for a query, with their citations, and what grows from them.

:class:`Retriever` is the one place that reads an index for a query: dense search (exact
or approximate inner product, widened until filters leave ``k``), lexical search (BM25),
the two fused (:mod:`lateseg.retrieve.fusion`), the hits' provenance
(:mod:`lateseg.retrieve.provenance`), passages grown with their neighbours
(:meth:`Retriever.expand`) and the definitions a hit uses. ``Pipeline.retriever`` is
one; the CLI, LangChain and the HTTP service use it alike. It knows the encoder only as
a function from query text to a query vector.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lateseg.errors import ConfigError, IndexStoreError
from lateseg.ingest.formats import is_paged
from lateseg.retrieve.fusion import POOL, fuse, fusion_weights
from lateseg.retrieve.provenance import LINE_KINDS, ProvenanceCache
from lateseg.text.boundaries import sentence_spans
from lateseg.types import Document, Hit, Span, clean_text

if TYPE_CHECKING:
    import numpy as np

    from lateseg.index import Index

SEARCH_MODES = ("hybrid", "dense", "lexical")


def _rank_key(h: Hit) -> tuple[float, str, int]:
    return (-h.score, h.source, h.start)


def innermost_unit(doc: Document, start: int, end: int, limit: int | None = None) -> Span | None:
    """The innermost function, method or class of ``doc`` that holds ``[start, end)``
    (of at most ``limit`` characters, when given), or None."""
    inside = [
        s for s in doc.spans("function", "method", "class")
        if s.start <= start and end <= s.end and (limit is None or s.end - s.start <= limit)
    ]  # fmt: skip
    return min(inside, key=lambda s: s.end - s.start, default=None)


class Retriever:
    """Search, expand and look up over ``index``; ``embed_query`` maps a query's text to
    its ``[1, d]`` vector (the encoder's query embedding)."""

    def __init__(self, index: Index, embed_query: Callable[[str], np.ndarray]) -> None:
        self.index = index
        self._embed_query = embed_query
        self._provenance = ProvenanceCache(lambda ids: index.store.layouts(ids, LINE_KINDS))
        self._chunk_kinds: tuple[int, dict[str, int]] = (-1, {})  # (state, chunks per kind)

    def search(
        self,
        query: str,
        k: int = 5,
        *,
        mode: str = "dense",
        source: str | None = None,
        kind: str | None = None,
        weights: tuple[float, float] = (1.0, 1.0),
        include_toc: bool = False,
        where: Callable[[list[Hit]], list[Hit]] | None = None,
        sources: Sequence[str] | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query``.

        ``mode``: ``"dense"`` (exact inner product of the chunk vectors; score = cosine),
        ``"lexical"`` (BM25 over chunk text, SQLite FTS5 with stemming; score = BM25) or
        ``"hybrid"`` (both, each ranking's scores scaled to [0, 1] and combined with
        ``weights`` = (dense, lexical): :func:`~lateseg.retrieve.fusion.fuse`; score =
        the fused value). ``source``: only files whose
        absolute path matches this glob (``"*/contracts/*.pdf"``); ``kind``: only
        documents of this kind (``"pdf"``, ``"code"``, ``"text"`` …). Chunks that lie
        mostly in a table of contents, a list of figures or an index only point at the
        text; they are left out unless ``include_toc``. ``where`` keeps some of a batch of
        ranked hits (a caller's own filter, such as LangChain metadata); the search asks
        for more until ``k`` are kept or nothing is left. ``sources``: only these
        documents (exact stored sources, as a question's scope names them), searched one
        by one and merged by score.
        """
        if sources is not None:
            if source is not None:
                raise ConfigError("give sources or a source glob, not both")
            merged = [
                h
                for one in dict.fromkeys(sources)
                for h in self.search(
                    query, k, mode=mode, source=glob_escape(one), kind=kind,
                    weights=weights, include_toc=include_toc, where=where,
                )
            ]  # fmt: skip
            return sorted(merged, key=_rank_key)[:k]
        if k < 1:
            raise ConfigError(f"k={k} must be at least 1")
        query = clean_text(query)
        if not query.strip():
            raise ConfigError("the query is empty")
        if mode not in SEARCH_MODES:
            raise ConfigError(f"mode={mode!r}; choose one of {', '.join(SEARCH_MODES)}")
        if not fusion_weights(weights):
            raise ConfigError(f"weights={weights} must be two non-negative numbers, not both 0")
        with self.index.caught_up():  # other processes' writes, once for this search
            if self.index.count() == 0:
                return []
            q = self._embed_query(query) if mode != "lexical" else None
            want = k if where is None else max(4 * k, 32)
            while True:  # asks for more until k hits are left once the filters took theirs
                found, more = self._ranked(query, q, mode, want, source, kind, weights)
                # equal scores (the same paragraph in two licences) in the order of
                # their documents and places, not of their ingest: an index built in
                # another order ranks the same
                hits = sorted(self._hits(found, include_toc), key=_rank_key)
                if where is not None:
                    hits = where(hits)
                if len(hits) >= k or not more:
                    return hits[:k]
                want *= 4

    def _ranked(
        self,
        query: str,
        q: np.ndarray | None,
        mode: str,
        want: int,
        source: str | None,
        kind: str | None,
        weights: tuple[float, float],
    ) -> tuple[list[tuple[int, float]], bool]:
        """The best ``want`` (chunk ID, score) of one search, and whether there may be
        more."""
        pool = max(want, POOL) if mode == "hybrid" else want
        dense = self.dense(q, pool, source, kind) if q is not None else []
        store = self.index.store
        lexical = store.lexical(query, pool, source=source, kind=kind) if mode != "dense" else []
        if mode == "dense":
            found = dense
        elif mode == "lexical":
            found = lexical
        else:
            found = fuse((dense, lexical), weights)
        more = max(len(dense), len(lexical)) >= pool
        with_vector = self._vector_ids(found)
        return [(cid, score) for cid, score in found if cid in with_vector][:want], more

    def _hits(self, found: Sequence[tuple[int, float]], include_toc: bool = True) -> list[Hit]:
        """Hits for ranked chunk IDs, with their provenance; chunks inside a table of
        contents or an index are left out unless ``include_toc``."""
        rows = self.index.store.chunk_rows([i for i, _ in found])
        self._provenance.annotate(list(rows.values()))
        return [
            Hit(
                r["source"],
                r["start"],
                r["end"],
                r["text"],
                score,
                r["page"],
                r["section"],
                r["doc_id"],
                cid,
                r["line"],
                r["line_end"],
                r["kind"],
                r["page_end"],
                bool(r.get("ocr")),
            )
            for cid, score in found
            if (r := rows.get(cid)) is not None and (include_toc or not r["toc"])
        ]

    def expand(self, hits: Sequence[Hit], budget: int) -> list[Hit]:
        """Grow hits with their neighbouring chunks to fill ``budget`` characters.

        In rank order, each hit takes the next chunk after it, then the one before, and
        so on, while the total length of all returned passages stays within ``budget``
        and no text is given twice (a neighbour already in a passage is skipped). A hit
        alone longer than what is left is kept as it is; a hit wider than its chunk (a unit
        of code) grows from the chunks it covers. Returns one passage per hit, in
        the same order: its span, text and lines widened (:meth:`widened`), its pages
        and section still the hit's, where the match is.
        """
        if budget < 1:
            raise ConfigError(f"budget={budget} must be at least 1 character")
        used = sum(h.end - h.start for h in hits)
        taken: dict[str, set[int]] = {}
        for h in hits:
            taken.setdefault(h.doc_id, set()).add(h.chunk_id)
        out = []
        for h in hits:
            chunks = self.index.store.neighbours(h.chunk_id)
            where = {cid: n for n, (cid, _, _) in enumerate(chunks)}
            if h.chunk_id not in where:
                out.append(h)
                continue
            lo = hi = where[h.chunk_id]
            # a hit widened past its chunk (a unit of code) grows from the chunks it covers
            while lo > 0 and chunks[lo - 1][2] > h.start:
                lo -= 1
            while hi + 1 < len(chunks) and chunks[hi + 1][1] < h.end:
                hi += 1
            taken[h.doc_id].update(chunks[n][0] for n in range(lo, hi + 1))
            grew = True
            while grew:
                grew = False
                for step in (hi + 1, lo - 1):  # after, then before
                    if not 0 <= step < len(chunks) or chunks[step][0] in taken[h.doc_id]:
                        continue
                    # What the passage grows by: the chunk and the blank text before it.
                    if step > hi:
                        size = chunks[step][2] - chunks[hi][2]
                    else:
                        size = chunks[lo][1] - chunks[step][1]
                    if used + size > budget:
                        continue
                    used += size
                    taken[h.doc_id].add(chunks[step][0])
                    lo, hi = min(lo, step), max(hi, step)
                    grew = True
            start, end = min(chunks[lo][1], h.start), max(chunks[hi][2], h.end)
            if (start, end) == (h.start, h.end):
                out.append(h)
                continue
            doc = self.index.store.document(h.source)
            if doc is None:
                out.append(h)
                continue
            # The passage's text widens; its pages and section stay the hit's:
            # --context 100000000 must not turn "p. 45 § 5.15.1" into "p. 1". Its lines
            # are its own, so a citation's lines and characters name one span.
            out.append(self.widened(h, start, end, doc.text[start:end]))
        return out

    def widened(self, hit: Hit, start: int, end: int, text: str) -> Hit:
        """``hit`` grown to ``[start, end)`` (offsets in its document's text, ``text`` the
        text there): its lines those of the grown span, where its document has lines;
        its pages, section and score the hit's (where the match is)."""
        grown = dataclasses.replace(hit, start=start, end=end, text=text)
        if hit.line is None:
            return grown
        row = self.index.store.chunk_rows([hit.chunk_id]).get(hit.chunk_id)
        if row is None or row["doc_id"] != hit.doc_id:
            return grown
        row = {**row, "start": start, "end": end}
        self._provenance.annotate([row])
        return dataclasses.replace(grown, line=row["line"], line_end=row["line_end"])

    def units(self, hits: Sequence[Hit], limit: int, most: int | None = None) -> list[Hit]:
        """Code hits widened to the whole function, method or class they lie in (the
        innermost of at most ``limit`` characters: a question about code is answered by
        a ``raise`` or a default that another chunk of the function holds); a unit two
        hits share is given once, at the better hit's place. Other hits as they are.
        Its lines are the unit's (:meth:`widened`), its section the unit's qualified
        name; :meth:`narrow` cites a quoted line where it lies. At most ``most`` (None:
        every hit's)."""
        out: list[Hit] = []
        given: set[tuple[str, int, int]] = set()
        docs: dict[str, Document | None] = {}
        for h in hits:
            if most is not None and len(out) >= most:
                break
            if h.kind != "code":
                out.append(h)
                continue
            if h.source not in docs:
                docs[h.source] = self.index.store.document(h.source)
            doc = docs[h.source]
            if doc is not None and doc.id != h.doc_id:
                doc = None  # changed since the hit was read: its offsets are another text's
            unit = None if doc is None else innermost_unit(doc, h.start, h.end, limit)
            if doc is None or unit is None:
                out.append(h)
                continue
            where = (h.source, unit.start, unit.end)
            if where in given:
                continue
            given.add(where)
            grown = h  # a hit that is its unit already (a search returned units): as it is
            if (h.start, h.end) != (unit.start, unit.end):
                grown = self.widened(h, unit.start, unit.end, doc.text[unit.start : unit.end])
            out.append(dataclasses.replace(grown, section=unit.label or h.section))
        return out

    def whole_sentences(self, hits: Sequence[Hit], reach: int = 400) -> list[Hit]:
        """Hits whose text starts or ends inside a sentence (a chunk boundary cut it)
        widened to that sentence's start and end, at most ``reach`` characters each way;
        their pages and section stay theirs, their lines are the widened span's. A
        quote is never half a sentence."""
        out = []
        docs: dict[str, Document | None] = {}
        for h in hits:
            if h.kind == "code":
                out.append(h)
                continue
            if h.source not in docs:
                docs[h.source] = self.index.store.document(h.source)
            doc = docs[h.source]
            if doc is None or doc.text[h.start : h.end] != h.text:
                out.append(h)
                continue
            start, end = h.start, h.end
            lo = max(0, start - reach)
            window = doc.text[lo : min(len(doc.text), end + reach)]
            spans = [(a + lo, b + lo) for a, b in sentence_spans(window)]
            for a, b in spans:
                if a < start < b:
                    start = a
                if a < end < b:
                    end = b
            if (start, end) == (h.start, h.end):
                out.append(h)
            else:
                out.append(self.widened(h, start, end, doc.text[start:end]))
        return out

    def narrow(self, hit: Hit, start: int, end: int) -> Hit:
        """The part ``[start, end)`` (offsets in the document's text, inside ``hit``) of a
        hit as a hit of its own, cited where it lies: its pages, lines and the section of
        the chunk it starts in (an answer's sentence, not the passage around it); in
        code, the qualified name of the innermost function, method or class that holds
        it (a chunk may start in the unit before)."""
        if not (hit.start <= start <= end <= hit.end):
            raise ConfigError(f"[{start}, {end}) is not inside the hit [{hit.start}, {hit.end})")
        text = hit.text[start - hit.start : end - hit.start]
        chunks = self.index.store.neighbours(hit.chunk_id)
        cid = next((c for c, a, b in chunks if a <= start < b), hit.chunk_id)
        row = self.index.store.chunk_rows([cid]).get(cid)
        if row is None or row["doc_id"] != hit.doc_id:
            return dataclasses.replace(hit, start=start, end=end, text=text)
        row = {**row, "start": start, "end": end}
        self._provenance.annotate([row], exact_page=True)
        section = row["section"]
        if hit.kind == "code":
            section = self._unit_of(hit, start, end) or section
        return dataclasses.replace(
            hit, start=start, end=end, text=text, page=row["page"], page_end=row["page_end"],
            section=section, chunk_id=cid, line=row["line"], line_end=row["line_end"],
        )  # fmt: skip

    def _unit_of(self, hit: Hit, start: int, end: int) -> str | None:
        """The qualified name of the innermost unit of code holding ``[start, end)`` of
        ``hit``'s document (None: none, or the document changed since ``hit`` was read)."""
        doc = self.index.store.document(hit.source)
        if doc is None or doc.id != hit.doc_id:
            return None
        unit = innermost_unit(doc, start, end)
        return unit.label if unit is not None else None

    def definitions(self, hit: Hit) -> dict[str, str]:
        """The definitions (from the contract's structure) of the defined terms that
        ``hit`` uses but does not itself define: ``{term: defining text}``."""
        doc = self.index.store.document(hit.source)
        if doc is None:
            return {}
        out: dict[str, str] = {}
        for span in doc.spans("definition"):
            inside = hit.start <= span.start and span.end <= hit.end
            if span.label in out or inside or not span.label:
                continue
            if re.search(rf"(?<!\w){re.escape(span.label)}(?!\w)", hit.text):
                out[span.label] = doc.text[span.start : span.end]
        return out

    def _vector_ids(self, found: list[tuple[int, float]]) -> set[int]:
        """IDs that have a vector in the cache (all of them, but in a format-1 index
        whose chunks an interrupted ingest left without vectors)."""
        return self.index.contains([cid for cid, _ in found])

    def dense(
        self, q: np.ndarray, k: int, source: str | None = None, kind: str | None = None
    ) -> list[tuple[int, float]]:
        """The best ``k`` (chunk ID, cosine) for query vector ``q`` among the chunks of
        sources matching the glob ``source`` and of documents of ``kind``: asks the vector
        index for more until the filters leave ``k`` (or nothing is left to ask)."""
        total = self.index.count()
        want = k if source is None and kind is None else min(total, max(4 * k, 100))
        while True:
            scores, ids = self.index.search(q, want)
            found = [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=False) if i >= 0]
            if source is not None or kind is not None:
                keep = self.index.store.chunk_filter(
                    [i for i, _ in found], source=source, kind=kind
                )
                found = [(i, s) for i, s in found if i in keep]
            if len(found) >= k or want >= total:
                return found[:k]
            want = min(total, want * 4)

    def document_hits(self, source: str | os.PathLike[str]) -> list[Hit]:
        """Every chunk of the document ``source``, in text order (score 1)."""
        key = _source_key(source)
        ids = self.index.store.chunk_ids_of_source(key)
        if not ids:
            raise IndexStoreError(f"{key} is not in the index at {self.index.path}")
        hits = self._hits([(i, 1.0) for i in ids])
        return sorted(hits, key=lambda h: h.start)

    def document(self, source: str | os.PathLike[str]) -> Document:
        """The stored Document of ``source`` (a path; made absolute)."""
        key = _source_key(source)
        doc = self.index.store.document(key)
        if doc is None:
            raise IndexStoreError(f"{key} is not in the index at {self.index.path}")
        return doc

    def sources(self) -> list[str]:
        return self.index.store.sources()

    def heads(self, chars: int) -> tuple[int, list[tuple[str, str, dict[str, Any], str]]]:
        """The change log's position and, per document, ``(source, kind, meta, its first
        chars characters)``: what names each document (:mod:`lateseg.answer.scope`)."""
        self.index.count()  # brought up to date with other processes' writes
        store = self.index.store
        return store.log_state().seq, store.heads(chars)

    def mentions(self, phrase: str, limit: int = 50) -> list[str]:
        """The documents whose text says ``phrase`` (its words in a row, stemmed)."""
        self.index.count()
        return self.index.store.phrase_sources(phrase, limit)

    def state(self) -> int:
        """The change log's position: it moves whenever a document is written."""
        self.index.count()
        return self.index.store.log_state().seq

    def chunk_kinds(self) -> dict[str, int]:
        """Chunks per kind of their document, counted once per :meth:`state`."""
        state, cached = self.state(), self._chunk_kinds
        if cached[0] != state:
            cached = self._chunk_kinds = (state, self.index.store.chunk_kinds())
        return dict(cached[1])

    def count(self) -> int:
        """Chunks in the index (brought up to date with other processes' writes)."""
        return self.index.count()

    def document_rows(self, doc_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Per document ID: source, kind, meta and chunk count, and the text of a
        single-chunk document (:meth:`DocStore.document_rows`)."""
        return self.index.store.document_rows(doc_ids)

    def file_hash(self, source: str) -> str | None:
        """The SHA-256 of the file ``source`` as it was indexed (None: not indexed)."""
        return self.index.file_hash(source)

    def indexed_as(self, file_hash: str) -> str | None:
        """The source of an indexed file with this SHA-256 (None: none is indexed)."""
        self.index.count()
        return self.index.store.source_of_hash(file_hash)

    def document_by_id(self, doc_id: str) -> Document | None:
        """The stored Document with ID ``doc_id`` (its ``lines`` read too, for a PDF or an image),
        or None."""
        found = self.index.store.documents_by_id([doc_id])
        if not found:
            return None
        doc = found[0]
        if is_paged(doc.kind):
            boxes = self.index.store.line_boxes(doc.id, len(doc.text))
            doc = dataclasses.replace(doc, lines=tuple(boxes or ()))
        return doc

    def find_document(self, source: str) -> Document | None:
        """The stored Document of ``source`` exactly as indexed (no path resolution), or
        None: for sources that are names, not paths."""
        return self.index.store.document(source)


def glob_escape(text: str) -> str:
    """``text`` as a glob (SQLite GLOB, as ``source`` filters are) that matches only
    itself: ``*``, ``?`` and ``[`` stand for themselves."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _source_key(source: str | os.PathLike[str]) -> str:
    """A source path as documents are stored under it: absolute, links resolved."""
    return str(Path(source).expanduser().resolve())
