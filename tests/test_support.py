"""The support check: each generated sentence against the passages it cites."""

from __future__ import annotations

import dataclasses

import pytest

from lateseg.answer.citations import fit_passages, format_passages
from lateseg.answer.question import analyse
from lateseg.check.facts import Premises
from lateseg.check.support import agrees, check_support, facts, subject_words
from lateseg.generate.compose import generated
from lateseg.types import Answer, Hit, Phrase

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
        analyse(QUESTION),
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
    (s,) = check_support(answer, analyse(QUESTION), [CLAUSE, OTHER], encoder)
    assert not s.supported and missing in s.reason
    assert s.evidence is not None  # where the closest evidence is, for the reader


def test_a_sentence_is_checked_against_the_passage_it_cites_not_another(encoder):
    # true of passage 1, but it cites passage 2
    (s,) = check_support(
        "Client may terminate on sixty days' notice [2].",
        analyse(QUESTION),
        [CLAUSE, OTHER],
        encoder,
    )
    assert not s.supported and "60 days" in s.reason
    (s,) = check_support(
        "It needs sixty days' notice [7].", analyse(QUESTION), [CLAUSE, OTHER], encoder
    )
    assert not s.supported and "no passage has" in s.reason


def test_markers_after_the_full_stop_belong_to_the_sentence_before(encoder):
    sents = check_support(
        "Client may terminate on sixty days' notice. [1] Customer can export its data for "
        "forty-five days. [2]",
        analyse(QUESTION),
        [CLAUSE, OTHER],
        encoder,
    )
    assert [s.cites for s in sents] == [(1,), (2,)]
    assert all(s.supported for s in sents)


def test_refusals_and_unrelated_sentences_are_not_supported(encoder):
    (s,) = check_support(
        "The passages do not answer the question.", analyse(QUESTION), [CLAUSE], encoder
    )
    assert not s.supported and "do not answer" in s.reason
    (s,) = check_support(
        "It is made in the leaves of green plants [1].",
        analyse("What must the Client do to terminate for convenience?"),
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
        analyse(QUESTION),
        [CLAUSE, OTHER],
        encoder,
    )
    assert not s.supported and "does not state the quantity" in s.reason
    # the same words answer a question that asks for no quantity
    (s,) = check_support(
        "The Client must give prior written notice to terminate for convenience [1].",
        analyse("What must the Client do to terminate the Agreement for convenience?"),
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
        analyse(QUESTION),
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
    (s,) = check_support(answer, analyse(CAP_QUESTION), [CAPS], encoder)
    assert not s.supported and s.reason


def test_the_amount_itself_is_supported(encoder):
    (s,) = check_support(
        "Each party's total liability shall not exceed $500,000 [1].",
        analyse(CAP_QUESTION),
        [CAPS],
        encoder,
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
    out = check_support(answer, analyse(CAP_QUESTION), [CAPS], encoder)
    assert out and not any(s.supported for s in out) and reason in out[0].reason


def test_a_sentence_said_again_is_not_supported_again(encoder):
    said = "Each party's total liability shall not exceed $500,000 [1]. "
    first, again = check_support(said * 2, analyse(CAP_QUESTION), [CAPS], encoder)
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


def test_a_value_is_looked_for_beyond_the_passage_its_words_were_copied_from(encoder):
    """ "The tenant's share is 4.16%.": its first words are copied from a passage about a
    cap on the share's increase, its value stands in another passage (the lease's terms);
    it is checked against every passage, not only the one its words came from."""
    cap = Hit(
        "/docs/lease.txt", 0, 120,
        "In each year after the Base Year the Tenant's share is capped: it shall not "
        "increase by more than five percent (5%).", 0.6, chunk_id=0, kind="text",
    )  # fmt: skip
    terms = Hit(
        "/docs/lease.txt", 900, 1000,
        "(g) Base Rent: $38.50 per rentable square foot.\n(h) Tenant's Proportionate "
        "Share: 4.16%.", 0.5, chunk_id=1, kind="text",
    )  # fmt: skip
    question = "What percentage of the building's operating expenses is the tenant's share?"
    (s,) = check_support("The tenant's share is 4.16%.", analyse(question), [cap, terms], encoder)
    assert s.supported, s.reason
    assert s.evidence.start >= terms.start and "4.16%" in s.evidence.text


# -- a value stated of another thing (issue 45) --------------------------------------------

EMPLOYMENT = [
    Hit(
        "/c/employment.pdf",
        2100,
        2460,
        "3.1 Base Salary. The Company shall pay the Employee a base salary of $182,000 per "
        "year, payable in accordance with the Company's regular payroll practices. 3.2 Annual "
        "Bonus. The Employee shall be eligible for an annual bonus at the sole discretion of "
        "the Board, based on the Employee's performance and the Company's results.",
        0.74,
        page=2,
        section="3 Compensation > 3.1 Base Salary",
        chunk_id=4,
    ),
    Hit(
        "/c/employment.pdf",
        2460,
        2700,
        "3.4 Late Payment. Any amount not paid to the Employee when due shall bear interest at "
        "the rate of one and one-half percent (1.5%) per month until paid.",
        0.61,
        page=2,
        section="3 Compensation > 3.4 Late Payment",
        chunk_id=5,
    ),
    Hit(
        "/c/employment.pdf",
        5200,
        5650,
        "7.3 Duration. The Employee's obligations of confidentiality under this Article 7 "
        "shall continue for three (3) years after the end of the employment. 7.4 Records. "
        "The Company shall keep the Employee's personnel records in its archive for ten (10) "
        "years after the end of the employment.",
        0.66,
        page=5,
        section="7 Confidentiality > 7.3 Duration",
        chunk_id=11,
    ),
]
MSA_TERM = [
    Hit(
        "/c/msa.pdf",
        10200,
        10741,
        "5.1 Term. This Agreement begins on the Effective Date and continues for an initial "
        'term of three (3) years (the "Initial Term"). Thereafter, this Agreement shall '
        "automatically renew for successive renewal terms of one (1) year each, unless either "
        "Party gives the other written notice of non-renewal at least ninety (90) days before "
        "the end of the Initial Term or the then-current Renewal Term.",
        0.72,
        page=4,
        section="5 Term and Termination > 5.1 Term",
        chunk_id=6,
    ),
    dataclasses.replace(
        CLAUSE,
        text=CLAUSE.text
        + " Provider may terminate this Agreement for convenience upon one hundred eighty "
        "(180) days' prior written notice to Client.",
    ),
]


@pytest.mark.parametrize(
    ("question", "answer", "passages"),
    [
        # 180 days is the Provider's notice period, not a renewal term
        (
            "How long is the automatic renewal period?",
            "The automatic renewal period is 180 days.",
            MSA_TERM,
        ),
        # 1.5% is the late-payment rate; the bonus is discretionary
        (
            "What is the target annual bonus?",
            "The target annual bonus is 1.5% of the base salary.",
            EMPLOYMENT,
        ),
        # 10 years is how long records are archived; confidentiality lasts three
        (
            "How long does the duty of confidentiality last?",
            "The confidentiality obligations last ten (10) years after the employment ends.",
            EMPLOYMENT,
        ),
        # the same swap when the model cites the passage that holds the value
        (
            "How long is the automatic renewal period?",
            "Each renewal term lasts 180 days [2].",
            MSA_TERM,
        ),
    ],
)
def test_a_value_stated_of_another_thing_is_not_supported(encoder, question, answer, passages):
    (s,) = check_support(answer, analyse(question), passages, encoder)
    assert not s.supported and "states its value of what it says" in s.reason


@pytest.mark.parametrize(
    ("question", "answer", "passages"),
    [
        (
            "How long is each renewal term?",
            "After the first three years, the agreement renews a year at a time.",
            MSA_TERM,
        ),
        ("How long is the initial term?", "The agreement first runs for three years.", MSA_TERM),
        (
            "How long does the duty of confidentiality last?",
            "Confidentiality duties carry on for 3 years once employment ends.",
            EMPLOYMENT,
        ),
        (
            "What interest is due on late pay?",
            "Late amounts accrue interest of 1.5% a month [2].",
            EMPLOYMENT,
        ),
        (
            "How long are personnel files kept?",
            "Personnel records stay in the archive for ten years after the employment.",
            EMPLOYMENT,
        ),
        ("What is the base salary?", "The Employee earns $182,000 a year.", EMPLOYMENT),
        (
            "How much notice does the Provider need to terminate for convenience?",
            "The Provider can end the agreement for convenience with 180 days' notice.",
            MSA_TERM,
        ),
    ],
)
def test_a_true_paraphrase_of_the_value_and_its_subject_is_supported(
    encoder, question, answer, passages
):
    (s,) = check_support(answer, analyse(question), passages, encoder)
    assert s.supported, s.reason


def test_what_a_claim_says_its_value_is_of():
    """The words of the value (numerals, units, "percent") are not what it is of; an
    ordinal stays a word, so that "first" meets "initial"."""
    said = subject_words("The automatic renewal period is one hundred twenty (120) days.")
    assert said == ["automatic", "renewal", "period"]
    assert subject_words("Interest is 1.5 percent per month.") == ["interest"]
    assert subject_words("The first term lasts 3 years.") == ["first", "term", "lasts"]


# -- agreement with the quoted answer (issue 45 point 4): real sentences of data/contracts

SLA = Hit(
    "/c/saas.pdf",
    0,
    548,
    "1. Service Credits. If the Uptime Percentage for a calendar month is below 99.9%, "
    "Customer shall receive a\nService Credit equal to the following percentage of the "
    "Subscription Fees attributable to that month:\n- Uptime Percentage of less than 99.9% "
    "but at least 99.0%: ten percent (10%)\n- Uptime Percentage of less than 99.0% but at "
    "least 95.0%: twenty-five percent (25%)\n- Uptime Percentage of less than 95.0%: fifty "
    "percent (50%)\nThe total Service Credits for any calendar month shall not exceed fifty "
    "percent (50%) of the Subscription\nFees attributable to that month.",
    0.6,
    section="Exhibit B Service Level Agreement > 1 Service Credits",
    chunk_id=1,
)
ORDER_FORM = Hit(
    "/c/saas.pdf",
    1000,
    1378,
    "Subscription Start Date: September 15, 2025.\nInitial Subscription Term: thirty-six "
    "(36) months.\nSubscription Quantity: 500 Authorized Users.\nAnnual Subscription Fee: "
    "$184,000.00 per contract year, invoiced annually in advance.\nImplementation Fee: a "
    "one-time fee of $22,500.00, invoiced on the Effective Date.\nAdditional Authorized "
    "Users: $31.00 per Authorized User per month.",
    0.6,
    section="Exhibit A Order Form",
    chunk_id=2,
)
RENT = Hit(
    "/c/lease.pdf",
    0,
    312,
    "Base Rent increases by three percent (3%) on each anniversary of the Commencement "
    "Date, rounded to the\nnearest cent per rentable square foot, as follows:\n- Lease Year "
    "1 (April 1, 2025 to March 31, 2026): $38.50 per rentable square foot per year; annual "
    "Base\nRent $480,480.00; monthly installment $40,040.00",
    0.6,
    section="Exhibit B Base Rent Schedule",
    chunk_id=3,
)
MOST_CREDIT = "What is the most the customer can get back in service credits for a single month?"


def quoted_check(answer, question, passages, encoder):
    from lateseg.answer.extractive import quote_answer

    asked = analyse(question)
    quote = quote_answer(asked, passages, encoder)
    return quote, check_support(answer, asked, passages, encoder, quote=quote)


def test_a_value_of_another_row_is_refused_by_the_quoted_answer(encoder):
    """10% is the credit of one row of the table, not the most: the same-thing rule alone
    passes it (the sentence is about service credits for a month), the quote does not."""
    wrong = "The most the customer can get back in service credits for a single month is 10%."
    (alone,) = check_support(wrong, analyse(MOST_CREDIT), [SLA], encoder)
    assert alone.supported
    quote, (s,) = quoted_check(wrong, MOST_CREDIT, [SLA], encoder)
    assert quote.phrase is not None and "50%" in quote.phrase.text
    assert not s.supported and s.reason.startswith("does not give the quoted answer")
    right = wrong.replace("10%", "fifty percent")
    _, (s,) = quoted_check(right, MOST_CREDIT, [SLA], encoder)
    assert s.supported, s.reason


def test_the_quoted_amount_passes_and_another_fee_of_the_form_does_not(encoder):
    """The subscription fee passes though "costs" is not a word of its line; the
    implementation fee, on the next line of the same form, does not."""
    question = "How much does the SaaS subscription cost per year?"
    claim = "The SaaS subscription costs $184,000."
    _, (s,) = quoted_check(claim, question, [ORDER_FORM, SLA], encoder)
    assert s.supported, s.reason
    _, (s,) = quoted_check("The SaaS subscription costs $22,500.", question, [ORDER_FORM], encoder)
    assert not s.supported and s.reason.startswith("does not give the quoted answer")


def test_a_bare_value_answers_the_question_when_it_is_the_quoted_one(encoder):
    question = "By what percentage does base rent go up every year?"
    _, (s,) = quoted_check("The answer is: 3%", question, [RENT], encoder)
    assert s.supported, s.reason
    _, (s,) = quoted_check("The answer is: 5%", question, [RENT], encoder)
    assert not s.supported


def test_a_sentence_that_gives_no_value_does_not_answer_for_a_quoted_value(encoder):
    """ "This is a limitation of liability" is close to the clause, but gives no answer."""
    question = "What is the most the customer can get back in service credits for a month?"
    _, sents = quoted_check(
        "Service credits are a percentage of the Subscription Fees.", question, [SLA], encoder
    )
    assert not any(s.supported for s in sents)


def test_clause_numbers_and_hyphenated_names_are_not_unsupported_facts(encoder):
    assert facts("in the 11.4 and 11.3 sections of the 11.5 section")[0] == set()
    assert facts("5 sections")[0] == {(5.0, None)}
    stored = Hit(
        "/c/saas.pdf",
        0,
        118,
        "Provider shall maintain a written information security program that includes "
        "encryption of Customer Data at rest using AES-256.",
        0.6,
        chunk_id=4,
    )
    (s,) = check_support(
        "The encryption standard is AES-256.",
        analyse("What encryption standard protects stored customer data?"),
        [stored],
        encoder,
    )
    assert s.supported, s.reason


SRV = Hit(
    "/m/fhs.pdf",
    0,
    118,
    "4.9 /srv : Data for services. The /srv directory holds site-specific data which is "
    "served by this system, such as web pages.",
    0.6,
    section="4 Directories > 4.9 /srv",
    chunk_id=1,
)


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("The /srv directory is used to compile kernels for this system.", False),
        ("It is a directory that is used to create new services in /srv.", False),
        ("The /srv directory holds the site-specific data this system serves.", True),
        ("The /srv directory keeps data served by the system, for example web pages.", True),
    ],
)
def test_a_sentence_must_say_what_the_quoted_clause_says(encoder, claim, supported):
    """When the quoted answer is a clause (no value or name to give), a sentence close to
    it that adds words it does not hold ("used to compile kernels") is not supported."""
    quote, (s,) = quoted_check(claim, "What is the /srv directory for?", [SRV], encoder)
    assert quote.phrase is not None and "site-specific data" in quote.phrase.text
    assert s.supported == supported, s.reason
    if not supported:
        assert s.reason.startswith("says what the sentence the quoted answer quotes does not")


LAW = Hit(
    "/c/supply.pdf",
    0,
    96,
    "14.2 Governing Law. This Supply Agreement shall be governed by the laws of the State of "
    "Oregon.",
    0.6,
    section="14 General > 14.2 Governing Law",
    chunk_id=2,
)
INFO = Hit(
    "/m/guide.pdf",
    0,
    150,
    "Help pages are installed in /usr/share/help and indexed in /usr/share/help/index.db "
    "by the help-index program. Manual pages are installed in /usr/share/man.",
    0.6,
    chunk_id=3,
)


@pytest.mark.parametrize(
    ("question", "claim", "passages", "supported"),
    [
        # the question's own word ("state") need not be repeated: "Oregon" gives the name
        ("Under the supply agreement, the laws of which state apply?",
         "The laws of Oregon apply to the Supply Agreement.", [LAW], True),
        ("Under the supply agreement, the laws of which state apply?",
         "The laws of Washington apply to the Supply Agreement.", [LAW], False),
        # a path is given whole, though the question names some of its parts
        ("Where is the help index kept?", "The help index is kept in /usr/share/help/index.db.",
         [INFO], True),
        ("Where is the help index kept?", "The help index is kept in /usr/share/man.",
         [INFO], False),
        ("Where is the help index kept?", "The help index (index.db) is in /usr/share/help.",
         [INFO], False),
    ],
)  # fmt: skip
def test_the_quoted_name_is_given_by_the_words_the_question_does_not(
    encoder, question, claim, passages, supported
):
    quote, (s,) = quoted_check(claim, question, passages, encoder)
    assert quote.phrase is not None
    assert s.supported == supported, (quote.phrase.text, s.reason)


def test_a_slash_between_words_is_not_a_path():
    said = "the Buyer and/or its Affiliates"
    where = Hit("/c/supply.pdf", 0, len(said), said, 0.6)
    quote = Answer(said, (), phrase=Phrase(said, ((0, len(said)),), where))
    premises = Premises.of(analyse("Who may use the licence?"))
    assert agrees("The Buyer and its Affiliates may use it.", premises, quote)
    assert not agrees("The Seller may use it.", premises, quote)
