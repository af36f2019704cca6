"""Markdown as its reader sees it (issue 62): front matter, headings, lists, links,
tables, code fences, kramdown attributes; and the real documents that showed each
defect (``data/real``: 37signals' policies, Common Paper's agreements, Mozilla's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA

from lateseg.ingest import load_document
from lateseg.ingest.markdown import MAX_FRONT_MATTER, front_matter, render

REAL = DATA / "real" / "legal"


def test_front_matter_is_metadata_and_never_text():
    text, _, meta = render(
        "---\ntitle: Terms of Service\nversions:\n  fpt: '*'\ntags: [a, b]\n---\n\n"
        "# Terms\n\nYou agree.\n"
    )
    assert meta["title"] == "Terms of Service" and meta["tags"] == "a, b"
    assert "versions" not in text and "fpt" not in text and "---" not in text
    assert text.startswith("Terms\n\nYou agree.")


def test_the_first_heading_names_a_document_without_front_matter():
    assert render("Intro line.\n\n# Cloud Service Agreement\n\nText.\n")[2]["title"] == (
        "Cloud Service Agreement"
    )


@pytest.mark.parametrize(
    "head",
    [
        "---\ntitle: [unclosed\n---\n",  # YAML that does not parse
        "---\ntitle: " + "[" * 5000 + "\n---\n",  # nesting past any parser's depth
        "+++\ntitle = 'broken\n+++\n",  # TOML that does not parse
    ],
)
def test_front_matter_that_does_not_parse_is_dropped_not_indexed(head):
    text, _, meta = render(head + "Body text.\n")
    assert text == "Body text." and "title" not in meta


@pytest.mark.parametrize(
    "source",
    [
        "---\nIntro paragraph.\n\nSection\n---\n\nBody text.\n",  # a rule, then prose
        "---\n- a list, not fields\n---\n\nBody text.\n",
        "---\n" + "[" * 5000 + "\n---\n\nBody text.\n",
    ],
)
def test_a_rule_opening_a_file_is_no_front_matter_and_loses_nothing(source):
    text, _, meta = render(source)
    assert text.endswith("Body text.") and len(text) > len("Body text.") and not meta


def test_deep_nesting_and_code_braces_lose_no_text():
    """Past markdown-it's default nesting limit (20) its renderer dropped the rest of the
    file; kramdown's attribute lists are stripped outside code only."""
    deep = "".join("  " * i + f"- item {i}\n" for i in range(30)) + "\nAfter.\n\n# End\n\nLast.\n"
    assert "Last." in render(deep)[0] and "item 29" in render(deep)[0]
    lines = "- " * 300 + "x\n\n" + "Words that must survive. " * 10 + "\n"
    assert "Words that must survive." in render(lines)[0]
    code = '```python\nprint("{:.2f}".format(x))\n```\n\nA note.\n{: .note }\n'
    text = render(code)[0]
    assert 'print("{:.2f}".format(x))' in text and "{: .note" not in text


def test_a_rule_with_no_closing_line_is_no_front_matter_and_the_read_is_bounded():
    assert front_matter("---\nnot closed\n\nBody.\n") == ({}, 0)
    huge = "---\n" + "k: v\n" * (MAX_FRONT_MATTER // 4) + "---\nBody.\n"
    assert front_matter(huge) == ({}, 0)  # past the bound: not read as front matter


def test_headings_lists_links_tables_fences_and_attributes():
    source = (
        "# Guide\n\n"
        "Read the [Privacy Notice](https://example.org/privacy) first.\n"
        "{: .note }\n\n"
        "## Steps\n\n"
        "1. Open the settings.\n2. Click **Delete**.\n3. Confirm.\n\n"
        "| Plan | Price |\n| --- | --- |\n| Basic | $5 |\n\n"
        "```python\n# not a heading\nprint('x')\n```\n"
    )
    text, spans, _ = render(source)
    assert "Read the Privacy Notice first." in text and "https://" not in text
    assert "{:" not in text and "**" not in text
    headings = [s.label for s in spans if s.kind == "heading"]
    assert headings == ["Guide", "Guide > Steps"]  # the fence's "#" is code, not a heading
    assert "# not a heading\nprint('x')" in text
    assert not [s for s in spans if s.kind == "clause"], "a numbered list item is no section"
    rows = [s for s in spans if s.kind == "row"]
    assert rows and "Plan: Basic" in text[rows[0].start : rows[0].end]


def test_a_list_item_that_opens_with_its_own_title_is_a_section_numbered_as_cited():
    text, spans, _ = render(
        "# Agreement\n\n1. **Fees**\n    1. **Invoicing.** Provider invoices monthly.\n"
        "    2. **Taxes.** Customer pays taxes.\n2. **Term**\n    1. **Renewal.** It renews.\n"
    )
    labels = [s.label for s in spans if s.kind == "heading"]
    assert "Agreement > 1 Fees > 1.2 Taxes" in labels
    assert "Agreement > 2 Term > 2.1 Renewal" in labels
    taxes = next(s for s in spans if s.label.endswith("1.2 Taxes"))
    assert text[taxes.start :].startswith("1.2 Taxes. Customer pays taxes.")


def test_real_front_matter_and_real_numbered_agreements():
    """37signals' terms had their YAML front matter indexed and quoted back; Common
    Paper's agreements are nested numbered lists whose items are the sections."""
    terms = load_document(REAL / "basecamp" / "terms" / "index.md")
    assert terms.meta["title"] == "Terms of Service" and "description:" not in terms.text
    assert not terms.text.startswith("---")
    csa = load_document(REAL / "commonpaper" / "CSA.md")
    assert "<span" not in csa.text and "coverpage_link" not in csa.text
    labels = {s.label for s in csa.spans("heading")}
    assert "Cloud Service Agreement > 4 Payment & Taxes > 4.1 Fees" in labels
    assert "4.1 Fees. Unless the Order Form specifies a different currency" in csa.text


def test_mozilla_kramdown_attributes_are_not_words():
    doc = load_document(REAL / "mozilla" / "firefox_terms_of_use.md")
    assert "{:" not in doc.text and 'datetime="' not in doc.text
    assert doc.meta["title"] == "Firefox Terms of Use"


def test_a_markdown_file_indexes_and_cites_its_heading_path(tmp_path):
    path = Path(tmp_path) / "refunds.md"
    path.write_text("---\ntitle: Refund Policy\n---\n\n# Refunds\n\n## HEY\n\nNo refunds.\n")
    doc = load_document(path)
    hey = next(s for s in doc.spans("heading") if s.label == "Refunds > HEY")
    assert doc.text[hey.start : hey.end] == "HEY\n\nNo refunds."
