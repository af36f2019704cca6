"""Structure of contracts: the clause tree, definitions, recitals, signature and exhibits
(:mod:`~lateseg.ingest.contract.clauses`), and the text below the clause tree
(:mod:`~lateseg.ingest.contract.terms`).
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    """The names this module had before it became a package (issue 61), from
    :mod:`lateseg.ingest.contract.clauses`."""
    import importlib

    module = importlib.import_module("lateseg.ingest.contract.clauses")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
