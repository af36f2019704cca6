"""Tables of contents and indexes hold no clauses; section labels read as a person
would write them (no dot leaders, no page numbers), on made-up texts and on two real
manuals (the Debian Policy Manual and FHS 3.0, ``make testdata``)."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import DATA, ROOT

from lateseg.ingest import load_document
from lateseg.ingest.contract.clauses import contract_structure
from lateseg.ingest.toc import toc_spans, toc_titles

TESTDATA = ROOT / ".cache" / "testdata"
POLICY, FHS = TESTDATA / "policy.pdf", TESTDATA / "fhs-3.0.pdf"
LEADERS = re.compile(r"\.\s?\.\s?\.")
# A label part that is a numbered title ending in a page number: "3.1 Purpose 12".
PAGE_TAIL = re.compile(r"^\S+\s.*\S\s+\d{1,4}$")

BOOK = """Master Services Agreement

Table of Contents

1. Definitions ........................ 1
2. Services ........................... 2
2.1 Scope of Services .................. 2
2.2 Service Levels and Credits for the Services
Provided ............................... 3
3. Fees ............................... 4

1. Definitions

1.1 "Affiliate" means any entity that controls a party.

2. Services

2.1 Scope of Services

The Provider shall provide the Services.

2.2 Service Levels and Credits for the Services
Provided

The Provider shall meet the service levels.

3. Fees

3.1 The Client shall pay the fees within 30 days.
"""


def _labels(text: str) -> dict[str, tuple[int, int]]:
    return {s.label: (s.start, s.end) for s in contract_structure(text) if s.kind == "clause"}


def test_a_table_of_contents_is_a_toc_span_and_holds_no_clause():
    spans = toc_spans(BOOK)
    assert len(spans) == 1 and spans[0].label == "contents"
    toc = BOOK[spans[0].start : spans[0].end]
    assert toc.startswith("Table of Contents") and toc.endswith(
        "3. Fees ............................... 4"
    )
    labels = _labels(BOOK)
    assert labels and all(start >= spans[0].end for start, _ in labels.values())
    assert not any(LEADERS.search(label) for label in labels)
    fees = BOOK.index("3. Fees\n\n3.1")
    assert labels["3 Fees"] == (fees, len(BOOK.rstrip()))
    # the heading wrapped over two lines is named as the body writes it, confirmed by the toc
    assert "2 Services > 2.2 Service Levels and Credits for the Services Provided" in labels
    assert toc_titles(BOOK, spans)["2.2"] == "Service Levels and Credits for the Services Provided"


def _numbers(label: str) -> tuple[str, ...]:
    return tuple(part.split(" ")[0] for part in label.split(" > "))


def test_without_its_contents_the_clause_tree_is_the_same():
    """The clauses of the body do not depend on whether a table of contents precedes it
    (only a wrapped title is named whole when the contents confirm it)."""
    at = BOOK.index("1. Definitions\n\n1.1")
    with_toc = {
        (_numbers(label), start - at, end - at) for label, (start, end) in _labels(BOOK).items()
    }
    alone = {(_numbers(label), start, end) for label, (start, end) in _labels(BOOK[at:]).items()}
    assert with_toc == alone


@pytest.mark.parametrize(
    "text",
    [
        # a numbered list of amounts: page-like numbers that do not rise
        "Fees\n\n1 Setup fee 5000\n2 Monthly fee 1200\n3 Support fee 800\n4 Travel 300\n",
        # a schedule of payments: rising numbers, but only three of them
        "1 First instalment 10\n2 Second instalment 20\n3 Third instalment 30\n",
        # prose that ends lines in numbers
        "The term is 12 months and the fee is 100\nper month for up to 5\nusers, rising to 7\n",
        # an ellipsis in a sentence is no leader
        "Wait... then continue.\nAnd so on... to the end.\nMore text... here.\n",
    ],
    ids=["amounts", "three-entries", "prose", "ellipses"],
)
def test_lists_and_prose_are_not_tables_of_contents(text):
    assert toc_spans(text) == []


def test_an_index_at_the_back_is_a_toc_span():
    text = (
        "1. Scope\n\nThis standard applies to everything.\n\nINDEX\n\nA\nagreement, 3, 7\n"
        "arbitration, 12\n\nB\nbreach, 4–5\nbilling\ninvoices, 9\n"
    )
    (span,) = toc_spans(text)
    assert span.label == "index" and text[span.start :].startswith("INDEX")
    assert text[span.start : span.end].endswith("invoices, 9")


def _real(path):
    if not path.exists():
        pytest.skip(f"{path} is missing; run `make testdata` (needs apt-get download)")
    return load_document(path)


def _check_labels(doc) -> None:
    sections = doc.spans("clause", "heading")
    assert sections
    for s in sections:
        for part in s.label.split(" > "):
            assert not LEADERS.search(part), s.label
            assert not PAGE_TAIL.match(part) or re.search(r"\d+\.\d+(\.\d+)*$", part), s.label


@pytest.mark.slow
@pytest.mark.parametrize("path", [POLICY, FHS], ids=["policy", "fhs"])
def test_real_manuals_have_their_contents_as_toc_and_no_giant_clause(path):
    """No clause covers more than 10 % of the text unless it is made of subsections (FHS
    chapter 3 is 30 % of FHS, its § 4.11 /usr/share 13 %); chapters run exactly from
    their heading to the next chapter's."""
    doc = _real(path)
    n = len(doc.text)
    toc = doc.spans("toc")
    assert toc and toc[0].label == "contents" and toc[0].start < 0.1 * n
    clauses = doc.spans("clause")
    assert all(c.start >= toc[0].end for c in clauses)
    chapters = [c for c in clauses if " > " not in c.label]
    assert len(chapters) >= 6
    for c in clauses:
        if c.end - c.start > 0.1 * n:  # only a chapter or section made of subsections
            inner = [d for d in clauses if d.label.startswith(c.label + " > ")]
            assert len(inner) >= 2 and inner[0].start - c.start < 0.02 * n, c.label
            assert all(c.start <= d.start and d.end <= c.end for d in inner), c.label
    for a, b in itertools.pairwise(chapters):
        assert not doc.text[a.end : b.start].strip()  # a chapter ends where the next begins
    _check_labels(doc)


@pytest.mark.slow
def test_policy_sections_sit_under_their_chapters():
    doc = _real(POLICY)
    labels = {s.label for s in doc.spans("clause")}
    assert "1 About this Manual > 1.1 Scope" in labels
    assert "9 The Operating System > 9.2 Users and groups > 9.2.2 UID and GID classes" in labels
    assert "23 License" in labels
    assert "6 Package Maintainer Scripts and Installation Procedure" in labels  # wrapped
    index = [s for s in doc.spans("toc") if s.label == "index"]
    assert index and doc.text[index[0].start :].startswith("INDEX")
    assert not any(c.end > index[0].start for c in doc.spans("clause"))


def test_fhs_headings_that_wrap_are_named_whole():
    doc = _real(FHS)
    labels = {s.label.split(" > ")[-1] for s in doc.spans("clause")}
    assert "5.15 /var/tmp : Temporary files preserved between system reboots" in labels
    assert "3.4 /bin : Essential user command binaries (for use by all users)" in labels
    assert "5.15.1 Purpose" in labels


@pytest.mark.parametrize("pdf", sorted((DATA / "contracts").glob("*.pdf")), ids=lambda p: p.stem)
def test_sample_contract_labels_are_clean(pdf):
    doc = load_document(pdf)
    assert doc.spans("toc") == []
    _check_labels(doc)
