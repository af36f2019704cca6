"""What names one indexed document: its :class:`Profile` (file name, title, acronyms,
kind words and synonyms, a contract's parties and roles, the name its title gives it),
read from its metadata and opening text. :mod:`lateseg.answer.scope` reads a question's
references to documents against these."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lateseg.text.words import MINOR_WORDS, STOPWORDS, WORD, document_title
from lateseg.text.words import words as _words

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
    """A document's title (:func:`lateseg.text.words.document_title`)."""
    return document_title(meta, head)


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
