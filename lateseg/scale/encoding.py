"""Encoding parsed documents into what the index stores: chunks and their vectors, the
same for every engine (:mod:`lateseg.scale.engines`) and for documents added directly
(:meth:`lateseg.pipeline.Pipeline.add_documents`), so their indexes agree.

Documents are encoded a round at a time (:func:`encode_documents`): their windows and
chunk texts share forward batches; a document that fails alone is encoded alone, so one
bad file costs only itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lateseg.encode.fields import chunk_fields
from lateseg.errors import IngestError, LatesegError
from lateseg.types import Chunk, Document, check_chunks

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder, TokenEmbeddings
    from lateseg.ingest.parallel import Parsed
    from lateseg.segment import Chunker

#: A document's chunks and their vectors ``[n, dim]``, as the index stores them.
Encoded = tuple[list[Chunk], np.ndarray]


@dataclass(frozen=True)
class Written:
    """A document an engine's worker wrote into the index itself (a store with concurrent
    writers): how many chunks it wrote."""

    chunks: int


#: What an engine yields per job: the parse result and the encoding (or what a worker
#: wrote), its error, or None.
Outcome = tuple["Parsed", "Encoded | Written | str | None"]
EMPTY = "empty: the file has no text"


def encode_document(encoder: LateEncoder, chunker: Chunker, doc: Document) -> Encoded:
    """Late encoding of the whole ``doc``, its content-defined chunks, and each chunk's
    vector pooled from the token embeddings: what the index stores for a document."""
    if not doc.text.strip():
        raise IngestError(EMPTY)
    code = doc.kind == "code"
    tokens = encoder.encode_document(doc.text, code=code)
    chunks = _chunks(chunker, doc, tokens)
    spans = [(c.start, c.end) for c in chunks]
    fields = chunk_fields(doc, chunks)
    return chunks, encoder.chunk_vectors(doc.text, tokens, spans, code=code, fields=fields)


def _chunks(chunker: Chunker, doc: Document, tokens: TokenEmbeddings) -> list[Chunk]:
    """The chunker's chunks of ``doc``, checked against the document (ARCHITECTURE.md,
    Invariants)."""
    chunks = list(chunker.chunk(doc, tokens))
    check_chunks(doc, chunks)
    return chunks


def encode_documents(
    encoder: LateEncoder, chunker: Chunker, docs: Sequence[Document]
) -> list[Encoded | str]:
    """:func:`encode_document` of each of ``docs``, or its error as text, with the
    encoder's windows and the chunks' own embeddings batched across all of them (each
    document gets what it gets alone, to float rounding)."""
    out: list[Encoded | str] = [""] * len(docs)
    live = []
    for i, doc in enumerate(docs):
        if doc.text.strip():
            live.append(i)
        else:
            out[i] = EMPTY
    if not live:  # nothing to encode: the model is not even loaded
        return out
    try:
        tokens = encoder.encode_documents([(docs[i].text, docs[i].kind == "code") for i in live])
    except Exception:  # tell which document it was: one at a time
        for i in live:
            out[i] = _alone(encoder, chunker, docs[i])
        return out
    chunked = []
    for i, tok in zip(live, tokens, strict=True):
        try:
            chunks = _chunks(chunker, docs[i], tok)
        except Exception as e:
            out[i] = _reason(e)
            continue
        chunked.append((i, tok, chunks))
    items = [
        (docs[i].text, tok, [(c.start, c.end) for c in chunks], docs[i].kind == "code")
        for i, tok, chunks in chunked
    ]
    fields = [chunk_fields(docs[i], chunks) for i, _, chunks in chunked]
    try:
        vectors = encoder.chunk_vectors_many(items, fields)
    except Exception:
        for i, _, _ in chunked:
            out[i] = _alone(encoder, chunker, docs[i])
        return out
    for (i, _, chunks), vecs in zip(chunked, vectors, strict=True):
        out[i] = (chunks, vecs)
    return out


def _reason(e: Exception) -> str:
    if isinstance(e, LatesegError):
        return str(e)
    return f"unexpected {type(e).__name__} while encoding: {e}"


def _alone(encoder: LateEncoder, chunker: Chunker, doc: Document) -> Encoded | str:
    """:func:`encode_document`, or its error as text."""
    try:
        return encode_document(encoder, chunker, doc)
    except Exception as e:
        return _reason(e)


def encode_parsed(
    encoder: LateEncoder, chunker: Chunker, batch: Sequence[Parsed]
) -> list[Encoded | str | None]:
    """Per parsed file: its chunks and vectors, its error as text, or None when there is
    nothing to encode (unchanged, or not parsed); the documents encoded together
    (:func:`encode_documents`)."""
    todo = [i for i, p in enumerate(batch) if p.doc is not None and not p.unchanged]
    out: list[Encoded | str | None] = [None] * len(batch)
    docs = [batch[i].doc for i in todo]
    for i, result in zip(todo, encode_documents(encoder, chunker, docs), strict=True):  # type: ignore[arg-type]
        out[i] = result
    return out
