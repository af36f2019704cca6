"""Where text may be cut (``lateseg.text.boundaries``): structural starts (paragraphs,
lines, table rows), sentence ends past abbreviations and clause numbers, the
definitions' sentences, the encoder's window tiers, and characters mapped to tokens."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from lateseg.text.boundaries import (
    CELL_SEPARATOR,
    DefinitionSentences,
    answer_pieces,
    clause_starts,
    generated_sentence_ends,
    line_starts,
    paragraph_starts,
    sentence_spans,
    sentence_starts,
    table_row_lines,
    token_span,
    token_starts,
    tokens_at,
    window_tiers,
)


def starting(text: str, positions: list[int]) -> list[str]:
    """The first word at each position."""
    return [text[p:].split(maxsplit=1)[0] for p in positions]


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        ("The Client shall pay. The Supplier shall deliver.", ["The"]),
        ("Ends here? Yes! Done.", ["Yes!", "Done."]),
        ('He said "Stop." Then left.', ["Then"]),
        ("The term ends. 30 days later it renews.", ["30"]),
        # abbreviations, initials, clause numbers and list markers end no sentence
        ("Acme Inc. and Beta Ltd. agree. Mr. Smith signs.", ["Mr."]),
        ("The U.S. Government agrees. It pays.", ["It"]),
        ("J. Smith signs. (a). The next item.", ["The"]),
        ("Payment is due in 30 days. See Section 4.2. Then stop.", ["See"]),
        ("12. Definitions. Terms follow.", ["Terms"]),
        ("It costs $5 (e.g. fees). Fine.", ["Fine."]),
        ("lower case. after a period", []),  # a sentence starts with a capital or digit
    ],
)
def test_sentence_starts(text, starts):
    assert starting(text, sentence_starts(text)) == starts


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("One sentence. Two sentences.", ["One sentence.", "Two sentences."]),
        ("  Padded.   Trimmed.  ", ["Padded.", "Trimmed."]),
        ("Ok. A. Go on.", ["Ok.", "A. Go on."]),  # "A." is an initial
        ("See No. 5 here.", ["See No. 5 here."]),  # "No." is an abbreviation
        ("", []),
    ],
)
def test_sentence_spans_are_trimmed_and_at_least_three_characters(text, spans):
    assert [text[a:b] for a, b in sentence_spans(text)] == spans


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        # a numeral that repeats the number in words before it, at a line break or not
        (
            "Licensee may cure by paying within twenty-one\n(21) days of notice.",
            ["Licensee may cure by paying within twenty-one\n(21) days of notice."],
        ),
        ("Rent is due within ten (10) days.", ["Rent is due within ten (10) days."]),
        ("It lapses after ninety \n  (90) days.", ["It lapses after ninety \n  (90) days."]),
        # list items are pieces of their own, numbered ones too
        (
            "Tenant shall pay:\n(a) rent; and\n(b) charges.",
            ["Tenant shall pay:", "(a) rent; and", "(b) charges."],
        ),
        ("The steps:\n(1) apply; and\n(2) wait.", ["The steps:", "(1) apply; and", "(2) wait."]),
        # an item after a clause's end is one, even after a number word's line
        ("It costs:\n(1) one;\n(2) two.", ["It costs:", "(1) one;", "(2) two."]),
        (
            "Fees:\n- Year 1 is five\n- Year 2 is six",
            ["Fees:", "- Year 1 is five", "- Year 2 is six"],
        ),
        # a year ends a sentence; a numbered clause after a full stop starts one
        ("Filed in 2008. The operator left.", ["Filed in 2008.", "The operator left."]),
        ("See Exhibit B. 1.5 Order Form means it.", ["See Exhibit B.", "1.5 Order Form means it."]),
    ],
)
def test_an_answer_is_cut_at_list_items_but_never_inside_a_value(text, pieces):
    assert [text[a:b] for a, b in answer_pieces(text, 0, len(text))] == pieces


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("It renews. It ends! Why? ", ["It renews. ", "It ends! ", "Why? "]),
        ('He said "stop." then', ['He said "stop." ']),  # whatever follows
        ("No end yet", []),
    ],
)
def test_generated_sentences_end_at_any_end_mark(text, ends):
    cuts = [0, *generated_sentence_ends(text)]
    assert [text[a:b] for a, b in itertools.pairwise(cuts)] == ends


ROW = f"Name: Alpha Ltd.{CELL_SEPARATOR}Price: $5. Each"


@pytest.mark.parametrize(
    ("text", "rows"),
    [
        (f"Intro.\n{ROW}\nKey: value\nOutro.", [ROW]),  # one cell is no row
        (f"{ROW}\n{ROW}", [ROW, ROW]),
        ("Name: Alpha\nPrice: $5", []),
    ],
)
def test_table_rows_are_lines_of_two_cells_or_more(text, rows):
    assert [text[a:b] for a, b in table_row_lines(text)] == rows


def test_a_table_row_is_one_sentence():
    text = f"Before it.\n{ROW}\nAfter it."
    assert [text[a:b] for a, b in sentence_spans(text)] == ["Before it.", ROW, "After it."]


@pytest.mark.parametrize(
    ("text", "paragraphs", "lines"),
    [
        (
            "Para one.\n\nPara two\nline two\n\n\n  Para three",
            ["Para", "Para"],
            ["Para", "line", "Para"],
        ),
        ("One line only.", [], []),
        ("Trailing blank lines.\n\n\n", [], []),
        ("A\n \t\nB", ["B"], ["B"]),  # a line of spaces is blank
    ],
)
def test_paragraph_and_line_starts(text, paragraphs, lines):
    assert starting(text, paragraph_starts(text)) == paragraphs
    assert starting(text, line_starts(text)) == lines


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        (
            "the Client shall, within ten days; pay: the fees, and costs",
            ["within", "pay:", "the", "and"],
        ),
        ("no clause punctuation here", []),
        ("ends with a comma,", []),
    ],
)
def test_clause_starts_follow_semicolons_colons_and_commas(text, starts):
    assert starting(text, clause_starts(text)) == starts


DEFINITIONS = (
    '"Affiliate" means any entity controlling Acme Inc. or its parent. '
    '"Business Day" means a day other than a Saturday.\n\nNext para'
)


@pytest.mark.parametrize(
    ("pos", "end", "start"),
    [
        (0, "parent.", '"Affiliate"'),
        (30, "parent.", '"Affiliate"'),  # "Inc." ends no definition
        (70, "Saturday.", '"Business'),
        (len(DEFINITIONS) - 2, None, "Next"),  # after the last end: the default
    ],
)
def test_a_definition_runs_to_its_sentence_end(pos, end, start):
    sentences = DefinitionSentences(DEFINITIONS)
    stop = sentences.end_after(pos, len(DEFINITIONS) + 1)
    assert (None if stop > len(DEFINITIONS) else DEFINITIONS[:stop].split()[-1]) == end
    assert DEFINITIONS[sentences.start_before(DEFINITIONS, pos) :].split()[0] == start
    assert sentences.end_after(pos, 5) <= 5  # the default bounds the end


def test_a_blank_line_ends_a_definition():
    sentences = DefinitionSentences("Term means a thing\n\nOther")
    assert sentences.ends == [len("Term means a thing\n\n")]


def _words(text: str) -> tuple[list[int], np.ndarray]:
    spans = [(m.start(), m.end()) for m in re.finditer(r"\w+|[^\w\s]", text)]
    return list(range(len(spans))), np.array(spans)


@pytest.mark.parametrize(
    ("text", "tiers"),
    [
        ("One two.\n\nThree four. Five", {"Three": 2, "Five": 1}),
        ("One\nTwo", {"Two": 1}),  # a line break is a sentence start
        ("Hello: world; again, no", {"world": 1, "again": 1}),  # not after a comma
        ("plain words only", {}),
    ],
)
def test_window_tiers_mark_paragraph_and_sentence_starts(text, tiers):
    ids, offsets = _words(text)
    tier, keys = window_tiers(text, ids, offsets)
    marked = {text[a:b]: int(t) for (a, b), t in zip(offsets, tier, strict=True) if t}
    assert marked == tiers
    assert keys.shape == (len(ids),) and keys.dtype == np.uint64


def test_window_keys_depend_on_the_neighbours_only():
    text = "a b c a b c"
    ids = [1, 2, 3, 1, 2, 3]
    _, keys = window_tiers(text, ids, _words(text)[1])
    assert keys[1] == keys[4] and keys[0] != keys[3]  # the first and last lack a neighbour


OFFSETS = [(0, 3), (4, 9), (9, 10), (11, 14), (14, 14), (15, 20)]  # (14, 14): empty


def test_token_starts_are_non_decreasing():
    assert token_starts(OFFSETS).tolist() == [0, 4, 9, 11, 11, 15]


@pytest.mark.parametrize(
    ("start", "end", "tokens"),
    [
        (0, 3, (0, 1)),
        (4, 10, (1, 3)),
        (5, 12, (1, 5)),  # from inside a token; the empty token at 14 is held
        (15, 20, (5, 6)),
    ],
)
def test_token_span_holds_the_characters(start, end, tokens):
    assert token_span(OFFSETS, start, end) == tokens


@pytest.mark.parametrize(
    ("position", "token"),
    [
        (0, 0),
        (4, 1),
        (6, -1),  # inside a token
        (3, 1),  # whitespace: the token after it
        (10, 3),
        (21, -1),  # past the last token
    ],
)
def test_tokens_at_never_falls_inside_a_token(position, token):
    starts, ends = np.array([0, 4, 9, 11, 15]), np.array([3, 9, 10, 14, 20])
    assert tokens_at(starts, ends, [position]).tolist() == [token]
