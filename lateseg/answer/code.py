"""Answers to questions about code: the fact asked for, quoted from the line that states it.

A question about code asks for one of five facts (:mod:`lateseg.answer.code_facts` finds
them in the passages): the exception something raises (or its message), a default value,
an environment variable, an exit code, or the function or class that does something
(:func:`~lateseg.answer.question.code_kind` reads which is asked; "which class" is
answered by a class, "which function" by a function, where a passage states one).

The phrase is the identifier or literal as the line writes it (an assignment with its
name: ``ERROR_TIMEOUT = 2``), the quote is that line, and :meth:`Asker.cite_where_it_lies
<lateseg.ask.answering.Asker.cite_where_it_lies>` cites it at its own lines and qualified
name. A fact is scored as a quote's sentence is (:mod:`lateseg.answer.extractive`): the
question's similarity to the lines around it (for a ``def``, its signature and
docstring), its passage's retrieval score, the question's words in those lines, the
fact's own name and the passage's qualified name, and the bonus for stating what is
asked; the confidence rates it with the code facts' own weights
(:data:`~lateseg.answer.confidence.CODE_COEFFICIENTS`, fitted on code facts). A
question that asks for a quantity ("how many spaces") is answered only by a value with
a number in it. A
default that names a constant (``default=defaults.MAX_LINE_LENGTH``) is answered by the
constant's own line where a passage assigns it (``MAX_LINE_LENGTH = 79``; the ask reads
that passage after the others: :func:`~lateseg.ask.code_search.named_values`). Docs
corroborate, code answers: a fact the docs state is answered by the code that states it
(the variable read, the exception raised), where a passage of code does
(:func:`code_twins`; the ask reads such code after the others:
:func:`~lateseg.ask.code_search.code_stating`), and where any passage of code states a
fact of the kind asked, a fact only the docs state does not answer (a function defined in
a docs example is not the library's). An entry of a mapping
named for defaults (``DEFAULT_CONFIG = {`` … ``'replay_dir': …``) is a default.
"Which … variables"
gives every variable the best fact's lines name. A code question none of whose passages
states such a fact is answered as any other question is. Given a ``judge`` (an ask with
``rerank="generator"``: :func:`~lateseg.generate.rerank.fact_judge`), the facts are
chosen by their score and the judge's likelihood of the question after each fact's lines
(each distinct text judged once), each standardised over the facts and summed
(:func:`~lateseg.answer.confidence.zmix`; with two facts that disagree, the one of the
two scorers that separates them more in its own units decides). The rating reads the
facts' own scores in the judged order: it was fitted on unjudged answers, and a judge
that overrules the score usually lowers its margin. A judge that gives no finite
likelihood for a text is not heard.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from lateseg.answer.code_facts import Fact, constants_named, facts, hit_value, shape
from lateseg.answer.compose import make_phrase, quoted
from lateseg.answer.confidence import CODE_COEFFICIENTS, confidence, signals, zmix
from lateseg.answer.question import Asked, word_overlaps
from lateseg.text.words import identifier_words
from lateseg.types import Answer, Hit, TextEmbedder

log = logging.getLogger(__name__)

# "what does the error say", "what error text": the message, not the class
_MESSAGE = re.compile(r"\b(?:say|says|text|message|wording|reads?)\b", re.IGNORECASE)
# "which class …", "is there a function …": the shape of the symbol asked for
_SHAPE_ASKED = re.compile(
    r"\b(?:which|what|is\s+there\s+an?|any)\s+(?:[\w-]+\s+){0,2}"
    r"(?:(class(?:es)?|enums?)|functions?|methods?|decorators?|helpers?|callables?)\b",
    re.IGNORECASE,
)
# an option (--sign-with) or a variable (PIPX_BIN_DIR) as a question names it
_NAMES_ASKED = re.compile(
    r"(?<![\w-])--[A-Za-z][\w-]{0,60}|\b[A-Z][A-Z0-9]{1,40}_[A-Z0-9_]{1,80}\b"
)
# "which … variables": every one the lines name
_PLURAL_ENV = re.compile(r"\bvariables\b|\bvars\b", re.IGNORECASE)

#: A judge among facts: the question's likelihood after each of the texts, higher better.
Judge = Callable[[str, Sequence[str]], np.ndarray]

# the most facts one question scores (each is embedded): the best by word overlap
MOST_FACTS = 64
# the facts the docs alone may state, in forms prose does not otherwise take ($NAME,
# "exits with 2", ConfigFileError); a default or a function needs a passage of code
_DOCS_STATE = frozenset(["env", "exit_code", "exception"])


def _named(f: Fact, hit: Hit) -> str:
    """A fact's words for the question's to meet: its lines, its name's words and the
    qualified name of its passage (``src.humanize.number.clamp``)."""
    names = " ".join(identifier_words(f.name.replace(" ", "."))) if f.name else ""
    section = " ".join(identifier_words(hit.section)) if hit.section else ""
    return f"{f.context} {names} {section}"


def names_asked(question: str) -> tuple[str, ...]:
    """The options and variables a question names as code writes them (``--sign-with``,
    ``PIPX_BIN_DIR``), in its order."""
    return tuple(dict.fromkeys(m.group() for m in _NAMES_ASKED.finditer(question)))


def _states_named(names: Sequence[str], f: Fact, hit: Hit) -> bool:
    """Whether a fact's name or its own lines hold a name the question gives
    (``default="gpg"`` of the call whose options are ``--sign-with``;
    ``DEFAULT_PIPX_BIN_DIR = …`` for ``PIPX_BIN_DIR``)."""
    said = f"{f.name} {hit.text[f.start : f.end]}"
    return any(n in said for n in names)


def score_facts(
    asked: Asked, hits: Sequence[Hit], found: Sequence[Fact], encoder: TextEmbedder
) -> np.ndarray:
    """Each fact's score, on the scale of a quote's candidates (see the module
    docstring): similarity + 0.5 passage + 0.5 overlap + 0.5 for stating what is asked,
    + 0.5 where it states an option or a variable the question names."""
    q = encoder.embed_queries([asked.question])[0]
    sims = encoder.embed_texts([f.context for f in found]) @ q
    overlap = word_overlaps(asked.words, [_named(f, hits[f.passage]) for f in found])
    passage = np.array([hits[f.passage].score for f in found])
    names = names_asked(asked.question)
    named = np.array([_states_named(names, f, hits[f.passage]) for f in found], dtype=float)
    return sims + 0.5 * passage + 0.5 * overlap + 0.5 + 0.5 * named


def _phrase_parts(
    asked: Asked, hit: Hit, best: Fact, found: Sequence[Fact]
) -> tuple[int, int, list[tuple[int, int]]]:
    """The lines quoted and the phrase's parts (offsets in ``hit.text``): the best fact's;
    for "which … variables", every variable named in its lines and the two either side."""
    if best.kind != "env" or not _PLURAL_ENV.search(asked.question):
        return best.start, best.end, [best.value]
    near = [
        f for f in found
        if f.passage == best.passage and hit.text.count("\n", min(f.start, best.start),
                                                        max(f.start, best.start)) <= 2
    ]  # fmt: skip
    parts, said = [], set()
    for f in sorted(near, key=lambda f: f.value):
        word = hit.text[f.value[0] : f.value[1]]
        if word not in said:
            said.add(word)
            parts.append(f.value)
    return min(f.start for f in near), max(f.end for f in near), parts


def shape_asked(question: str) -> str | None:
    """``"class"`` for "which class …", ``"def"`` for "which function (method,
    decorator, helper) …", None where the question does not say."""
    m = _SHAPE_ASKED.search(question)
    if m is None:
        return None
    return "class" if m.group(1) else "def"


def resolve_constants(
    hits: Sequence[Hit], found: list[Fact]
) -> tuple[list[Fact], dict[Fact, Fact]]:
    """``found`` with each constant that a default names (``default=defaults.MAX_LINE_LENGTH``)
    and a passage assigns (``MAX_LINE_LENGTH = 79``) read in the naming line's context
    too; and each naming fact's constant, which answers in its place."""
    naming = constants_named(hits, found)
    out: list[Fact] = []
    constant: dict[Fact, Fact] = {}
    for f in found:
        by = naming.get(f.name)
        if by is not None and by is not f:
            g = replace(f, context=f"{by.context}\n{f.context}")
            constant[by] = g
            f = g
        out.append(f)
    return out, constant


def code_twins(hits: Sequence[Hit], found: Sequence[Fact]) -> dict[Fact, Fact]:
    """Each fact of ``found`` that the docs state and a passage of code states too (the
    same variable read, the same exception raised), with the first such fact of code,
    which answers in its place."""
    in_code: dict[str, Fact] = {}
    for f in found:
        if hits[f.passage].kind == "code":
            in_code.setdefault(hit_value(hits, f), f)
    return {
        f: in_code[hit_value(hits, f)]
        for f in found
        if hits[f.passage].kind != "code" and hit_value(hits, f) in in_code
    }


def code_answer(
    asked: Asked, hits: Sequence[Hit], encoder: TextEmbedder, judge: Judge | None = None
) -> Answer | None:
    """The answer to a code question (``asked.code``): its best fact quoted at its line
    with its phrase, rated as a quote is; None when no passage states a fact of the kind
    asked, or for a default or a function, when no passage is code (the caller quotes as
    for any question). ``judge``: see the module docstring."""
    if asked.code is None:
        return None
    if asked.code not in _DOCS_STATE and not any(h.kind == "code" for h in hits):
        return None
    exception = asked.code == "exception"
    found = facts(
        asked.code, hits, message=exception and bool(_MESSAGE.search(asked.question)),
        defined=exception and shape_asked(asked.question) == "class",
    )  # fmt: skip
    found, constant = resolve_constants(hits, found) if asked.code == "default" else (found, {})
    twins = code_twins(hits, found)
    constant.update(twins)  # docs may corroborate, code answers: the code's line
    if any(hits[f.passage].kind == "code" for f in found):  # and no fact of the docs alone
        found = [f for f in found if hits[f.passage].kind == "code" or f in twins]
    if asked.quantity:  # "how many spaces", "after how many days": a value with a number
        found = [f for f in found if re.search(r"\d", hit_value(hits, f))]
    wanted = shape_asked(asked.question) if asked.code == "symbol" else None
    if wanted is not None and any(shape(hits, f) == wanted for f in found):
        found = [f for f in found if shape(hits, f) == wanted]  # a class asked: no method
    if not found:
        return None
    if len(found) > MOST_FACTS:  # each is embedded: the best by the question's words
        near = word_overlaps(asked.words, [_named(f, hits[f.passage]) for f in found])
        kept = sorted(np.argsort(-near, kind="stable")[:MOST_FACTS])
        found = [found[int(k)] for k in kept]
    score = score_facts(asked, hits, found, encoder)
    chosen = score if judge is None or len(found) < 2 else _judged(asked, found, score, judge)
    order = [int(k) for k in np.argsort(-chosen, kind="stable")]
    # a constant named answers in its naming line's place: the two are one candidate
    ranked: list[tuple[float, Fact]] = []
    for k in order:
        f = constant.get(found[k], found[k])
        if all(f is not g for _, g in ranked):
            ranked.append((float(score[k]), f))
    best = ranked[0][1]
    hit = hits[best.passage]
    start, end, parts = _phrase_parts(asked, hit, best, found)
    where = hit.part(start, end)
    phrase = make_phrase(where, [(a - start, b - start) for a, b in parts], asked.code)
    top = ranked[:2]
    rated = signals(
        [s for s, _ in top],
        agree=len(top) > 1 and _same(hit_value(hits, top[0][1]), hit_value(hits, top[1][1])),
        sense=1.0,  # a fact of the kind asked: the sense asked for
        first_passage=found[order[0]].passage == 0,  # where retrieval put what answered
    )
    alts = tuple(hits[f.passage].part(f.start, f.end) for _, f in top)
    answer = quoted(asked, hits, [(best.passage, start, end)], phrase)
    return replace(answer, confidence=confidence(rated, CODE_COEFFICIENTS), alternatives=alts)


def _judged(asked: Asked, found: Sequence[Fact], score: np.ndarray, judge: Judge) -> np.ndarray:
    """``score`` and ``judge``'s likelihood of the question after each fact's lines (each
    distinct text once), standardised and summed; ``score`` alone where the judge gives a
    likelihood that is not finite."""
    texts = list(dict.fromkeys(f.context for f in found))
    if len(texts) < 2:  # one text: the judge's word would be the same for every fact
        return score
    said = np.asarray(judge(asked.question, texts), dtype=np.float64)
    if said.shape != (len(texts),):
        raise ValueError(f"the judge gave {said.shape} likelihoods for {len(texts)} texts")
    if not np.isfinite(said).all():
        log.warning("the judge gave a likelihood that is not finite: the facts' scores choose")
        return score
    of = dict(zip(texts, said.tolist(), strict=True))
    return zmix(score, [of[f.context] for f in found])


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
