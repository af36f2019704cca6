"""The import graph of ``lateseg/`` has no cycles: read from the source with ``ast``, every
import counted (at module level, inside functions and under ``TYPE_CHECKING`` alike), so a
cycle hidden behind a lazy import is found too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lateseg"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``lateseg`` that ``name`` imports. ``from pkg import sub`` (a
    submodule) is an import of the submodule, not of the package's ``__init__``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for a in node.names:
                sub = f"{source}.{a.name}"
                found.add(sub if sub in modules else source)
    return {m for m in found if m in modules and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_lateseg_has_no_import_cycles():
    modules = _modules()
    assert len(modules) > 50  # the walk found the package
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert graph["lateseg.scale.ray_engine"]  # imports are read, lazy ones included
    assert _cycles(graph) == []


def test_docs_and_code_cite_nothing_outside_the_repository() -> None:
    """What the code and docs cite is in the repository: no team notes beside it."""
    outside = ("../shared", "DESIGN.md", "MODELS.md", "ANCHORS.md")
    files = [*PACKAGE.rglob("*.py"), ROOT / "README.md", ROOT / "ARCHITECTURE.md"]
    for path in files:
        text = path.read_text(encoding="utf-8")
        found = [o for o in outside if o in text]
        assert not found, f"{path.relative_to(ROOT)} cites {found}"
