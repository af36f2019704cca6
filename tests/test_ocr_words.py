"""Digits OCR reads for letters (``/var/1ib``) are spelled as the document spells the
word elsewhere, on OCR'd pages only, and never change an offset."""

from __future__ import annotations

from lateseg.ingest.ocr.words import fix_lookalikes

TEXT = (
    "Libraries live in /lib and /usr/lib; copy them. "
    "Variable state is in /var/1ib, c0py it on the 1st day, see h1 and 10am, item 100 "
    "and /usr/1lib. Keep a copy."
)


def test_lookalike_digits_are_read_as_the_documents_own_words():
    fixed = fix_lookalikes(TEXT, [(0, len(TEXT))])
    assert len(fixed) == len(TEXT)
    assert "/var/lib," in fixed and "copy it" in fixed
    # no word of the document to match: left as read
    for kept in ("1st", "h1", "10am", "100", "/usr/1lib"):
        assert kept in fixed


def test_only_pages_read_by_ocr_are_touched_and_one_use_is_not_a_dictionary():
    born_digital = TEXT.index("Variable")
    assert fix_lookalikes(TEXT, []) == TEXT
    assert fix_lookalikes(TEXT, [(0, born_digital)]) == TEXT
    once = "One lib here; /var/1ib there."
    assert fix_lookalikes(once, [(0, len(once))]) == once


def test_an_options_hyphen_read_as_a_tilde_or_dash_is_a_hyphen_again():
    read = "Start with #!/usr/bin/make ~f, then set —e; pass —jn to make."
    fixed = fix_lookalikes(read, [(0, len(read))])
    assert fixed == "Start with #!/usr/bin/make -f, then set -e; pass -jn to make."
    assert fix_lookalikes(read, []) == read  # born-digital text is as written
    # a home folder, a dash before a word, a version's tilde, a range: as read
    for kept in ("cd ~user/bin", "a house —another one", "1.0~rc1", "pages 3–5", "cd ~ now"):
        assert fix_lookalikes(kept, [(0, len(kept))]) == kept
    # a dash before a word of the text, a stopword or a capital: as read
    prose = "Say yes or no. The answer —yes, always; the cost —and more; Part A —B."
    assert fix_lookalikes(prose, [(0, len(prose))]) == prose
