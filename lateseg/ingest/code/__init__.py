"""Source code: verbatim text with modules, classes, functions and methods as spans
(:mod:`~lateseg.ingest.code.units`: Python by its own parser, other languages by
tree-sitter, :mod:`~lateseg.ingest.code.treesitter`).
"""

from __future__ import annotations

from lateseg._moved import forwarding

# The names this module had before it became a package (issue 61): from units.py.
__getattr__ = forwarding(__name__, "lateseg.ingest.code.units")
