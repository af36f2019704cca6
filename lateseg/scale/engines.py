"""Ingest engines: what turns files into what the index stores, behind one interface.

An engine takes the parse jobs of one ingest and yields, in job order, each file's
:class:`~lateseg.ingest.parallel.Parsed` and its :data:`Encoded` chunks and vectors (or
the reason it could not be encoded, or None when there was nothing to encode: the file
is unchanged or failed to parse). The caller stays the index's single writer
(:meth:`lateseg.index.Index.writer`), so every engine builds the same index.

* :class:`LocalEngine`: parsing in worker processes, encoding in this process.
* :class:`lateseg.scale.ray_engine.RayIngest`: parsing in Ray tasks, encoding on a pool
  of Ray actors (``pip install 'lateseg[ray]'``).

Both run :func:`encode_document`, so their indexes agree.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from lateseg.errors import ConfigError, IngestError, LatesegError
from lateseg.types import Chunk, Document, check_chunks

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.ingest.parallel import Parsed, ParseJob
    from lateseg.segment import Chunker

ENGINES = ("local", "ray")

#: A document's chunks and their vectors ``[n, dim]``, as the index stores them.
Encoded = tuple[list[Chunk], np.ndarray]
#: What an engine yields per job: the parse result and the encoding, its error, or None.
Outcome = tuple["Parsed", "Encoded | str | None"]


def encode_document(encoder: LateEncoder, chunker: Chunker, doc: Document) -> Encoded:
    """Late encoding of the whole ``doc``, its content-defined chunks, and each chunk's
    vector pooled from the token embeddings: what the index stores for a document."""
    if not doc.text.strip():
        raise IngestError("empty: the file has no text")
    code = doc.kind == "code"
    tokens = encoder.encode_document(doc.text, code=code)
    chunks = list(chunker.chunk(doc, tokens))
    check_chunks(doc, chunks)
    spans = [(c.start, c.end) for c in chunks]
    return chunks, encoder.chunk_vectors(doc.text, tokens, spans, code=code)


def try_encode(encoder: LateEncoder, chunker: Chunker, parsed: Parsed) -> Encoded | str | None:
    """:func:`encode_document` of a parsed file, its error as text (one bad document
    never stops the others), or None when there is nothing to encode."""
    if parsed.doc is None or parsed.unchanged:
        return None
    try:
        return encode_document(encoder, chunker, parsed.doc)
    except LatesegError as e:
        return str(e)
    except Exception as e:
        return f"unexpected {type(e).__name__} while encoding: {e}"


class Engine(Protocol):
    """Parses and encodes the files of one ingest."""

    def run(self, jobs: Sequence[ParseJob]) -> Iterator[Outcome]:
        """Each job's outcome, in job order."""
        ...


class LocalEngine:
    """Parse in ``workers`` processes (None: automatic, 0: none) while this process
    encodes, one document at a time, in file order."""

    def __init__(self, encoder: LateEncoder, chunker: Chunker, workers: int | None = None):
        self.encoder = encoder
        self.chunker = chunker
        self.workers = workers

    def run(self, jobs: Sequence[ParseJob]) -> Iterator[Outcome]:
        from lateseg.ingest.parallel import parse_all

        for parsed in parse_all(jobs, self.workers):
            yield parsed, try_encode(self.encoder, self.chunker, parsed)


def make_engine(
    name: str,
    encoder: LateEncoder,
    chunker: Chunker,
    *,
    workers: int | None = None,
    address: str | None = None,
) -> Engine:
    """The engine called ``name`` (one of :data:`ENGINES`)."""
    if name not in ENGINES:
        raise ConfigError(f"engine={name!r}; choose one of {', '.join(ENGINES)}")
    if address is not None and name != "ray":
        raise ConfigError("address= is for engine='ray'")
    if name == "ray":
        from lateseg.scale.ray_engine import RayIngest

        return RayIngest(encoder.config, chunker, address)
    return LocalEngine(encoder, chunker, workers)
