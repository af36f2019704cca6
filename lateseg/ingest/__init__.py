"""Ingestion: files in, :class:`~lateseg.types.Document` out.

``load_document(path)`` reads one file by its format (:mod:`lateseg.ingest.formats`);
``iter_files(paths)`` walks folders. Imported lazily: naming the package costs nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WalkConfig", "iter_files", "load_document"]


def __getattr__(name: str) -> Any:
    if name == "load_document":
        from lateseg.ingest.formats import load_document

        return load_document
    if name in ("WalkConfig", "iter_files"):
        from lateseg.ingest import folder

        return getattr(folder, name)
    raise AttributeError(f"module 'lateseg.ingest' has no attribute {name!r}")
