"""Contract structure on the sample contracts (Markdown and PDF text) and on traps."""

from __future__ import annotations

import functools
import re

import pytest
from conftest import DATA, squash

from lateseg.ingest.contract.clauses import clause_spans, contract_structure, definition_spans
from lateseg.ingest.pdf.reader import read_pdf
from lateseg.types import Span

NAMES = ["msa", "nda", "lease", "saas"]

# The expected clauses, read from the Markdown sources with plain line regexes.
_ARTICLE_MD = re.compile(r"## ARTICLE (\d+) (.+)")
_EXHIBIT_MD = re.compile(r"## EXHIBIT ([A-Z]) (.+)")
_SECTION_MD = re.compile(r'(\d+\.\d+) (?:\*\*(.+?)\.\*\*|"(.+?)")')
_NUMBERED_MD = re.compile(r"(?:\*\*(\d+)\. (.+?)\.\*\*|(\d+)\. )")
_LETTER_MD = re.compile(r"\(([a-z])\) ")


def _source(name: str) -> str:
    return (DATA / "sources" / "contracts" / f"{name}.md").read_text("utf-8")


@functools.cache
def _text(name: str, kind: str) -> str:
    if kind == "md":
        return _source(name)
    return read_pdf(DATA / "contracts" / f"{name}.pdf")[0]


@functools.cache
def _structure(name: str, kind: str) -> tuple[Span, ...]:
    return tuple(contract_structure(_text(name, kind)))


def _spans(name: str, kind: str, span_kind: str) -> list[Span]:
    return [s for s in _structure(name, kind) if s.kind == span_kind]


def _expected_clauses(md: str) -> list[tuple[list[str], str, str | None]]:
    """(parent labels, number, title or None) for every numbered clause of the source."""
    expected: list[tuple[list[str], str, str | None]] = []
    root: list[str] = []  # the article or exhibit
    section: list[str] = []
    for line in md.splitlines():
        if m := _ARTICLE_MD.fullmatch(line):
            root, section = [f"{m.group(1)} {m.group(2)}"], []
            expected.append(([], m.group(1), m.group(2)))
        elif m := _EXHIBIT_MD.fullmatch(line):
            root, section = [f"Exhibit {m.group(1)} {m.group(2)}"], []
        elif line.startswith("IN WITNESS"):
            root, section = [], []
        elif (m := _SECTION_MD.match(line)) and root:
            section = [f"{m.group(1)} {m.group(2) or m.group(3)}"]
            expected.append((root, m.group(1), m.group(2) or m.group(3)))
        elif (m := _NUMBERED_MD.match(line)) and root and root[0].startswith("Exhibit"):
            section = [f"{m.group(1)} {m.group(2)}"] if m.group(1) else []
            expected.append((root, m.group(1) or m.group(3), m.group(2)))
        elif (m := _LETTER_MD.match(line)) and root:
            expected.append((root + section, f"({m.group(1)})", None))
    return expected


def _matches(label: str, parents: list[str], number: str, title: str | None) -> bool:
    *got_parents, last = label.lower().split(" > ")
    if got_parents != [p.lower() for p in parents]:
        return False
    if title is not None:
        return last == f"{number} {title}".lower()
    return last == number or last.startswith(number + " ")


@pytest.mark.parametrize("kind", ["md", "pdf"])
@pytest.mark.parametrize("name", NAMES)
def test_every_numbered_clause_is_found_with_its_path(name, kind):
    expected = _expected_clauses(_source(name))
    assert len(expected) > 40
    labels = [s.label for s in _spans(name, kind, "clause")]
    assert len(labels) == len(expected), (labels, expected)
    for label, (parents, number, title) in zip(labels, expected, strict=True):
        assert _matches(label, parents, number, title), (label, parents, number, title)


@pytest.mark.parametrize("kind", ["md", "pdf"])
@pytest.mark.parametrize("name", NAMES)
def test_clauses_nest_and_end_where_the_next_one_starts(name, kind):
    text = _text(name, kind)
    clauses = _spans(name, kind, "clause")
    signature = _spans(name, kind, "signature")[0]
    for i, c in enumerate(clauses):
        number = c.label.split(" > ")[-1].split(" ")[0]
        head = text[c.start : c.end].lstrip("#* ").removeprefix("ARTICLE ")
        assert head.startswith(number), c
        assert not text[c.start : c.end].endswith((" ", "\n")), c
        assert "Page " not in text[c.start : c.end][-20:], c  # footers are trimmed
        assert not (c.start < signature.start < c.end), c
        for later in clauses[i + 1 :]:
            if later.label.startswith(c.label + " > "):
                assert later.end <= c.end, (c, later)  # children lie inside
            else:
                assert c.end <= later.start, (c, later)  # siblings and uncles follow


@pytest.mark.parametrize("kind", ["md", "pdf"])
def test_termination_for_convenience_holds_its_text_only(kind):
    text = _text("msa", kind)
    (span,) = [
        s
        for s in _spans("msa", kind, "clause")
        if s.label.endswith("5.2 Termination for Convenience")
    ]
    assert span.label == "5 Term and Termination > 5.2 Termination for Convenience"
    body = squash(text[span.start : span.end])
    assert "sixty (60) days' prior written notice" in body
    assert "5.3" not in body and body.endswith("then in progress.")


@pytest.mark.parametrize("kind", ["md", "pdf"])
@pytest.mark.parametrize("name", NAMES)
def test_defined_terms_are_extracted(name, kind):
    source, text = _source(name), _text(name, kind)
    terms = set(re.findall(r'"([^"]+)" means', source))
    assert terms
    definitions = _spans(name, kind, "definition")
    labels = {s.label for s in definitions}
    assert terms <= labels, terms - labels
    assert {"Effective Date" if name != "lease" else "Lease Date"} <= labels  # (the "...")
    for d in definitions:
        assert f'"{d.label}"' in squash(text[d.start : d.end]), d


@pytest.mark.parametrize("kind", ["md", "pdf"])
def test_a_definition_clause_is_defined_by_the_whole_clause(kind):
    text = _text("msa", kind)
    (affiliate,) = [s for s in _spans("msa", kind, "definition") if s.label == "Affiliate"]
    body = squash(text[affiliate.start : affiliate.end])
    assert body.startswith('"Affiliate" means') and body.endswith("interests of the entity.")
    (initial,) = [s for s in _spans("msa", kind, "definition") if s.label == "Initial Term"]
    assert squash(text[initial.start : initial.end]).startswith("This Agreement begins")


@pytest.mark.parametrize("kind", ["md", "pdf"])
@pytest.mark.parametrize("name", NAMES)
def test_recitals_signature_and_exhibits_are_found(name, kind):
    source, text = _source(name), _text(name, kind)
    whereas = [p for p in source.split("\n\n") if p.startswith("WHEREAS")]
    recitals = _spans(name, kind, "recital")
    assert [squash(text[r.start : r.end]) for r in recitals] == [squash(p) for p in whereas]
    assert [r.label for r in recitals] == [f"Recital {i}" for i in range(1, len(whereas) + 1)]

    (signature,) = _spans(name, kind, "signature")
    block = text[signature.start : signature.end]
    names = re.findall(r"^Name: (.+)$", source, re.MULTILINE)
    last_line = [line for line in source.split("## EXHIBIT")[0].splitlines() if line][-1]
    assert block.startswith("IN WITNESS WHEREOF") and block.count("By:") == 2
    assert len(names) == 2 and all(n in block for n in names)
    assert squash(block).endswith(squash(last_line))

    exhibits = _spans(name, kind, "exhibit")
    heads = re.findall(r"^## EXHIBIT ([A-Z]) (.+)$", source, re.MULTILINE)
    assert [e.label.lower() for e in exhibits] == [f"exhibit {x} {t}".lower() for x, t in heads]
    assert signature.end <= exhibits[0].start
    for e, nxt in zip(exhibits, [*exhibits[1:], None], strict=True):
        assert text[e.start : e.end].lstrip("# ").startswith("EXHIBIT")
        assert nxt is None or e.end <= nxt.start


def test_structure_moves_with_the_text():
    """Prepending a paragraph shifts every span by its length (no absolute positions)."""
    text = _source("msa")
    prefix = "Cover note for the file.\n\n"
    moved = contract_structure(prefix + text)
    assert moved == [
        Span(s.start + len(prefix), s.end + len(prefix), s.kind, s.label)
        for s in contract_structure(text)
    ]


def test_windows_line_endings_give_the_same_structure():
    text = _source("nda")
    crlf = text.replace("\n", "\r\n")
    assert [(s.kind, s.label) for s in contract_structure(crlf)] == [
        (s.kind, s.label) for s in _structure("nda", "md")
    ]


def test_hierarchy_styles_and_roman_subitems():
    text = (
        "ARTICLE XII\nTERMINATION\n\n"
        "Section 12.1 Termination for Cause. Either party may terminate:\n\n"
        "(a) on breach;\n\n(b) on insolvency, where:\n\n"
        "(i) a petition is filed; or\n\n(ii) a receiver is appointed;\n\n"
        "(c) on change of control; and\n\n(d) otherwise; or\n\n(e) e; (f) f\n\n"
        "(f) f;\n\n(g) g;\n\n(h) h;\n\n(i) the ninth letter item.\n\n"
        "Section 12.2 Effect. Nothing survives.\n\n"
        "12.2(a) First effect.\n\n12.2(b) Second effect.\n"
    )
    labels = [s.label for s in clause_spans(text)]
    art = "12 Termination"
    sec = f"{art} > 12.1 Termination for Cause"
    assert labels == [
        art, sec, f"{sec} > (a)", f"{sec} > (b)", f"{sec} > (b) > (i)", f"{sec} > (b) > (ii)",
        f"{sec} > (c)", f"{sec} > (d)", f"{sec} > (e)", f"{sec} > (f)", f"{sec} > (g)",
        f"{sec} > (h)", f"{sec} > (i)", f"{art} > 12.2 Effect", f"{art} > 12.2 Effect > 12.2(a)",
        f"{art} > 12.2 Effect > 12.2(b)",
    ]  # fmt: skip


def test_numbers_amounts_dates_and_wrapped_lines_are_not_clauses():
    text = (
        "ARTICLE 4 FEES\n"
        "4.1 Fees. Client shall pay the fee of\n"
        "$1,000.00 per month, due on March 3,\n"
        "2025. The fee may rise to\n"
        "1,250.50 dollars and up to\n"
        "4.7 percent per year as set out in\n"
        "Article 7. Any dispute under this\n"
        "Section 4.1 is heard by the court, and the records (a) show the amount,\n"
        "(b) show the date, and\n"
        "12 months of history are kept.\n\n\n"
        "                                       Page 2 of 9\n\n"
        "4.2 Taxes. Client pays taxes.\n"
        "IN WITNESS WHEREOF, the parties sign.\n"
        "1. Name: A\nBy: ____________\n"
        "SCHEDULE 1 FEE TABLE\n"
        "1. Base fee: $100.\n2. Extra fee: $10.\n"
        "- Item 3 of the list\n"
    )
    spans = contract_structure(text)
    clauses = [(s.label, text[s.start : s.end]) for s in spans if s.kind == "clause"]
    assert [label for label, _ in clauses] == [
        "4 Fees", "4 Fees > 4.1 Fees", "4 Fees > 4.2 Taxes",
        "Schedule 1 Fee Table > 1 Base fee", "Schedule 1 Fee Table > 2 Extra fee",
    ]  # fmt: skip
    assert clauses[1][1].endswith("are kept.")  # the page footer is trimmed off
    assert clauses[2][1] == "4.2 Taxes. Client pays taxes."
    (signature,) = [s for s in spans if s.kind == "signature"]
    assert text[signature.start : signature.end].endswith("By: ____________")
    (schedule,) = [s for s in spans if s.kind == "exhibit"]
    assert schedule.label == "Schedule 1 Fee Table"


def test_definitions_in_their_usual_forms():
    text = (
        "This Lease (the “Lease”) is made between A and B (each a “Party” and together "
        "the “Parties”).\n\n"
        "“Premises” shall mean Suite 100. It excludes the roof.\n\n"
        '"Rent" has the meaning given in Section 4, payable by Tenant Inc. monthly.\n\n'
        '"Term" or "Lease Term" means five years.\n\n'
        'The marking "Confidential" and the phrase "AS IS" define nothing.\n'
    )
    spans = definition_spans(text)
    got = {s.label: text[s.start : s.end] for s in spans}
    assert set(got) == {"Lease", "Party", "Parties", "Premises", "Rent", "Term", "Lease Term"}
    assert got["Lease"] == "This Lease (the “Lease”)"
    assert got["Premises"] == "“Premises” shall mean Suite 100."
    assert got["Rent"].endswith("payable by Tenant Inc. monthly.")
    assert got["Lease Term"] == '"Term" or "Lease Term" means five years.'


def test_text_without_contract_structure_gives_nothing():
    assert contract_structure("") == []
    assert contract_structure("Just a note. Nothing numbered here.\n\n2025 was a year.") == []


def test_referred_to_term_at_the_very_end_of_a_text():
    """A ``referred to as "X"`` with no sentence end after it used to index past the text."""
    from lateseg.ingest.contract.clauses import definition_spans

    text = 'Acme Inc. (referred to as "Acme")'
    spans = definition_spans(text)
    assert [s.label for s in spans] == ["Acme"]
    assert all(0 <= s.start < s.end <= len(text) for s in spans)
