"""The support check: each generated sentence against the passages it cites."""

from __future__ import annotations

import pytest

from lateseg.generate.citations import fit_passages, format_passages
from lateseg.generate.compose import generated
from lateseg.generate.question import analyse
from lateseg.generate.support import check_support, facts
from lateseg.types import Hit

QUESTION = "How many days' notice must the Client give to terminate for convenience?"
CLAUSE = Hit(
    "/c/msa.pdf",
    10741,
    10950,
    "5.2 Termination for Convenience. Client may terminate this Agreement or any Statement "
    "of Work, in whole or in part, for any reason or no reason, upon sixty (60) days' "
    "prior written notice to Provider.",
    0.71,
    page=4,
    section="5 Term and Termination > 5.2 Termination for Convenience",
    chunk_id=7,
)
OTHER = Hit(
    "/c/saas.pdf",
    500,
    640,
    "9.3 Effect of Termination. Customer may export its data within forty-five (45) days "
    "after the termination of the Subscription Term.",
    0.52,
    page=9,
    section="9 Term > 9.3 Effect of Termination",
    chunk_id=40,
)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("upon sixty (60) days' prior written notice", {(60.0, "day")}),
        ("within forty-five days", {(45.0, "day")}),
        ("one hundred and twenty (120) calendar days", {(120.0, "day")}),
        ("five hundred thousand dollars ($500,000)", {(500000.0, None)}),
        ("ten percent (10%) of the fees", {(10.0, None)}),
        ("9.3 days' notice", {(9.3, "day")}),
    ],
)
def test_numerals_and_number_words_are_one_value_and_durations_keep_their_unit(text, numbers):
    assert facts(text)[0] == numbers


def test_a_paraphrase_that_keeps_the_numbers_is_supported(encoder):
    (s,) = check_support(
        "The Client has to give 60 days' written notice to end it for convenience [1].",
        QUESTION,
        [CLAUSE, OTHER],
        encoder,
    )
    assert s.supported and s.reason is None and s.cites == (1,)
    assert s.evidence.source == CLAUSE.source and "sixty (60) days" in s.evidence.text
    assert CLAUSE.start <= s.evidence.start < s.evidence.end <= CLAUSE.end


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        ("The Client must give ninety (90) days' notice [1].", "90 days"),
        # the demo's old answer: 9.3 is a clause number, not a notice period
        ("9.3 days' notice must be given within forty-five days [2].", "9.3 days"),
        ("Corvane may terminate upon sixty days' notice [1].", "corvane"),
    ],
)
def test_a_number_or_name_not_in_the_cited_evidence_is_flagged(encoder, answer, missing):
    (s,) = check_support(answer, QUESTION, [CLAUSE, OTHER], encoder)
    assert not s.supported and missing in s.reason
    assert s.evidence is not None  # where the closest evidence is, for the reader


def test_a_sentence_is_checked_against_the_passage_it_cites_not_another(encoder):
    # true of passage 1, but it cites passage 2
    (s,) = check_support(
        "Client may terminate on sixty days' notice [2].", QUESTION, [CLAUSE, OTHER], encoder
    )
    assert not s.supported and "60 days" in s.reason
    (s,) = check_support("It needs sixty days' notice [7].", QUESTION, [CLAUSE, OTHER], encoder)
    assert not s.supported and "no passage has" in s.reason


def test_markers_after_the_full_stop_belong_to_the_sentence_before(encoder):
    sents = check_support(
        "Client may terminate on sixty days' notice. [1] Customer can export its data for "
        "forty-five days. [2]",
        QUESTION,
        [CLAUSE, OTHER],
        encoder,
    )
    assert [s.cites for s in sents] == [(1,), (2,)]
    assert all(s.supported for s in sents)


def test_refusals_and_unrelated_sentences_are_not_supported(encoder):
    (s,) = check_support("The passages do not answer the question.", QUESTION, [CLAUSE], encoder)
    assert not s.supported and "do not answer" in s.reason
    (s,) = check_support(
        "It is made in the leaves of green plants [1].",
        "What must the Client do to terminate for convenience?",
        [CLAUSE],
        encoder,
    )
    assert not s.supported and "similarity" in s.reason


def test_attribution_never_turns_an_unsupported_answer_into_a_cited_one(encoder):
    wrong = generated(
        "The notice period is 90 days.", analyse(QUESTION), [CLAUSE, OTHER], encoder, None
    )
    assert wrong.cited_by == "attribution" and wrong.citations == ()
    assert wrong.supported is False and wrong.support[0].evidence.source == CLAUSE.source
    right = generated(
        "The notice period is sixty days.", analyse(QUESTION), [OTHER, CLAUSE], encoder, None
    )
    assert right.supported and right.citations == (CLAUSE,)
    assert right.to_dict()["support"][0]["evidence"]["source"] == CLAUSE.source


def test_passages_are_never_cut_a_passage_over_budget_is_dropped_whole():
    long = Hit("/c/long.txt", 0, 3000, "word " * 600, 0.9)
    kept, dropped = fit_passages([CLAUSE, long, OTHER], budget=600, count=len)
    assert kept == [CLAUSE, OTHER] and dropped == [long]
    body = format_passages(kept)
    assert CLAUSE.text in body and OTHER.text in body and "[2] (saas.pdf, p. 9" in body


def test_a_sentence_that_restates_a_quantity_question_without_a_quantity_is_not_supported(
    encoder,
):
    (s,) = check_support(
        "The Client must give prior written notice to terminate for convenience [1].",
        QUESTION,
        [CLAUSE, OTHER],
        encoder,
    )
    assert not s.supported and "does not state the quantity" in s.reason
    # the same words answer a question that asks for no quantity
    (s,) = check_support(
        "The Client must give prior written notice to terminate for convenience [1].",
        "What must the Client do to terminate the Agreement for convenience?",
        [CLAUSE, OTHER],
        encoder,
    )
    assert s.supported, s.reason


def test_the_evidence_span_is_the_sentence_that_states_the_value(encoder):
    clause = Hit(
        "/c/msa.pdf",
        0,
        160,
        "5.2 Termination for Convenience. Client may terminate this Agreement for "
        "convenience. The notice period for that is sixty (60) days.",
        0.7,
        chunk_id=3,
    )
    (s,) = check_support(
        "The Client may terminate this Agreement for convenience on 60 days' notice [1].",
        QUESTION,
        [clause],
        encoder,
    )
    assert s.supported, s.reason
    assert "sixty (60) days" in s.evidence.text and s.evidence.score <= s.similarity
    assert clause.text[s.evidence.start : s.evidence.end] == s.evidence.text


CAPS = Hit(
    "/c/msa.pdf",
    19300,
    19700,
    "10.1 Exclusion of Certain Damages. IN NO EVENT SHALL EITHER PARTY BE LIABLE FOR ANY "
    "INDIRECT DAMAGES.\n10.2 Cap on Liability. EACH PARTY'S TOTAL LIABILITY SHALL NOT EXCEED "
    "FIVE HUNDRED THOUSAND DOLLARS ($500,000).\nARTICLE 11 INSURANCE",
    0.7,
    page=6,
    section="10 Limitation of Liability > 10.2 Cap on Liability",
    chunk_id=12,
)
CAP_QUESTION = "What is the cap on liability?"


@pytest.mark.parametrize(
    "answer",
    ["The cap on liability is 10.1 [1].", "The cap is 11 [1].", "It is capped at 10.2 [1]."],
)
def test_a_clause_number_offered_as_an_amount_is_not_supported(encoder, answer):
    (s,) = check_support(answer, CAP_QUESTION, [CAPS], encoder)
    assert not s.supported and s.reason


def test_the_amount_itself_is_supported(encoder):
    (s,) = check_support(
        "Each party's total liability shall not exceed $500,000 [1].", CAP_QUESTION, [CAPS], encoder
    )
    assert s.supported, s.reason


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("10.2 Cap on Liability [1].", "heading"),
        ("The answer is: [1]", "says nothing"),
        ("Answer:", "says nothing"),
    ],
)
def test_headings_and_empty_lead_ins_are_not_supported(encoder, answer, reason):
    out = check_support(answer, CAP_QUESTION, [CAPS], encoder)
    assert out and not any(s.supported for s in out) and reason in out[0].reason


def test_a_sentence_said_again_is_not_supported_again(encoder):
    said = "Each party's total liability shall not exceed $500,000 [1]. "
    first, again = check_support(said * 2, CAP_QUESTION, [CAPS], encoder)
    assert first.supported and not again.supported and "repeats sentence 1" in again.reason


def test_a_copied_sentence_is_checked_where_it_was_copied_from(encoder):
    """The model copies passage 2's sentence but marks [1]: it is supported by, and cited
    to, passage 2."""
    copied = "Client may terminate this Agreement or any Statement of Work, in whole or in part"
    who = "Who may terminate the Agreement for convenience?"
    answer = generated(f"{copied} [1].", analyse(who), [OTHER, CLAUSE], encoder, None)
    (s,) = answer.support
    assert s.evidence.source == CLAUSE.source and s.cites == (1,)
    assert answer.citations == (CLAUSE,)
