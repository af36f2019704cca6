"""How sure a quoted answer is: a calibrated probability that it is right, and the answer
that says it is unsure when that probability is low.

The features are what the quoting answerer (:mod:`lateseg.answer.extractive`) has
already computed for its best two candidates (two places of a document, never one
sentence twice), so rating costs nothing: the best candidate's ``score``; its ``margin``
over the runner-up (capped at :data:`MARGIN_CAP`; a candidate without a rival leads by
the cap); ``agree``, 1 when the runner-up's answer phrase is the same value (two
sentences that say the same); ``sense``, how many of the asked senses the best sentence
states (:func:`~lateseg.answer.sense.sense_agreement`: the tier, the deadline, the
path, the requirement …); and ``first_passage``, 1 when it stands in the passage
retrieval ranked first. These three were kept because each lowered the cross-validated
Brier score, 5-fold and set out, on ``bench/answers.py``'s dev sets; others tried (whether
a phrase was found, whether it is of the asked kind, its similarity, its word overlap,
the passage's retrieval score, whether the question asks a value) did not.

A logistic regression of these, its coefficients :data:`COEFFICIENTS` fitted by
``python bench/confidence.py`` on the quote answers of ``bench/answers.py``'s dev sets
(its cross-validated precision–coverage curves and reliability diagram are in
``bench/results/answers.md``), gives ``Answer.confidence``. An ask with ``min_confidence``
turns an answer rated below it into an unsure one (:func:`doubted`): it presents no
phrase, says it is not sure and quotes the two best candidates with their citations.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lateseg.errors import ConfigError
from lateseg.types import Answer, Hit

#: A margin above this tells nothing more (and a lone candidate leads by it).
MARGIN_CAP = 0.5

#: Fitted by ``python bench/confidence.py --from bench/results/answers_real.json`` on
#: 475 graded quote answers (logistic regression, L2 3 on the standardised weights, every
#: weight kept at 0 or above): the team's sets (contracts, scoped, licenses, manuals,
#: tables) and the real corpora of ``data/real`` (Mozilla, Common Paper, 37signals, three
#: Debian manuals, humanize, HTTPie), where an unanswerable question's quote counts as
#: never right. Intercept, then the :class:`Signals` in order (``score``, ``margin``,
#: ``agree``, ``sense``, ``first_passage``). Fitted on the team's sets alone (before issue
#: 62) they were ``(-2.3245, 1.6173, 4.7049, 1.9198, 1.4798, 1.2612)``, whose 0.75–0.99
#: ratings did not carry to documents nobody here wrote: 35–48 % of the real legal and
#: PDF answerable questions were shown a wrong answer.
COEFFICIENTS = (-4.6321, 3.0456, 0.8355, 0.0151, 0.8167, 0.4127)

#: The level of a code fact's rating (:mod:`lateseg.answer.code`): its :class:`Signals`
#: weighed as a sentence's, the intercept moved by this much. On code nobody here wrote
#: the sentence rating was too high (pypa/pipx was shown a wrong value for 54 % of its
#: answerable questions at ``min_confidence`` 0.54, rated 0.6–0.9). Weights of their own,
#: fitted on seven code corpora, did not carry to two corpora they never saw (twine,
#: yamllint: fewer right answers than the sentence weights at every share of wrong ones);
#: the sentence weights' order did, only their level was off. So only the level is
#: fitted: ``python bench/confidence.py --code --from bench/results/code/answers_round6.json
#: bench/results/code/yamllint_round6.json``, by maximum likelihood on the 147 quotes
#: rated as code facts over nine real code corpora (humanize, HTTPie, isort, flake8,
#: python-dotenv, cookiecutter, pipx, twine, yamllint). A code fact the sentence weights
#: rate 0.74 is rated 0.54. Judged leaving one code corpus out, and on a held-out tenth
#: (nox), in ``bench/results/code.md``, "Rounds 5 and 6".
CODE_OFFSET = -0.8784

#: :data:`COEFFICIENTS` with the intercept moved by :data:`CODE_OFFSET`: a code fact's.
CODE_COEFFICIENTS = (COEFFICIENTS[0] + CODE_OFFSET, *COEFFICIENTS[1:])

#: The default ``min_confidence`` of an ask: the lowest threshold whose out-of-sample
#: (5-fold) wrong shown over all those sets is at most 10 % of questions (0.54). The same
#: rule, leaving each real corpus out in turn (``bench/results/answers_real.md``,
#: "Confidence held out"), picks 0.51–0.57 and shows the corpus left out a wrong answer
#: for 0–33 % of its answerable questions (7–33 % for legal and PDF), against 17–40 %
#: under the team-fitted rating at 0.7, and answers "not sure" to 73–100 % of its
#: unanswerable ones (58–80 % before). The price is coverage: fewer answers are given,
#: on the team's sets too (``bench/results/real.md`` has every set's figures).
MIN_CONFIDENCE = 0.54


@dataclass(frozen=True)
class Signals:
    """What the answerer knows of its best candidate (see the module docstring)."""

    score: float
    margin: float
    agree: float = 0.0
    sense: float = 0.0
    first_passage: float = 0.0

    def vector(self) -> tuple[float, ...]:
        """The features in :data:`COEFFICIENTS`' order (after the intercept)."""
        return tuple(float(getattr(self, f.name)) for f in dataclasses.fields(self))


def signals(
    scores: Sequence[float], agree: bool = False, sense: float = 0.0, first_passage: bool = False
) -> Signals:
    """The signals of a best candidate scored ``scores[0]`` whose runner-up (if any) is
    scored ``scores[1]`` (the others: see the module docstring)."""
    margin = MARGIN_CAP if len(scores) < 2 else min(MARGIN_CAP, scores[0] - scores[1])
    return Signals(
        float(scores[0]), float(margin), float(agree), float(sense), float(first_passage)
    )


def confidence(s: Signals, coefficients: Sequence[float] = COEFFICIENTS) -> float:
    """The calibrated probability that an answer with signals ``s`` is right."""
    z = coefficients[0] + sum(w * x for w, x in zip(coefficients[1:], s.vector(), strict=True))
    return 1.0 / (1.0 + math.exp(-z))


def zmix(*scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """The sum of each score list standardised over its items (mean 0, deviation 1); a
    list whose items are all equal adds nothing. How two scorers of one set of
    candidates are combined (a re-ranked search, a judged code fact) when neither
    scale is the other's."""
    total = np.zeros(len(scores[0]))
    for s in scores:
        a = np.asarray(s, dtype=np.float64)
        total += (a - a.mean()) / (a.std() + 1e-9)
    return total


def check_min_confidence(value: float | None) -> float:
    """``value`` (default :data:`MIN_CONFIDENCE`), which must lie in [0, 1]."""
    if value is None:
        return MIN_CONFIDENCE
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"min_confidence={value!r}; it must lie in [0, 1] (0 disables)")
    return float(value)


def doubted(answer: Answer, min_confidence: float | None = None) -> Answer:
    """``answer`` as it is, or, when rated below ``min_confidence`` (default
    :data:`MIN_CONFIDENCE`; 0 never doubts), the unsure answer: no phrase, a text that
    says so and quotes its two best candidates (``answer.alternatives``), citing their
    passages. Answers without a rating (generated, copied, refused) are never doubted."""
    least = check_min_confidence(min_confidence)
    if answer.confidence is None or answer.confidence >= least or not answer.alternatives:
        return answer
    cited: list[Hit] = []
    quotes = []
    for alt in answer.alternatives:
        passage = next(
            (h for h in answer.context if h.source == alt.source and h.start <= alt.start < h.end),
            alt,
        )
        if passage not in cited:
            cited.append(passage)
        # code keeps its lines and indentation (as a sure quote of code does); prose is one line
        said = alt.text.strip("\n") if alt.kind == "code" else " ".join(alt.text.split())
        quotes.append(f"“{said}” [{cited.index(passage) + 1}]")
    best = "the best candidate is" if len(quotes) == 1 else "the two best candidates are"
    text = f"Not sure (confidence {answer.confidence:.2f}); {best} " + " and ".join(quotes)
    return dataclasses.replace(answer, text=text, citations=tuple(cited), phrase=None, unsure=True)
