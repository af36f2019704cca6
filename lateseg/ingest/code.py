"""Source files: verbatim text; Python modules, classes, functions and methods as spans.

Other languages are ingested verbatim without units (the segmenter still splits them at
blank lines and statements); per-language parsers are planned (issue 3).
"""

from __future__ import annotations

import ast
import logging

from lateseg.types import Span

log = logging.getLogger(__name__)

CODE_SUFFIXES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".scala": "scala",
    ".swift": "swift",
    ".sh": "shell",
    ".sql": "sql",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".cfg": "ini",
    ".ini": "ini",
}


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def python_units(text: str, module: str) -> list[Span]:
    """Spans for classes, functions and methods (decorators included), whole lines,
    labelled with qualified names (``module.Class.method``).

    A file that does not parse yields no units (logged) rather than an error: it is
    still indexed as text.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as e:
        log.info("%s: not parsed as Python (%s); indexed without units", module, e)
        return []
    starts = _line_starts(text)

    def offset(line: int) -> int:  # 1-based line -> char offset of its start
        return starts[line - 1] if line - 1 < len(starts) else len(text)

    spans: list[Span] = []

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                end_line = child.end_lineno or child.lineno
                start = offset(first)
                end = offset(end_line + 1) if end_line < len(starts) else len(text)
                end = start + len(text[start:end].rstrip())
                name = f"{prefix}.{child.name}" if prefix else child.name
                if isinstance(child, ast.ClassDef):
                    kind = "class"
                else:
                    kind = "method" if in_class else "function"
                spans.append(Span(start, end, kind, name))
                visit(child, name, isinstance(child, ast.ClassDef))

    visit(tree, module, False)
    return spans
