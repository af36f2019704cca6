"""Reading Word, HTML and text files in any encoding, and refusing what is not text."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import docx
import pytest

from lateseg.errors import IngestError
from lateseg.ingest.contract.clauses import contract_structure
from lateseg.ingest.docx import read_docx
from lateseg.ingest.html import read_html
from lateseg.ingest.text import decode_bytes, looks_like_text, markdown_headings, read_text


def _docx(path: Path) -> Path:
    d = docx.Document()
    d.core_properties.title = "Supply Agreement"
    d.core_properties.author = "Jane Roe"
    d.add_heading("Supply Agreement", 0)
    d.add_heading("1. Definitions", 1)
    d.add_paragraph('1.1 "Goods" means the items listed in the table below.')
    table = d.add_table(rows=3, cols=3)
    rows = [["Item", "Price", "Unit"], ["Bolt", "$0.10", "each"], ["Nut", "$0.05", ""]]
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(2, 1).merge(table.cell(2, 2))  # a merged cell counts once
    d.add_paragraph("")  # empty paragraphs add nothing
    d.add_heading("2. Delivery", 1)
    d.add_heading("2.1 Place", 2)
    d.add_paragraph("Goods are delivered   to the Buyer's dock.")
    d.add_heading("3. Price", 1)
    d.add_paragraph("Prices are fixed.", style="List Bullet")
    d.save(path)
    return path


def test_docx_body_in_order_with_tables_and_heading_paths(tmp_path):
    text, spans, meta = read_docx(_docx(tmp_path / "a.docx"))
    assert text == (
        "Supply Agreement\n\n1. Definitions\n\n"
        '1.1 "Goods" means the items listed in the table below.\n\n'
        "Item | Price | Unit\nItem: Bolt · Price: $0.10 · Unit: each\n"
        "Item: Nut · Price: $0.05\n\n"
        "2. Delivery\n\n2.1 Place\n\nGoods are delivered   to the Buyer's dock.\n\n"
        "3. Price\n\nPrices are fixed."
    )
    assert meta == {"title": "Supply Agreement", "author": "Jane Roe"}
    rows = [s for s in spans if s.kind == "row"]
    assert [text[s.start : s.end] for s in rows] == [
        "Item: Bolt · Price: $0.10 · Unit: each",
        "Item: Nut · Price: $0.05",
    ]
    assert [s.label for s in rows] == ["table 1, row 1", "table 1, row 2"]
    spans = [s for s in spans if s.kind != "row"]
    assert [s.label for s in spans] == [
        "Supply Agreement",
        "Supply Agreement > 1. Definitions",
        "Supply Agreement > 2. Delivery",
        "Supply Agreement > 2. Delivery > 2.1 Place",
        "Supply Agreement > 3. Price",
    ]
    assert all(s.kind == "heading" for s in spans)
    delivery = spans[2]
    assert text[delivery.start : delivery.end].startswith("2. Delivery")
    assert text[delivery.start : delivery.end].endswith("Buyer's dock.")
    clauses = [s.label for s in contract_structure(text) if s.kind == "clause"]
    assert clauses == ["1 Definitions", "1 Definitions > 1.1 Goods", "2 Delivery",
        "2 Delivery > 2.1 Place", "3 Price"]  # fmt: skip


def test_docx_failures_say_why(tmp_path):
    cases = {
        "junk.docx": (b"this is no word file", "not a zip"),
        "empty.docx": (b"", "empty"),
        "legacy.docx": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "OLE"),
    }
    for name, (data, reason) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(IngestError, match=reason):
            read_docx(tmp_path / name)
    with zipfile.ZipFile(tmp_path / "zip.docx", "w") as z:
        z.writestr("hello.txt", "a zip, but no document in it")
    with pytest.raises(IngestError, match="corrupt DOCX"):
        read_docx(tmp_path / "zip.docx")
    with pytest.raises(IngestError, match="cannot read"):
        read_docx(tmp_path / "missing.docx")


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="windows-1252"><title>Fee   Policy</title>
<meta name="author" content="Ann Example">
<style>p { color: red }</style><script>var secret = "script text";</script></head>
<body><noscript>Enable scripts</noscript>
<h1>Fees</h1>
<p>All fees are   stated in <b>euros</b>, caf\u00e9
prices <i>excluded</i>.</p>
<div hidden>Hidden text</div><p style="display: none">Styled away</p>
<h2>Rates</h2>
<ul><li>Engineer: 195</li><li>Architect<ul><li>Senior: 240</li></ul></li></ul>
<ol start="3"><li>third</li><li>fourth</li></ol>
<table><tr><th>Role</th><th>Rate</th></tr><tr><td>Dev</td><td>$1<br>per hour</td></tr></table>
<h2>Notes</h2><p>D\u00e9j\u00e0 vu.<br>New line</p><template><p>template text</p></template>
<!-- a comment -->
</body></html>
"""


def test_html_visible_text_blocks_lists_tables_and_headings(tmp_path):
    p = tmp_path / "page.html"
    p.write_bytes(_PAGE.encode("cp1252"))
    text, spans, meta = read_html(p)
    assert text == (
        "Fees\n\nAll fees are stated in euros, café prices excluded.\n\nRates\n\n"
        "- Engineer: 195\n- Architect\n  - Senior: 240\n\n3. third\n4. fourth\n\n"
        "Role | Rate\nRole: Dev · Rate: $1 per hour\n\nNotes\n\nDéjà vu.\nNew line"
    )
    rows = [s for s in spans if s.kind == "row"]
    assert [text[s.start : s.end] for s in rows] == ["Role: Dev · Rate: $1 per hour"]
    spans = [s for s in spans if s.kind != "row"]
    for hidden in ("secret", "script", "Enable", "Hidden", "Styled", "template", "comment"):
        assert hidden not in text
    assert meta == {"encoding": "cp1252", "title": "Fee Policy", "author": "Ann Example"}
    assert [s.label for s in spans] == ["Fees", "Fees > Rates", "Fees > Notes"]
    rates = spans[1]
    assert text[rates.start : rates.end].startswith("Rates\n\n- Engineer")
    assert text[rates.start : rates.end].endswith("$1 per hour")


def test_html_encoding_is_detected_without_a_declaration(tmp_path):
    p = tmp_path / "plain.htm"
    p.write_bytes("<p>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, na\u00efve</p>".encode("cp1252"))
    text, _, meta = read_html(p)
    assert text == "Café crème brûlée, naïve" and meta["encoding"] == "cp1252"
    lying = tmp_path / "lying.html"  # declares UTF-8, holds cp1252: the bytes win
    lying.write_bytes('<meta charset="utf-8"><p>Caf\u00e9</p>'.encode("cp1252"))
    assert read_html(lying)[0] == "Café"
    utf16 = tmp_path / "utf16.html"
    utf16.write_bytes("<h1>Grüße</h1><p>ok</p>".encode("utf-16"))
    assert read_html(utf16)[0] == "Grüße\n\nok"


def test_text_in_latin1_and_utf16_is_decoded_verbatim(tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Résumé of the naïve café owner — “quoted”.\r\n".encode("cp1252"))
    assert read_text(latin) == "Résumé of the naïve café owner — “quoted”.\r\n"
    raw = "# Überblick\n\nGrüße aus Köln.\n"
    for encoding in ("utf-16", "utf-16-le", "utf-16-be", "utf-32"):
        p = tmp_path / f"{encoding}.md"
        p.write_bytes(raw.encode(encoding))  # "utf-16"/"utf-32" write a BOM
        assert read_text(p) == raw, encoding
        assert looks_like_text(p), encoding
    assert decode_bytes("Привет, мир. Это тест.".encode("cp1251"), "ru.txt") == (
        "Привет, мир. Это тест."
    )


def test_empty_binary_and_control_junk(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert read_text(empty) == "" and not looks_like_text(empty)
    junk = tmp_path / "junk.txt"
    junk.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(IngestError, match="binary"):
        read_text(junk)
    assert not looks_like_text(junk)
    controls = tmp_path / "controls.txt"
    controls.write_bytes(b"\x01\x02\x03\x04 abc " * 500)
    with pytest.raises(IngestError, match="binary"):
        read_text(controls)
    assert not looks_like_text(controls)


def test_unreadable_and_vanished_files_name_the_os_reason(tmp_path):
    with pytest.raises(IngestError, match="No such file"):
        read_text(tmp_path / "vanished.txt")
    with pytest.raises(IngestError, match="directory"):
        read_text(tmp_path)
    assert not looks_like_text(tmp_path / "vanished.txt")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_permission_names_the_reason(tmp_path):
    p = tmp_path / "secret.txt"
    p.write_text("top secret")
    p.chmod(0)
    try:
        with pytest.raises(IngestError, match="Permission denied"):
            read_text(p)
    finally:
        p.chmod(0o600)


def test_fifty_megabyte_single_line(tmp_path):
    """A huge one-line file decodes, and its structure is computed, without blowing up;
    the lone non-UTF-8 byte at its very end still decides the encoding."""
    p = tmp_path / "big.txt"
    body = b"# " + b"lorem ipsum dolor sit amet " * 1_900_000
    p.write_bytes(body + "café".encode("cp1252"))
    text = read_text(p)
    assert len(text) == len(body) + 4 and text.endswith("café")
    assert len(markdown_headings(text)) == 1
    assert contract_structure(text) == []


def test_markdown_headings_skip_code_fences_and_closing_hashes():
    text = "# Guide\n\n```sh\n# not a heading\n```\n\n## Install ##\n\n### C#\n"
    assert [s.label for s in markdown_headings(text)] == [
        "Guide",
        "Guide > Install",
        "Guide > Install > C#",
    ]
