"""What every chunker is (:class:`Chunker`) and the family's registry (:data:`CHUNKERS`).

A chunker is a class with a ``name`` (the ``type`` its ``to_dict()`` writes), a
``summary`` for ``--help``, ``chunk`` and ``to_dict``, and a ``from_dict`` classmethod
that rebuilds it from its ``to_dict()`` less the ``type`` (read from a manifest: every
field checked); one ``@CHUNKERS.register`` line makes it known to the CLI's ``--chunker``,
to index manifests and to the family's conformance test
(``tests/test_conformance_chunkers.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from lateseg.registry import Registry

if TYPE_CHECKING:
    from lateseg.encode.late import TokenEmbeddings
    from lateseg.types import Chunk, Document


class Chunker(Protocol):
    """Splits a document into ordered, disjoint chunks covering its non-blank text."""

    def chunk(self, doc: Document, tokens: TokenEmbeddings) -> list[Chunk]: ...

    def to_dict(self) -> dict[str, object]: ...


#: The chunkers by name, in registration order (``dynamic``, the default, then ``fixed``).
CHUNKERS: Registry[Chunker] = Registry("chunker", key="type", option="chunker")
register = CHUNKERS.register
