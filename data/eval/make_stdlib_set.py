"""Build the docstring -> function code-search set over part of the Python stdlib.

Run from the repository root (standard library only)::

    python data/eval/make_stdlib_set.py                  # writes both outputs
    python data/eval/make_stdlib_set.py --out DIR --jsonl PATH
    python data/eval/make_stdlib_set.py --holdout        # the held-out set (below)

The script reads a fixed list of standard-library files (``MODULES`` below,
taken from ``sysconfig.get_paths()["stdlib"]``) and, for each one:

1. writes a copy with *all* docstrings removed (module, class, function and
   method docstrings, found with :mod:`ast`) into ``--out`` (default
   ``.cache/eval/stdlib_nodoc/``), mirroring the relative path, for example
   ``json/decoder.py``. A docstring that fills whole lines is deleted with its
   lines; a docstring that is the only statement of its body is replaced by
   ``pass`` at the same indentation; a docstring that shares a line with other
   code is replaced in place by ``pass``. The copy is checked with
   :func:`ast.parse`, and removal is repeated until no docstring is left.
2. collects every module-level function and class method (nested classes
   included, functions inside functions excluded) whose original docstring has
   a first paragraph of at least ``MIN_QUESTION`` characters.

Candidates whose question or ``(source, qualname)`` is not unique are dropped;
the rest are sorted by ``(source, qualname)`` and ``COUNT`` of them are picked
at evenly spaced positions. Each becomes one line of the JSONL file (default
``data/eval/stdlib_code.jsonl``)::

    {"id": "code-001", "question": ..., "source": "json/decoder.py",
     "qualname": "JSONDecoder.raw_decode", "start": ..., "end": ..., "python": "3.11"}

``question`` is the first paragraph of the original (cleaned) docstring with
whitespace collapsed. ``start``/``end`` are character offsets into the
stripped copy, decoded as UTF-8 with newlines left untranslated
(``path.read_bytes().decode("utf-8")``): ``start`` is the first character of
the first decorator (``@``) or of ``def``/``async def``, ``end`` is the end of
the function's last line (before its newline). ``python`` is the
``major.minor`` version of the interpreter that built the set; the committed
file was built with Python 3.11 and only reproduces byte for byte with it.

``--holdout`` builds the same kind of set from other modules (``HOLDOUT_MODULES``) into
``.cache/eval/stdlib_holdout_nodoc/`` and ``data/eval/stdlib_holdout.jsonl``: questions
kept apart from development, on which a retrieval change tuned on the first set is
checked before it becomes a default (``bench/retrieval.py --sets stdlib_holdout``).

Everything is deterministic: running the script twice gives identical files.
It exits with status 1 if any check fails.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_OUT = ROOT / ".cache" / "eval" / "stdlib_nodoc"
DEFAULT_JSONL = ROOT / "data" / "eval" / "stdlib_code.jsonl"

# Files (relative to the stdlib directory); a trailing "/" means every .py file
# directly inside that package.
MODULES: tuple[str, ...] = (
    "json/",
    "http/",
    "urllib/",
    "email/message.py",
    "email/utils.py",
    "email/header.py",
    "email/feedparser.py",
    "csv.py",
    "textwrap.py",
    "shlex.py",
    "ftplib.py",
    "calendar.py",
    "fractions.py",
    "configparser.py",
    "difflib.py",
    "string.py",
    "gettext.py",
)
# The held-out set: none of these is in MODULES.
HOLDOUT_MODULES: tuple[str, ...] = (
    "logging/",
    "argparse.py",
    "pathlib.py",
    "zipfile.py",
    "tarfile.py",
    "smtplib.py",
    "imaplib.py",
    "mailbox.py",
    "pprint.py",
    "shutil.py",
    "tempfile.py",
    "plistlib.py",
    "cmd.py",
    "bdb.py",
    "sched.py",
    "queue.py",
    "wave.py",
    "netrc.py",
)
HOLDOUT_OUT = ROOT / ".cache" / "eval" / "stdlib_holdout_nodoc"
HOLDOUT_JSONL = ROOT / "data" / "eval" / "stdlib_holdout.jsonl"
COUNT = 100
MIN_QUESTION = 40

FuncNode = ast.FunctionDef | ast.AsyncFunctionDef
DocNode = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Candidate:
    source: str
    qualname: str
    question: str


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def module_files(base: Path, modules: tuple[str, ...] = MODULES) -> list[str]:
    """Expand ``modules`` to a sorted list of relative ``.py`` paths."""
    files: set[str] = set()
    for entry in modules:
        if entry.endswith("/"):
            for path in (base / entry).glob("*.py"):
                files.add(path.relative_to(base).as_posix())
        else:
            files.add(entry)
    return sorted(files)


def read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only (as the tokenizer does), keeping the line ends."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def docstring_expr(node: DocNode) -> ast.Expr | None:
    """The docstring statement of ``node``, or None (same rule as ast.get_docstring)."""
    if not node.body:
        return None
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def doc_nodes(tree: ast.Module) -> list[DocNode]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def char_col(line: str, byte_col: int) -> int:
    """Convert an ast UTF-8 byte column to a character column."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8"))


def strip_once(text: str) -> tuple[str, int]:
    """Remove every docstring found in ``text``; return the new text and how many."""
    tree = ast.parse(text)
    lines = split_lines(text)
    # Edits as (first_line, last_line, replacement) on 0-based line indexes;
    # docstrings never overlap, so applying them bottom-up keeps indexes valid.
    edits: list[tuple[int, int, list[str]]] = []
    for node in doc_nodes(tree):
        expr = docstring_expr(node)
        if expr is None:
            continue
        assert expr.end_lineno is not None and expr.end_col_offset is not None
        first, last = expr.lineno - 1, expr.end_lineno - 1
        start_col = char_col(lines[first], expr.col_offset)
        end_col = char_col(lines[last], expr.end_col_offset)
        prefix = lines[first][:start_col]
        suffix = lines[last][end_col:]
        only_stmt = len(node.body) == 1 and not isinstance(node, ast.Module)
        whole_lines = not prefix.strip() and (not suffix.strip() or suffix.lstrip()[0] == "#")
        if whole_lines:
            replacement = [prefix + "pass" + suffix] if only_stmt else []
        else:
            replacement = [prefix + "pass" + suffix]
        edits.append((first, last, replacement))
    for first, last, replacement in sorted(edits, reverse=True):
        lines[first : last + 1] = replacement
    return "".join(lines), len(edits)


def strip_docstrings(text: str) -> str:
    """Remove docstrings until none is left (a later string can become one)."""
    for _ in range(10):
        text, removed = strip_once(text)
        if not removed:
            break
    tree = ast.parse(text)
    left = [node for node in doc_nodes(tree) if docstring_expr(node) is not None]
    if left:
        raise ValueError(f"{len(left)} docstrings left after stripping")
    return text


def functions(tree: ast.Module) -> list[tuple[str, FuncNode]]:
    """Module-level functions and class methods (nested classes too), with qualnames."""
    found: list[tuple[str, FuncNode]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((prefix + stmt.name, stmt))
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt.body, prefix + stmt.name + ".")
            elif isinstance(stmt, ast.If | ast.Try):
                # Definitions under "if"/"try" at the same level keep their qualname.
                for block in (stmt.body, stmt.orelse, getattr(stmt, "finalbody", [])):
                    visit(block, prefix)
                for handler in getattr(stmt, "handlers", []):
                    visit(handler.body, prefix)

    visit(tree.body, "")
    return found


def first_paragraph(doc: str) -> str:
    paragraph = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]
    return " ".join(paragraph.split())


def function_span(text: str, node: FuncNode) -> tuple[int, int]:
    """Character span from the first decorator/``def`` to the end of the last line."""
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    first_line = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
    assert node.end_lineno is not None
    last_line = node.end_lineno - 1
    line = lines[first_line]
    start = offsets[first_line] + len(line) - len(line.lstrip())
    end = offsets[last_line] + len(lines[last_line].rstrip("\n"))
    return start, end


def build(out_dir: Path, modules: tuple[str, ...] = MODULES) -> list[dict[str, object]]:
    """Write the stripped copies of ``modules`` into ``out_dir`` and return the JSONL
    records."""
    base = stdlib_dir()
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    candidates: list[Candidate] = []
    stripped: dict[str, str] = {}
    for rel in module_files(base, modules):
        original = read_text(base / rel)
        text = strip_docstrings(original)
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
        stripped[rel] = text
        for qualname, node in functions(ast.parse(original)):
            doc = ast.get_docstring(node, clean=True)
            if doc is None:
                continue
            question = first_paragraph(doc)
            if len(question) >= MIN_QUESTION:
                candidates.append(Candidate(rel, qualname, question))

    questions = [c.question for c in candidates]
    names = [(c.source, c.qualname) for c in candidates]
    unique = [
        c
        for c in candidates
        if questions.count(c.question) == 1 and names.count((c.source, c.qualname)) == 1
    ]
    unique.sort(key=lambda c: (c.source, c.qualname))
    if len(unique) < COUNT:
        raise ValueError(f"only {len(unique)} candidates, need {COUNT}")
    chosen = [unique[i * len(unique) // COUNT] for i in range(COUNT)]

    records: list[dict[str, object]] = []
    trees: dict[str, dict[str, FuncNode]] = {}
    for number, cand in enumerate(chosen, start=1):
        text = stripped[cand.source]
        if cand.source not in trees:
            trees[cand.source] = dict(functions(ast.parse(text)))
        node = trees[cand.source][cand.qualname]
        start, end = function_span(text, node)
        span = text[start:end]
        if not span.startswith(("def ", "async def ", "@")):
            raise ValueError(f"{cand.source}:{cand.qualname}: span starts with {span[:20]!r}")
        if f"def {node.name}(" not in span:
            raise ValueError(f"{cand.source}:{cand.qualname}: span lacks its def line")
        if ast.get_docstring(node) is not None:
            raise ValueError(f"{cand.source}:{cand.qualname}: docstring left")
        records.append(
            {
                "id": f"code-{number:03d}",
                "question": cand.question,
                "source": cand.source,
                "qualname": cand.qualname,
                "start": start,
                "end": end,
                "python": version,
            }
        )
    return records


def write_jsonl(records: list[dict[str, object]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.write_bytes(body.encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="folder for stripped copies")
    parser.add_argument("--jsonl", type=Path, default=None, help="JSONL file to write")
    parser.add_argument(
        "--holdout", action="store_true", help="the held-out set (HOLDOUT_MODULES) instead"
    )
    args = parser.parse_args(argv)
    modules = HOLDOUT_MODULES if args.holdout else MODULES
    args.out = args.out or (HOLDOUT_OUT if args.holdout else DEFAULT_OUT)
    args.jsonl = args.jsonl or (HOLDOUT_JSONL if args.holdout else DEFAULT_JSONL)
    try:
        records = build(args.out, modules)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    write_jsonl(records, args.jsonl)
    print(f"wrote {len(records)} records to {args.jsonl} and stripped copies to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
