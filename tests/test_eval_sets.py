"""Checks of the public evaluation sets in ``data/eval`` (offline, stdlib only)."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "data" / "eval"
LICENSES = Path("/usr/share/common-licenses")
LICENSES_QA = EVAL / "licenses_qa.jsonl"
STDLIB_CODE = EVAL / "stdlib_code.jsonl"
MANUALS_QA = EVAL / "manuals_qa.jsonl"


def load_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def load_script(name: str = "make_stdlib_set") -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EVAL / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not LICENSES.is_dir(), reason=f"{LICENSES} is missing")
def test_licenses_gold_spans_are_exact_and_unique() -> None:
    records = load_jsonl(LICENSES_QA)
    assert len(records) == 30
    assert len({r["id"] for r in records}) == len(records)
    assert len({r["source"] for r in records}) >= 6
    check = load_script("check_sample_qa")
    for r in records:
        assert set(r) == {"id", "question", "source", "start", "end", "gold", "answer"}
        text = (LICENSES / str(r["source"])).read_text(encoding="utf-8")
        gold = str(r["gold"])
        assert text[int(r["start"]) : int(r["end"])] == gold, r["id"]  # type: ignore[call-overload]
        assert text.count(gold) == 1, r["id"]
        assert 40 <= len(gold) <= 400, r["id"]
        assert str(r["question"]).lower() not in gold.lower(), r["id"]
        assert check.answer_problems(r["answer"], gold) == [], r["id"]
    assert sum(r["answer"] is not None for r in records) >= 5


def test_answer_values_are_normalised_and_checked() -> None:
    check = load_script("check_sample_qa")
    raw = "  Sixty\u00a0(60)\n Days\u2019 \u201cNotice\u201d \u2014 AES\u2011256 "
    assert check.normalise_answer(raw) == 'sixty (60) days\' "notice" - aes-256'
    gold = "upon sixty (60) days' prior written notice"
    assert check.answer_problems(None, gold) == []
    assert check.answer_problems("Sixty (60)  DAYS", gold) == []
    assert check.answer_problems(["60 days", "sixty (60) days"], gold) == []
    assert check.answer_problems(["60 days"], gold) != []  # no form occurs in the gold
    for bad in ([], "", [" "], [60], {"days": 60}, ["60 days", "60  Days", "sixty (60) days"]):
        assert check.answer_problems(bad, gold) != [], bad


def test_contract_sets_pass_their_check(capsys: pytest.CaptureFixture[str]) -> None:
    """sample_qa.jsonl and contracts_qa.jsonl: gold spans in the Markdown and the PDFs,
    answer values in the gold, ids and questions unique, counts (check_sample_qa.py)."""
    pytest.importorskip("pymupdf")
    check = load_script("check_sample_qa")
    status = check.main()
    out = capsys.readouterr().out
    assert status == 0, "\n".join(line for line in out.splitlines() if ": ok (" not in line)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if sys.version_info[:2] != (3, 11):
        pytest.skip("the stdlib set is built from the Python 3.11 standard library")
    tmp = tmp_path_factory.mktemp("stdlib_set")
    out, jsonl = tmp / "nodoc", tmp / "stdlib_code.jsonl"
    assert load_script().main(["--out", str(out), "--jsonl", str(jsonl)]) == 0
    return out, jsonl


def test_stdlib_set_is_reproducible(generated: tuple[Path, Path]) -> None:
    _, jsonl = generated
    assert jsonl.read_bytes() == STDLIB_CODE.read_bytes()
    records = load_jsonl(STDLIB_CODE)
    assert len(records) == 100
    assert [r["id"] for r in records] == [f"code-{i:03d}" for i in range(1, 101)]
    assert all(r["python"] == "3.11" for r in records)
    assert len({r["question"] for r in records}) == 100
    assert len({(r["source"], r["qualname"]) for r in records}) == 100


def function_spans(text: str, tree: ast.Module) -> dict[tuple[int, int], ast.AST]:
    """Map (start, end) of every function (first decorator/def to end of last line) to it."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    spans: dict[tuple[int, int], ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
            last = (node.end_lineno or node.lineno) - 1
            indent = len(lines[first]) - len(lines[first].lstrip())
            spans[(offsets[first] + indent, offsets[last] + len(lines[last]))] = node
    return spans


def test_stdlib_spans_point_at_undocumented_functions(generated: tuple[Path, Path]) -> None:
    out, _ = generated
    parsed: dict[str, tuple[str, dict[tuple[int, int], ast.AST]]] = {}
    for r in load_jsonl(STDLIB_CODE):
        source = str(r["source"])
        if source not in parsed:
            text = (out / source).read_bytes().decode("utf-8")
            parsed[source] = (text, function_spans(text, ast.parse(text)))
        text, spans = parsed[source]
        start, end = int(r["start"]), int(r["end"])  # type: ignore[call-overload]
        span = text[start:end]
        assert span.startswith(("def ", "async def ", "@")), r["id"]
        node = spans.get((start, end))
        assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef), r["id"]
        assert node.name == str(r["qualname"]).rsplit(".", 1)[-1], r["id"]
        assert ast.get_docstring(node) is None, r["id"]
        assert str(r["question"])[:30] not in span, r["id"]


def drop_docstrings(tree: ast.Module) -> ast.Module:
    """Remove docstrings from the tree itself (a body left empty gets ``pass``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            while (
                node.body
                and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)
                and isinstance(node.body[0].value.value, str)
            ):
                node.body.pop(0)
            if not node.body and not isinstance(node, ast.Module):
                node.body = [ast.Pass()]
    return tree


def test_stripped_copies_only_lose_docstrings(generated: tuple[Path, Path]) -> None:
    out, _ = generated
    base = Path(load_script().stdlib_dir())
    for path in sorted(out.rglob("*.py")):
        original = (base / path.relative_to(out)).read_bytes().decode("utf-8")
        stripped = path.read_bytes().decode("utf-8")
        expected = ast.dump(drop_docstrings(ast.parse(original)))
        assert ast.dump(ast.parse(stripped)) == expected, path


def test_stripped_copies_have_no_docstrings(generated: tuple[Path, Path]) -> None:
    out, _ = generated
    files = sorted(out.rglob("*.py"))
    assert 20 <= len(files) <= 40
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for path in files:
        tree = ast.parse(path.read_bytes().decode("utf-8"))
        docs = [n for n in ast.walk(tree) if isinstance(n, kinds) and ast.get_docstring(n)]
        assert not docs, path
    assert Counter(r["source"] for r in load_jsonl(STDLIB_CODE)).keys() <= {
        path.relative_to(out).as_posix() for path in files
    }


def test_manuals_set_gold_pages_are_cut_by_machine() -> None:
    """Every gold sentence occurs once in its PDF, on the page the record names (as
    PyMuPDF extracts it, independently of lateseg), under a clause path that exists."""
    check = load_script("check_manuals_qa")
    release = check.release_problems()
    if release:
        pytest.skip("; ".join(release))
    records = check.read_records(MANUALS_QA)
    assert 30 <= len(records) <= 40
    assert Counter(r["source"] for r in records).keys() == {"policy.pdf", "fhs-3.0.pdf"}
    problems, recut = check.check(records)
    assert problems == []
    assert recut == records
