"""The asked sense and the asked branch (issue 43.3): of the sentences that state a value
of the kind asked, the quote is the one whose value is of the thing asked
(``lateseg.answer.sense``) and whose conditions are the question's
(``lateseg.answer.conditions``). Each example is a small document of its own, read by
the real embedder; the distractor states a value of the same kind about something else."""

from __future__ import annotations

import pytest

from lateseg.answer.conditions import condition_words, in_exception
from lateseg.answer.extractive import extractive_answer
from lateseg.answer.question import analyse
from lateseg.types import Hit


def passages(*texts: str) -> list[Hit]:
    """Each text a passage of a document of its own, retrieved with the same score."""
    return [
        Hit(f"/docs/doc{i}.txt", 0, len(t), t, 0.5, chunk_id=i, kind="text")
        for i, t in enumerate(texts)
    ]


EXPORT = (
    "Export. Supplier shall comply with all export control and sanctions laws of the "
    "United Kingdom when shipping the Equipment."
)
GOVERNING = (
    "Miscellaneous. This Agreement shall be construed in accordance with the laws of the "
    "Province of Ontario, without regard to its conflict of laws rules."
)
RETENTION = (
    "Return of Materials. Upon request, Recipient shall return or destroy all Confidential "
    "Information, except that Recipient may retain one archival copy of Confidential "
    "Information in its legal files for up to seven (7) years."
)
SURVIVAL = (
    "Term. Recipient's obligations of confidentiality under this Agreement shall survive for "
    "three (3) years after the date of the last disclosure."
)
OFFICE = (
    "Non-Competition. The non-compete covenant applies to Employee's work at the Denver "
    "office of the Company."
)
RADIUS = (
    "Restricted Area. During the Restricted Period, Employee shall not compete with the "
    "Company within a radius of forty (40) miles of any office of the Company."
)
EXCLUSIVITY = (
    "Exclusivity. Landlord grants Tenant an exclusive right to sell coffee in the shopping "
    "center, and the exclusivity zone includes the food court."
)
KILOMETRES = (
    "Radius. Landlord shall not lease space to a competing coffee retailer within a "
    "2-kilometer radius of the Store."
)
PINGS = (
    "Telemetry. The customer's vehicles may send up to 10,000 location pings per day to "
    "the platform."
)
FLEET = "Fleet Size. The subscription covers up to three hundred (300) vehicles."
CURE = (
    "Cure. Licensor may terminate for breach. Licensee may cure a breach by paying within "
    "twenty-one\n(21) days of notice, or within one (1) month for any other breach."
)


@pytest.mark.parametrize(
    ("question", "texts", "phrase"),
    [
        # which law governs: the law the agreement is construed by, not one complied with
        ("Which country's laws govern this contract?", [EXPORT, GOVERNING], "Ontario"),
        # how long must … protect: the term of the duty, not its exception (a copy retained)
        (
            "How long must the recipient protect confidential information?",
            [RETENTION, SURVIVAL],
            "three (3) years",
        ),
        # how far: a distance, not the place of work
        ("How far does the non-compete extend?", [OFFICE, RADIUS], "forty (40) miles"),
        (
            "How far from the store does the exclusivity zone reach?",
            [EXCLUSIVITY, KILOMETRES],
            "2-kilometer",
        ),
        # how many vehicles: vehicles, not location pings
        (
            "How many vehicles may the customer track on the platform?",
            [PINGS, FLEET],
            "three hundred (300) vehicles",
        ),
        # a value broken at a line break before its numeral is one value
        ("Within how many days must the licensee pay to cure?", [CURE], "twenty-one\n(21) days"),
    ],
)
def test_the_quote_states_the_thing_asked_not_another_of_its_kind(encoder, question, texts, phrase):
    answer = extractive_answer(question, passages(*texts), encoder)
    assert answer.phrase is not None and phrase in answer.phrase.text, answer.text
    assert " ".join(phrase.split()) in answer.text  # the quote holds the value whole


DEFAULT = (
    "Notice. If Landlord is in default, Tenant may terminate on ten (10) days' written notice."
)
NOT_DEFAULT = (
    "If Landlord is not in default, Tenant may terminate only on one hundred eighty (180) "
    "days' written notice."
)


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("What notice is required if the landlord is not in default?", "(180) days"),
        ("What notice is required if the landlord is in default?", "ten (10) days"),
        ("What notice does the tenant give unless the landlord is in default?", "(180) days"),
    ],
)
def test_the_quote_is_the_branch_whose_conditions_the_question_states(encoder, question, phrase):
    """Two branches of one clause state a value each; the question's condition (and its
    negation) picks the branch, in either order."""
    for texts in ([DEFAULT, NOT_DEFAULT], [NOT_DEFAULT, DEFAULT]):
        answer = extractive_answer(question, passages(*texts), encoder)
        assert answer.phrase is not None and phrase in answer.phrase.text, answer.text


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("What notice is required if the landlord is not in default?",
         [("landlord", False), ("default", True)]),
        ("What is owed if let go without cause and no change in control occurs?",
         [("let", False), ("go", False), ("cause", True), ("change", True), ("control", True),
          ("occurs", True)]),
        ("What fee applies unless the tenant renews?", [("tenant", True), ("renews", True)]),
        ("When must the tenant pay rent?", []),  # "when" opening a question asks a time
    ],
)  # fmt: skip
def test_a_questions_conditions_are_its_words_with_their_polarity(question, words):
    assert condition_words(question) == words


@pytest.mark.parametrize(
    ("question", "kind", "head"),
    [
        ("How many vehicles may the customer track?", "count", "vehicles"),
        ("How many named drivers can the policy list?", "count", "drivers"),
        ("How far does the non-compete extend?", "distance", None),
        ("Within what radius may no competitor open?", "distance", None),
        ("How far in advance must the tenant give notice?", "duration", None),
    ],
)
def test_a_count_question_names_what_it_counts(question, kind, head):
    asked = analyse(question)
    assert (asked.kind, asked.head) == (kind, head)


KEPT = "Data is deleted, except that one copy may be kept for 6 years."


@pytest.mark.parametrize(
    ("question", "text", "value", "inside"),
    [
        # the value after a mid-sentence exception is the exception's
        ("How long may data be kept?", KEPT, "6", True),
        # an exception that opens the sentence ends at its comma: the rule after it is not
        ("What is the cap?", "Except for fraud, liability may not exceed $9,000.", "$9,000", False),
        ("What is the cap?", "Except for claims above $2,000, the fee is $40.", "$2,000", True),
        # a question that asks about the exception is answered by it
        ("What is excepted from the deletion?", KEPT, "6", False),
        ("Which exception applies to deletion?", KEPT, "6", False),
    ],
)
def test_a_value_in_an_exception_is_told_from_the_rule(question, text, value, inside):
    assert in_exception(question, text, text.index(value)) is inside
