"""What the reader sees as the answer: values with their offsets, what a question asks
for, the answer phrase inside its sentence, headings that are never answers, lists."""

from __future__ import annotations

import pytest

from lateseg.answer.lists import find_lists
from lateseg.answer.phrase import (
    answer_phrase,
    body_start,
    is_heading,
    typed_phrase,
)
from lateseg.answer.question import analyse, content_words, equivalents
from lateseg.text.values import find_values
from lateseg.text.words import stem


def values(text: str) -> list[tuple[str, str, float | None, str | None]]:
    return [(v.kind, text[v.start : v.end], v.amount, v.unit) for v in find_values(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "upon sixty (60) days' prior written notice",
            ("duration", "sixty (60) days", 60.0, "day"),
        ),
        (
            "THE GREATER OF (B) FIVE HUNDRED THOUSAND DOLLARS ($500,000).",
            ("money", "FIVE HUNDRED THOUSAND DOLLARS ($500,000)", 500000.0, None),
        ),
        (
            "at the rate of one and one-half percent (1.5%) per month",
            ("percent", "one and one-half percent (1.5%)", 1.5, None),
        ),
        (
            "for the first four (4) full calendar months of the Term",
            ("duration", "four (4) full calendar months", 4.0, "month"),
        ),
        ("not less than $5 million per claim", ("money", "$5 million", 5e6, None)),
        (
            "SHALL NOT EXCEED THREE TIMES (3X) THE TOTAL",
            ("multiple", "THREE TIMES (3X)", 3.0, None),
        ),
        (
            "includes up to five hundred (500) Authorized Users.",
            ("count", "five hundred (500) Authorized Users", 500.0, "authorized users"),
        ),
        ("made and entered into as of June 16, 2025 (the", ("date", "June 16, 2025", None, None)),
    ],
)
def test_a_value_written_in_words_and_numerals_is_one_value(text, expected):
    assert values(text) == [expected]


def test_clause_numbers_and_addresses_are_not_values():
    text = (
        "10.2 Cap on Liability. EXCEPT FOR THE EXCLUDED CLAIMS …\nARTICLE 11 INSURANCE\n"
        "Sections 4.4 through 4.7 and Section 5.4 survive. Notices go to 77 Ferry Landing "
        "Road, on the fourteenth (14th) floor."
    )
    kinds = {text[v.start : v.end]: v.kind for v in find_values(text)}
    assert kinds["10.2"] == kinds["11"] == kinds["4.4"] == kinds["4.7"] == "reference"
    assert kinds["5.4"] == "reference" and kinds["77 Ferry Landing Road"] == "address"
    assert kinds["14th"] == "ordinal"
    assert not [v for v in find_values(text) if v.is_value and v.kind in ("count", "number")]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How much notice does Corvane need to give to walk away from the MSA?", "duration"),
        ("Which state's law governs the NDA?", "law"),
        ("What is the cap on liability in the SaaS agreement?", "limit"),
        ("How much is the one-off implementation fee?", "money"),
        ("By what percentage does base rent go up every year?", "percent"),
        ("On what date did the mutual NDA take effect?", "date"),
        ("How many reserved parking permits come with the office lease?", "count"),
        ("Where should lock files be kept?", "place"),
        ("Who is Tessellate's designated contact for disclosures?", "party"),
        ("Which priority levels can packages have?", "list"),
        ("May the recipient run a chemical analysis on a prototype?", "modal"),
        ("When is a notice sent by certified mail treated as given?", "when"),
    ],
)
def test_what_a_question_asks_for(question, kind):
    assert analyse(question).kind == kind


def test_a_value_the_question_gives_is_a_premise_not_an_answer():
    asked = analyse("When must the tenant notify the landlord to extend the lease for five years?")
    sentence = (
        "Tenant shall have one (1) option to extend the Term for a single period of five (5) "
        "years, on the same terms."
    )
    assert typed_phrase(asked, sentence) is None  # no value but the one it gives


def test_plain_words_find_the_contracts_words():
    assert stem("commencement") in equivalents("begin")
    assert stem("solicit") in equivalents("recruiting")
    assert content_words("the fifth lease year") == ["5", "year"]


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("10.2 Cap on Liability.", True),
        ("ARTICLE 12 LIMITATION OF LIABILITY", True),
        ("EXHIBIT B SERVICE LEVEL AGREEMENT", True),
        ("5.15.1 Purpose", True),
        ("Client may terminate this Agreement upon sixty (60) days' notice.", False),
        ("EXCEPT FOR THE EXCLUDED CLAIMS, EACH PARTY'S TOTAL LIABILITY SHALL NOT EXCEED", False),
        ("(a) sell, resell, rent, lease, or otherwise make the Service available;", False),
    ],
)
def test_headings_are_told_from_sentences(line, heading):
    assert is_heading(line) is heading


def test_a_sentence_opening_with_headings_starts_after_them():
    text = "ARTICLE 12 LIMITATION OF LIABILITY\n\n12.1 General Cap. EXCEPT AS PROVIDED IN …"
    assert text[body_start(text) :].startswith("EXCEPT AS PROVIDED")
    text = "6.2 Maintainer scripts idempotency\n\nIt is necessary for the error recovery"
    assert text[body_start(text) :].startswith("It is necessary")
    assert body_start("10.2 Cap on Liability.") == len("10.2 Cap on Liability.")


@pytest.mark.parametrize(
    ("question", "sentence", "phrase"),
    [
        (
            "How much notice does the Client need to end the agreement for convenience?",
            "Client may terminate this Agreement, in whole or in part, for any reason or no "
            "reason, upon sixty (60) days' prior written notice to Provider.",
            "sixty (60) days",
        ),
        (
            "Which state's law governs the agreement?",
            "This Agreement shall be governed by and construed in accordance with the laws "
            "of the State of California, without giving effect to any choice of law rule.",
            "the State of California",
        ),
        (
            "What is the cap on liability in the agreement?",
            "EACH PARTY'S TOTAL LIABILITY SHALL NOT EXCEED THE TOTAL AMOUNTS PAID AND PAYABLE "
            "BY CUSTOMER UNDER THIS AGREEMENT IN THE TWELVE (12) MONTHS PRECEDING THE CLAIM.",
            "THE TOTAL AMOUNTS PAID AND PAYABLE BY CUSTOMER UNDER THIS AGREEMENT IN THE TWELVE "
            "(12) MONTHS PRECEDING THE CLAIM",
        ),
        (
            "What is the tenant's monthly base rent during the first year?",
            "- Lease Year 1 (April 1, 2025 to March 31, 2026): $38.50 per rentable square foot "
            "per year; annual Base Rent $480,480.00; monthly installment $40,040.00",
            "$40,040.00",
        ),
        (
            "How much notice must the tenant give to exercise the renewal option?",
            "Tenant must exercise the option by giving Landlord written notice no earlier than "
            "twelve (12) months and no later than nine (9) months before the Expiration Date.",
            "no earlier than twelve (12) months and no later than nine (9) months",
        ),
        (
            "Where should lock files be kept?",
            "Lock files should be stored within the /var/lock directory structure.",
            "/var/lock",
        ),
    ],
)
def test_the_phrase_is_the_shortest_span_that_answers(question, sentence, phrase):
    span = answer_phrase(analyse(question), sentence)
    assert span is not None and sentence[span[0] : span[1]] == phrase


def test_a_definition_list_is_read_as_its_terms():
    text = (
        "The following priority levels are recognized by the Debian package management tools.\n\n"
        "required\nPackages which are necessary for the proper functioning of the system (usually, "
        "this means that dpkg functionality depends on these packages).\n\n"
        "important\nImportant programs, including those which one would expect to find on any "
        "Unix-like system.\n\n"
        "standard\nThese packages provide a reasonably small but not too limited character-mode "
        "system.\n\n"
        "optional\nThis is the default priority for the majority of the archive.\n"
    )
    (block,) = find_lists(text)
    assert [text[a:b] for a, b in block.labels] == ["required", "important", "standard", "optional"]
    assert text[block.start :].startswith("The following priority levels")
