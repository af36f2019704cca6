"""Ingest engines: what turns files into what the index stores, behind one interface.

An engine takes the parse jobs of one ingest and yields, in job order, each file's
:class:`~lateseg.ingest.parallel.Parsed` and its :data:`Encoded` chunks and vectors (or
the reason it could not be encoded, or None when there was nothing to encode: the file
is unchanged or failed to parse). The caller stays the index's single writer
(:meth:`lateseg.index.Index.writer`), so every engine builds the same index.

* :class:`LocalEngine`: parsing in worker processes, encoding in this process.
* :class:`lateseg.scale.ray_engine.RayIngest`: parsing in Ray tasks, encoding on a pool
  of Ray actors (``pip install 'lateseg[ray]'``).

They are the registry :data:`ENGINES`: a member is a class with a ``name``, a ``summary``
and a ``start`` classmethod that makes the engine for one ingest (:class:`EngineKind`);
one ``@ENGINES.register`` line makes it known to ``make_engine``, ``--engine`` and the
family's conformance test (``tests/test_conformance_engines.py``).

Both run :func:`lateseg.scale.encoding.encode_document`, so their indexes agree; its
names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, ClassVar, Protocol

from lateseg.errors import ConfigError
from lateseg.registry import Registry
from lateseg.scale.encoding import (
    EMPTY,
    Encoded,
    Outcome,
    Written,
    encode_document,
    encode_documents,
    encode_parsed,
)

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.ingest.parallel import Parsed, ParseJob
    from lateseg.segment import Chunker

__all__ = [
    "CHARS_PER_TOKEN", "EMPTY", "ENGINES", "ROUND_BATCHES", "Encoded", "Engine", "EngineKind",
    "LocalEngine", "Outcome", "RayEngine", "Written", "encode_document", "encode_documents",
    "encode_parsed", "make_engine",
]  # fmt: skip

# A round of documents encoded together holds about this many forward batches of text
# (at about CHARS_PER_TOKEN characters a token): enough to fill the batches, little
# enough that the writer is not kept waiting.
ROUND_BATCHES = 4
CHARS_PER_TOKEN = 4


class Engine(Protocol):
    """Parses and encodes the files of one ingest."""

    def run(self, jobs: Sequence[ParseJob]) -> Iterator[Outcome]:
        """Each job's outcome, in job order."""
        ...


class EngineKind(Protocol):
    """A member of :data:`ENGINES`: its ``name`` (``--engine``), a ``summary`` for
    ``--help``, whether it joins a cluster at an ``address`` (``clustered``), and how it
    starts the engine of one ingest."""

    name: ClassVar[str]
    summary: ClassVar[str]
    clustered: ClassVar[bool]

    @classmethod
    def start(
        cls,
        encoder: LateEncoder,
        chunker: Chunker,
        *,
        workers: int | None = None,
        address: str | None = None,
        store_url: str | None = None,
    ) -> Engine:
        """The engine: ``workers`` (None: automatic), ``address`` (a cluster's, for an
        engine that has one), ``store_url`` (a server's index that the engine's workers may
        write into themselves)."""
        ...


ENGINES: Registry[EngineKind] = Registry("engine", key="engine", option="engine")


@ENGINES.register
class LocalEngine:
    """Parse in ``workers`` processes (None: automatic, 0: none) while this process
    encodes, in file order, a round of documents at a time: about
    :data:`ROUND_BATCHES` forward batches' worth of text, whose windows and chunk
    texts share batches (:func:`encode_documents`)."""

    name: ClassVar[str] = "local"
    summary: ClassVar[str] = "parse in worker processes, encode in this one (the default)"
    clustered: ClassVar[bool] = False

    @classmethod
    def start(
        cls,
        encoder: LateEncoder,
        chunker: Chunker,
        *,
        workers: int | None = None,
        address: str | None = None,
        store_url: str | None = None,
    ) -> Engine:
        return cls(encoder, chunker, workers)

    def __init__(self, encoder: LateEncoder, chunker: Chunker, workers: int | None = None):
        self.encoder = encoder
        self.chunker = chunker
        self.workers = workers

    def run(self, jobs: Sequence[ParseJob]) -> Iterator[Outcome]:
        from lateseg.ingest.parallel import parse_all

        limit = 0  # known once a document needs encoding (it loads the model)
        pending: list[Parsed] = []
        size = 0
        for parsed in parse_all(jobs, self.workers):
            pending.append(parsed)
            if parsed.doc is None or parsed.unchanged:
                continue
            limit = limit or ROUND_BATCHES * CHARS_PER_TOKEN * self.encoder.batch_tokens
            size += len(parsed.doc.text)
            if size >= limit:
                yield from self._round(pending)
                pending, size = [], 0
        yield from self._round(pending)

    def _round(self, batch: list[Parsed]) -> Iterator[Outcome]:
        yield from zip(batch, encode_parsed(self.encoder, self.chunker, batch), strict=True)


@ENGINES.register
class RayEngine:
    """Starts :class:`lateseg.scale.ray_engine.RayIngest`, whose module is imported only
    then (and Ray only when it runs): ``workers`` is its number of encoder actors."""

    name: ClassVar[str] = "ray"
    summary: ClassVar[str] = "parse and encode on a Ray cluster (lateseg[ray])"
    clustered: ClassVar[bool] = True

    @classmethod
    def start(
        cls,
        encoder: LateEncoder,
        chunker: Chunker,
        *,
        workers: int | None = None,
        address: str | None = None,
        store_url: str | None = None,
    ) -> Engine:
        from lateseg.scale.ray_engine import RayIngest

        return RayIngest(
            encoder.config, chunker, address, actors=workers or None, store_url=store_url
        )


def make_engine(
    name: str,
    encoder: LateEncoder,
    chunker: Chunker,
    *,
    workers: int | None = None,
    address: str | None = None,
    store_url: str | None = None,
) -> Engine:
    """The engine called ``name`` (one of :data:`ENGINES`); ``store_url``: a server's
    index that Ray's workers write into themselves."""
    kind = engine_kind(name, address)
    return kind.start(encoder, chunker, workers=workers, address=address, store_url=store_url)


def engine_kind(name: object, address: str | None = None) -> type[EngineKind]:
    """The engine called ``name``, checked with the ``address`` it is given: only an
    engine that joins a cluster takes one. The one check of both, for
    :func:`make_engine` and :class:`~lateseg.options.IngestOptions`."""
    kind = ENGINES.get_class(name)
    if address is not None and not getattr(kind, "clustered", False):
        takers = " or ".join(repr(n) for n, k in ENGINES.items() if getattr(k, "clustered", False))
        raise ConfigError(f"address= is for engine={takers}")
    return kind
