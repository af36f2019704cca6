"""Is each sentence of a generated answer supported by the passages it cites?

:func:`check_support` splits the answer into sentences and checks each against its
evidence: the passages the sentence cites as ``[n]`` (a marker right after a sentence
belongs to it), or every passage shown when it cites none. Two tests, both needed:

* **facts**: every number, amount, percentage, duration and date in the sentence, and
  every name (a capitalised word that does not open the sentence: parties, defined terms,
  places, months), must occur in the evidence. Numerals and number words are the same
  value ("sixty (60) days" = "60 days" = "sixty days"); a duration must keep its unit
  ("9.3 days" is not supported by a clause numbered 9.3). Values and names the question
  itself gives are premises, not claims, and are not checked.
* **closeness**: the sentence's embedding must be at least :data:`MIN_SIMILARITY` (cosine)
  from the best evidence sentence's. The evidence span recorded is the closest sentence
  that holds the sentence's numbers (the closest sentence when it states none), so a
  reader sees the value where it is written.

A question that asks for a quantity ("how many days", "how much", "what percentage",
"by when" …) is answered only by a sentence that states one the question does not
already give; a sentence that restates the question without it is not supported.

A sentence that says the passages do not answer is never supported (it makes no claim a
citation could back). Thresholds were chosen on ``bench/answers.py`` (see its results).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

import numpy as np

from lateseg.generate.citations import MARK, marked_numbers
from lateseg.generate.phrase import is_heading
from lateseg.text.boundaries import sentence_spans
from lateseg.text.values import find_values, number_word
from lateseg.text.words import STOPWORDS, WORD_PATTERN, term_spans, terms
from lateseg.types import Hit, Support

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder

#: Least cosine similarity (default embedder) between an answer sentence and its best
#: evidence sentence for the sentence to count as supported; chosen on bench/answers.py.
MIN_SIMILARITY = 0.5


# -- facts ------------------------------------------------------------------------------

_TOKEN = re.compile(r"\$?\d[\d,]*(?:\.\d+)?%?|" + WORD_PATTERN)
# Capitalised words that are not names (they open clauses, label things, or are ours).
_NOT_NAMES_WORDS = (
    "according answer appendix article based but clause clauses exhibit however note "
    "paragraph passage passages question schedule section sections therefore"
)
_NOT_NAMES = STOPWORDS | frozenset(_NOT_NAMES_WORDS.split())
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


def _words(text: str) -> list[str]:
    return [m.group(0) for m in _TOKEN.finditer(text)]


def facts(text: str) -> tuple[set[tuple[float, str | None]], set[str]]:
    """The values in ``text`` as ``(amount, unit)`` (unit: a duration's, else None; a
    date as its day and year) and its names (lowercased capitalised words that do not
    open a sentence). ``sixty (60) days`` gives one fact, ``(60.0, "day")``; a clause
    number (``10.2 Cap on Liability``, ``Section 9.3``) gives none: it is not a value."""
    found: set[tuple[float, str | None]] = set()
    for v in find_values(text):
        if not v.is_value:
            continue
        if v.amount is None or v.kind == "date":  # a date or time: its numbers
            found |= {(float(n), None) for n in re.findall(r"\d+", text[v.start : v.end])}
            continue
        found.add((v.amount, v.unit if v.kind == "duration" else None))
    return found, _names(text)


def _names(text: str, openers: bool = False) -> set[str]:
    """Lowercased capitalised words of ``text`` that do not open a sentence, a clause or a
    list item (``openers=True``: those that do)."""
    names = set()
    for m in re.finditer(r"[A-Z][A-Za-z]*(?:[-'’][A-Za-z]+)*", text):
        word = m.group(0)
        before = text[: m.start()].rstrip(" \t\"'“‘(")
        if (not before or before[-1] in ".!?:;\n]") != openers:
            continue
        if word.lower() in _NOT_NAMES or number_word(word):
            continue
        names.add(word.lower())
    return names


def _missing(claims: str, evidence: str, question: str, shown: set[str]) -> list[str]:
    """What the sentence ``claims`` states that neither the evidence nor the question
    has, as strings for a reason. ``shown``: every word of every passage shown
    (lowercased); a capitalised word opening the sentence is taken for a name when no
    passage has it in any case ("Corvane must ..." but not "Notice must ...")."""
    numbers, names = facts(claims)
    names |= _names(claims, openers=True) - shown
    have_numbers, _ = facts(evidence)
    asked_numbers, asked_names = facts(question)
    values = {v for v, _ in have_numbers} | {v for v, _ in asked_numbers}
    pairs = have_numbers | asked_numbers
    words = {w.lower() for w in _words(evidence)} | {w.lower() for w in _words(question)}
    missing = []
    for value, unit in sorted(numbers, key=lambda f: (f[0], f[1] or "")):
        ok = (value, unit) in pairs if unit else value in values
        if not ok:
            missing.append(f"{value:g}" + (f" {unit}s" if unit else ""))
    for name in sorted(names - asked_names):
        if name not in words and name.rstrip("s") not in words and name + "s" not in words:
            missing.append(name)
    return missing


def _new_numbers(claim: str, question: str) -> set[tuple[float, str | None]]:
    """The claim's numbers that the question does not give."""
    numbers, _ = facts(claim)
    asked, _ = facts(question)
    values = {v for v, _ in asked}
    return {(v, u) for v, u in numbers if (v, u) not in asked and v not in values}


def _holds_numbers(numbers: set[tuple[float, str | None]], evidence: str) -> bool:
    """Whether ``evidence`` states every one of ``numbers`` (a duration with its unit)."""
    have, _ = facts(evidence)
    values = {v for v, _ in have}
    return all((v, u) in have if u else v in values for v, u in numbers)


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


def _normal(text: str) -> str:
    """Lowercase words only: how two sentences are compared for a repeat or a copy."""
    return " ".join(terms(text))


def holder(claim: str, passages: Sequence[Hit], least: float = 0.6) -> tuple[int, int, int] | None:
    """The passage that holds ``claim`` word for word: ``(passage index, start, end)`` of
    the longest stretch of the claim found in one passage's text (case and spacing
    aside), when it covers at least ``least`` of the claim; else None. A copied
    sentence is attributed where it was copied from, whatever the model cited."""
    want = _normal(claim)
    if len(want) < 12:
        return None
    best: tuple[int, int, int, int] | None = None  # (length, passage, start, end)
    for i, h in enumerate(passages):
        words = term_spans(h.text)
        flat = " ".join(w for _, _, w in words)
        match = SequenceMatcher(None, flat, want, autojunk=False).find_longest_match(
            0, len(flat), 0, len(want)
        )
        if match.size == 0 or (best is not None and match.size <= best[0]):
            continue
        # map the match in the joined words back to the passage's characters
        pos, first, last = 0, None, None
        for a, b, w in words:
            if first is None and pos + len(w) > match.a:
                first = a
            if pos < match.a + match.size:
                last = b
            pos += len(w) + 1
        if first is not None and last is not None:
            best = (match.size, i, first, last)
    if best is None or best[0] < least * len(want):
        return None
    return best[1], best[2], best[3]


def check_support(
    answer: str,
    question: str,
    passages: Sequence[Hit],
    encoder: LateEncoder,
    min_similarity: float = MIN_SIMILARITY,
) -> tuple[Support, ...]:
    """Each sentence of ``answer`` checked against its evidence in ``passages`` (the
    numbered passages the answerer was shown): see the module's docstring."""
    sentences = _answer_sentences(answer)
    if not sentences:
        return ()
    # candidate evidence sentences: (passage index, start, end) in the passage's text
    cands = [(i, s, e) for i, h in enumerate(passages) for s, e in sentence_spans(h.text)]
    claims = [_claim(answer[s:e]) for s, e, _ in sentences]
    shown = {w.lower() for h in passages for w in _words(h.text)}
    asks_quantity = bool(_QUANTITY.search(question))

    def cand_text(k: int) -> str:
        i, a, b = cands[k]
        return passages[i].text[a:b]

    vecs = encoder.embed_texts(claims + [cand_text(k) for k in range(len(cands))])
    sims = vecs[len(claims) :] @ vecs[: len(claims)].T if cands else np.zeros((0, len(claims)))
    out = []
    said: dict[str, int] = {}
    titles = {_normal(t) for h in passages for t in (h.section or "").split(" > ") if t}
    for n, ((s, e, cites), claim) in enumerate(zip(sentences, claims, strict=True)):
        valid = [c for c in cites if 1 <= c <= len(passages)]
        held = holder(claim, passages)
        if held is not None and held[0] + 1 not in valid:
            valid = [held[0] + 1]  # checked against where it was copied from
        pool = valid or list(range(1, len(passages) + 1))
        bare = _LEAD_IN.sub("", claim).strip(" .:;,-")
        repeat = said.setdefault(_normal(bare), n + 1) if bare else None
        idx = [k for k, (i, _, _) in enumerate(cands) if i + 1 in pool]
        numbers = _new_numbers(claim, question)
        # the evidence sentences (with their clause labels) stating all its numbers: the
        # span shown as evidence is the closest of them, so the reader sees the value
        holding = [
            k for k in idx
            if _holds_numbers(numbers, f"{cand_text(k)}\n{passages[cands[k][0]].section or ''}")
        ]  # fmt: skip
        evidence, best = None, 0.0
        if idx:
            best = float(max(sims[k, n] for k in idx))
            k = max(holding or idx, key=lambda k: sims[k, n])
            i, a, b = cands[k]
            if held is not None and (
                not numbers or _holds_numbers(numbers, passages[held[0]].text[held[1] : held[2]])
            ):
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
        elif is_heading(bare) or _normal(bare) in titles:
            reason = "is only a heading: a heading names a clause, it does not answer"
        elif _REFUSAL.search(claim):
            reason = "says the passages do not answer"
        elif asks_quantity and not numbers:
            reason = "does not state the quantity the question asks for"
        else:
            text = "\n".join(
                f"{passages[c - 1].text}\n{passages[c - 1].section or ''}" for c in pool
            )
            missing = _missing(claim, text, question, shown)
            if missing:
                reason = f"{', '.join(missing)}: not in {where}"
            elif best < min_similarity:
                reason = f"no sentence of {where} says it (best similarity {best:.2f})"
        out.append(Support(claim, s, e, reason is None, evidence, best, cites, reason))
    return tuple(out)
