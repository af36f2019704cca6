"""Pipeline: the one object users start from, a facade over the index folder
(:mod:`lateseg.open_index`), ingest (:mod:`lateseg.scale.ingest`), retrieval
(:mod:`lateseg.retrieve.retriever`) and answering (:mod:`lateseg.ask.answering`).

``pipe = Pipeline.open("idx"); pipe.ingest(["contracts/"]); pipe.ask("Notice period?")``
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lateseg.ask.answering import Answerer
from lateseg.ask.options import AskOptions, SearchOptions, options_of
from lateseg.encode.config import EncoderConfig
from lateseg.encode.late import LateEncoder
from lateseg.encode.models import DEFAULT_GENERATOR
from lateseg.errors import ConfigError
from lateseg.index import Index
from lateseg.ingest.report import IngestReport
from lateseg.open_index import open_folder
from lateseg.options import IngestOptions, OpenOptions, either
from lateseg.retrieve.retriever import SEARCH_MODES, Retriever
from lateseg.scale.engines import ENGINES, Encoded, encode_document
from lateseg.scale.ingest import add_documents, ingest_paths
from lateseg.segment import Chunker, chunker_from_dict
from lateseg.types import Answer, Document, Hit

if TYPE_CHECKING:  # these load only when used
    from lateseg.generate.local import LocalGenerator
    from lateseg.ingest.folder import WalkConfig

__all__ = [
    "ENGINES",
    "SEARCH_MODES",
    "AskOptions",
    "Encoded",
    "IngestOptions",
    "OpenOptions",
    "Pipeline",
    "SearchOptions",
    "chunker_from_dict",
    "encode_document",
]


class Pipeline:
    """Ingest → late encoding → dynamic chunks → FAISS + SQLite → search → cited answers."""

    generator_name = property(lambda self: self._answerer.generator_name)

    def __init__(
        self,
        folder: Path,
        encoder: LateEncoder,
        chunker: Chunker,
        index: Index,
        generator: str = DEFAULT_GENERATOR,
    ) -> None:
        self.folder = folder
        self.encoder = encoder
        self.chunker = chunker
        self.index = index
        # A format-1 index's first write (migration) re-encodes documents left without vectors.
        index.reencode = lambda doc: encode_document(self.encoder, self.chunker, doc)
        self._retriever = Retriever(index, lambda query: self.encoder.embed_queries([query]))
        self._answerer = Answerer(self._retriever, lambda: self.encoder, generator)

    @classmethod
    def open(
        cls,
        folder: str | os.PathLike[str],
        *,
        options: OpenOptions | None = None,
        embedder: str | EncoderConfig | None = None,
        chunker: Chunker | None = None,
        generator: str | None = None,
        device: str | None = None,
        repair: bool = True,
        vectors: str | None = None,
        create: bool = True,
        readonly: bool = False,
        trust_remote_code: bool = False,
        backend: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        profile: str | None = None,
    ) -> Pipeline:
        """Create or open the index at ``folder`` (policy: :mod:`lateseg.open_index`): a
        folder, or a ``postgresql://`` URL (a shared index; ``cache_dir`` is this machine's
        folder for its vector cache, by default under the lateseg home), as ``options``
        (:class:`~lateseg.options.OpenOptions`) or the same options given as keywords say.

        A new index records the embedder and chunker in its manifest; an existing one is
        reopened with them (a different embedder raises :class:`IndexStoreError`).
        ``create=False`` opens an existing index only; ``readonly=True`` never writes.
        ``vectors``: the vector index policy kept in the manifest (``auto``, ``flat``,
        ``hnsw``, ``ivf``, ``ivfpq``). ``device``, ``backend`` (``torch``, ``openvino``,
        ``onnx`` …) and ``trust_remote_code`` belong to this process, never to the folder,
        which is untrusted input and is never modified by opening it (``repair`` is kept
        for compatibility and does nothing). ``profile``: a new index's ingest profile
        (:mod:`lateseg.encode.profiles`: ``accurate``, the default, or ``fast``, about
        twice the ingest speed on CPUs without bf16 at lower recall), recorded in its
        manifest; an existing index is extended with its own (another is refused).
        """
        given = OpenOptions(
            embedder=embedder, chunker=chunker, generator=generator, device=device,
            vectors=vectors, create=create, readonly=readonly,
            trust_remote_code=trust_remote_code, backend=backend, cache_dir=cache_dir,
            profile=profile,
        )  # fmt: skip
        opening = either(options, given)
        path, index, encoder, made = open_folder(folder, opening)
        return cls(path, encoder, made, index, opening.generator or DEFAULT_GENERATOR)

    def ingest(
        self,
        paths: Iterable[str | os.PathLike[str]] | str,
        *,
        options: IngestOptions | None = None,
        progress: bool | None = None,
        password: str | None = None,
        ocr: str = "auto",
        workers: int | None = None,
        walk_config: WalkConfig | None = None,
        prune: bool = False,
        engine: str = "local",
        address: str | None = None,
    ) -> IngestReport:
        """Add or update every supported file under ``paths`` (:mod:`lateseg.scale.ingest`)
        as ``options`` (:class:`~lateseg.options.IngestOptions`) or the same options given
        as keywords say.

        Unchanged files (same content hash) are not parsed again; skipped and failed files
        are reported with their reasons and the others go on. ``workers``: parse
        processes (None: automatic, 0: none; Ray: encoder actors); ``ocr``: ``auto``
        reads scanned pages and image files by OCR (``lateseg[ocr]`` and Tesseract), ``off``
        reports them unread, ``force`` reads every page by OCR; ``progress``: a bar
        (None: on a terminal); ``prune``: remove the indexed documents under ``paths``
        that the walk no longer yields (``report.removed``, with reasons).
        ``engine="ray"`` parses and encodes on the Ray cluster at ``address``
        (``lateseg[ray]``); this process writes in file order, or, on a PostgreSQL
        index, the actors write what they encoded themselves.
        """
        given = IngestOptions(
            progress=progress, password=password, ocr=ocr, workers=workers,
            walk_config=walk_config, prune=prune, engine=engine, address=address,
        )  # fmt: skip
        return ingest_paths(self.index, self.encoder, self.chunker, paths, either(options, given))

    def add_documents(self, docs: Iterable[Document]) -> int:
        """Index documents made in memory: each is encoded whole, chunked and stored under its
        ``source`` (replacing the same source's), all or nothing. Returns the chunks added."""
        return add_documents(self.index, self.encoder, self.chunker, docs)

    def remove(self, sources: Iterable[str]) -> list[str]:
        """Remove these sources' documents (unindexed ones are ignored); returns those removed."""
        with self.index.writer() as writer:
            return writer.remove(list(sources))

    @property
    def retriever(self) -> Retriever:
        """Search, expand and look-ups over this index, queries embedded by ``encoder``."""
        return self._retriever

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        options: SearchOptions | None = None,
        **given: Any,
    ) -> list[Hit]:
        """The best chunks for ``query`` as ``options`` (or the same options given as
        keywords: ``k``, ``mode``, ``source``, ``kind``, ``weights``, ``include_toc``,
        ``rerank``; :class:`~lateseg.ask.options.SearchOptions`) select them
        (:meth:`Retriever.search`); with ``rerank="generator"`` the top 30 re-ranked by
        the local generator's likelihood of the query (:mod:`lateseg.generate.rerank`:
        better on code and manuals, worse on paraphrased contract questions, seconds a
        query on CPU; opt-in)."""
        return self._answerer.search(query, options_of(SearchOptions, options, k, given))

    def expand(self, hits: Sequence[Hit], budget: int) -> list[Hit]:
        """Hits grown with their neighbouring chunks to ``budget`` characters in all
        (:meth:`Retriever.expand`)."""
        return self._retriever.expand(hits, budget)

    def definitions(self, hit: Hit) -> dict[str, str]:
        """``{term: defining text}`` of the terms ``hit`` uses (:meth:`Retriever.definitions`)."""
        return self._retriever.definitions(hit)

    def ask(
        self,
        question: str,
        k: int | None = None,
        *,
        options: AskOptions | None = None,
        stream: Callable[[str], None] | None = None,
        **given: Any,
    ) -> Answer:
        """Answer ``question`` as ``options`` (or the same options given as keywords:
        ``k``, ``answer``, ``extractive``, ``mode``, ``context``, ``kv_budget`` …;
        :class:`~lateseg.ask.options.AskOptions`) say, citing the passages it
        rests on (:meth:`Answerer.ask`: quoted, copied or generated; scoped to the
        documents it names; a quote rated below ``min_confidence`` is unsure). ``stream``
        receives a generated answer's text as made. ``llm``: the model that writes the
        answer instead of the local generator, a model behind a URL
        (:class:`~lateseg.generate.remote.config.LLMConfig`) or any LangChain chat model;
        its answer is checked and cited the same way."""
        return self._answerer.ask(
            question, options_of(AskOptions, options, k, given), stream=stream
        )

    def ask_many(
        self,
        questions: Sequence[str],
        k: int | None = None,
        *,
        options: AskOptions | None = None,
        document: str | os.PathLike[str] | None = None,
        stream: Callable[[int, str], None] | None = None,
        **given: Any,
    ) -> list[Answer]:
        """Answer several questions from one context, prefilled and compressed once, as
        ``options`` (or the same options given as keywords: ``k``, ``mode``,
        ``kv_budget``, ``kv_method``, ``prefill`` …;
        :class:`~lateseg.ask.options.AskOptions`) say (:meth:`Answerer.ask_many`). Every
        answer is generated: ``answer="quote"`` is refused (the default, which an
        ``options`` object always carries, is not read; ``copy`` is refused below)."""
        if given.get("answer") in ("quote", "extractive"):
            raise ConfigError(
                f"ask_many generates every answer from one shared context: "
                f"answer={given['answer']!r} cannot apply (ask each question alone)"
            )
        return self._answerer.ask_many(
            questions, options_of(AskOptions, options, k, given), document=document,
            stream=stream,
        )  # fmt: skip

    def document_hits(self, source: str | os.PathLike[str]) -> list[Hit]:
        """Every chunk of the document ``source``, in text order (score 1)."""
        return self._retriever.document_hits(source)

    @property
    def answerer(self) -> Answerer:
        """Answers from retrieved passages (:class:`~lateseg.ask.answering.Answerer`:
        ``answer_from`` when the caller has retrieved them already)."""
        return self._answerer

    @property
    def generator(self) -> LocalGenerator:
        """The local generator, loaded on first use."""
        return self._answerer.local_generator()

    def document(self, source: str | os.PathLike[str]) -> Document:
        """The stored Document of ``source`` (a path; made absolute)."""
        return self._retriever.document(source)

    def stats(self) -> dict[str, Any]:
        """The index's figures (:meth:`Index.stats <lateseg.index.index.Index.stats>`:
        documents, chunks, vectors, bytes …) and what OCR read in it (``ocr``:
        :func:`~lateseg.ingest.ocr.summary.ocr_summary`)."""
        from lateseg.ingest.ocr.summary import ocr_summary

        out = self.index.stats()
        ocr = ocr_summary(meta for _, _, meta, _ in self.index.store.heads(0))
        return {**{k: v for k, v in out.items() if k != "bytes"}, "ocr": ocr, "bytes": out["bytes"]}

    def sources(self) -> list[str]:
        return self._retriever.sources()

    def close(self) -> None:
        self._answerer.close()
        self.index.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
