"""Documents named as users name them (issue 62), on real documents nobody here wrote:
titles, short forms, acronyms, a product's name, a folder's name, and what is never a
missing document."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA

from lateseg.answer.scope import HEAD_CHARS, find_scope, profiles
from lateseg.ingest import load_document

REAL = DATA / "real"


@pytest.fixture(scope="module")
def docs():
    files = [
        *sorted((REAL / "legal" / "commonpaper").glob("*.md")),
        *sorted((REAL / "legal" / "mozilla").glob("*.md")),
        REAL / "legal" / "basecamp" / "refund" / "index.md",
        REAL / "legal" / "basecamp" / "terms" / "index.md",
        REAL / "legal" / "basecamp" / "privacy" / "index.md",
        REAL / "manuals" / "debian-faq.pdf",
    ]
    loaded = [load_document(f) for f in files]
    return profiles([(d.source, d.kind, d.meta, d.text[:HEAD_CHARS]) for d in loaded])


def names(scope) -> list[str]:
    assert scope is not None and scope.missing is None, scope
    return sorted(str(Path(s).relative_to(REAL)) for s in scope.sources)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Under the BAA, how long does it stay in effect?", ["legal/commonpaper/BAA.md"]),
        ("What does the CSA say about suspension?", ["legal/commonpaper/CSA.md"]),
        (
            "Which organization runs arbitration under the Pocket terms of service?",
            ["legal/mozilla/pocket_tos.md"],
        ),
        ("How many packages does the Debian FAQ say there are?", ["manuals/debian-faq.pdf"]),
        ("Under the mutual NDA, when is a notice delivered?",
         ["legal/commonpaper/Mutual-NDA-coverpage.md", "legal/commonpaper/Mutual-NDA.md"]),
        ("What does the refund policy say about HEY?", ["legal/basecamp/refund/index.md"]),
    ],
)  # fmt: skip
def test_a_named_document_is_found(docs, question, expected):
    assert names(find_scope(question, docs)) == expected


def test_a_title_said_in_full_names_the_documents_of_that_title(docs):
    scope = find_scope("Does the Privacy Policy cover cookies?", docs)
    found = names(scope)
    assert "legal/basecamp/privacy/index.md" in found
    titled = {p.source for p in docs if p.title.lower() == "privacy policy"}
    assert set(scope.sources) == titled  # each so titled, and no "… Privacy Notice"


def test_a_products_name_in_capitals_scopes_to_its_documents(docs):
    found = names(find_scope("Can a 16-year-old use Formulaic?", docs))
    assert found and all("formulaic" in f for f in found)
    assert len(found) == len(list((REAL / "legal" / "mozilla").glob("formulaic*.md")))


def test_a_name_every_document_shares_names_none(docs):
    assert find_scope("Will Mozilla tell me if a government asks for my data?", docs) is None


@pytest.mark.parametrize(
    "question",
    [
        "Does the GDPR apply to the processor?",  # a law, not a document of the index
        "How long is the written notice period before termination?",
        "What are the terms of payment?",
        "Where is the PDF version?",
    ],
)
def test_phrases_that_name_no_document_are_never_reported_missing(docs, question):
    scope = find_scope(question, docs)
    assert scope is None or scope.missing is None, scope


def test_generic_words_first_words_and_two_letter_acronyms_name_nothing():
    """A review of issue 62's rules: "the agreement" never names the document titled
    "AGREEMENT"; a question's first word is no product name ("Security deposits" is not
    the "Security Overview"); "the US" is no acronym of "Usage Statistics"."""
    rows = [
        ("/d/a.md", "markdown", {}, "AGREEMENT\n\nThe parties agree."),
        ("/d/terms.md", "markdown", {"title": "Terms"}, "Terms\n\nYou agree."),
        ("/d/sec.md", "markdown", {"title": "Security Overview"}, "Security Overview\n\nWe."),
        ("/d/pay.md", "markdown", {"title": "Payment Terms"}, "Payment Terms\n\nPay."),
        ("/d/us.md", "markdown", {"title": "Usage Statistics"}, "Usage Statistics\n\nUse."),
        *[(f"/d/o{i}.md", "markdown", {"title": f"Other {i}"}, "Other\n\nText.") for i in range(5)],
    ]
    docs = profiles(rows)
    for question in (
        "What does the agreement say about termination?",
        "What are the terms of payment?",
        "Security deposits: how much are they?",
        "Payment is due within how many days?",
        "Does the US government get my data?",
    ):
        scope = find_scope(question, docs)
        assert scope is None or not scope.sources, (question, scope)
    # and a product's name inside the sentence still names its documents
    assert names_of(find_scope("How is my data kept under Security Overview rules?", docs)) == [
        "/d/sec.md"
    ]


def names_of(scope) -> list[str]:
    assert scope is not None and scope.missing is None, scope
    return sorted(scope.sources)
