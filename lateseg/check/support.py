"""Is each sentence of a generated answer supported by the passages it cites?

:func:`check_support` splits the answer into sentences and checks each against its
evidence: the passages the sentence cites as ``[n]`` (a marker right after a sentence
belongs to it), or every passage shown when it cites none. Three tests, all needed:

* **facts**: every number, amount, percentage, duration and date in the sentence, and
  every name (a capitalised word that does not open the sentence: parties, defined terms,
  places, months), must occur in the evidence. Numerals and number words are the same
  value ("sixty (60) days" = "60 days" = "sixty days"); a duration must keep its unit
  ("9.3 days" is not supported by a clause numbered 9.3). Values and names the question
  itself gives are premises, not claims, and are not checked.
* **the same thing** (:func:`about`): a value must be stated *of what the sentence says
  it is of*. The evidence sentence that states it (with its clause heading, and the
  sentence before when that one states no value of its own) must hold at least
  :data:`MIN_ABOUT` of the sentence's :func:`subject_words` (weighed by rarity, with
  their stems and equivalents, as the quote ranker weighs a question's words), and at
  least :data:`RIVAL` of what a sentence stating another value of the same sort holds.
  "The automatic renewal period is 120 days" is not supported by a passage where 120
  days is a notice period, though 120 days occurs in it. A value of another thing in the
  *same* sentence ("renewal terms of one year, unless notice is given 90 days before")
  is not told apart: words, not grammar, are compared.
* **closeness**: the sentence's embedding must be at least :data:`MIN_SIMILARITY` (cosine)
  from the best evidence sentence's. The evidence span recorded is the closest sentence
  that holds the sentence's numbers (the closest sentence when it states none), so a
  reader sees the value where it is written.

* **the quoted answer** (``quote``, as ``ask`` checks a generated answer): the
  extractive answer from the same passages (its ranker weighs the question's words, the
  kind of value asked and what it is of) decides which value answers the question. A
  sentence must give the value of its phrase ("sixty (60) days": sixty days, 60 days; a
  date whole), or a short phrase's words the question does not give (a law, a place, a
  name of at most :data:`MAX_NAME_WORDS` words; a path whole); when the phrase is a
  clause, or there is none, its evidence must be the sentence the quote quotes, which
  must hold :data:`MIN_QUOTED` of the words it adds to the question. A sentence giving
  the phrase's value passes the same-thing test by it (the ranker read what the value is
  of), and one that is nothing but that value ("The answer is: 3%") is not held to
  closeness. Chosen on bench/support.py (see its results); it cannot pass a right answer
  the quote gets wrong.

A question that asks for a quantity ("how many days", "how much", "what percentage",
"by when" …) is answered only by a sentence that states one the question does not
already give. A sentence that says the passages do not answer is never supported.
Thresholds were chosen on ``bench/answers.py`` and ``bench/support.py`` (see their results).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from lateseg.answer.citations import MARK, marked_numbers
from lateseg.answer.phrase import is_heading
from lateseg.answer.question import content_words, equivalents, word_overlaps
from lateseg.check.facts import Premises, facts, holds_numbers, names, tokens
from lateseg.check.verbatim import find_copied_from, normal
from lateseg.text.boundaries import sentence_spans
from lateseg.text.values import MODIFIERS, UNITS, find_values
from lateseg.text.words import stem
from lateseg.text.words import words as split_words
from lateseg.types import Answer, Hit, Support, TextEmbedder

if TYPE_CHECKING:
    from lateseg.answer.question import Asked

#: Least cosine similarity (default embedder) between an answer sentence and its best
#: evidence sentence for the sentence to count as supported; chosen on bench/answers.py.
MIN_SIMILARITY = 0.5
#: Least share of what a sentence says its value is of (its content words, weighted by
#: their rarity among the evidence sentences) that an evidence sentence stating that
#: value must hold; chosen on bench/support.py.
MIN_ABOUT = 0.5
#: ... and at least this part of the share held by the sentence most about it that states
#: another value of the same sort: the claim is about that sentence, with a wrong value.
RIVAL = 0.7
#: Least share of the words a sentence adds to the question that the sentence the quoted
#: answer quotes must hold, when it has no value or name to give (:func:`agrees`: None).
MIN_QUOTED = 0.5


# -- facts ------------------------------------------------------------------------------

_REFUSAL = re.compile(
    r"\b(?:do(?:es)?n[o’']t|do(?:es)? not|cannot|can[’']t|no)\s+"
    r"(?:(?:seem to|appear to|explicitly|directly|clearly)\s+)?"
    r"(?:answer|say|mention|specify|state|provide|contain|include|address|information)\b",
    re.IGNORECASE,
)


# Questions whose answer is a number, amount, share, duration or date.
_QUANTITY = re.compile(
    r"\b(?:how\s+(?:many|much|long|soon|quickly|far|often|late|early|big|large|high)"
    r"|what\s+(?:percentage|percent|share|rate|rent|fee|fees|amount|price|sum|cap|interest"
    r"|date|day|deadline)"
    r"|(?:within|by|on|at|in|after)\s+what\s+(?:date|day|time|rate|price|amount|period)"
    r"|by\s+when)\b",
    re.IGNORECASE,
)


def _missing(claims: str, evidence: str, premises: Premises, shown: set[str]) -> list[str]:
    """What the sentence ``claims`` states that neither the evidence nor the question
    (its ``premises``) has, as strings for a reason. ``shown``: every word of every
    passage shown (lowercased); a capitalised word opening the sentence is taken for a
    name when no passage has it in any case ("Corvane must ..." but not "Notice must ...")."""
    numbers, said = facts(claims)
    said |= names(claims, openers=True) - shown
    have_numbers, _ = facts(evidence)
    values = {v for v, _ in have_numbers} | {v for v, _ in premises.numbers}
    pairs = have_numbers | premises.numbers
    words = {w.lower() for w in tokens(evidence)} | premises.tokens
    words |= {p for w in words for p in re.split(r"[-'’]", w)}  # "AES" of "AES-256"
    missing = []
    for value, unit in sorted(numbers, key=lambda f: (f[0], f[1] or "")):
        ok = (value, unit) in pairs if unit else value in values
        if not ok:
            missing.append(f"{value:g}" + (f" {unit}s" if unit else ""))
    for name in sorted(said - premises.names):
        if name not in words and name.rstrip("s") not in words and name + "s" not in words:
            missing.append(name)
    return missing


def _new_numbers(claim: str, premises: Premises) -> set[tuple[float, str | None]]:
    """The claim's numbers that the question (its ``premises``) does not give."""
    numbers, _ = facts(claim)
    values = {v for v, _ in premises.numbers}
    return {(v, u) for v, u in numbers if (v, u) not in premises.numbers and v not in values}


# -- what a value is of ------------------------------------------------------------------

# Words that belong to a value ("days", "business", "percent"), not to what it is of.
_VALUE_WORDS = frozenset(UNITS) | MODIFIERS | frozenset(["percent", "dollar", "dollars", "per"])


def subject_words(claim: str) -> list[str]:
    """What ``claim`` says its values are of: its content words
    (:func:`~lateseg.answer.question.content_words`; an ordinal as its word, "first"
    and not "1", so that it meets "initial") less numerals and the words of a value
    (units, ``percent``, ``dollars``): "The automatic renewal period is 120 days" ->
    ``automatic renewal period``."""
    kept = []
    for word in split_words(claim):
        if word in _ORDINAL_WORDS:
            kept.append(word)
            continue
        kept += [
            w
            for w in content_words(word)
            if not any(c.isdigit() for c in w) and w not in _VALUE_WORDS
        ]
    return list(dict.fromkeys(kept))


_ORDINAL_WORDS = frozenset(
    ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
)


def _parts(claim: str, numbers: set[tuple[float, str | None]]) -> list[tuple[str, set]]:
    """``claim`` cut at its commas, semicolons and colons, each part with the ``numbers``
    it states: "After the first three years, it renews a year at a time" says the three
    years are the first ones, not a renewal's."""
    out = []
    for part in re.split(r"[,;:]\s", claim):
        have, _ = facts(part)
        mine = {
            (v, u) for v, u in numbers if (v, u) in have or (not u and v in {a for a, _ in have})
        }
        if mine:
            out.append((part, mine))
    told = set().union(*(m for _, m in out)) if out else set()
    if told != numbers:  # a value cut in two by a comma ("$1,000"): the claim is one part
        return [(claim, numbers)]
    return out


def about(
    claim: str,
    numbers: set[tuple[float, str | None]],
    evidence: Sequence[str],
    context: Sequence[str] = (),
    shown: Sequence[str] = (),
) -> tuple[float, float]:
    """Whether the evidence sentences that state ``claim``'s ``numbers`` are about what
    the claim says they are of, as ``(held, rival)`` for the number worst off:

    * ``held``: the best share of the :func:`subject_words` of the claim's part that
      states the number (:func:`_parts`) that an evidence sentence stating it holds
      (:func:`~lateseg.answer.question.word_overlaps`: stems and equivalents, each
      word weighed by its rarity among ``evidence``);
    * ``rival``: the best share held by a sentence that states another value of the
      same sort (a duration in the same unit; an amount, share or count) and not this
      one: a claim that sentence is more about puts the wrong value on its subject.

    "Worst off": the least ``held - RIVAL * rival``. Only words that some sentence of
    ``shown`` (every passage shown; default ``evidence``) holds are weighed: a word no
    passage uses cannot say which sentence the claim is about ("lasts", "runs"). A
    claim none of whose words they hold is about none of them: ``(0, 0)``. ``(1, 0)``
    when it states no number or says nothing else. ``context[k]``: text whose words
    count as ``evidence[k]``'s (not its numbers)."""
    words = subject_words(claim)
    if not numbers or not words or not evidence:
        return 1.0, 0.0
    said = [f"{c}\n{e}" for e, c in zip(evidence, context, strict=True)] if context else evidence
    vocabulary = shown or said
    known = [w for w in words if word_overlaps([w], vocabulary).any()]
    if not known:
        return 0.0, 0.0
    stated = [facts(t)[0] for t in evidence]
    held, rival = 1.0, 0.0
    for part, mine in _parts(claim, numbers):
        own = [w for w in subject_words(part) if w in known] or known
        shares = word_overlaps(own, said)
        for number in mine:
            has = [float(shares[k]) for k, t in enumerate(evidence) if holds_numbers({number}, t)]
            # a sentence that states another value of the same sort (a duration in the
            # same unit; an amount, share or count) is the claim's rival
            other = [
                float(shares[k])
                for k, values in enumerate(stated)
                if any(u == number[1] and (v, u) != number for v, u in values)
                and not holds_numbers({number}, evidence[k])
            ]
            if max(has, default=0.0) - RIVAL * max(other, default=0.0) < held - RIVAL * rival:
                held, rival = max(has, default=0.0), max(other, default=0.0)
    return held, rival


# -- the quoted answer -------------------------------------------------------------------

#: A quoted answer's phrase of at most this many content words is a name a claim must
#: give whole ("the State of New York", "/etc/init.d"); a longer one is a clause.
MAX_NAME_WORDS = 6
_PATH = re.compile(r"(?:~?/|\./)\S|[^/\s]*/[^/\s]*/")


def agrees(claim: str, premises: Premises, quote: Answer) -> bool | None:
    """Whether ``claim`` gives the answer ``quote`` (the extractive answer from the same
    passages) gives: one of the values of its phrase that the question (its
    ``premises``: :meth:`Premises.of <lateseg.check.facts.Premises.of>` the analysed
    question) does not (a date whole: its day and year), or a short phrase's words the
    question does not give, its paths whole (a law, a place, a name); None when its
    phrase is a clause, the question gives it all, or there is none: then the claim must
    be about the sentence it quotes."""
    if quote.phrase is None:
        return None
    said = quote.phrase.text
    wanted = [
        facts(said[v.start : v.end])[0] - premises.numbers for v in find_values(said) if v.is_value
    ]
    wanted = [w for w in wanted if w]
    if wanted:
        return any(holds_numbers(w, claim) for w in wanted)
    # a path (from the root, home or here, or of two slashes: not "and/or") is one name,
    # given whole; of the other words, those the question does not give ("which state":
    # "Colorado" gives "the State of Colorado")
    words = [t.strip(".,;:()[]'\"`").lower() for t in said.split()]
    paths = {t for t in words if _PATH.match(t)}
    named = {stem(w) for w in content_words(" ".join(t for t in words if t not in paths))}
    if len(named) + len(paths) > MAX_NAME_WORDS:
        return None
    named -= {stem(w) for w in premises.asked.words}
    if not named and not paths:
        return None
    low = claim.lower()
    have = {stem(w) for w in content_words(claim)}
    return all(p in low for p in paths) and (named <= have or all(w in low for w in named))


def _unsaid(claim: str, asked: Asked, quoted: Hit) -> tuple[float, list[str]]:
    """Of the words ``claim`` adds to the question ``asked`` (its :func:`subject_words`,
    stemmed, with equivalents), the share the ``quoted`` sentence and its headings hold,
    and the words they do not; ``(1, [])`` when it adds none."""
    given = {s for w in asked.words for s in equivalents(w)}
    added = [w for w in subject_words(claim) if not equivalents(w) & given]
    if not added:
        return 1.0, []
    there = {stem(w) for w in content_words(f"{quoted.text}\n{quoted.section or ''}")}
    lacking = [w for w in added if not equivalents(w) & there]
    return 1 - len(lacking) / len(added), lacking


def _overlaps(a: Hit, b: Hit) -> bool:
    return a.source == b.source and a.start < b.end and b.start < a.end


# -- sentences --------------------------------------------------------------------------


def _answer_sentences(text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """The answer's sentences with the passage numbers each cites; markers that open a
    sentence (``… notice. [1] The …``) belong to the sentence before."""
    out: list[tuple[int, int, tuple[int, ...]]] = []
    for s, e in sentence_spans(text):
        lead = re.match(r"(?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])+", text[s:e])
        if lead and out:
            ps, _, pc = out[-1]
            out[-1] = (ps, s + lead.end(), pc + tuple(marked_numbers(lead.group(0))))
            s += lead.end()
        cites = tuple(marked_numbers(text[s:e]))
        if MARK.sub("", text[s:e]).strip(" .,;:-\n"):
            out.append((s, e, cites))
    return [(s, e, tuple(dict.fromkeys(c))) for s, e, c in out]


def _claim(sentence: str) -> str:
    """The sentence without its markers (and the space they leave before punctuation)."""
    return re.sub(r"\s+([.,;:!?])", r"\1", MARK.sub("", sentence)).strip()


# "The answer is:", "Answer:", "According to passage 2," … : words that claim nothing.
_LEAD_IN = re.compile(
    r"^(?:(?:the\s+)?(?:short\s+|final\s+)?answer(?:\s+is)?|according\s+to\s+(?:the\s+)?"
    r"(?:passages?|documents?|text)(?:\s*\d+)?|based\s+on\s+(?:the\s+)?passages?)\s*[:,-]?\s*",
    re.IGNORECASE,
)


def check_support(
    answer: str,
    asked: Asked,
    passages: Sequence[Hit],
    encoder: TextEmbedder,
    min_similarity: float = MIN_SIMILARITY,
    quote: Answer | None = None,
) -> tuple[Support, ...]:
    """Each sentence of ``answer`` checked against its evidence in ``passages`` (the
    numbered passages the answerer was shown) for the question ``asked`` (analysed: its
    premises are read from it once): see the module's docstring. ``quote``: the
    extractive answer from the same passages, which a supported sentence must agree with
    (:func:`agrees`; None: not tested)."""
    if isinstance(asked, str):  # before issue 61 it took the question's text
        raise TypeError(
            "check_support takes the analysed question: "
            "check_support(answer, lateseg.answer.analyse(question), ...)"
        )
    quoted = quote.alternatives[0] if quote is not None and quote.alternatives else None
    sentences = _answer_sentences(answer)
    if not sentences:
        return ()
    # candidate evidence sentences: (passage index, start, end) in the passage's text
    cands = [(i, s, e) for i, h in enumerate(passages) for s, e in sentence_spans(h.text)]
    claims = [_claim(answer[s:e]) for s, e, _ in sentences]
    shown = {w.lower() for h in passages for w in tokens(h.text)}
    premises = Premises.of(asked)
    asks_quantity = bool(_QUANTITY.search(asked.question))

    def cand_text(k: int) -> str:
        i, a, b = cands[k]
        return passages[i].text[a:b]

    def before(k: int) -> str:
        """The sentence before candidate ``k`` in its passage when it states no value:
        the subject of "The notice period for that is sixty days" is there (one that
        states its own value is about that value, not this one)."""
        if not k or cands[k - 1][0] != cands[k][0] or facts(cand_text(k - 1))[0]:
            return ""
        return cand_text(k - 1)

    # what every passage shown says: the words a claim may use to say what it is about
    everything = [
        f"{cand_text(k)}\n{passages[i].section or ''}" for k, (i, _, _) in enumerate(cands)
    ]

    vecs = encoder.embed_texts(claims + [cand_text(k) for k in range(len(cands))])
    sims = vecs[len(claims) :] @ vecs[: len(claims)].T if cands else np.zeros((0, len(claims)))
    out = []
    said: dict[str, int] = {}
    titles = {normal(t) for h in passages for t in (h.section or "").split(" > ") if t}
    for n, ((s, e, cites), claim) in enumerate(zip(sentences, claims, strict=True)):
        valid = [c for c in cites if 1 <= c <= len(passages)]
        numbers = _new_numbers(claim, premises)
        held = find_copied_from(claim, passages)
        copied = None if held is None else passages[held[0]].text[held[1] : held[2]]
        if copied is not None and numbers and not holds_numbers(numbers, copied):
            held = None  # its words copied ("The tenant's share is"), not its value
        if held is not None and held[0] + 1 not in valid:
            valid = [held[0] + 1]  # checked against where it was copied from
        pool = valid or list(range(1, len(passages) + 1))
        bare = _LEAD_IN.sub("", claim).strip(" .:;,-")
        repeat = said.setdefault(normal(bare), n + 1) if bare else None
        idx = [k for k, (i, _, _) in enumerate(cands) if i + 1 in pool]
        # the evidence sentences (with their clause labels) stating all its numbers: the
        # span shown as evidence is the closest of them, so the reader sees the value
        holding = [
            k for k in idx
            if holds_numbers(numbers, f"{cand_text(k)}\n{passages[cands[k][0]].section or ''}")
        ]  # fmt: skip
        evidence, best = None, 0.0
        if idx:
            best = float(max(sims[k, n] for k in idx))
            k = max(holding or idx, key=lambda k: sims[k, n])
            i, a, b = cands[k]
            if held is not None:  # (its value, if any, is in them: see above)
                i, a, b = held  # the words it copied, where they are
            evidence = passages[i].part(a, b, score=float(sims[k, n]))
        reason = None
        where = "its cited passages" if valid else "the passages"
        if cites and not valid:
            reason = f"cites [{', '.join(map(str, cites))}], which no passage has"
        elif not passages:
            reason = "no passage was shown"
        elif not bare:
            reason = "says nothing: no claim after its lead-in"
        elif repeat is not None and repeat != n + 1:
            reason = f"repeats sentence {repeat}"
        elif is_heading(bare) or normal(bare) in titles:
            reason = "is only a heading: a heading names a clause, it does not answer"
        elif _REFUSAL.search(claim):
            reason = "says the passages do not answer"
        elif asks_quantity and not numbers:
            reason = "does not state the quantity the question asks for"
        else:
            text = "\n".join(
                f"{passages[c - 1].text}\n{passages[c - 1].section or ''}" for c in pool
            )
            missing = _missing(claim, text, premises, shown)
            told = [f"{cand_text(k)}\n{passages[cands[k][0]].section or ''}" for k in idx]
            context = [before(k) for k in idx]
            given = None if quote is None else agrees(claim, premises, quote)
            of, rival = about(claim, numbers, told, context, everything) if numbers else (1, 0)
            if given:  # the quote's value: the ranker read what it is of in the question
                of, rival = 1.0, 0.0
            if missing:
                reason = f"{', '.join(missing)}: not in {where}"
            elif given is False and quote is not None and quote.phrase is not None:
                reason = f"does not give the quoted answer, {' '.join(quote.phrase.text.split())}"
            elif (
                given is None
                and quoted is not None
                and evidence is not None
                and not _overlaps(evidence, quoted)
            ):
                reason = "is not about the sentence the quoted answer quotes"
            elif (
                given is None
                and quoted is not None
                and (unsaid := _unsaid(bare, asked, quoted))[0] < MIN_QUOTED
            ):
                reason = (
                    f"says what the sentence the quoted answer quotes does not: "
                    f"{', '.join(unsaid[1])}"
                )
            elif of < MIN_ABOUT or of < RIVAL * rival:
                reason = (
                    f"no sentence of {where} states its value of what it says "
                    f"({' '.join(subject_words(claim))}: {of:.2f} of it where the value is, "
                    f"{rival:.2f} where another value is)"
                )
            elif best < min_similarity and not (given and not subject_words(bare)):
                reason = f"no sentence of {where} says it (best similarity {best:.2f})"
        out.append(Support(claim, s, e, reason is None, evidence, best, cites, reason))
    return tuple(out)
