"""What Tesseract's page reading leaves is read again: the page numbers of a contents
page after their dot leaders, and light grey print (a code block in syntax colours)
beside black text. The merge of the second reading into the first is checked on its
own, and the whole path on a scanned page made for it."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image
from test_ocr import _needs_tesseract, ocr_home, scan  # noqa: F401 (ocr_home: autouse)

from lateseg.ingest import ocr, ocr_missed
from lateseg.ingest.pdf import read_pdf_layout

ENTRIES = [
    ("1 Scope", 3),
    ("2 Definitions", 5),
    ("3 Fees and payment", 8),
    ("3.1 Invoices", 9),
    ("3.2 Late payment", 11),
    ("4 Term and termination", 14),
    ("5 Liability", 17),
    ("6 Notices", 21),
    ("7 General", 24),
]
CODE = ["CFLAGS = -Wall -g", "INSTALL_FILE = install -m 644", "INSTALL_PROGRAM = install -m 755"]


def _word(text: str, box: list[int], line: list[int], conf: float = 95.0) -> dict:
    return {"text": text, "box": box, "conf": conf, "line": line}


def test_a_word_joins_the_line_it_sits_on_in_order_of_x():
    first = [
        _word("1", [100, 100, 110, 120], [1, 1, 1]),
        _word("Scope", [120, 100, 200, 120], [1, 1, 1]),
        _word("2", [100, 140, 110, 160], [1, 1, 2]),
    ]
    extra = [
        _word("3", [900, 101, 915, 121], [5, 1, 1]),
        _word("5", [900, 141, 915, 161], [6, 1, 1]),
    ]
    merged = ocr_missed.merge(first, extra)
    assert [w["text"] for w in merged] == ["1", "Scope", "3", "2", "5"]
    assert [w["line"] for w in merged] == [[1, 1, 1]] * 3 + [[1, 1, 2]] * 2


def test_words_on_no_line_make_lines_of_their_own_before_the_text_below_them():
    first = [
        _word("Before", [100, 100, 200, 120], [1, 1, 1]),
        _word("After", [100, 400, 200, 420], [2, 1, 1]),
    ]
    extra = [
        _word("-g", [260, 250, 290, 270], [7, 1, 2]),
        _word("CFLAGS", [100, 250, 220, 270], [7, 1, 1]),
        _word("endif", [100, 290, 180, 310], [7, 1, 3]),
    ]
    merged = ocr_missed.merge(first, extra)
    assert [w["text"] for w in merged] == ["Before", "CFLAGS", "-g", "endif", "After"]
    keys = [tuple(w["line"]) for w in merged]
    assert keys[1] == keys[2] and len({keys[0], keys[1], keys[3], keys[4]}) == 4
    assert ocr_missed.merge(first, []) is first


def _png(draw) -> bytes:
    grey = np.full((400, 600), 250, dtype=np.uint8)
    draw(grey)
    out = io.BytesIO()
    Image.fromarray(grey).save(out, format="PNG")
    return out.getvalue()


def test_only_ink_no_word_covers_and_no_rule_is_read_again():
    def text_and_rule(grey):
        grey[100:120, 100:200] = 0  # a "word" the first reading has
        grey[300:302, 50:550] = 0  # a rule

    png = _png(text_and_rule)
    assert ocr_missed.leftover(png, [_word("w", [100, 100, 199, 119], [1, 1, 1])]) is None

    def and_a_glyph(grey):
        text_and_rule(grey)
        grey[200:220, 500:512] = 0  # a digit nobody read

    left = ocr_missed.leftover(_png(and_a_glyph), [_word("w", [100, 100, 199, 119], [1, 1, 1])])
    assert left is not None
    grey = np.array(Image.open(io.BytesIO(left)))
    assert grey[110, 150] == 255 and grey[301, 300] == 255  # word and rule whited out
    assert grey[210, 505] == 0  # the glyph kept


def test_low_confidence_and_punctuation_of_the_second_reading_are_dropped():
    assert ocr_missed.kept(_word("15", [0, 0, 1, 1], [1, 1, 1], 96.0))
    assert not ocr_missed.kept(_word("eee", [0, 0, 1, 1], [1, 1, 1], 40.0))
    assert not ocr_missed.kept(_word("....", [0, 0, 1, 1], [1, 1, 1], 95.0))


def _contents_page(path: Path) -> Path:
    """A born-digital page: contents lines with dot leaders and page numbers set right,
    then a code block in light grey monospace."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 72.0
    page.insert_text((72, y), "Contents", fontsize=16, fontname="hebo")
    y += 30
    for title, number in ENTRIES:
        page.insert_text((72, y), title, fontsize=11)
        width = pymupdf.get_text_length(title, fontsize=11)
        page.insert_text((76 + width, y), " ." * int((470 - 72 - width) / 5.5), fontsize=11)
        page.insert_text((520, y), str(number), fontsize=11)
        y += 20
    y += 20
    page.insert_text((72, y), "The build options are read as follows:", fontsize=11)
    y += 24
    for line in CODE:
        page.insert_text((90, y), line, fontsize=10, fontname="cour", color=(0.55, 0.55, 0.55))
        y += 15
    doc.save(path)
    return path


@pytest.mark.slow
def test_a_scanned_contents_page_keeps_its_page_numbers_and_grey_code(tmp_path):
    """Tesseract's page reading drops the numbers after dot leaders and the grey code
    lines (checked: the first reading alone lacks them); the page as lateseg reads it
    has every number on its heading's line, in order, and every code line."""
    _needs_tesseract()
    scanned = scan(_contents_page(tmp_path / "contents.pdf"), tmp_path / "scan.pdf")
    with pymupdf.open(scanned) as doc:
        png = doc[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).tobytes("png")
    binary, tessdata, _ = ocr._tesseract()
    first = " ".join(w["text"] for w in ocr._tesseract_tsv(binary, tessdata, png, 1, "3"))
    assert not re.search(r"Invoices\b[^0-9]*\b9\b", first)  # the problem is real
    assert "INSTALL_PROGRAM" not in first

    text, _, meta, _ = read_pdf_layout(scanned)
    assert meta["ocr_pages"] == [1]
    lines = text.splitlines()
    for title, number in ENTRIES:
        section = title.split()[0]
        line = next(li.strip() for li in lines if li.strip().startswith(section + " "))
        assert line.endswith(f" {number}"), line
    squashed = " ".join(text.split())
    for code in CODE:
        assert code in squashed, code
