"""Source files: verbatim text; modules, classes, functions and methods as spans.

:func:`code_units` is the entry point: the whole file as a ``module`` span plus its units,
labelled with qualified names (``billing.invoice.Invoice.total``). Python is read with
:mod:`ast` (decorators included); JS/TS/TSX, Go, Rust, Java, C and C++ with tree-sitter
(:mod:`lateseg.ingest.code.treesitter`). Other languages get the ``module`` span only; the
segmenter still splits them at blank lines and statements.
"""

from __future__ import annotations

import ast
import bisect
import logging
import re

from lateseg.ingest.code.treesitter import LANGUAGES, tree_units
from lateseg.types import Span

log = logging.getLogger(__name__)


# Python's tokenizer ends lines at \r\n, \r and \n (not at \f or \u2028, unlike splitlines).
_NEWLINE = re.compile(r"\r\n|\r|\n")
# A top-level line that starts a definition, for salvaging units from a broken file.
_DEF_LINE = re.compile(r"^(?:def|async\s+def|class)\s", re.MULTILINE)
# Fields of statements (and except/case clauses) that hold statements.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
_TOP_DEF = re.compile(r"^(?:@|def\s|async\s+def\s|class\s)", re.MULTILINE)


def code_units(text: str, module: str, language: str) -> list[Span]:
    """The ``module`` span (all of ``text``, labelled ``module``) and the file's classes,
    functions and methods, in document order.

    ``text`` is the verbatim file content and offsets are character offsets into it.
    ``language`` is a value of :data:`lateseg.ingest.formats.CODE_SUFFIXES`; languages
    without a parser get the ``module`` span only. Never raises on bad input: a file
    that does not parse keeps its ``module`` span and whatever units do parse.
    """
    spans = [Span(0, len(text), "module", module)]
    try:
        if language == "python":
            spans += python_units(text, module)
        elif language in LANGUAGES:
            spans += tree_units(text, module, language)
    except Exception as e:  # a parser bug must cost one file its units, not the ingest
        log.warning("%s: %s units not extracted (%s: %s)", module, language, type(e).__name__, e)
    spans.sort(key=lambda s: (s.start, -s.end))
    return spans


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _NEWLINE.finditer(text))]


def python_units(text: str, module: str) -> list[Span]:
    """Spans for classes, functions and methods (async too, decorators included, nested
    ones and those under ``if``/``try``/``with`` too), whole lines, labelled with
    qualified names (``module.Class.method``).

    A file that does not parse as a whole is cut at its top-level definitions and each
    piece that parses alone still yields its units (logged), so one bad line does not
    cost a module all of its structure.
    """
    starts = _line_starts(text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        log.info("%s: not parsed as Python (%s); salvaging top-level units", module, e)
        return _salvage(text, module, starts)
    return _units(tree, text, module, starts, 0)


def _units(tree: ast.AST, text: str, module: str, starts: list[int], line0: int) -> list[Span]:
    """Units of a parsed tree whose line 1 is line ``line0 + 1`` of ``text``."""

    def offset(line: int) -> int:  # 1-based line of the tree -> char offset of its start
        i = line0 + line - 1
        return starts[i] if i < len(starts) else len(text)

    spans: list[Span] = []

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for field in _BLOCKS:  # statements only: expressions hold no definitions
            for child in getattr(node, field, ()):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    start = offset(first)
                    end = offset((child.end_lineno or child.lineno) + 1)
                    while end > start and text[end - 1].isspace():
                        end -= 1
                    name = f"{prefix}.{child.name}" if prefix else child.name
                    if isinstance(child, ast.ClassDef):
                        kind = "class"
                    else:
                        kind = "method" if in_class else "function"
                    spans.append(Span(start, end, kind, name))
                    visit(child, name, isinstance(child, ast.ClassDef))
                else:
                    visit(child, prefix, in_class)  # defs under if/try/with/for/match

    visit(tree, module, False)
    return spans


def _salvage(text: str, module: str, starts: list[int]) -> list[Span]:
    """Units of the top-level pieces of a broken file that parse on their own.

    A piece runs from a column-0 ``def``/``class``/decorator line to the next; pieces of
    only decorators join the next. A piece that fails at a column-0 line (the definition
    ended and broken top-level code follows) is retried up to that line.
    """
    cuts = [bisect.bisect_left(starts, m.start()) for m in _TOP_DEF.finditer(text)]
    spans: list[Span] = []
    first = None
    for i, line in enumerate(cuts):
        first = line if first is None else first
        stop = cuts[i + 1] if i + 1 < len(cuts) else len(starts)
        piece = text[starts[first] : starts[stop] if stop < len(starts) else len(text)]
        tree = _parse_piece(piece)
        if tree is None and i + 1 < len(cuts) and _only_decorators(piece):
            continue  # join the definition that follows
        if tree is not None:
            spans += _units(tree, text, module, starts, first)
        first = None
    return spans


def _only_decorators(piece: str) -> bool:
    return piece.lstrip().startswith("@") and not _DEF_LINE.search(piece)


def _parse_piece(piece: str) -> ast.Module | None:
    try:
        return ast.parse(piece)
    except SyntaxError as e:
        lines = _NEWLINE.split(piece)
        bad = (e.lineno or 0) - 1
        if 0 < bad < len(lines) and lines[bad][:1].strip():
            try:
                return ast.parse("\n".join(lines[:bad]))
            except (SyntaxError, ValueError, RecursionError):
                return None
        return None
    except (ValueError, RecursionError):
        return None
