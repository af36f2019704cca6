"""The architecture as the folders show it (issue 61), checked from the source: which
package may import which (every import counted, at module level, inside functions and
under ``TYPE_CHECKING`` alike, as tests/test_import_graph.py counts them), no folder
grown past :data:`MAX_MODULES` modules (the next split is a folder, not a prefix), and
the old module paths of the reorganisation still importable."""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest
from test_import_graph import PACKAGE, ROOT, _imports, _modules

from lateseg._moved import MOVED

MAX_MODULES = 15

#: package -> what no module in it may import (a prefix: the package and its modules).
FORBIDDEN = {
    # storage only: nothing that encodes, chunks, parses files, ranks or answers
    "lateseg.index": (
        "lateseg.encode.late", "lateseg.encode.models", "lateseg.segment", "lateseg.ingest",
        "lateseg.retrieve", "lateseg.open_index", "lateseg.answer", "lateseg.check",
        "lateseg.generate", "lateseg.kv", "lateseg.ask", "lateseg.pipeline",
    ),
    # question analysis and quoting: no model code, no generation, no storage
    "lateseg.answer": (
        "lateseg.encode", "lateseg.generate", "lateseg.check", "lateseg.kv", "lateseg.index",
        "lateseg.ingest", "lateseg.retrieve", "lateseg.ask", "lateseg.pipeline",
    ),
    # the support check runs no generator and reads no storage
    "lateseg.check": (
        "lateseg.encode", "lateseg.generate", "lateseg.kv", "lateseg.index", "lateseg.ingest",
        "lateseg.retrieve", "lateseg.ask", "lateseg.pipeline",
    ),
    # generation is asked by the orchestration, never the other way
    "lateseg.generate": ("lateseg.ask", "lateseg.pipeline", "lateseg.ingest", "lateseg.index"),
    "lateseg.retrieve": ("lateseg.answer", "lateseg.generate", "lateseg.ask", "lateseg.pipeline"),
    "lateseg.ingest": (
        "lateseg.index", "lateseg.retrieve", "lateseg.answer", "lateseg.check",
        "lateseg.generate", "lateseg.ask", "lateseg.pipeline",
    ),
}  # fmt: skip
#: Third-party packages that load or run models: none of these in answer/ or check/.
MODEL_PACKAGES = ("torch", "transformers", "openvino", "onnxruntime", "sentence_transformers")


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _third_party(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    return out


def _violations(package: str) -> list[str]:
    modules = _modules()
    broken = []
    for name, path in sorted(modules.items()):
        if not _within(name, package):
            continue
        for dep in sorted(_imports(name, path, modules)):
            if any(_within(dep, f) for f in FORBIDDEN[package]):
                broken.append(f"{name} imports {dep}")
    return broken


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_only_what_its_layer_allows(package):
    broken = _violations(package)
    assert not broken, f"{package} may not import {FORBIDDEN[package]}:\n" + "\n".join(broken)


@pytest.mark.parametrize("package", ["lateseg.answer", "lateseg.check"])
def test_no_model_code_runs_in_answer_or_check(package):
    modules = _modules()
    found = {
        name: sorted(_third_party(path) & set(MODEL_PACKAGES))
        for name, path in modules.items()
        if _within(name, package)
    }
    assert not {k: v for k, v in found.items() if v}


def test_the_rule_finds_a_forbidden_import(tmp_path, monkeypatch):
    """The check can fail: a module of answer/ that imports generation is reported."""
    import test_import_graph

    (tmp_path / "lateseg" / "answer").mkdir(parents=True)
    (tmp_path / "lateseg" / "answer" / "__init__.py").write_text("")
    (tmp_path / "lateseg" / "__init__.py").write_text("")
    (tmp_path / "lateseg" / "answer" / "bad.py").write_text(
        "def f():\n    from lateseg.generate.local import LocalGenerator\n"
    )
    (tmp_path / "lateseg" / "generate").mkdir()
    (tmp_path / "lateseg" / "generate" / "__init__.py").write_text("")
    (tmp_path / "lateseg" / "generate" / "local.py").write_text("")
    monkeypatch.setattr(test_import_graph, "ROOT", tmp_path)
    monkeypatch.setattr(test_import_graph, "PACKAGE", tmp_path / "lateseg")
    assert _violations("lateseg.answer") == ["lateseg.answer.bad imports lateseg.generate.local"]


def _folders() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists())


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_folder_holds_more_than_15_modules(folder):
    modules = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
    assert len(modules) <= MAX_MODULES, (
        f"{folder.relative_to(ROOT)} holds {len(modules)} modules (at most {MAX_MODULES}): "
        f"split it into subfolders by concern: {', '.join(modules)}"
    )


def test_every_package_says_what_it_owns():
    """Each package's ``__init__`` has a docstring (what it owns, what it may import)."""
    missing = [
        str(p.relative_to(ROOT))
        for folder in _folders()
        if not ast.get_docstring(ast.parse((p := folder / "__init__.py").read_text("utf-8")))
    ]
    assert not missing


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_imports_the_new_module_and_names_it(old):
    new = MOVED[old]
    for name in [n for n in sys.modules if n == old]:
        del sys.modules[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert any(new in str(w.message) and w.category is DeprecationWarning for w in caught)


def test_an_unknown_old_path_is_still_not_found():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("lateseg.generate.no_such_module")


def test_read_bounded_reads_at_most_its_limit(tmp_path):
    from lateseg.validate import read_bounded

    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_bounded(path, 10) == (b"x" * 10, False)
    assert read_bounded(path, 4) == (b"xxxx", True)
    # a file with no end is still read in bounded time and memory
    assert read_bounded("/dev/zero", 1024) == (b"\0" * 1024, True)
    with pytest.raises(OSError):
        read_bounded(tmp_path / "missing", 10)


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("lateseg.ingest.ocr", "check_mode"),
        ("lateseg.ingest.pdf", "read_pdf"),
        ("lateseg.ingest.code", "code_units"),
        ("lateseg.ingest.contract", "contract_structure"),
        ("lateseg.generate.remote", "RemoteLLM"),
        ("lateseg.generate.remote", "SERVER_TOKENIZER"),
    ],
)
def test_a_module_become_a_package_still_gives_its_names(package, name):
    """``lateseg.ingest.pdf`` was one module: its names come from the module that holds
    them now, and a name it never had is still an AttributeError."""
    module = importlib.import_module(package)
    assert getattr(module, name) is getattr(importlib.import_module(module.__name__), name)
    assert getattr(module, name) is not None
    with pytest.raises(AttributeError, match="no attribute"):
        module.no_such_name  # noqa: B018
