"""The index stores by name (:data:`STORES`): where an index's documents, chunks and
vectors live, and which locations each opens.

* ``sqlite``: a ``docstore.sqlite`` file in the index folder (any location no other
  store claims: a folder).
* ``postgres``: a PostgreSQL server (a ``postgresql://`` or ``postgres://`` URL), shared
  by many writers and machines; its vector cache lives in a folder on each machine.

A member is a small class with a ``name``, a ``summary``, ``in_folder`` (the store lives
in the index folder, else elsewhere, with the vector cache in a local folder), ``opens``
(whether a location is its) and ``open`` (the :class:`~lateseg.index.base.Store`, with
the same ``writable``/``create`` flags everywhere). The stores' modules are imported
when a store is opened, so registering one imports no driver (psycopg stays unloaded
until a ``postgresql://`` index is opened). The family's conformance test is
``tests/test_conformance_stores.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar, Protocol

from lateseg.index.base import Store
from lateseg.registry import Registry

#: The store of any location no other member opens (a folder).
DEFAULT_STORE = "sqlite"


class StoreKind(Protocol):
    """A member of :data:`STORES`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    #: The store is a file in the index folder (else the location names it elsewhere,
    #: and the index keeps its vector cache in a folder of this machine's).
    in_folder: ClassVar[bool]

    @classmethod
    def opens(cls, location: object) -> bool:
        """Whether ``location`` (a folder, a URL) is one of this store's."""
        ...

    @classmethod
    def open(
        cls, location: str | os.PathLike[str], *, writable: bool = True, create: bool = True
    ) -> Store:
        """The store at ``location``: read-only unless ``writable``; an index not there
        yet is made only when ``create`` (and ``writable``)."""
        ...


STORES: Registry[StoreKind] = Registry("store", key="type", option="store")
register = STORES.register


@register
class SqliteStore:
    """:class:`lateseg.index.sqlite.store.DocStore` in the index folder."""

    name: ClassVar[str] = "sqlite"
    summary: ClassVar[str] = "a SQLite file in the index folder (the default)"
    in_folder: ClassVar[bool] = True

    @classmethod
    def opens(cls, location: object) -> bool:
        return isinstance(location, str | os.PathLike)

    @classmethod
    def open(
        cls, location: str | os.PathLike[str], *, writable: bool = True, create: bool = True
    ) -> Store:
        from lateseg.index.sqlite.store import DocStore

        return DocStore(Path(location) / "docstore.sqlite", writable=writable)


@register
class PostgresStore:
    """:class:`lateseg.index.postgres.PgStore` on the server a URL names."""

    name: ClassVar[str] = "postgres"
    summary: ClassVar[str] = "a PostgreSQL server (postgresql:// URL), many writers"
    in_folder: ClassVar[bool] = False

    @classmethod
    def opens(cls, location: object) -> bool:
        from lateseg.index.postgres.schema import is_store_url

        return is_store_url(location)

    @classmethod
    def open(
        cls, location: str | os.PathLike[str], *, writable: bool = True, create: bool = True
    ) -> Store:
        from lateseg.index.postgres import PgStore

        return PgStore(str(location), writable=writable, create=create)


def store_for(location: object) -> type[StoreKind]:
    """The store that opens ``location``: the first member other than
    :data:`DEFAULT_STORE` that says it does, else the default (a folder)."""
    for name, kind in STORES.items():
        if name != DEFAULT_STORE and kind.opens(location):
            return kind
    return STORES[DEFAULT_STORE]


def is_folder(location: object) -> bool:
    """Whether ``location`` names an index folder (the default store's), not a location
    another registered store opens (a ``postgresql://`` URL …)."""
    return store_for(location).in_folder


def open_store(
    location: str | os.PathLike[str], *, writable: bool = True, create: bool = True
) -> Store:
    """The store at ``location`` (:func:`store_for`), opened."""
    return store_for(location).open(location, writable=writable, create=create)
