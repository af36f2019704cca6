"""Pipeline: the one object users start from.

pipe = Pipeline.open("my_index")
report = pipe.ingest(["contracts/", "repo/"])
hits = pipe.search("What is the notice period?", k=5)
answer = pipe.ask("What is the notice period?", k=5)
doc = pipe.document(hits[0].source)
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lateseg.encode.late import EncoderConfig, LateEncoder
from lateseg.encode.models import DEFAULT_GENERATOR
from lateseg.errors import ConfigError, IndexStoreError, IngestError, LatesegError
from lateseg.index import Index, Manifest, Writer, read_manifest, write_manifest
from lateseg.index.retrieval import SEARCH_MODES, Retriever
from lateseg.index.vectors import check_policy
from lateseg.kv.compress import KVConfig
from lateseg.scale.engines import ENGINES, Encoded, encode_document, make_engine
from lateseg.segment import Chunker, DynamicChunker, chunker_from_dict
from lateseg.types import NO_PASSAGE, Answer, Document, Hit, IngestReport, clean_text

if TYPE_CHECKING:  # these load only when used
    from lateseg.generate.local import LocalGenerator
    from lateseg.ingest.folder import Walk, WalkConfig

log = logging.getLogger(__name__)

__all__ = ["ENGINES", "SEARCH_MODES", "Encoded", "Pipeline", "chunker_from_dict", "encode_document"]


class Pipeline:
    """Ingest → late encoding → dynamic chunks → FAISS + SQLite → search → cited answers."""

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
        self.generator_name = generator
        self._generator: Any = None
        # A format-1 index is migrated on its first write; documents whose vectors an
        # interrupted ingest never saved are encoded again from their stored text.
        index.reencode = lambda doc: encode_document(self.encoder, self.chunker, doc)
        self._retriever = Retriever(index, lambda query: self.encoder.embed_queries([query]))

    @classmethod
    def open(
        cls,
        folder: str | os.PathLike[str],
        *,
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
    ) -> Pipeline:
        """Create or open the index folder ``folder``.

        A new index records the embedder and chunker in its manifest; an existing one is
        reopened with them. Giving a different embedder than the index was built with
        raises :class:`IndexStoreError` (vectors of two models cannot be mixed).
        ``create=False`` opens an existing index only; ``readonly=True`` also never
        writes to it (what ``search``, ``ask`` and ``index verify`` do). ``vectors`` sets
        the vector index policy, kept in the manifest: ``auto`` (exact search, HNSW from 100,000
        vectors; the default), ``flat``, ``hnsw``, ``ivf`` or ``ivfpq``; a changed
        policy is written and applied at the next write.

        The folder is untrusted input: its manifest is validated and can never enable
        remote model code. ``trust_remote_code=True`` lets the embedder run the code its
        model folder ships (jina-v2), for this process only. Opening never modifies the
        folder (``repair`` is accepted for compatibility and does nothing: a missing or
        damaged vector cache is rebuilt in memory from the docstore, and saved by the
        next write). A folder that cannot be written opens read-only, for search.
        ``backend`` runs the embedder (``torch``, or on the CPU ``onnx``, ``onnx-int8``,
        ``openvino``; see :class:`EncoderConfig`), for this process only, like ``device``.
        """
        if vectors is not None:
            check_policy(vectors)
        path = Path(folder).expanduser().resolve()
        if path.exists() and not path.is_dir():
            raise IndexStoreError(f"{path} exists and is not a folder")
        manifest = read_manifest(path, device=device) if path.is_dir() else None
        if manifest is None:
            if path.is_dir() and any(path.iterdir()):
                raise IndexStoreError(
                    f"{path} is a non-empty folder without a lateseg manifest; "
                    "choose an empty or new folder for the index"
                )
            if not create or readonly:
                raise IndexStoreError(
                    f"no index at {path}; create it with `lateseg ingest PATH --index {path}`"
                )
        if isinstance(embedder, str):
            enc_cfg = EncoderConfig(model=embedder, device=device)
        elif embedder is not None:
            enc_cfg = embedder
        elif manifest is not None:
            enc_cfg = manifest.embedder
        else:
            enc_cfg = EncoderConfig(device=device)
        if trust_remote_code:
            enc_cfg = dataclasses.replace(enc_cfg, trust_remote_code=True)
        if backend is not None:
            enc_cfg = dataclasses.replace(enc_cfg, backend=backend)
        if manifest is not None and manifest.embedder.model != enc_cfg.model:
            raise IndexStoreError(
                f"{path} was built with embedder {manifest.embedder.model!r}, not "
                f"{enc_cfg.model!r}; open it without an embedder or re-index into a new folder"
            )
        if chunker is None:
            chunker = manifest.chunker if manifest else DynamicChunker()
        elif manifest is not None and chunker.to_dict() != manifest.chunker.to_dict():
            raise IndexStoreError(
                f"{path} was built with chunker {manifest.chunker.to_dict()}; re-index into "
                "a new folder to use another"
            )
        encoder = LateEncoder(enc_cfg)
        if manifest is None:
            manifest = Manifest(enc_cfg, encoder.dim, chunker, vectors or "auto", 2)
            path.mkdir(parents=True, exist_ok=True)
            write_manifest(path, manifest)
        index = Index(path, manifest, writable=not readonly)
        if vectors is not None and vectors != index.policy:
            index.set_policy(vectors)
        return cls(path, encoder, chunker, index, generator or DEFAULT_GENERATOR)

    # -- ingest ------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[str | os.PathLike[str]] | str,
        *,
        progress: bool | None = None,
        password: str | None = None,
        workers: int | None = None,
        walk_config: WalkConfig | None = None,
        prune: bool = False,
        engine: str = "local",
        address: str | None = None,
    ) -> IngestReport:
        """Add or update every supported file under ``paths``.

        Unchanged files (same content hash) are not parsed again; skipped paths (ignored,
        binary, too large, ...) and failed files are reported with their reasons and the
        others go on. Each file is opened once, refusing a symlink swapped in after the
        walk, so what is indexed is what was walked. ``workers`` parse in that many
        processes (None: automatic, 0: none); ``progress`` shows a bar (None: only on a
        terminal). ``prune`` removes the indexed documents under the folders in
        ``paths`` that this walk no longer yields (gone, now a folder, now ignored ...;
        ``report.removed`` with the reasons); a folder that does not exist or cannot be
        listed prunes nothing.

        ``engine="ray"`` parses in Ray tasks and encodes on a pool of Ray actors (one
        model load each, a GPU each where the cluster has them) of the cluster at
        ``address`` (None: a running one, else a local one started for this call); this
        process stays the index's only writer, in file order, so the index is the one
        the local engine builds (``lateseg[ray]``, :mod:`lateseg.scale`).
        """
        runner = make_engine(engine, self.encoder, self.chunker, workers=workers, address=address)
        from tqdm.auto import tqdm

        from lateseg.ingest.folder import walk
        from lateseg.ingest.parallel import ParseJob
        from lateseg.ingest.paths import source_name

        paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        found = walk(paths, walk_config)
        report = IngestReport(skipped=found.skipped, failed=list(found.failed))
        # The writer locks before the known hashes are read: no other writer can change them.
        with self.index.writer() as writer:
            jobs = [
                ParseJob(
                    str(f.path),
                    str(f.root) if f.root else None,
                    self.index.file_hash(source_name(f.path)),
                    password,
                    f.identity,
                )
                for f in found.files
            ]
            results = tqdm(
                runner.run(jobs),
                total=len(jobs),
                desc="ingest",
                unit="file",
                disable=None if progress is None else not progress,
            )
            if prune:
                report.removed = self._prune(found, writer)
            for job, (parsed, encoded) in zip(jobs, results, strict=True):
                if parsed.unchanged:
                    report.unchanged.append(parsed.source)
                    continue
                try:
                    if parsed.doc is None or parsed.digest is None:
                        raise IngestError(parsed.error or "not parsed")
                    if encoded is None or isinstance(encoded, str):  # the engine's error
                        raise IngestError(encoded or "not encoded")
                    chunks, vecs = encoded
                    report.chunks += writer.add(
                        parsed.doc, parsed.digest, chunks, vecs, os.fsencode(job.path)
                    )
                except LatesegError as e:
                    log.warning("failed %s: %s", parsed.source, e)
                    report.failed.append((parsed.source, str(e)))
                    continue
                (report.added if job.known_hash is None else report.updated).append(parsed.source)
        log.info("ingest: %s", report.summary())
        return report

    def _prune(self, found: Walk, writer: Writer) -> list[tuple[str, str]]:
        """Remove the indexed documents under the walked folders that the walk no longer
        yields, with the reason (see :meth:`ingest`)."""
        from lateseg.ingest.folder import why_not_walked

        files = {str(f.path) for f in found.files}
        gone: dict[str, str] = {}
        for source, real in self.index.source_paths():
            p = Path(real)
            if not any(p.is_relative_to(r) for r in found.roots) or real in files:
                continue
            if any(p.is_relative_to(u) for u in found.unlisted):
                continue  # a folder that could not be listed: nothing known about it
            reason = why_not_walked(p, found)
            if reason is not None:
                gone[source] = reason
        writer.remove(list(gone))
        return sorted(gone.items())

    def add_documents(self, docs: Iterable[Document]) -> int:
        """Index documents made in memory (not read from files): each is encoded whole,
        chunked and stored under its ``source``, replacing a document of the same source.
        All or nothing per document. Returns the number of chunks added."""
        added = 0
        with self.index.writer() as writer:
            for doc in docs:
                digest = hashlib.sha256(
                    json.dumps([doc.text, doc.kind, doc.meta], default=str).encode()
                ).hexdigest()
                chunks, vecs = encode_document(self.encoder, self.chunker, doc)
                added += writer.add(doc, digest, chunks, vecs)
        return added

    def remove(self, sources: Iterable[str]) -> list[str]:
        """Remove the documents of these sources (those not indexed are ignored);
        returns the sources removed."""
        with self.index.writer() as writer:
            return writer.remove(list(sources))

    # -- query: delegated to the retriever -------------------------------------------
    @property
    def retriever(self) -> Retriever:
        """Search, expand and look-ups over this index (:class:`Retriever`), with this
        pipeline's encoder for queries."""
        return self._retriever

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
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query`` (:meth:`Retriever.search`)."""
        return self._retriever.search(
            query,
            k,
            mode=mode,
            source=source,
            kind=kind,
            weights=weights,
            include_toc=include_toc,
        )

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
        k: int = 5,
        *,
        extractive: bool = False,
        mode: str = "dense",
        source: str | None = None,
        kind: str | None = None,
        include_toc: bool = False,
        context: int | None = None,
        kv_budget: int | float | None = None,
        kv_method: str | None = None,
        stream: Callable[[str], None] | None = None,
    ) -> Answer:
        """Answer ``question`` from the ``k`` best chunks, citing them.

        ``extractive=True`` quotes the best sentences instead of running the generator;
        ``mode``, ``source``, ``kind`` and ``include_toc`` select the chunks as in
        :meth:`search`;
        ``context`` widens them with their neighbours up to that many characters in all
        (:meth:`expand`). ``kv_budget`` compresses the generator's KV cache after
        prefill to that many tokens (an int) or that share of the prompt (a float in
        (0, 1)) with ``kv_method`` (``lateseg``, the default: whole content-defined
        chunks; ``chunkkv-fixed``, ``snapkv``, ``streaming``, ``full``); the accounting
        is in ``Answer.kv_stats``. ``stream`` receives the answer's text as it is made.
        """
        kv = KVConfig.from_options(kv_budget, kv_method)
        question = clean_text(question)
        hits = self.search(
            question, k, mode=mode, source=source, kind=kind, include_toc=include_toc
        )
        if context is not None:
            hits = self.expand(hits, context)
        if extractive:
            if kv is not None:
                raise ConfigError("kv_budget/kv_method apply to the generator, not --extractive")
            from lateseg.generate.extractive import extractive_answer

            return extractive_answer(question, hits, self.encoder)
        return self.generator.answer(question, hits, self.encoder, kv=kv, stream=stream)

    def ask_many(
        self,
        questions: Sequence[str],
        *,
        document: str | os.PathLike[str] | None = None,
        k: int = 5,
        mode: str = "dense",
        kv_budget: int | float | None = None,
        kv_method: str | None = None,
        stream: Callable[[int, str], None] | None = None,
    ) -> list[Answer]:
        """Answer several questions from one context, prefilled and compressed once.

        The context is the whole of ``document`` (its chunks, numbered, in order) or else
        the union of each question's ``k`` best chunks. The KV cache is compressed without
        knowing the questions (the observation window is the context's end) and truncated
        back after each answer. ``stream(i, text)`` receives question ``i``'s answer as it
        is made.
        """
        kv = KVConfig.from_options(kv_budget, kv_method)
        if document is not None:
            passages = self.document_hits(document)
        else:
            seen: dict[int, Hit] = {}
            for q in questions:
                for h in self.search(q, k, mode=mode):
                    seen.setdefault(h.chunk_id, h)
            passages = list(seen.values())
        if not passages:
            return [Answer(NO_PASSAGE, ()) for _ in questions]
        # A whole document is given uncut (each passage gets up to budget / count
        # characters); retrieved passages within the generator's usual budget.
        whole = len(passages) * max(len(h.text) for h in passages)
        session = self.generator.session(passages, kv, None if document is None else whole)
        return [
            session.answer(
                q, self.encoder, None if stream is None else functools.partial(stream, i)
            )
            for i, q in enumerate(questions)
        ]

    def document_hits(self, source: str | os.PathLike[str]) -> list[Hit]:
        """Every chunk of the document ``source``, in text order (score 1)."""
        return self._retriever.document_hits(source)

    @property
    def generator(self) -> LocalGenerator:
        """The local generator, loaded on first use."""
        if self._generator is None:
            from lateseg.generate.local import LocalGenerator

            self._generator = LocalGenerator(self.generator_name, device=self.encoder.config.device)
        return self._generator

    def document(self, source: str | os.PathLike[str]) -> Document:
        """The stored Document of ``source`` (a path; made absolute)."""
        return self._retriever.document(source)

    def sources(self) -> list[str]:
        return self._retriever.sources()

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
