"""Structure of contracts: the clause tree, definitions, recitals, signature and exhibits
(:mod:`~lateseg.ingest.contract.clauses`), and the text below the clause tree
(:mod:`~lateseg.ingest.contract.terms`).
"""

from __future__ import annotations

from lateseg._moved import forwarding

# The names this module had before it became a package (issue 61): from clauses.py.
__getattr__ = forwarding(__name__, "lateseg.ingest.contract.clauses")
