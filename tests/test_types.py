from __future__ import annotations

import pytest

from lateseg.errors import InvariantError
from lateseg.types import Chunk, Document, Hit, Span, check_chunks


def _doc(text: str = "Alpha beta.\n\nGamma delta.") -> Document:
    return Document("/x/a.txt", text, "text")


def test_document_id_is_a_content_hash():
    assert _doc().id == _doc().id
    assert _doc().id != _doc("other").id
    assert Document("/x/b.txt", _doc().text, "text").id != _doc().id


def test_span_and_chunk_ranges_are_checked():
    with pytest.raises(InvariantError):
        Span(5, 3, "page")
    with pytest.raises(InvariantError):
        Chunk("d", 0, 5, "abc")
    with pytest.raises(InvariantError):
        Document("/x", "short", "text", (Span(0, 50, "page", "1"),))


def test_check_chunks_accepts_a_tiling_and_rejects_gaps_and_overlaps():
    doc = _doc()
    a = Chunk(doc.id, 0, 11, doc.text[0:11])
    b = Chunk(doc.id, 13, len(doc.text), doc.text[13:])
    check_chunks(doc, [a, b])
    with pytest.raises(InvariantError, match="no chunk"):
        check_chunks(doc, [a])
    with pytest.raises(InvariantError, match="overlaps"):
        check_chunks(doc, [a, Chunk(doc.id, 5, 11, doc.text[5:11])])
    with pytest.raises(InvariantError, match="differs"):
        check_chunks(doc, [Chunk(doc.id, 0, 11, "X" * 11), b])


def test_a_part_of_a_hit_is_a_hit_of_the_same_chunk_at_its_own_offsets():
    hit = Hit("/c/a.pdf", 100, 131, "Term. It lasts sixty (60) days.", 0.7, 3, "5 Term",
              "d1", 9, line=4, kind="pdf", page_end=4, ocr=True)  # fmt: skip
    part = hit.part(6, 31)
    assert (part.start, part.end, part.text) == (106, 131, "It lasts sixty (60) days.")
    assert (part.page, part.page_end, part.section, part.chunk_id, part.kind) == (
        3, 4, "5 Term", 9, "pdf",
    )  # fmt: skip
    assert part.ocr and part.line is None and part.score == 0.7
    assert hit.part(0, 4, score=1.0).score == 1.0
    with pytest.raises(ValueError, match="not inside"):
        hit.part(5, 40)
