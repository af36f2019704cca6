"""Which indexed documents a question names: "the NDA", "the SaaS agreement",
``lease.pdf``, "the Halcyon-Tessellate agreement", "Granite Quay's tenant".

Each document gets a :class:`Profile` from what names it: its file name, its title
(the PDF's title, else its first line), acronyms of the title ("Master Services
Agreement" → ``msa``), kind words and their synonyms (``nda`` ↔ non-disclosure or
confidentiality agreement) and, for a contract, its parties' names from the preamble.
:func:`find_scope` then reads the question's references to documents:

* a file name (``nda.pdf``): the document of that name, or *missing*;
* a phrase ending in a document word ("the … agreement / lease / NDA / manual / licence",
  "its agreement with Orrery"): the documents whose profile holds more than half of the
  phrase's distinctive words; none of them anywhere: *missing*; some but not most
  ("the regular GPL" in a question about the LGPL): no scope;
* a party's name, capitalised ("Bellweather", "Granite Quay's tenant"): the contracts
  between those parties.

A document's own title said in full names the documents of that title; an acronym
after "the" ("the BAA") names the documents whose title has it; a weak document word
("terms", "notice", "FAQ", "reference", "PDF", …) scopes by the words before it but is
never missing; and, when nothing else names a document, a title's own name said in
capitals ("Formulaic", "MDN Plus") names the documents that carry it, unless most do.

Generic phrases ("the agreement", "this license") name nothing. A missing document is
reported (the question is then answered from the whole index, unsure, saying which name
matched nothing: :meth:`~lateseg.ask.answering.Answerer.unmatched`); but only a phrase
that names a document (its kind or its title) can be missing: a document word that
goes on as part of a topic ("the EU standard contractual clauses") or a document the
words after it place inside another ("the escrow agreement referred to in clause 9")
is no missing document (:func:`names_a_document`).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence

from lateseg.answer.profile import (
    _DOC_WORDS,
    HEAD_CHARS,
    Profile,
    acronyms,
    profiles,
    title_of,
)
from lateseg.text.words import STOPWORDS, WORD
from lateseg.text.words import words as _words
from lateseg.types import Scope

__all__ = [
    "FILE_NAME", "HEAD_CHARS", "MOST_SCOPED", "Profile", "acronyms", "find_scope",
    "names_a_document", "plain_question", "profiles", "title_of",
]  # fmt: skip


#: Document words that also end phrases naming no document ("the terms of payment", "the
#: written notice", "the PDF"): such a phrase scopes a question when a document's profile
#: holds its words, but is never reported missing.
_WEAK_WORDS = (
    "terms notice notices faq reference overview whitepaper policies guidelines practices "
    "conditions pdf program list page"
)
_WEAK = frozenset(_WEAK_WORDS.split())
_REFERENCE = re.compile(
    r"\b(?:the|this|that|its|their)\s+"
    r"((?:(?!(?:the|this|that|a|an|of|in|on|under|to|for|with|by|from|its|their)\s)[\w'’.-]+\s+){0,5}?)"
    rf"({_DOC_WORDS})\b"
    r"((?:\s+(?:with|between|of|from|for)\s+(?-i:[A-Z])[\w'’.-]*"
    r"(?:\s+(?:and\s+)?(?-i:[A-Z])[\w'’.-]*){0,4})?)",
    re.IGNORECASE,
)
# "Granite Quay's lease", "Maplestone's subscription": a name with a possessive before a
# document word is a reference too.
_POSSESSIVE = re.compile(
    r"\b((?:[A-Z][\w.-]*\s+){0,3}[A-Z][\w.-]*)['’]s?\s+((?:[\w-]+\s+){0,3}?)"
    rf"({_DOC_WORDS})\b",
)
# "the BAA", "the CSA": an acronym after "the" (a reference when some title has it; never
# reported missing: "the GDPR" names a law, not a document of the index)
_ACRONYM = re.compile(r"\b(?:the|its|their)\s+([A-Z]{3,6})s?\b")  # not "the US", "the EU"
#: The strong document words: a phrase ending in one that no document matches is missing.
_DOC_KINDS = frozenset(
    re.sub(r"\\s\+", " ", w) for w in _DOC_WORDS.split("|") if w not in _WEAK and "(" not in w
) | {"terms of service", "terms of use"}
FILE_NAME = re.compile(
    r"(?<![\w/])([\w][\w.-]*\.(?:pdf|docx|doc|txt|md|markdown|html?|rst|py|js|ts|go|rs|java|"
    r"c|cc|cpp|h|hpp))\b",
    re.IGNORECASE,
)
# Words that name no particular document.
_GENERIC_WORDS = (
    "above agreement agreements appendix applicable attached below between contract "
    "contracts current document documentation documents entire executed exhibit final "
    "following full letter licence license main new old original other policy relevant "
    "same schedule signed standard terms underlying whole"
)
_GENERIC = STOPWORDS | frozenset(_GENERIC_WORDS.split())


def _idf(word: str, docs: Sequence[Profile]) -> float:
    df = sum(word in p.terms or word in p.parties for p in docs)
    return math.log(1 + len(docs) / max(df, 1))


def _match(
    words: list[str], capitals: set[str], docs: Sequence[Profile]
) -> tuple[list[Profile], bool]:
    """The documents a reference's distinctive ``words`` name (more than half of them in
    the profile; party names only when capitalised in the question, in ``capitals``),
    best first; and whether any document has any of them."""
    if not words:
        return [], True
    scored = []
    anywhere = False
    for p in docs:
        found = [
            w for w in words
            if w in p.terms or (w in capitals and (w in p.parties or w in p.mentions))
        ]  # fmt: skip
        anywhere = anywhere or bool(found)
        if 2 * len(found) > len(words):
            scored.append((sum(_idf(w, docs) for w in found), p))
    if not scored:
        return [], anywhere
    best = max(s for s, _ in scored)
    return [p for s, p in scored if s >= best - 1e-9], True


def _split(text: str) -> list[str]:
    """Words of ``text``, lowercase; "Halcyon-Tessellate" (capitals on both sides of the
    hyphen) as its two names, "non-disclosure" as one word."""
    out = []
    for w in WORD.findall(text):
        parts = w.split("-")
        if len(parts) > 1 and all(p[:1].isupper() for p in parts):
            out += [p.lower() for p in parts]
        else:
            out.append(w.lower().replace("’", "'"))
    return out


def _distinctive(phrase: str) -> list[str]:
    words = []
    for w in _split(phrase):
        w = w.removesuffix("'s").rstrip(".")
        if w in _GENERIC or len(w) < 2:
            continue
        words.append(w)
    # "non-disclosure" also as its parts' acronym's kind: kept as written
    return list(dict.fromkeys(words))


# After a reference, words that say the thing it names is a part of a document (the
# escrow agreement "referred to in clause 9", the form "attached as Exhibit C").
_REFERRED = re.compile(
    r"\s*,?\s*(?:(?:which|that)\s+(?:is|are)\s+)?(?:referred|mentioned|described|defined|"
    r"set\s+out|set\s+forth|listed|cited|contemplated|identified|specified|incorporated|"
    r"attached|annexed|appended|referenced|provided\s+for)\b",
    re.IGNORECASE,
)
# Auxiliaries whose subject a bare verb follows: "does the lease expire", "must the NDA
# say": the word after the reference is its verb, not more of its name.
_AUXILIARIES = "do does did will would can could may might must shall should"
_AUXILIARY = frozenset(_AUXILIARIES.split())
# What a question says a document does: the word after "the lease" that ends its name.
_VERBS = (
    "say says said state states require requires allow allows permit permits provide "
    "provides cover covers define defines mention mentions contain contains include includes "
    "specify specifies govern governs expire expires end ends start starts begin begins last "
    "lasts apply applies give gives grant grants prohibit prohibits take takes renew renews"
)
_DOCUMENT_VERBS = frozenset(_VERBS.split())


def names_a_document(question: str, start: int, end: int) -> bool:
    """Whether the reference at ``question[start:end]`` ("the … agreement") names a
    document, not a topic that a document holds: it does unless its document word goes
    on as part of a longer name ("the EU standard contractual clauses", "the insurance
    policy limits": a lower-case word that is no verb after it) or the words after it
    say it is referred to in a document ("the escrow agreement referred to in clause 9").
    A phrase that names no document is never reported missing."""
    after = question[end:]
    if _REFERRED.match(after):
        return False
    nxt = WORD.match(after.lstrip(" \t")) if after[:1] in (" ", "\t") else None
    if nxt is None or not nxt.group(0)[0].islower():  # the end, punctuation or a name
        return True
    word = nxt.group(0)
    before = _words(question[:start])
    if word in STOPWORDS or word in _DOCUMENT_VERBS or word.endswith("ed"):
        return True
    return bool(before) and before[-1] in _AUXILIARY  # "does the lease expire"


#: A question scoped to more documents than this names nothing in particular.
MOST_SCOPED = 8


def find_scope(question: str, docs: Sequence[Profile], most: int = MOST_SCOPED) -> Scope | None:
    """The documents ``question`` names among ``docs`` (see the module's docstring), or
    None when it names none; a scope of more than ``most`` documents names nothing in
    particular and is dropped."""
    if not docs:
        return None
    capitals = {
        w.removesuffix("'s") for c in re.findall(r"\b[A-Z][\w'’-]+", question) for w in _split(c)
    }
    # a file name
    for m in FILE_NAME.finditer(question):
        name = m.group(1).lower()
        found = [p for p in docs if p.name.lower() == name]
        if not found:
            return Scope(missing=m.group(1))
        return Scope(tuple(p.source for p in found), (m.group(1),))
    # "the … agreement", "Granite Quay's lease"
    refs: list[tuple[str, str, list[str], bool]] = []
    for m in _REFERENCE.finditer(question):
        phrase = question[m.start(1) : m.end(3) if m.group(3) else m.end(2)]
        doc = names_a_document(question, m.start(), m.end(3) if m.group(3) else m.end(2))
        refs.append((phrase, m.group(2), _distinctive(phrase), doc))
    for m in _POSSESSIVE.finditer(question):
        doc = names_a_document(question, m.start(), m.end())
        refs.append((m.group(0), m.group(3), _distinctive(m.group(0)), doc))
    for m in _ACRONYM.finditer(question):  # "the BAA": an acronym some title has
        refs.append((m.group(1), m.group(1), [m.group(1).lower()], False))
    missing = None
    for phrase, _, words, _ in refs:  # a document's own title, said in full, names it
        if not words:  # "the agreement", "the terms": generic words name no document
            continue
        said = " ".join(_words(phrase))
        titled = [p for p in docs if p.title and " ".join(_words(p.title)) == said]
        if titled and len(titled) <= most:
            return Scope(tuple(p.source for p in titled), (phrase,))
    for phrase, kind, words, doc in refs:
        if not words:
            continue
        found, anywhere = _match(words, capitals, docs)
        kind = " ".join(kind.lower().split())
        if len(found) > 1:  # "the Pocket terms": the Pocket document that is terms
            of_kind = [p for p in found if kind in p.terms]
            found = of_kind or found
        if found and len(found) <= most:
            return Scope(tuple(p.source for p in found), (phrase,))
        mentioned = kind not in _GENERIC and any(kind in p.mentions for p in docs)
        weak = kind in _WEAK or kind not in _DOC_KINDS
        if doc and not weak and not anywhere and not mentioned and missing is None:
            missing = phrase
    if missing is not None:
        return Scope(missing=missing)
    # a party's name anywhere in the question
    named = [w for w in capitals if any(w in p.parties for p in docs)]
    if named:
        found = [p for p in docs if any(w in p.parties for w in named)]
        if len(found) <= most:
            words = [m.group(0) for m in re.finditer(r"\b[A-Z][\w'’-]+", question)]
            shown = [
                w
                for w in words
                if any(part in named for part in _split(w.removesuffix("'s").removesuffix("’s")))
            ]
            return Scope(tuple(p.source for p in found), tuple(dict.fromkeys(shown)))
    return _named_by_title(question, docs, most)


def _named_by_title(question: str, docs: Sequence[Profile], most: int) -> Scope | None:
    """The documents whose title's name ("Formulaic", "MDN Plus", "Smart Window") the
    question says in capitals with no document word after it ("Can a 16-year-old use
    Formulaic?"): the longest such name wins. A name most documents share ("Mozilla",
    "Debian") names none of them, and a one-word name only counts where its capital is
    not just a sentence's first letter ("Security deposits: …" names no "Security
    Overview")."""
    best: tuple[str, str, tuple[str, ...]] | None = None
    for name, (pattern, found) in _title_names(tuple(docs), most).items():
        for m in pattern.finditer(question):
            if not m.group(0)[:1].isupper():
                continue
            if " " not in name and _sentence_start(question, m.start()):
                continue
            if best is None or len(name) > len(best[0]):
                best = (name, m.group(0), found)
            break
    if best is None:
        return None
    return Scope(best[2], (best[1],))


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?:;\n"


@functools.lru_cache(maxsize=8)
def _title_names(
    docs: tuple[Profile, ...], most: int
) -> dict[str, tuple[re.Pattern[str], tuple[str, ...]]]:
    """Per title name that names few documents: its pattern and those documents' sources
    (computed once per set of profiles: a question reads it in linear time)."""
    names = {name for p in docs for name in p.names}
    holders: dict[str, set[str]] = {}
    for p in docs:
        for w in p.terms | p.mentions:
            holders.setdefault(w, set()).add(p.source)
    terms: dict[str, set[str]] = {}
    for p in docs:
        for w in p.terms:
            terms.setdefault(w, set()).add(p.source)
    out = {}
    for name in names:
        words = name.split()
        found = set.intersection(*(terms.get(w, set()) for w in words))
        said = set.intersection(*(holders.get(w, set()) for w in words))
        if max(len(said), len(found)) > most or 2 * max(len(said), len(found)) > len(docs):
            continue  # a name most documents say: the publisher's, not one document's
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in words) + r"(?:['’]s)?\b"
        order = tuple(p.source for p in docs if p.source in found)
        out[name] = (re.compile(pattern, re.IGNORECASE), order)
    return out


def plain_question(question: str, scope: Scope, docs: Sequence[Profile]) -> str:
    """``question`` as asked of the documents it was scoped to: the phrase that named
    them becomes "the agreement" (or its kind: "the lease", "the manual"), a file name
    "this document", and a party's name the role its contract calls it ("Bellweather"
    → "Client"), so that retrieval and the answer's words match how the text says it."""
    out = question
    chosen = [p for p in docs if p.source in scope.sources]
    for named in scope.named:
        at = out.find(named)
        if at < 0:
            continue
        if FILE_NAME.fullmatch(named):
            word = "this document"
        else:
            kind = re.search(rf"\b({_DOC_WORDS})\b", named, re.I)
            if kind is None:
                continue  # a party's name: its role, below
            word = kind.group(1).lower()
            if word in ("nda", "ndas", "msa", "sow", "sla", "dpa", "eula", "contract"):
                word = "agreement"
        out = out[:at] + word + out[at + len(named) :]
    role = {w: r for p in chosen for w, r in p.roles}
    if not role:
        return out
    parts: list[str] = []
    last = None
    pos = 0
    for m in WORD.finditer(out):
        gap, token, pos = out[pos : m.start()], m.group(0), m.end()
        if gap.strip():
            last = None
        parts.append(gap)
        word, owner = (token[:-2], token[-2:]) if token[-2:] in ("'s", "’s") else (token, "")
        r = role.get(word.lower()) if word[:1].isupper() else None
        if r is None:
            last = None
            parts.append(token)
            continue
        if last == r and not gap.strip():
            del parts[-2:]  # "Granite Quay": one role for the run of its words
        parts.append(r + owner)
        last = r
    return "".join(parts) + out[pos:]
