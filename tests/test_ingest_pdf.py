"""PDF extraction quality: reading order, page furniture, hyphenation, tables, errors.

Real PyMuPDF throughout: synthetic PDFs are drawn here with exact expected text; the
Debian Policy Manual (193 pages, written by others, ``make testdata``) and the sample
contracts check the same properties on real layouts.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pymupdf
import pytest
from conftest import DATA, ROOT, squash

from lateseg.errors import IngestError
from lateseg.ingest.pdf.reader import read_pdf, read_pdf_layout
from lateseg.types import Span

POLICY = ROOT / ".cache" / "testdata" / "policy.pdf"
CONTRACTS = sorted((DATA / "contracts").glob("*.pdf"))
WORDS = ["payment", "delivery", "warranty"]
LINE_END_SPLIT = re.compile(r"[a-z]-\n[a-z]")
PAGE_NUMBER_LINE = re.compile(r"(?:page\s*)?\d+(?:\s*of\s*\d+)?|[ivxlc]+", re.IGNORECASE)


def _save(doc: pymupdf.Document, path: Path, **options) -> Path:
    doc.save(path, **options)
    doc.close()
    return path


def _write_lines(page: pymupdf.Page, lines: list[str], x: float = 72, y: float = 100) -> None:
    for i, line in enumerate(lines):
        page.insert_text((x, y + 14 * i), line, fontsize=11)


def _page_texts(text: str, spans: list[Span]) -> list[str]:
    return [text[s.start : s.end] for s in spans if s.kind == "page"]


def _check_page_spans(text: str, spans: list[Span], pages: int) -> None:
    """One span per page, in order, labelled 1..n, tiling the text up to whitespace."""
    page_spans = [s for s in spans if s.kind == "page"]
    assert [s.label for s in page_spans] == [str(n) for n in range(1, pages + 1)]
    pos = 0
    for s in page_spans:
        assert pos <= s.start <= s.end <= len(text)
        assert not text[pos : s.start].strip(), "text between pages is in no page span"
        body = text[s.start : s.end]
        assert body == body.strip()
        pos = s.end
    assert not text[pos:].strip()


# --- synthetic layouts ---------------------------------------------------------------


@pytest.mark.parametrize("paragraph_gap", [0, 20], ids=["no-gaps", "gaps-aligned"])
def test_two_columns_read_first_column_then_second(tmp_path, paragraph_gap):
    left = [f"Left column line {i} tells the first half." for i in range(12)]
    right = [f"Right column line {i} tells the second half." for i in range(12)]
    closing = "A closing line that runs across the whole width of the page, under both columns."
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 70), "A Title That Spans Both Columns Of This Page", fontsize=16)
    y = 110.0
    for i, (a, b) in enumerate(zip(left, right, strict=True)):  # stream order interleaves
        y += paragraph_gap if i == 6 else 0  # a paragraph break at the same height in both
        page.insert_text((72, y), a, fontsize=10)
        page.insert_text((320, y), b, fontsize=10)
        y += 14
    page.insert_text((72, y + 30), closing, fontsize=10)
    path = _save(doc, tmp_path / "columns.pdf")
    plain = pymupdf.open(path)[0].get_text()
    assert plain.index(right[0]) < plain.index(left[1]), "the PDF must interleave the columns"

    text, spans, _ = read_pdf(path)
    order = [text.index(line) for line in ["A Title That Spans", *left, *right, closing]]
    assert order == sorted(order)
    _check_page_spans(text, spans, 1)


# Two-column layouts drawn paragraph by paragraph: (kind, text) with kind "h" (a
# heading line) or "p" (a paragraph wrapped to the column); a region may open with a
# centred full-width title. The source order of the paragraphs is the reading order.
LEFT_8 = [
    ("h", "8. CONFIDENTIALITY"),
    ("p", "8.1 Each party shall keep the other party's Confidential Information secret "
     "and use it only to perform this Agreement, and shall protect it with at least "
     "reasonable care for the whole term and for five years after it ends."),
    ("p", "8.2 The obligations in clause 8.1 do not apply to information that is public "
     "through no fault of the receiving party or that it already lawfully knew."),
    ("p", "8.3 On termination each party shall return or destroy the other party's "
     "Confidential Information and confirm that it has done so in writing."),
]  # fmt: skip
RIGHT_9 = [
    ("h", "9. GOVERNING LAW"),
    ("p", "9.1 This Agreement is governed by the laws of Norway."),
    ("p", "9.2 The courts of Oslo have exclusive jurisdiction."),
]
RIGHT_9_LONG = [
    *RIGHT_9,
    ("p", "9.3 Nothing in this clause stops a party from seeking urgent interim relief in any "
     "court that has jurisdiction over the other party or its assets."),
]  # fmt: skip
FULL_PAGE = [
    ("p", "10.1 This page is set in one column across the whole width of the page, after "
     "a page of two columns, and is read after both of them."),
    ("p", "10.2 A second paragraph of the one-column page closes the agreement."),
]  # fmt: skip


def _renumbered(paras: list, old: str, new: str) -> list:
    return [(kind, text.replace(f"{old}.", f"{new}.")) for kind, text in paras]


def _draw(page: pymupdf.Page, x: float, y: float, paras: list, width: int) -> float:
    import textwrap

    for kind, text in paras:
        size = 11 if kind == "h" else 10
        for line in textwrap.wrap(text, width) if kind == "p" else [text]:
            page.insert_text((x, y), line, fontsize=size)
            y += 13
        y += 12 if kind == "p" else 4
    return y


def _columns_pdf(path: Path, regions: list, then_full: list | None = None) -> list[str]:
    """Draw ``regions`` of (title or None, left paragraphs, right paragraphs) down a page,
    then an optional one-column page; return the paragraphs in reading order."""
    doc = pymupdf.open()
    page = doc.new_page()
    order: list[str] = []
    y = 72.0
    for title, left, right in regions:
        if title:
            width = pymupdf.get_text_length(title, fontsize=14)
            page.insert_text((page.rect.width / 2 - width / 2, y), title, fontsize=14)
            order.append(title)
            y += 26
        ends = [_draw(page, 72, y, left, 40), _draw(page, 320, y, right, 40)]
        order += [text for _, text in left + right]
        y = max(ends) + 24
    if then_full:
        _draw(doc.new_page(), 72, 72, then_full, 90)
        order += [text for _, text in then_full]
    _save(doc, path)
    return order


def _assert_in_order(text: str, order: list[str]) -> None:
    flat = squash(text)
    where = [flat.find(squash(part)) for part in order]
    assert -1 not in where, [p[:30] for p, w in zip(order, where, strict=True) if w < 0]
    assert where == sorted(where), [
        p[:30] for p, _ in sorted(zip(order, where, strict=True), key=lambda t: t[1])
    ]


@pytest.mark.parametrize(
    "regions",
    [
        [(None, LEFT_8, RIGHT_9_LONG)],  # about equal columns
        [(None, LEFT_8, RIGHT_9)],  # the right column ends first
        [(None, RIGHT_9, LEFT_8)],  # the left column ends first
        [("MASTER SERVICES AGREEMENT", LEFT_8, RIGHT_9)],  # a title over the columns
        [
            ("PART ONE", LEFT_8, RIGHT_9),
            ("PART TWO", _renumbered(RIGHT_9, "9", "10"), _renumbered(LEFT_8, "8", "11")),
        ],  # a title between two column sets
    ],
    ids=["equal", "right-shorter", "left-shorter", "title-above", "title-between"],
)
def test_columns_of_unequal_height_are_read_column_by_column(tmp_path, regions):
    order = _columns_pdf(tmp_path / "columns.pdf", regions)
    text, _, _ = read_pdf(tmp_path / "columns.pdf")
    _assert_in_order(text, order)


def test_a_two_column_page_then_a_one_column_page(tmp_path):
    order = _columns_pdf(tmp_path / "pages.pdf", [(None, LEFT_8, RIGHT_9)], FULL_PAGE)
    text, spans, _ = read_pdf(tmp_path / "pages.pdf")
    _assert_in_order(text, order)
    second = next(s for s in spans if s.kind == "page" and s.label == "2")
    assert squash(text[second.start : second.end]) == squash(" ".join(t for _, t in FULL_PAGE))


def test_unequal_columns_keep_each_clause_under_its_heading(tmp_path):
    """The report that started this: with the right column shorter, clause 9.1 was read
    under § 8 and quoted as "8. CONFIDENTIALITY 9.1 This Agreement is governed ..."."""
    from lateseg.ingest.contract.clauses import clause_spans

    _columns_pdf(tmp_path / "contract.pdf", [(None, LEFT_8, RIGHT_9)])
    text, _, _ = read_pdf(tmp_path / "contract.pdf")
    clauses = {s.label: squash(text[s.start : s.end]) for s in clause_spans(text)}
    governed = [label for label, body in clauses.items() if "laws of Norway" in body]
    assert governed and all(label.split(" > ")[-1] == "9.1" for label in governed)
    assert not any(label.startswith("8") for label in governed)
    assert "laws of Norway" not in clauses["8.3"] and "Confidential" in clauses["8.3"]


def test_widely_spaced_heading_is_not_taken_for_columns(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    heading = [(72, 80, "7.7"), (200, 80, "Relationships"), (290, 80, "between")]
    heading += [(370, 80, "source"), (450, 80, "and"), (72, 100, "binary")]
    heading += [(220, 100, "packages"), (380, 100, "Build-Depends")]
    for x, y, word in heading:
        page.insert_text((x, y), word, fontsize=14)
    _write_lines(
        page, [f"Body line {i} of the section follows its heading." for i in range(4)], y=130
    )
    text, _, _ = read_pdf(_save(doc, tmp_path / "heading.pdf"))
    assert text.startswith("7.7 Relationships between source and\nbinary packages Build-Depends")


def test_ruled_table_comes_out_as_rows(tmp_path):
    rows = [
        ["Party", "Role", "Term"],
        ["Ada Lovelace", "Engineer", "12 months"],
        ["Bo", "Auditor", "3 years"],
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "The staffing table follows.", fontsize=11)
    xs, ys = [72, 222, 372, 522], [100, 125, 150, 175]
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y))
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.insert_text((xs[c] + 4, ys[r] + 16), cell, fontsize=10)
    page.insert_text((72, 200), "Text after the table.", fontsize=11)
    text, spans, meta, boxes = read_pdf_layout(_save(doc, tmp_path / "table.pdf"))
    # the header row, then each row a line whose cells carry their headers
    expected = (
        "Party | Role | Term\n"
        "Party: Ada Lovelace · Role: Engineer · Term: 12 months\n"
        "Party: Bo · Role: Auditor · Term: 3 years"
    )
    assert expected in text
    (table,) = [s for s in spans if s.kind == "table"]
    assert text[table.start : table.end] == expected
    assert text.index("staffing table") < table.start < table.end < text.index("after the table")
    assert meta["tables"] == 1
    rows_ = [s for s in spans if s.kind == "row"]
    assert [text[s.start : s.end] for s in rows_] == expected.split("\n")[1:]
    # each cell's value is drawn in its own cell: a cited cell is highlighted alone
    at = text.index("Engineer")
    (box,) = [b for b in boxes if b.start <= at < b.end]
    assert (box.start, box.end) == (at, at + len("Engineer"))
    assert xs[1] - 1 <= box.x0 < box.x1 <= xs[2] + 1 and ys[1] - 1 <= box.y0 < box.y1 <= ys[2] + 1
    assert not [b for b in boxes if b.start <= text.index("Role: Engineer") < b.end]


def test_line_end_hyphens_join_words_but_keep_compounds(tmp_path):
    doc = pymupdf.open()
    _write_lines(
        doc.new_page(),
        [
            "The Supplier shall meet each obliga-",
            "tion under this well-known agreement, in a long-term",
            "relationship that is meant to be long-",
            "term and state-of-the-",
            "art, for the Non-",
            "Debian parties. Every obligation counts. The last word is obliga-",
        ],
    )
    _write_lines(doc.new_page(), ["tion, which ends on the next page."])
    text, spans, _ = read_pdf(_save(doc, tmp_path / "hyphens.pdf"))
    first, second = _page_texts(text, spans)
    assert "meet each obligation\nunder this well-known agreement" in first
    assert "meant to be long-term\nand state-of-the-art,\nfor the Non-Debian\nparties" in first
    assert first.endswith("The last word is obligation,")
    assert second == "which ends on the next page."
    assert not LINE_END_SPLIT.search(text)


def test_running_headers_footers_and_page_numbers_are_removed(tmp_path):
    doc = pymupdf.open()
    for n in range(1, 7):
        page = doc.new_page()
        page.insert_text((72, 40), "Acme Services Agreement, revision 3", fontsize=9)
        page.insert_text((300, 770), str(n), fontsize=9)
        body = [
            f"Clause {n}.{k}: the {word} obligations of page {n}." for k, word in enumerate(WORDS)
        ]
        if n in (2, 5):  # a body line repeating twice, right under the header
            body = ["Schedule A applies.", *body]
        body.append("Signature block: ____________")  # on every page, mid-page
        _write_lines(page, body, y=80)
    text, spans, meta = read_pdf(_save(doc, tmp_path / "furniture.pdf"))
    assert "Acme Services" not in text
    assert meta["furniture_lines"] == 12
    for page_text in _page_texts(text, spans):
        lines = page_text.splitlines()
        assert not any(PAGE_NUMBER_LINE.fullmatch(line.strip()) for line in lines)
    assert text.count("Schedule A applies.") == 2
    assert text.count("Signature block") == 6


def test_a_single_page_keeps_its_only_lines(tmp_path):
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 40), "Memo heading in the top margin", fontsize=9)
    text, _, _ = read_pdf(_save(doc, tmp_path / "memo.pdf"))
    assert text == "Memo heading in the top margin"


# --- errors -------------------------------------------------------------------------


def _one_page_pdf(path: Path, **options) -> Path:
    doc = pymupdf.open()
    _write_lines(doc.new_page(), [f"Line {i} of a small but complete document." for i in range(30)])
    return _save(doc, path, **options)


def test_encrypted_pdf_needs_the_right_password(tmp_path):
    path = _one_page_pdf(
        tmp_path / "enc.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u"
    )
    with pytest.raises(IngestError, match="encrypted"):
        read_pdf(path)
    with pytest.raises(IngestError, match=r"encrypted.*does not open"):
        read_pdf(path, password="wrong")
    assert "Line 0 of a small" in read_pdf(path, password="u")[0]


def test_image_only_pdf_has_no_text_layer(tmp_path):
    """A page that is only a picture without words: with OCR off it is a scan lateseg
    did not read; with OCR on, one read that found no words (tests/test_ocr.py)."""
    doc = pymupdf.open()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(200)
    doc.new_page().insert_image(pymupdf.Rect(72, 72, 300, 300), pixmap=pix)
    path = _save(doc, tmp_path / "scan.pdf")
    with pytest.raises(IngestError, match=re.escape("no text layer (scanned?)") + ".*OCR is off"):
        read_pdf(path, ocr="off")


def test_zero_byte_file_is_named(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(IngestError, match="empty file"):
        read_pdf(path)


def test_unreadable_paths_are_ingest_errors(tmp_path):
    for path in (tmp_path / "missing.pdf", tmp_path):
        with pytest.raises(IngestError, match="cannot read PDF"):
            read_pdf(path)


@pytest.mark.parametrize("keep", [0.002, 0.1, 0.5, 0.9, 0.995])
def test_truncated_pdf_is_an_ingest_error(tmp_path, keep):
    whole = _one_page_pdf(tmp_path / "whole.pdf", garbage=3, deflate=True).read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(whole[: max(1, int(len(whole) * keep))])
    with pytest.raises(IngestError, match="truncated PDF"):
        read_pdf(path)


def test_corrupt_pdf_names_pymupdf_reason(tmp_path):
    path = tmp_path / "bad.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\n%%EOF\n")
    with pytest.raises(IngestError, match=r"corrupt PDF.*: \S") as info:
        read_pdf(path)
    assert "unreadable" in str(info.value)


# --- real documents -----------------------------------------------------------------


@pytest.fixture(scope="module")
def policy() -> tuple[str, list[Span], dict]:
    if not POLICY.exists():
        pytest.skip(f"{POLICY} is missing; run `make testdata` (needs apt-get download)")
    return read_pdf(POLICY)


def _edge_keys(page_text: str) -> set[str]:
    lines = [ln.strip() for ln in page_text.splitlines() if ln.strip()]
    return {re.sub(r"\d+", "#", ln.lower()) for ln in lines[:2] + lines[-2:]}


def test_policy_manual_has_no_running_headers_or_page_numbers(policy):
    text, spans, meta = policy
    pages = _page_texts(text, spans)
    counts = Counter(key for page in pages for key in _edge_keys(page))
    key, most = counts.most_common(1)[0]
    assert most <= len(pages) / 2, key
    assert "Debian Policy Manual, Release" not in text
    assert not re.search(r"^\s*Page \d+", text, re.MULTILINE | re.IGNORECASE)
    for page in pages:
        edge = [ln.strip() for ln in page.splitlines() if ln.strip()][:1] + page.splitlines()[-1:]
        assert not any(PAGE_NUMBER_LINE.fullmatch(ln) for ln in edge), edge
    # ... while body lines that open every chapter stay.
    assert text.count("CHAPTER") >= 20
    assert meta["pages"] == 193


def test_policy_manual_has_no_words_split_at_line_ends(policy):
    text = policy[0]
    assert not LINE_END_SPLIT.findall(text)
    assert "packages" in text and "pack-\nages" not in text


def test_policy_manual_page_spans_tile_the_text(policy):
    text, spans, _ = policy
    _check_page_spans(text, spans, 193)


@pytest.mark.parametrize("pdf", CONTRACTS, ids=lambda p: p.stem)
def test_sample_contracts_keep_every_paragraph_and_lose_footers(pdf):
    text, spans, meta = read_pdf(pdf)
    assert not re.search(r"Page \d+ of \d+", text)
    source = (DATA / "sources" / "contracts" / f"{pdf.stem}.md").read_text("utf-8")
    flat = squash(text)
    for para in re.split(r"\n\s*\n", source):
        para = re.sub(r"^#+\s*", "", para.replace("**", "")).strip()
        if para:
            assert squash(para) in flat, para[:80]
    _check_page_spans(text, spans, meta["pages"])


def _drawn_in(pdf: pymupdf.Document, box) -> str:
    """The page's characters whose centres lie inside ``box``, in content order."""
    raw = pdf[box.page - 1].get_text("rawdict")
    return "".join(
        ch["c"]
        for block in raw["blocks"]
        for line in block.get("lines", ())
        for span in line["spans"]
        for ch in span["chars"]
        if box.x0 - 1 <= (ch["bbox"][0] + ch["bbox"][2]) / 2 <= box.x1 + 1
        and box.y0 - 1 <= (ch["bbox"][1] + ch["bbox"][3]) / 2 <= box.y1 + 1
    )


def _check_line_boxes(path: Path) -> list:
    """Every stretch of the text lies in the box kept for it, and the boxes tile the
    text's non-space characters in order."""
    from lateseg.ingest.pdf.reader import read_pdf_layout

    text, _, _, boxes = read_pdf_layout(path)
    pdf = pymupdf.open(path)
    assert [b.start for b in boxes] == sorted(b.start for b in boxes)
    covered = [False] * len(text)
    for b in boxes:
        for i in range(b.start, b.end):
            covered[i] = True
        drawn = "".join(_drawn_in(pdf, b).split())
        assert "".join(text[b.start : b.end].split()).rstrip("-") in drawn.replace("\u00ad", "")
    assert all(covered[i] for i, c in enumerate(text) if not c.isspace())
    return boxes


def test_line_boxes_follow_hyphen_joins_across_lines_and_pages(tmp_path):
    doc = pymupdf.open()
    _write_lines(
        doc.new_page(),
        [
            "The Supplier shall meet each obliga-",
            "tion under this agreement. The last word is obli-",
        ],
    )
    _write_lines(doc.new_page(), ["gation, which ends on the next page."])
    path = _save(doc, tmp_path / "hyphens.pdf")
    boxes = _check_line_boxes(path)
    from lateseg.ingest.pdf.reader import read_pdf_layout

    text = read_pdf_layout(path)[0]
    # "obligation" on page 1 is drawn as "obliga" on its line and "tion" on the next
    at = text.index("obligation")
    parts = [b for b in boxes if b.start < at + 10 and b.end > at]
    assert [b.page for b in parts] == [1, 1] and parts[0].y0 < parts[1].y0
    # the last one runs on: its end is drawn at the top of page 2
    at = text.index("obligation,")
    assert [b.page for b in boxes if b.start < at + 10 and b.end > at] == [1, 2]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["columns", "contracts"])
def test_line_boxes_hold_their_text_in_columns_and_real_contracts(tmp_path, name):
    if name == "columns":
        _columns_pdf(tmp_path / "c.pdf", [("MASTER SERVICES AGREEMENT", LEFT_8, RIGHT_9)])
        paths = [tmp_path / "c.pdf"]
    else:
        paths = CONTRACTS
    for path in paths:
        assert _check_line_boxes(path)
