"""The quote answer's confidence (lateseg.answer.confidence): a probability, rising with
the lead of the best candidate, and an answer that says it is unsure below the ask's
threshold, quoting its two best candidates with their citations."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from lateseg.answer.confidence import (
    MARGIN_CAP,
    MIN_CONFIDENCE,
    Signals,
    check_min_confidence,
    confidence,
    doubted,
    signals,
)
from lateseg.errors import ConfigError
from lateseg.types import Answer, Hit, Phrase

BASE = Signals(score=1.7, margin=0.05)


def test_the_default_threshold_doubts_some_answers_and_not_all():
    assert 0.0 < MIN_CONFIDENCE < 1.0


@pytest.mark.parametrize("field", ["score", "margin"])
def test_confidence_is_a_probability_even_far_out(field):
    for value in (-100.0, 0.0, 100.0):
        c = confidence(dataclasses.replace(BASE, **{field: value}))
        assert 0.0 <= c <= 1.0


def test_confidence_rises_with_the_lead_over_the_runner_up():
    margins = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, MARGIN_CAP]
    rated = [confidence(dataclasses.replace(BASE, margin=m)) for m in margins]
    assert all(a < b for a, b in itertools.pairwise(rated)), rated


def test_confidence_rises_with_the_best_candidates_score():
    assert confidence(dataclasses.replace(BASE, score=1.2)) < confidence(BASE)


@pytest.mark.parametrize("field", ["agree", "sense", "first_passage"])
def test_confidence_rises_when_the_runner_up_agrees_the_sense_is_met_or_the_top_passage_holds_it(
    field,
):
    assert confidence(dataclasses.replace(BASE, **{field: 1.0})) > confidence(BASE)


def test_the_answerer_rates_agreement_sense_and_passage(encoder):
    """Two documents state the same term (the runner-up agrees), in the first passage;
    against a runner-up of another value, the same answer is rated lower."""
    from lateseg.answer.extractive import extractive_answer

    same = "The initial term of this Lease is five (5) years."
    other = "Renewal terms of this Lease last one (1) year each."
    hit = lambda i, t: Hit(f"/docs/{i}.txt", 0, len(t), t, 0.5, chunk_id=i, kind="text")  # noqa: E731
    agreed = extractive_answer(
        "How long is the initial term?", [hit(0, same), hit(1, same)], encoder
    )
    rivalled = extractive_answer(
        "How long is the initial term?", [hit(0, same), hit(1, other)], encoder
    )
    assert agreed.confidence is not None and rivalled.confidence is not None
    assert agreed.confidence > rivalled.confidence


def test_a_lone_candidate_leads_by_the_cap_and_a_lead_is_capped():
    assert signals([1.0]) == Signals(1.0, MARGIN_CAP)
    assert signals([1.0, 0.9]).margin == pytest.approx(0.1)
    assert signals([2.0, 0.1]).margin == MARGIN_CAP


def _passage(source: str, start: int, text: str) -> Hit:
    return Hit(source, start, start + len(text), text, 0.5, page=1, section="7 Term")


def _rated(rating: float) -> Answer:
    a = _passage("/a.pdf", 100, "The term is two years. Either party may end it on notice.")
    b = _passage("/b.pdf", 0, "This lease runs five years.")
    first = Hit("/a.pdf", 100, 122, a.text[:22], 0.5, page=1, section="7 Term")
    second = Hit("/b.pdf", 0, b.end, b.text, 0.5, page=1)
    phrase = Phrase("two years", ((112, 121),), first, "duration")
    return Answer(
        "The term is two years. [1]", (a,), (a, b), "quote", "quote",
        phrase=phrase, confidence=rating, alternatives=(first, second),
    )  # fmt: skip


def test_below_the_threshold_the_answer_is_unsure_and_quotes_both_candidates():
    unsure = doubted(_rated(0.2), 0.5)
    assert unsure.unsure and unsure.phrase is None
    assert unsure.text.startswith("Not sure (confidence 0.20)")
    assert "“The term is two years.” [1]" in unsure.text
    assert "“This lease runs five years.” [2]" in unsure.text
    assert [h.source for h in unsure.citations] == ["/a.pdf", "/b.pdf"]
    assert unsure.alternatives == _rated(0.2).alternatives
    assert unsure.to_dict()["unsure"] is True
    assert len(unsure.to_dict()["alternatives"]) == 2


def test_at_or_above_the_threshold_or_with_it_off_the_answer_stands():
    for rating, least in ((0.5, 0.5), (0.9, 0.5), (0.01, 0.0)):
        answer = _rated(rating)
        assert doubted(answer, least) is answer


def test_an_unrated_answer_is_never_doubted():
    generated = dataclasses.replace(_rated(0.1), confidence=None)
    assert doubted(generated, 0.9) is generated


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_a_threshold_outside_0_1_is_refused(bad):
    with pytest.raises(ConfigError, match="min_confidence"):
        check_min_confidence(bad)
    assert check_min_confidence(None) == MIN_CONFIDENCE


def test_a_question_the_contracts_cannot_answer_comes_back_unsure(sample_index):
    answer = sample_index.ask("Who won the football world cup in 1998?")
    assert answer.unsure and answer.phrase is None
    assert answer.confidence is not None and answer.confidence < MIN_CONFIDENCE
    assert answer.text.startswith("Not sure")
    assert len(answer.alternatives) == 2
    cited = {(h.source, h.start, h.end) for h in answer.citations}
    for alt in answer.alternatives:  # each candidate is quoted and its passage cited
        said = alt.text.strip("\n") if alt.kind == "code" else " ".join(alt.text.split())
        assert said in answer.text  # code with its lines, prose on one line
        assert any(s == alt.source and a <= alt.start < b for s, a, b in cited)
    kept = sample_index.ask("Who won the football world cup in 1998?", min_confidence=0)
    assert not kept.unsure and not kept.text.startswith("Not sure")


def test_a_question_the_contracts_answer_is_not_unsure(sample_index):
    answer = sample_index.ask("Which state's law governs the NDA?")
    assert not answer.unsure
    assert answer.confidence is not None and answer.confidence >= MIN_CONFIDENCE
    assert answer.phrase is not None and "California" in answer.phrase.text


@pytest.mark.parametrize("field", ["score", "margin", "agree", "sense", "first_passage"])
def test_no_signal_ever_lowers_the_confidence(field):
    """Each signal is built so that more of it means a likelier right answer; the fit
    keeps every weight at 0 or above (bench/confidence.py: an active set), so refitting on
    new corpora (issue 62) can shift the weights but never turn one against its meaning."""
    from lateseg.answer.confidence import COEFFICIENTS

    assert all(w >= 0 for w in COEFFICIENTS[1:])
    assert len(COEFFICIENTS) == 1 + len(dataclasses.fields(Signals))
    more = dataclasses.replace(BASE, **{field: getattr(BASE, field) + 0.5})
    assert confidence(more) >= confidence(BASE)
