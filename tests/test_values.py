"""Values in contract text (``lateseg.text.values``): each kind read from the ways
contracts write it, clause numbers told apart from values, and every number in words
(as ``num2words`` writes it) read as its integer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from lateseg.text.values import ADDRESS, Value, find_values, number_word


def values(text: str) -> list[tuple[str, str, float | None, str | None]]:
    return [(v.kind, text[v.start : v.end], v.amount, v.unit) for v in find_values(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # durations: words, digits, both, with modifiers before the unit
        ("within thirty (30) days after receipt", [("duration", "thirty (30) days", 30, "day")]),
        ("ninety days", [("duration", "ninety days", 90, "day")]),
        ("90 days", [("duration", "90 days", 90, "day")]),
        ("five (5) business days", [("duration", "five (5) business days", 5, "day")]),
        (
            "forty-five (45) calendar days",
            [("duration", "forty-five (45) calendar days", 45, "day")],
        ),
        ("twelve (12) months", [("duration", "twelve (12) months", 12, "month")]),
        ("one (1) year", [("duration", "one (1) year", 1, "year")]),
        ("twenty-four (24) hours", [("duration", "twenty-four (24) hours", 24, "hour")]),
        ("fifteen minutes", [("duration", "fifteen minutes", 15, "minute")]),
        ("1.5 hours", [("duration", "1.5 hours", 1.5, "hour")]),
        (
            "one hundred and twenty days",
            [("duration", "one hundred and twenty days", 120, "day")],
        ),
        (
            "one thousand, one hundred (1,100) days",  # num2words' comma after a thousand
            [("duration", "one thousand, one hundred (1,100) days", 1100, "day")],
        ),
        # money
        ("$1,250,000.00", [("money", "$1,250,000.00", 1_250_000, None)]),
        ("$500", [("money", "$500", 500, None)]),
        ("not less than $5 million per claim", [("money", "$5 million", 5e6, None)]),
        ("100 dollars", [("money", "100 dollars", 100, None)]),
        (
            "ten thousand dollars ($10,000)",
            [("money", "ten thousand dollars ($10,000)", 10_000, None)],
        ),
        (
            "two million, three hundred thousand dollars",
            [("money", "two million, three hundred thousand dollars", 2_300_000, None)],
        ),
        # percentages
        ("three percent (3%)", [("percent", "three percent (3%)", 3, None)]),
        ("5%", [("percent", "5%", 5, None)]),
        ("12.5 percent", [("percent", "12.5 percent", 12.5, None)]),
        (
            "one and one-half percent (1.5%) per month",
            [("percent", "one and one-half percent (1.5%)", 1.5, None)],
        ),
        # dates and times: no amount
        ("January 1, 2024", [("date", "January 1, 2024", None, None)]),
        ("on the 1st of March, 2023", [("date", "1st of March, 2023", None, None)]),
        ("15 March 2024", [("date", "15 March 2024", None, None)]),
        ("March 2023", [("date", "March 2023", None, None)]),
        ("2024-01-15", [("date", "2024-01-15", None, None)]),
        ("by 5:00 p.m.", [("time", "5:00 p.m.", None, None)]),
        ("at 10:30 AM", [("time", "10:30 AM", None, None)]),
        # multiples, ordinals, counts, bare numbers
        ("two times (2x)", [("multiple", "two times (2x)", 2, None)]),
        ("SHALL NOT EXCEED THREE TIMES (3X)", [("multiple", "THREE TIMES (3X)", 3, None)]),
        ("3x the fees", [("multiple", "3x", 3, None)]),
        ("the 14th day", [("ordinal", "14th", 14, None)]),
        (
            "ten (10) Authorized Users",
            [("count", "ten (10) Authorized Users", 10, "authorized users")],
        ),
        (
            "four (4) reserved parking permits for the Tenant",  # up to three noun words
            [("count", "four (4) reserved parking permits", 4, "reserved parking permits")],
        ),
        ("seven", [("number", "seven", 7, None)]),
        ("42", [("number", "42", 42, None)]),
        ("two thousand and five", [("number", "two thousand and five", 2005, None)]),
        (
            "one, two, three",
            [("number", "one", 1, None), ("number", "two", 2, None), ("number", "three", 3, None)],
        ),
        (
            "one thousand, two thousand",  # a list, not one number
            [("number", "one thousand", 1000, None), ("number", "two thousand", 2000, None)],
        ),
        # addresses and clause numbers: not values
        (
            "1200 Westlake Terrace, Suite 310",
            [("address", "1200 Westlake Terrace, Suite 310", None, None)],
        ),
        ("Section 9.3", [("reference", "9.3", 9.3, None)]),
        ("see Article 7", [("reference", "7", 7, None)]),
        ("5.15.1", [("reference", "5.15.1", None, None)]),
        ("§§ 4 and 5", [("reference", "4", 4, None), ("reference", "5", 5, None)]),
        ("10.2 Cap on Liability", [("reference", "10.2", 10.2, None)]),
        ("no value here", []),
    ],
)
def test_values_are_read_with_their_kind_amount_and_unit(text, expected):
    assert values(text) == expected


@pytest.mark.parametrize(
    ("word", "is_number"),
    [
        ("sixty", True),
        ("Sixty", True),
        ("forty-five", True),
        ("one-half", True),
        ("one’half", True),
        ("hundred", True),
        ("quarter", True),
        ("sixtyish", False),
        ("and", False),
        ("", False),
        ("60", False),
    ],
)
def test_number_words(word, is_number):
    assert number_word(word) is is_number


@pytest.mark.parametrize(
    ("kind", "is_value"),
    [("reference", False), ("duration", True), ("date", True), ("address", True)],
)
def test_a_clause_number_is_no_value(kind, is_value):
    assert Value(0, 1, kind).is_value is is_value


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Notices go to 77 Ferry Landing Road.", "77 Ferry Landing Road"),
        ("1200 Westlake Terrace, Suite 310, Seattle", "1200 Westlake Terrace, Suite 310"),
        ("within 30 days of notice", None),
    ],
)
def test_a_street_address_is_found(text, address):
    m = ADDRESS.search(text)
    assert (m.group(0) if m else None) == address


def _one_duration(text: str, amount: int, unit: str) -> None:
    found = [v for v in find_values(text) if v.is_value]
    assert [(v.kind, v.amount, v.unit, v.start, v.end) for v in found] == [
        ("duration", amount, unit, 0, len(text))
    ], text


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=10_000))
def test_every_number_in_words_is_read_as_its_days(n):
    words = num2words(n)  # "one thousand, two hundred and thirty-four"
    _one_duration(f"{words} ({n}) days", n, "day")
    _one_duration(f"{words} ({n:,}) days", n, "day")
    _one_duration(f"{words} days", n, "day")
    _one_duration(f"{words.upper()} ({n}) BUSINESS DAYS", n, "day")
    _one_duration(f"{words.replace(',', '')} months", n, "month")


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=10**9 - 1))
def test_large_numbers_in_words_are_read_as_money(n):
    text = f"{num2words(n)} dollars (${n:,})"
    assert values(text) == [("money", text, n, None)]
