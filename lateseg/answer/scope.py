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

Generic phrases ("the agreement", "this license") name nothing. A missing document is
reported instead of answered from another one; but only a phrase that names a document
(its kind or its title) can be missing: a document word that goes on as part of a topic
("the EU standard contractual clauses") or a document the words after it place inside
another ("the escrow agreement referred to in clause 9") is no missing document
(:func:`names_a_document`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lateseg.text.words import MINOR_WORDS, STOPWORDS, WORD
from lateseg.text.words import words as _words
from lateseg.types import Scope

#: Characters of each document read for its profile (title, preamble, parties).
HEAD_CHARS = 3000

# Words that end a reference to a document, and what they also go by.
_DOC_WORDS = (
    "agreement|agreements|contract|contracts|lease|leases|sublease|nda|ndas|msa|sow|sla|dpa|"
    "eula|addendum|amendment|policy|manual|handbook|guide|standard|specification|spec|"
    "license|licence|terms\\s+of\\s+(?:service|use)|order\\s+form|statement\\s+of\\s+work|"
    "purchase\\s+order|memorandum|"
    "mou|bylaws|charter|deed|letter|schedule|exhibit|appendix|document|documentation|rfc|"
    # weak document words (:data:`_WEAK`): they name a document only by the words before
    # them ("the Pocket terms", "the Debian FAQ", "the Mozilla Accounts Privacy Notice")
    "terms|notice|notices|faq|reference|overview|whitepaper|policies|guidelines|"
    "practices|conditions|pdf|program|list|page"
)
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
_ACRONYM = re.compile(r"\b(?:the|its|their)\s+([A-Z]{2,6})s?\b")
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
# Canonical kind words: what a document word also goes by.
_SYNONYMS = {
    "nda": ("non-disclosure", "nondisclosure", "confidentiality"),
    "msa": ("master",),
    "sow": ("statement of work",),
    "sla": ("service level",),
    "dpa": ("data processing",),
    "eula": ("end user license", "end-user license"),
    "lease": ("tenancy", "leasehold"),
    "licence": ("license",),
    "license": ("licence",),
}
_CORPORATE = frozenset(
    [
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "llc",
        "l.l.c",
        "ltd",
        "limited",
        "co",
        "company",
        "plc",
        "llp",
        "lp",
        "gmbh",
        "ag",
        "sa",
        "bv",
        "nv",
        "pty",
        "group",
        "holdings",
        "the",
        "and",
        "of",
        "services",
        "systems",
        "partners",
        "technologies",
        "solutions",
        "international",
        "global",
        "regional",
        "digital",
        "software",
        "logistics",
        "materials",
        "properties",
        "cloud",
        "health",
    ]
)
_PARTY = re.compile(
    r"\b(?:between|and)\s+((?:[A-Z][\w&'’.-]*\s+){0,5}[A-Z][\w&'’.-]*)"
    r"(?:,?\s+(?:Inc|LLC|L\.L\.C|Corp|Ltd|LLP|L\.P|plc|GmbH)\.?)?,\s+(?:an?|the)\s"
)


@dataclass(frozen=True)
class Profile:
    """What names one document: ``terms`` (file name parts, title words, acronyms and
    synonyms, lowercase), ``parties`` (its parties' distinctive name words), ``mentions``
    (the capitalised words and the document words of its opening text: a product, a
    building, a "Statement of Work"), ``roles`` (a party's name word and the role the
    contract calls it by: ``("bellweather", "Client")``) and ``title`` (shown to a
    reader)."""

    source: str
    title: str
    terms: frozenset[str]
    parties: frozenset[str]
    mentions: frozenset[str] = frozenset()
    roles: tuple[tuple[str, str], ...] = ()
    #: the name its title gives it before its kind ("formulaic", "mdn plus")
    names: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.source.replace("\\", "/").rsplit("/", 1)[-1]


def title_of(meta: dict[str, Any], head: str) -> str:
    """A document's title: its metadata's, else its first line of words (cut at 12)."""
    title = str(meta.get("title") or "").strip()
    if title:
        return title[:200]
    for line in head.splitlines():
        words = line.strip().strip("\"'“”=#*-_ ").split()
        if words and re.search(r"[A-Za-z]{2}", line):
            return " ".join(words[:12])
    return ""


def acronyms(title: str) -> set[str]:
    """Acronyms of a title's trailing runs of words ("Mutual Non-Disclosure Agreement" →
    ``mnda``, ``nda``): three letters or more, or two when the title has two words."""
    parts = [p for w in re.split(r"\s+", re.sub(r"\bversion\b.*$", "", title, flags=re.I))
             for p in w.split("-")
             if p and p[0].isalpha() and p.lower() not in MINOR_WORDS]  # fmt: skip
    out = set()
    for n in range(2, min(len(parts), 6) + 1):
        letters = "".join(p[0] for p in parts[-n:]).lower()
        if len(letters) >= 3 or len(parts) == 2:
            out.add(letters)
    return out


_ROLE = re.compile(r"\(\s*[\"“]([A-Z][A-Za-z]+(?:\s[A-Z][A-Za-z]+)?)[\"”]\s*\)")


def roles(head: str) -> list[tuple[str, str]]:
    """``(party word, role)`` for each party the preamble gives a role other than its
    own name: "Bellweather Logistics Corporation, a Delaware corporation … ("Client")"."""
    out = []
    for m in _PARTY.finditer(head[:HEAD_CHARS]):
        label = _ROLE.search(head, m.end(), min(len(head), m.end() + 400))
        if label is None:
            continue
        words = [w.lower() for w in WORD.findall(m.group(1))]
        role = label.group(1)
        if role.lower() in words or role.lower() in ("agreement", "lease", "effective date"):
            continue
        out += [(w, role) for w in words if w not in _CORPORATE and len(w) > 2]
    return out


def parties(head: str) -> set[str]:
    """Distinctive words of the parties a contract's preamble names ("by and between
    Halcyon Biometrics, Inc., a California corporation … and Tessellate Materials Corp.,
    a …"), without corporate words (Inc., Corp., Services …) or words in capitals
    ("WHEREAS"); the short names it gives them ("Halcyon") are among those words, and
    roles ("Client") are not."""
    out = set()
    for m in _PARTY.finditer(head[:HEAD_CHARS]):
        for w in WORD.findall(m.group(1)):
            low = w.lower().replace("’", "'").removesuffix("'s")
            if low not in _CORPORATE and not w.isupper() and not w.isdigit() and len(w) > 2:
                out.add(low)
    return out


#: File names that say nothing of their document: its folder names it
#: (``terms/index.md``, ``privacy/hey-subprocessors/index.md``).
_BARE_STEMS = frozenset(("index", "readme", "default", "main", "page", "document"))


def _name_words(source: str) -> list[str]:
    """The words of a document's file name, split at ``-``, ``_`` and ``.``
    (``Mutual-NDA.md``: mutual, nda); the folder's for an ``index.md``."""
    parts = source.replace("\\", "/").rsplit("/", 2)
    stem = re.sub(r"\.[A-Za-z0-9]+$", "", parts[-1])
    if stem.lower() in _BARE_STEMS and len(parts) > 1:
        stem = parts[-2]
    words = _words(re.sub(r"[_.-]+", " ", stem))
    return [*words, *(["-".join(words)] if len(words) > 1 else [])]


def _name_runs(title: str) -> tuple[str, ...]:
    """The name a title gives its document before its kind: "Formulaic Terms of Service"
    → ``formulaic``, "MDN Plus Privacy Notice" → ``mdn plus``; empty when the title
    starts with its kind ("Terms of Service")."""
    m = re.search(rf"\b({_DOC_WORDS}|privacy|policy|statement|addendum)\b", title, re.I)
    head = title[: m.start()] if m else ""
    words = [w for w in _words(head) if w not in STOPWORDS]
    return (" ".join(words),) if words and len(words) <= 4 else ()


def profiles(rows: Iterable[tuple[str, str, dict[str, Any], str]]) -> list[Profile]:
    """Profiles of documents given as ``(source, kind, meta, head text)``. A party word
    or title word that most documents share (``client``, ``provider``, ``gnu``) names
    none of them and is dropped."""
    raw = []
    for source, kind, meta, head in rows:
        title = title_of(meta, head) if kind != "code" else ""
        terms = set(_name_words(source))
        terms |= set(_words(title)) | {p for w in _words(title) for p in w.split("-") if p}
        if len(title.split()) <= 8:  # a title, not a sentence
            terms |= acronyms(title)
        text = f" {title.lower()} "
        for canon, others in _SYNONYMS.items():
            if canon in terms or any(f" {o} " in text or f"{o}-" in text for o in others):
                terms.add(canon)
                terms |= {o for o in others if " " not in o}
        if kind in ("pdf", "docx", "html"):  # "the Security Overview PDF"
            terms.add(kind)
        terms -= {"the", "of", "and", "a", "an", "for", "to", "version"}
        mentions = {w.lower() for w in re.findall(r"\b[A-Z][a-z][\w'’-]+", head[:HEAD_CHARS])}
        mentions |= {
            " ".join(m.lower().split())
            for m in re.findall(rf"\b(?:{_DOC_WORDS})\b", head[:HEAD_CHARS], re.I)
        }
        contract = _PARTY.search(head) is not None
        raw.append((source, title, terms, parties(head) if contract else set(), mentions,
                    tuple(roles(head)) if contract else (), _name_runs(title)))  # fmt: skip
    n = len(raw)
    df: dict[str, int] = {}
    for _, _, _, ps, _, _, _ in raw:
        for w in ps:
            df[w] = df.get(w, 0) + 1
    out = []
    for source, title, terms, ps, mentions, rs, names in raw:
        keep = {w for w in ps if n < 3 or df[w] <= n // 2}
        out.append(
            Profile(
                source,
                title,
                frozenset(terms),
                frozenset(keep),
                frozenset(mentions),
                tuple((w, r) for w, r in rs if w in keep),
                names,
            )
        )
    return out


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
    for phrase, _, _, _ in refs:  # a document's own title, said in full, names it alone
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
    "Debian") names none of them."""
    best: tuple[int, str, list[Profile]] | None = None
    by_name: dict[str, list[Profile]] = {}
    for p in docs:
        for name in p.names:
            by_name.setdefault(name, []).append(p)
    for name in by_name:
        words = name.split()
        # every document whose title or file name has the name, not only those it starts
        found = [p for p in docs if all(w in p.terms for w in words)]
        said = sum(all(w in p.terms or w in p.mentions for w in words) for p in docs)
        if max(said, len(found)) > most or 2 * max(said, len(found)) > len(docs):
            continue  # a name most documents say: the publisher's, not one document's
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in name.split()) + r"(?:['’]s)?\b"
        m = re.search(pattern, question, re.IGNORECASE)
        if m is None or not m.group(0)[:1].isupper():
            continue
        if best is None or len(name) > len(best[1]):
            best = (m.start(), m.group(0), found)
    if best is None:
        return None
    return Scope(tuple(p.source for p in best[2]), (best[1],))


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
