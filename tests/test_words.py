"""``lateseg.text.words`` is the one place text is split into words, the one stop-word
set and the one modal-verb rule; every other module uses it. Checked by behaviour, not by
spelling: every regular expression in ``lateseg/`` is run over a sentence, and one that
splits it into its words (or finds its modal verbs) outside ``words.py`` fails the test,
however it is written."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from lateseg.text import words as W

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lateseg"
HOME = "lateseg.text.words"
PROSE = "the tenant shall pay rent within thirty days of notice and may assign"
PROSE_WORDS = set(PROSE.split())
COMMON = {"the", "a", "an", "and", "of", "to", "in", "or"}
# A regex that splits text at something other than words, with why it is not a tokeniser.
NOT_TOKENISERS = {
    # The letters right before a line-end hyphen: where typesetting split one word.
    ("lateseg.ingest.pdf.text", r"(\S*?)([^\W\d_]+)-"),
    # Identifiers of source code (a declaration's name), not words of prose.
    ("lateseg.ingest.code.treesitter", r"[A-Za-z_]\w*"),
}


# Modules whose dependency lives in an environment of its own (kvpress pins an older
# transformers: requirements/kvpress.txt); skipped where it is not installed (the module
# compiles no pattern and holds no word set: it splits no text).
OWN_ENVIRONMENT = {"lateseg.integrations.kvpress": "kvpress"}


def _imported(name: str):
    if name in OWN_ENVIRONMENT:
        pytest.importorskip(OWN_ENVIRONMENT[name], reason="its own venv: make test-kvpress")
    return importlib.import_module(name)


def _module_names() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] != "__main__":  # runs the command line when imported
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _patterns(name: str) -> list[re.Pattern[str]]:
    """The module's compiled patterns (module level, however they were composed) and the
    literal patterns it passes to ``re`` functions inside its code."""
    module = _imported(name)
    found = [v for v in vars(module).values() if isinstance(v, re.Pattern)]
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            flags = re.IGNORECASE if "IGNORECASE" in ast.unparse(node) else 0
            try:
                found.append(re.compile(node.args[0].value, flags))
            except re.error:
                continue
    return [p for p in found if isinstance(p.pattern, str)]


def _tokenises(p: re.Pattern[str]) -> bool:
    """Whether ``p`` splits plain prose into its words (six or more of them, one a match)."""
    hits = [m.group(0).strip().lower() for m in p.finditer(PROSE)]
    return sum(h in PROSE_WORDS for h in hits) >= 6


def _finds_modals(p: re.Pattern[str]) -> bool:
    hits = {m.group(0).strip().lower() for m in p.finditer(PROSE)}
    return {"shall", "may"} <= hits


@pytest.mark.parametrize("name", _module_names())
def test_no_module_but_words_tokenises_or_finds_modals(name: str) -> None:
    if name == HOME:
        return
    for p in _patterns(name):
        if p in (W.WORD, W.MODAL):
            continue  # imported from words
        if (name, p.pattern) in NOT_TOKENISERS or W.WORD_PATTERN in p.pattern:
            continue  # composed from the one word pattern (with a number grammar first)
        assert not _tokenises(p), f"{name} splits words with its own regex {p.pattern!r}"
        assert not _finds_modals(p), f"{name} has its own modal-verb regex {p.pattern!r}"


@pytest.mark.parametrize("name", _module_names())
def test_no_module_but_words_holds_a_stop_word_set(name: str) -> None:
    if name == HOME:
        return
    module = _imported(name)
    for attr, v in vars(module).items():
        if isinstance(v, (set, frozenset, tuple, list)):
            strings = {s for s in v if isinstance(s, str)}
            if any(v is ours for ours in vars(W).values()) or strings >= W.MINOR_WORDS:
                continue  # words' set, or one built on it ("STOPWORDS | {...}")
            assert len(strings & COMMON) < 4, f"{name}.{attr} is a stop-word set of its own"


def test_the_tests_find_what_they_look_for() -> None:
    """The checks above catch the tokenisers and sets this module replaced."""
    assert _tokenises(re.compile(r"[A-Za-z]+(?:[-'’][A-Za-z]+)*"))
    assert _tokenises(re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*"))
    assert _tokenises(re.compile(r"\w+"))
    assert _finds_modals(re.compile(r"\b(?:shall|must|may|will)\b"))
    assert not _tokenises(re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"))
    assert _tokenises(W.WORD) and _finds_modals(W.MODAL)
    assert len(W.STOPWORDS & COMMON) >= 4 and W.MINOR_WORDS < W.STOPWORDS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Licensee’s non-compete", ["the", "licensee's", "non-compete"]),
        ("x86-64 and IPv4", ["x86-64", "and", "ipv4"]),
        ("sixty (60) days", ["sixty", "60", "days"]),
        ("'quoted' -dash- end-", ["quoted", "dash", "end"]),
        ("Kündigung während", ["kündigung", "während"]),
        ("snake_case", ["snake", "case"]),
        ("", []),
    ],
)
def test_words(text: str, expected: list[str]) -> None:
    assert W.words(text) == expected


@pytest.mark.parametrize(
    ("token", "letters"),
    [("Authorized", True), ("third-party", True), ("x86", False), ("§", False), ("", False)],
)
def test_is_letters(token: str, letters: bool) -> None:
    assert W.is_letters(token) is letters


def test_terms_hold_no_search_syntax() -> None:
    assert W.terms('"Notice" OR (term*) -"x" NEAR/3 ü') == [
        "notice",
        "or",
        "term",
        "x",
        "near",
        "3",
        "ü",
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("json.JSONDecoder.raw_decode", ["json", "json", "decoder", "raw", "decode"]),
        ("parseHTTPResponse2", ["parse", "http", "response", "2"]),
    ],
)
def test_identifier_words(name: str, expected: list[str]) -> None:
    assert W.identifier_words(name) == expected


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("terminate", "termination"),
        ("Terminated", "terminations"),
        ("payments", "payment"),
        ("notices", "notice"),
        ("renewal", "renewed"),
    ],
)
def test_stem_joins_forms(a: str, b: str) -> None:
    assert W.stem(a) == W.stem(b)


@pytest.mark.parametrize(("a", "b"), [("notice", "note"), ("term", "terminate"), ("pay", "day")])
def test_stem_keeps_words_apart(a: str, b: str) -> None:
    assert W.stem(a) != W.stem(b)


@pytest.mark.parametrize(
    ("text", "modal"),
    [
        ("Client may terminate", "may"),
        ("Provider is not required to", "is not required"),
        ("Tenant agrees to pay", "agrees"),
        ("The fee is payable", None),
    ],
)
def test_modal(text: str, modal: str | None) -> None:
    m = W.MODAL.search(text)
    assert (m.group(0) if m else None) == modal
