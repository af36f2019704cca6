"""Issue 43's remaining ranking rules, each on examples of its own (not the dev sets'
questions): the tier the question's own value falls in, a deadline for "how soon", the
path the question names, what is required, the reason for "why", a yes-or-no question
that also asks where, whose address, "first" as "initial", a list of the length asked
(and lists inside a sentence), a value over a bound on its change, a rule over its
example, candidates cut at paragraph breaks, and no candidate twice. Each example is a
small document read by the real embedder, with a distractor of the same kind."""

from __future__ import annotations

import pytest
from test_answer_sense import passages

from lateseg.answer.extractive import candidates, extractive_answer
from lateseg.answer.lists import inline_list
from lateseg.answer.phrase import is_heading
from lateseg.answer.question import analyse, content_words, equivalents
from lateseg.answer.sense import _paths, premise_agreement, sense_agreement
from lateseg.text.words import stem
from lateseg.types import Hit

INTRO = (
    "Volume Discount. If Customer orders more than 99 licenses in a year, Customer shall "
    "receive a discount on the license fees at the following rates:"
)
LOW = "- Orders of fewer than 100 licenses: no discount."
MID = "- Orders of at least 100 but fewer than 500 licenses: ten percent (10%)"
TOP = "- Orders of at least 500 licenses: twenty percent (20%)"
AHEAD = (
    "Security Notices. If Supplier must disclose a security incident to a regulator, "
    "Supplier shall notify Customer of it at least five (5) business days before the "
    "disclosure."
)
DEADLINE = (
    "Security Incidents. Supplier shall notify Customer of any security incident within "
    "forty-eight (48) hours after discovering it."
)
LIB = "Files in /cache may be deleted when the package that made them is purged."
CACHE = "Files in /var/cache must not be deleted when the package that made them is purged."
MAY = "A package's copyright file may include the names of the translators."
MUST = "The copyright file of every package must carry the complete text of its licence."
WEEKLY = "Log files are rotated weekly by logrotate and compressed after the first rotation."
REASON = (
    "Log files must be rotated so that they do not fill the disk and stop services from "
    "writing new entries."
)
PARTIES = (
    "This Lease is made between Harbor Point Properties LLC, a Maine company with its "
    'principal place of business at 12 Dock Street, Portland, Maine 04101 ("Landlord"), and '
    "Juniper Bakery Inc., a Maine corporation with its principal place of business at 88 Elm "
    'Avenue, Bangor, Maine 04401 ("Tenant").'
)
RENEWAL = "The Lease renews for successive renewal terms of one (1) year each."
INITIAL = "The initial term of this Lease is five (5) years from the Commencement Date."
PERKS = (
    "Staff also receive the following benefits:\n- a gym membership\n- a meal allowance\n"
    "- a travel card\n- a phone plan"
)
LEAVE = "Staff may take three kinds of paid leave: annual leave, sick leave and parental leave."
CAPPED = "The Agency's commission shall not increase by more than two percent (2%) in any year."
TERMS = "(d) Agency Commission: 12%.\n(e) Payment Terms: net thirty (30) days."
LOCKS = "Each job's lock file must be placed in /run/lock and named <job-name>.lock."
EXAMPLE = (
    "For example, the lock file of the nightly backup job is /var/spool/backup/nightly.lock "
    "on older systems."
)


@pytest.mark.parametrize(
    ("question", "texts", "expected"),
    [
        # the tier the question's 250 falls in; not the intro's bound (99), nor another tier
        (
            "If the customer orders 250 licenses in a year, what discount applies?",
            [INTRO, LOW, MID, TOP],
            "ten percent (10%)",
        ),
        # a question that names a tier's own bound asks about that tier
        (
            "What discount applies to orders of at least 500 licenses?",
            [INTRO, MID, TOP],
            "twenty percent (20%)",
        ),
        # how soon: a deadline after the event, not a notice ahead of another
        (
            "How soon must the supplier tell the customer of a security incident?",
            [AHEAD, DEADLINE],
            "forty-eight (48) hours",
        ),
        # the path the question names, not another in the same words
        ("Is it acceptable to clear /var/cache when purging?", [LIB, CACHE], "/var/cache"),
        # what must: the requirement, not what may be done
        ("What must a package's copyright file include?", [MAY, MUST], "complete text"),
        # why: the sentence that gives the reason
        ("Why should log files be rotated?", [WEEKLY, REASON], "fill the disk"),
        # whose address: the one the defined term after it names
        (
            "At what street address is the tenant's principal place of business?",
            [PARTIES],
            "88 Elm",
        ),
        # the first term is the initial one, not the one "(1)" year long
        ("How long is the first term of the lease?", [RENEWAL, INITIAL], "five (5) years"),
        # "which three": the list of three a sentence states after its colon, not a list
        # of four
        ("Which three kinds of leave can staff take?", [PERKS, LEAVE], "parental leave"),
        # a value asked, not a bound on its change; a term's line with its value is no
        # heading
        ("What percentage of the fees is the agency's commission?", [CAPPED, TERMS], "12%"),
        # ... unless the question asks for the bound
        ("By how much may the agency's commission increase in a year?", [CAPPED, TERMS], "2%"),
        # the rule, not the example beside it ("For example, …") ...
        ("Where do the lock files of jobs go?", [LOCKS, EXAMPLE], "/run/lock"),
        # ... unless the question asks for the example
        (
            "Where was the nightly backup job's lock file kept on older systems, for example?",
            [LOCKS, EXAMPLE],
            "nightly.lock",
        ),
    ],
)
def test_the_quote_is_the_candidate_the_rule_prefers(encoder, question, texts, expected):
    for order in (texts, texts[::-1]):
        answer = extractive_answer(question, passages(*order), encoder)
        shown = answer.phrase.text if answer.phrase is not None else answer.text
        assert expected in " ".join(shown.split()), answer.text


def test_a_tier_holds_fails_or_says_nothing_of_the_questions_value():
    asked = analyse("If uptime in a month is 97%, what credit applies?")
    assert premise_agreement(asked, "Uptime of less than 99.0% but at least 95.0%: 25%") == 1
    assert premise_agreement(asked, "Uptime of less than 95.0%: 50%") == -1
    assert premise_agreement(asked, "The credit is paid in the next invoice.") == 0
    assert premise_agreement(analyse("What credit applies?"), "less than 95.0%: 50%") == 0


def test_a_path_names_itself_and_its_parents_never_a_sibling():
    assert _paths("Is /var/tmp kept?") == {"/var/tmp"}
    assert "/var/tmp" not in _paths("files in /tmp are deleted", nested=True)
    assert "/var/tmp" in _paths("see /var/tmp/cache/", nested=True)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Can a daemon hard-code where its sockets live?", "modal"),
        ("Does every package need a section, and where is it set?", "modal"),
        ("Is a package allowed to ship its own copy of zlib?", "modal"),
        ("Where must a daemon put its sockets?", "place"),
        ("Is there a cap, and how much is it?", "limit"),  # a value still answers it
    ],
)
def test_a_question_opening_with_an_auxiliary_asks_yes_or_no(question, kind):
    assert analyse(question).kind == kind


def test_first_is_initial_and_ask_is_request():
    assert content_words("the first term and the fifth lease year") == [
        "first",
        "term",
        "5",
        "year",
    ]
    assert stem("initial") in equivalents("first") and stem("request") in equivalents("ask")


def test_a_candidate_never_runs_over_a_paragraph_break():
    text = "Try grep -r copyright | less -R\n\n2.5 Priorities\n\nEach package must have a priority."
    found = [text[c.start : c.end] for c in candidates(passages(text))]
    assert "Each package must have a priority." in found
    assert not any("less -R" in f and "Each package" in f for f in found)


def test_the_runner_up_is_another_sentence_not_the_same_one_again(encoder):
    """Two overlapping passages of one document hold the same sentence: it is one
    candidate, so the runner-up (and the unsure answer's second quote) is another."""
    doc = "The initial term is three (3) years. Renewal terms last one (1) year each."
    first = Hit("/docs/a.txt", 0, len(doc), doc, 0.6, chunk_id=0, kind="text")
    again = Hit("/docs/a.txt", 0, 36, doc[:36], 0.5, chunk_id=1, kind="text")
    answer = extractive_answer("How long is the initial term?", [first, again], encoder)
    texts = [a.text for a in answer.alternatives]
    assert len(texts) == 2 and texts[0] != texts[1], texts


@pytest.mark.parametrize(
    ("question", "better", "worse"),
    [
        ("How soon must the supplier tell the customer of a security incident?", DEADLINE, AHEAD),
        ("Is it acceptable to clear /var/cache when purging?", CACHE, LIB),
        ("What must a package's copyright file include?", MUST, MAY),
        ("Why should log files be rotated?", REASON, WEEKLY),
        ("If the customer orders 250 licenses in a year, what discount applies?", MID, TOP),
    ],
)
def test_the_sense_prefers_the_candidate_of_the_asked_sense(question, better, worse):
    asked = analyse(question)
    assert sense_agreement(asked, better) > sense_agreement(asked, worse)


@pytest.mark.parametrize(
    ("sentence", "items"),
    [
        (
            "Two distinctions are drawn among files: shareable vs. unshareable and static vs. "
            "variable.",
            ["shareable vs. unshareable", "static vs. variable"],
        ),
        (
            "Accepted cards: Visa, Mastercard, or American Express.",
            ["Visa", "Mastercard", "American Express"],
        ),
        ("Levels: low; medium; high.", ["low", "medium", "high"]),
        ("The office opens at 9:30 and closes at noon.", None),  # a time, not a colon
        ("Note: either party may end this agreement on thirty days' written notice.", None),
        ("Scope: everything.", None),  # one item is no list
        ("Base Rent: $5,000 per month.", None),  # a thousands separator, not a list
        (
            "Insurance limits: $1,000,000 per occurrence and $2,000,000 in the aggregate.",
            ["$1,000,000 per occurrence", "$2,000,000 in the aggregate"],
        ),
    ],
)
def test_a_list_inside_a_sentence_is_read_after_its_colon(sentence, items):
    found = inline_list(sentence, 0, len(sentence))
    got = None if found is None else [sentence[a:b] for a, b in found.labels]
    assert got == items


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("(h) Tenant's Proportionate Share: 4.16%.", False),  # a term and its value
        ("(j) Security Deposit: $120,120.00.", False),
        ("EXHIBIT B: 2025 FEES", True),
        ("2.1 Phase 1: 2024 Deliverables", True),
        ("Schedule 3 Part B: 2025 Rate Card", True),
    ],
)
def test_a_terms_line_with_its_value_is_no_heading(line, heading):
    assert is_heading(line) is heading
