"""No module of ``lateseg/`` runs over 500 lines: a longer one is split by concern, unless
its docstring says why it is one concern (a sentence starting "One concern:")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lateseg"
MAX_LINES = 500
EXCUSE = "One concern:"


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_a_module_is_at_most_500_lines_or_says_why_it_is_one_concern(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    lines = len(source.splitlines())
    if lines <= MAX_LINES:
        return
    doc = ast.get_docstring(ast.parse(source)) or ""
    assert EXCUSE in doc, (
        f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES}): split it by "
        f'concern, or say in its docstring why it is one ("{EXCUSE} ...")'
    )
