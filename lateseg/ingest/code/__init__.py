"""Source code: verbatim text with modules, classes, functions and methods as spans
(:mod:`~lateseg.ingest.code.units`: Python by its own parser, other languages by
tree-sitter, :mod:`~lateseg.ingest.code.treesitter`).
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    """The names this module had before it became a package (issue 61), from
    :mod:`lateseg.ingest.code.units`."""
    import importlib

    module = importlib.import_module("lateseg.ingest.code.units")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
