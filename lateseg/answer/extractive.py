"""Extractive answers: the passage sentence that answers the question, quoted with its
citation, and the answer phrase inside it.

Needs only the embedder, so it works where no generator can run. The candidates are the
passages' sentences without the headings they open with (a heading is context, never an
answer), the lists they hold (for a question that asks for several things) and, in code,
blocks of non-blank lines. Each is scored by

* its embedding's cosine similarity to the question's;
* the retrieval score of its passage (a sentence is judged in the context of the chunk
  that retrieval found);
* the share of the question's content words it (or its clause heading) holds;
* whether it states what the question asks for (:mod:`lateseg.answer.question`): a
  value of the kind asked ("how long" → a duration), a governing law, a venue, a path, a
  modal clause, a list;
* whether that value is of the thing asked (:mod:`lateseg.answer.sense`: users, not
  claims, for "how many users") and its conditions are the question's
  (:mod:`lateseg.answer.conditions`: the "not in default" branch).

The best is the answer; :func:`~lateseg.answer.phrase.answer_phrase` cuts its phrase.
A question that asks for a value no candidate states gets no phrase, and the answer
says so before it quotes the closest sentence.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from lateseg.answer.cells import names_a_cell
from lateseg.answer.code import Judge, code_answer
from lateseg.answer.compose import make_phrase, quoted, value_phrase
from lateseg.answer.conditions import condition_agreement, in_exception
from lateseg.answer.confidence import confidence, signals
from lateseg.answer.lists import find_lists, inline_list
from lateseg.answer.phrase import LIMIT, WORDED, body_start, is_heading, typed_phrase
from lateseg.answer.question import Asked, analyse, word_overlaps
from lateseg.answer.sense import sense_agreement
from lateseg.text.boundaries import answer_pieces, sentence_spans
from lateseg.text.values import find_values
from lateseg.text.words import MODAL
from lateseg.types import Answer, Hit, Phrase, TextEmbedder


@dataclass(frozen=True)
class Weights:
    """How much each feature counts in a candidate's score (see the module docstring):
    cosine ``similarity``, the ``passage``'s retrieval score, the ``overlap`` of content
    words, a ``kind`` bonus for stating what was asked and a ``subject`` bonus (or
    malus) for a sentence whose subject is (or is not) the party the question asks about
    (:func:`subject_agreement`); a ``sense`` bonus (or malus) for a sentence whose value
    is (or is not) of the thing asked (:func:`~lateseg.answer.sense.sense_agreement`:
    users for "how many users", the governing law, an obligation's term) and a
    ``conditions`` one for a sentence whose conditions have the question's polarity
    (:func:`~lateseg.answer.conditions.condition_agreement`: "not in default"); with
    ``require``, a question
    that asks for a value (not one of :data:`~lateseg.answer.phrase.WORDED`) is
    answered only by a candidate that states one, when any does."""

    similarity: float = 1.0
    passage: float = 0.5
    overlap: float = 0.5
    kind: float = 0.5
    subject: float = 0.25
    sense: float = 0.5
    conditions: float = 0.5
    require: bool = True


@dataclass(frozen=True)
class Candidate:
    """A sentence, list or code block of passage ``passage``: ``start``/``end`` in the
    passage's text; ``labels`` a list's item names (same offsets)."""

    passage: int
    start: int
    end: int
    labels: tuple[tuple[int, int], ...] = ()


def _code_blocks(text: str) -> list[tuple[int, int]]:
    """Runs of non-blank lines of code, each from the start of its first line (its
    indentation included) to the end of its last."""
    spans, start, at = [], None, 0
    for line in text.splitlines(keepends=True):
        if line.strip():
            if start is None:
                start = at
            end = at + len(line.rstrip())
        elif start is not None:
            spans.append((start, end))
            start = None
        at += len(line)
    if start is not None:
        spans.append((start, end))
    return spans


def candidates(hits: Sequence[Hit], lists: bool = False) -> list[Candidate]:
    """The candidate answers in ``hits``: code blocks in code; elsewhere each sentence
    from where its opening headings end (a sentence that is only headings is dropped)
    and, with ``lists``, each list with its introducing sentence and each sentence that
    states a list after its colon (as a list too)."""
    out: list[Candidate] = []
    for i, h in enumerate(hits):
        if h.kind == "code":
            out.extend(Candidate(i, s, e) for s, e in _code_blocks(h.text))
            continue
        for s0, e0 in sentence_spans(h.text):
            for s, e in (
                p for a, z in answer_pieces(h.text, s0, e0) for p in _paragraphs(h.text, a, z)
            ):
                b = s + body_start(h.text[s:e])
                if b < e and not is_heading(h.text[b:e]):
                    out.append(Candidate(i, b, e))
                    inline = inline_list(h.text, b, e) if lists else None
                    if inline is not None:  # "…: A and B", the list it states
                        out.append(Candidate(i, b, e, inline.labels))
        if lists:
            out.extend(Candidate(i, blk.start, blk.end, blk.labels) for blk in find_lists(h.text))
    return out


_BLANK = re.compile(r"\n[ \t]*\n\s*")


def _paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``text[start:end]`` cut at each blank line that ends a paragraph: after a full
    stop, colon or semicolon, or before a heading ("… | less -R" ⏎⏎ "2.5 Priorities"
    ⏎⏎ "Each package must …"), so that a candidate never runs over a paragraph break
    the sentence splitter missed (a sentence running on over a blank line is kept)."""
    cuts = [start]
    for m in _BLANK.finditer(text, start, end):
        line = text[m.end() : end].split("\n", 1)[0]
        if text[start : m.start()].rstrip().endswith((".", ":", ";", "?", "!")) or is_heading(line):
            cuts.append(m.end())
    cuts.append(end)
    return [(a, len(text[:b].rstrip())) for a, b in itertools.pairwise(cuts) if text[a:b].strip()]


def overlaps(asked: Asked, texts: Sequence[str]) -> np.ndarray:
    """Per text, the share of the question's content words it holds
    (:func:`~lateseg.answer.question.word_overlaps`)."""
    return word_overlaps(asked.words, texts)


def _states(asked: Asked, hit: Hit, c: Candidate) -> float:
    """How well candidate ``c`` states what ``asked`` asks for: 1 (a value of the kind
    preferred, a law, a list …), 0.5 (a value of another kind that may answer: an amount
    for "what percentage"), or 0."""
    if asked.kind == "list":
        if not c.labels:
            return 0.0
        # "which two ways …": a list of another length may hold them, less likely
        counts = {n for kind, n in asked.given if kind == "count"}
        return 0.5 if counts and len(c.labels) not in counts else 1.0
    if c.labels:
        return 0.0
    text = hit.text[c.start : c.end]
    found = typed_phrase(asked, text)
    if found is None:
        return 0.0
    if _EXAMPLE.match(text) and not _ASKS_EXAMPLE.search(asked.question):
        return 0.0  # "For example, the crond PID file is named /run/crond.pid": not the rule
    if asked.kind == "limit":  # a limit clause ("shall not exceed …") over a bare value
        return 1.0 if LIMIT.search(text) else 0.5
    if _BOUND_BEFORE.search(text[: found[0]]) and not _ASKS_BOUND.search(asked.question):
        return 0.5  # "shall not increase by more than 5%": a bound on it, not its value
    if asked.values:
        kinds = {v.kind for v in find_values(text[found[0] : found[1]])}
        return 1.0 if asked.values[0] in kinds else 0.5
    return 1.0


# a value stated as a ceiling or a change ("shall not increase by more than five percent",
# "a management fee not to exceed 3%"), which answers a question about a bound or a
# change only; not a floor ("not less than thirty (30) days' notice" is the notice asked)
_BOUND_BEFORE = re.compile(
    r"\b(?:by\s+(?:(?:no|not)\s+)?(?:more|less|fewer)\s+than|by\s+up\s+to|"
    r"(?:shall|will|may|does|not\s+to|to)\s+not\s+exceed|not\s+to\s+exceed|"
    r"(?:no|not)\s+more\s+than|at\s+most|a\s+maximum\s+of|limited\s+to)\s*$",
    re.IGNORECASE,
)
# a sentence that gives an example: its value illustrates the rule stated beside it, it
# is not the value asked for (unless the question asks for an example)
_EXAMPLE = re.compile(
    r"\s*(?:for\s+(?:example|instance)|e\.\s?g\.|as\s+an\s+example)(?=[\s,:])", re.I
)
_ASKS_EXAMPLE = re.compile(r"\b(?:examples?|instances?|such\s+as|e\.\s?g\.)", re.I)
_ASKS_BOUND = re.compile(
    r"\b(?:increases?|decreases?|rises?|raised?|grows?|changes?|exceeds?|caps?|capped|"
    r"limits?|maximum|minimum|most|least|more\s+than|less\s+than|fewer\s+than|up\s+to|"
    r"thresholds?|above|below)\b",
    re.IGNORECASE,
)


def _heading_of(hit: Hit) -> str:
    """The clause path of a passage (``7 Confidentiality > 7.4 Duration``): its words
    count for the overlap of the passage's sentences."""
    return hit.section or ""


def score_candidates(
    asked: Asked,
    hits: Sequence[Hit],
    cands: Sequence[Candidate],
    encoder: TextEmbedder,
    weights: Weights = Weights(),
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's score ``[n]`` and whether it states what is asked ``[n]``."""
    q = encoder.embed_queries([asked.question])[0]
    texts = [hits[c.passage].text[c.start : c.end] for c in cands]
    sims = encoder.embed_texts(texts) @ q
    states = np.array([_states(asked, hits[c.passage], c) for c in cands])
    overlap = overlaps(
        asked, [f"{t} {_heading_of(hits[c.passage])}" for t, c in zip(texts, cands, strict=True)]
    )
    passage = np.array([hits[c.passage].score for c in cands])
    agree = np.array([subject_agreement(asked, t) for t in texts])
    # a table row whose cell the question states is the row it asks about
    named = np.array([names_a_cell(asked, t) for t in texts], dtype=float)
    sense = np.array([sense_agreement(asked, t) for t in texts])
    branch = np.array([_branch(asked, t) for t in texts])
    # preferences among the candidates: the best of them keeps its score (the confidence
    # is fitted on scores without them), the others fall behind by what they lack
    sense -= sense.max(initial=0.0)
    branch -= branch.max(initial=0.0)
    score = (
        weights.similarity * sims
        + weights.passage * passage
        + weights.overlap * (overlap + named)
        + weights.kind * states
        + weights.subject * agree
        + weights.sense * sense
        + weights.conditions * branch
    )
    return score, states


def _branch(asked: Asked, text: str) -> float:
    """How well the branch that sentence ``text`` states is the one ``asked`` asks about:
    its conditions' agreement with the question's
    (:func:`~lateseg.answer.conditions.condition_agreement`), less 1 when the value
    asked for stands in an exception the question does not ask about."""
    agree = condition_agreement(asked.conditions, text)
    span = typed_phrase(asked, text) if asked.quantity else None
    if span is not None and in_exception(asked.question, text, span[0]):
        return agree - 1.0
    return agree


_SUBORDINATE = re.compile(
    r"\s*(?:If|When|Whenever|Upon|Unless|Where|In\s+the\s+event|Except|Notwithstanding|"
    r"Subject\s+to|During|Within|After|Before|Following|Once|Until|Provided)\b"
)


def subject_agreement(asked: Asked, text: str) -> float:
    """1 when the sentence's subject (its capitalised words before its first modal verb:
    "Client may terminate") is the question's subject party, -1 when it is another
    capitalised party ("Provider may terminate … notice to Client" for "must the Client
    give"), 0 when either has none."""
    if asked.subject is None:
        return 0.0
    m = MODAL.search(text)
    if m is None:
        return 0.0
    head = text[: m.start()]
    if _SUBORDINATE.match(head):  # "If …, Provider shall": the main clause's subject
        head = head[head.rfind(",") + 1 :] if "," in head else ""
    names = re.findall(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?", head)
    names = [n for n in names if n not in ("The", "This", "Each", "Either", "Such", "If", "Upon")]
    if not names:
        return 0.0
    want = asked.subject.lower()
    return 1.0 if any(want in n.lower() or n.lower() in want for n in names) else -1.0


def candidate_phrase(asked: Asked, hit: Hit, c: Candidate) -> Phrase | None:
    """The answer phrase of candidate ``c`` of passage ``hit``: a list's items, or the
    value it states (None: it states none of the kind asked)."""
    where = hit.part(c.start, c.end)
    if c.labels:
        return make_phrase(where, [(a - c.start, b - c.start) for a, b in c.labels], "list")
    return value_phrase(asked, where)


def _same(a: str, b: str) -> bool:
    """Whether two answer phrases say the same (case and spacing aside)."""
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def _distinct(order: list[int], hits: Sequence[Hit], cands: Sequence[Candidate]) -> list[int]:
    """``order`` without the candidates that repeat a better one: its place in its
    document (the same sentence in two overlapping passages) or its very words in
    another document (a copy: a policy and its preview, a page as Markdown and as PDF).
    The runner-up, which rates the answer and is shown beside it when unsure, is
    another sentence: a copy is no rival, and no second witness either."""
    seen: set[tuple[str, int, int]] = set()
    said: set[str] = set()
    out = []
    for k in order:
        c, h = cands[k], hits[cands[k].passage]
        where = (h.source, h.start + c.start, h.start + c.end)
        words = " ".join(h.text[c.start : c.end].split()).casefold()
        if where not in seen and words not in said:
            seen.add(where)
            said.add(words)
            out.append(k)
    return out


def extractive_answer(
    question: Asked | str,
    hits: Sequence[Hit],
    encoder: TextEmbedder,
    max_sentences: int = 1,
    weights: Weights = Weights(),
    judge: Judge | None = None,
) -> Answer:
    """:func:`quote_answer` for a caller outside an ask, who may give the question's text:
    it is analysed here, once (an ask analyses its question when it prepares it and
    calls :func:`quote_answer` with the :class:`~lateseg.answer.question.Asked`)."""
    asked = analyse(question) if isinstance(question, str) else question
    return quote_answer(asked, hits, encoder, max_sentences, weights, judge)


def quote_answer(
    asked: Asked,
    hits: Sequence[Hit],
    encoder: TextEmbedder,
    max_sentences: int = 1,
    weights: Weights = Weights(),
    judge: Judge | None = None,
) -> Answer:
    """Answer with the best candidate from ``hits`` (see the module docstring), quoted
    with the number of its passage and its answer phrase; with ``max_sentences`` > 1 the
    next best follow, in passage order. The citations are the passages quoted. When the
    question asks for a value that no candidate states, there is no phrase and the text
    says so before quoting the closest sentence. ``asked``: the analysed question. A
    question about code is answered with the fact it asks for where a passage states one
    (:func:`~lateseg.answer.code.code_answer`, judged among its facts by ``judge``)."""
    coded = code_answer(asked, hits, encoder, judge)
    if coded is not None:
        return coded
    cands = candidates(hits, lists=asked.kind == "list")
    if not cands:
        return quoted(asked, hits, [], None)
    score, states = score_candidates(asked, hits, cands, encoder, weights)
    if weights.require and asked.quantity and asked.kind not in WORDED and states.any():
        score = np.where(states > 0, score, -np.inf)
    order = _distinct([int(k) for k in np.argsort(-score, kind="stable")], hits, cands)
    best = cands[order[0]]
    phrase = candidate_phrase(asked, hits[best.passage], best)
    chosen = [
        (cands[k].passage, cands[k].start, cands[k].end)
        for k in sorted(order[:max_sentences], key=lambda k: (cands[k].passage, cands[k].start))
    ]
    # rated by its best two candidates (lateseg.answer.confidence)
    top = [k for k in order[:2] if np.isfinite(score[k])]
    rival = (
        candidate_phrase(asked, hits[cands[top[1]].passage], cands[top[1]])
        if len(top) > 1
        else None
    )
    rated = signals(
        [float(score[k]) for k in top],
        agree=phrase is not None and rival is not None and _same(phrase.text, rival.text),
        sense=sense_agreement(asked, hits[best.passage].text[best.start : best.end]),
        first_passage=best.passage == 0,
    )
    alts = tuple(hits[cands[k].passage].part(cands[k].start, cands[k].end) for k in top)
    answer = quoted(asked, hits, chosen, phrase)
    return replace(answer, confidence=confidence(rated), alternatives=alts)
