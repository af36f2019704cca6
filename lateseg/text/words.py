"""Words: the one word pattern, stop-word set, stemmer and modal-verb rule that every
stage reads text with. A second tokeniser elsewhere drifts from this one (a word of the
question that the passage tokeniser splits never matches), so ``tests/test_words.py``
fails when one appears outside this module.

Number and money grammars are not words: ``text.values`` and the answer checks compose
their own number alternatives with :data:`WORD_PATTERN`.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

#: A word: letters and digits of any script, joined by inner hyphens and apostrophes
#: ("non-compete", "Licensee's", "x86-64"); never a leading or trailing joiner.
WORD_PATTERN = r"[^\W_]+(?:[-'’][^\W_]+)*"
WORD = re.compile(WORD_PATTERN)
# A search term: a run of word characters, which no search syntax reads as an operator.
_TERM = re.compile(r"\w+")
# The parts of an identifier: split at dots, underscores and case changes.
_IDENTIFIER_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def words(text: str) -> list[str]:
    """The words of ``text``, lower-cased, with the typographic apostrophe as ``'``."""
    return [w.lower().replace("’", "'") for w in WORD.findall(text)]


def is_letters(token: str) -> bool:
    """Whether ``token`` is a word of letters only (``"Authorized"``, ``"third-party"``,
    not ``"x86"`` or ``"§"``)."""
    return WORD.fullmatch(token) is not None and not any(c.isdigit() for c in token)


def terms(text: str) -> list[str]:
    """The search terms of ``text``: lower-cased runs of word characters (no quote, no
    operator of any search syntax survives)."""
    return _TERM.findall(text.lower())


def term_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, term)`` of each search term of ``text``, as :func:`terms` gives them."""
    return [(m.start(), m.end(), m.group(0).lower()) for m in _TERM.finditer(text)]


def identifier_words(name: str) -> list[str]:
    """An identifier path as lower-case words: ``json.JSONDecoder.raw_decode`` ->
    ``json json decoder raw decode``."""
    return [w.lower() for w in _IDENTIFIER_PART.findall(name)]


# Words that say nothing about what a text or a question is about: articles,
# prepositions, pronouns, auxiliaries and modals, and the filler of spoken questions.
_STOPWORDS = (
    "a an the and or nor but of to in on at by for from with within without after before "
    "during per via than vs "
    "as that which who whom whose what when where why how then upon is are be been being "
    "was were do does did doing can could may might must shall should will would has have "
    "had i me my we our you your he him his she her it its they them their this these "
    "those there here if any all each either neither both not no yes so such much many "
    "long far soon about under over into onto up out off only also just still ever even "
    "get gets got need needs needed say says said tell kind sort"
)
STOPWORDS = frozenset(_STOPWORDS.split())
# The stop words a title leaves in lower case ("Term and Termination", "Limitation of
# Liability"): articles, conjunctions and short prepositions.
_MINOR_WORDS = (
    "a an the and or nor but of to for in on at by with without from into upon as per via "
    "vs this that its their under over than not no be is are"
)
MINOR_WORDS = STOPWORDS & frozenset(_MINOR_WORDS.split())
# The stop words that qualify what a clause says ("per year", "after termination", "each
# party", "not", "if"): a keyword search keeps them, BM25 weighing each by its rarity
# (dropping them lost 4 points of hit@5 on sample_qa's lexical search, bench/hybrid.py).
_QUALIFIERS = (
    "after before during per each within about over under into onto up out off all any "
    "both either neither if only still not no"
)
SEARCH_STOPWORDS = STOPWORDS - frozenset(_QUALIFIERS.split())

# Function words of the other languages contracts here are written in (German, French,
# Spanish, Italian): a page of prose in any of them holds several.
_FOREIGN_FUNCTION_WORDS = (
    "der die das und zu den von mit ist nicht des le la les et de un une est pour "
    "dans par el los las y en del que por con para il di che per"
)
FUNCTION_WORDS = STOPWORDS | frozenset(_FOREIGN_FUNCTION_WORDS.split())

#: A modal verb or its equivalent: where a clause's obligation or permission starts.
MODAL = re.compile(
    r"\b(?:shall|must|may|will|should|can|cannot|might|agrees?|is\s+(?:not\s+)?(?:required|"
    r"permitted|allowed|entitled)|are\s+(?:not\s+)?(?:required|permitted|allowed|entitled))\b",
    re.IGNORECASE,
)

# Snowball's English stemmer (Porter2) keeps state while it stems: one per process, locked.
_STEMMER: Any = None
_STEM_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A word's Snowball (Porter2) English stem, lower-cased: ``terminate``,
    ``terminated`` and ``termination`` are ``termin``; ``notices`` is ``notice``'s
    ``notic``. Measured against the suffix stripper it replaced on bench/answers.py: the
    same answers on every set, one more right citation on the manuals."""
    global _STEMMER
    with _STEM_LOCK:
        if _STEMMER is None:
            import snowballstemmer

            _STEMMER = snowballstemmer.stemmer("english")
        return str(_STEMMER.stemWord(word.lower()))


def document_title(meta: dict[str, Any], head: str) -> str:
    """A document's title: its metadata's (a PDF's, a Markdown file's front matter or
    first heading, an HTML ``<title>``), else its first line of words (cut at 12)."""
    title = str(meta.get("title") or "").strip()
    if title:
        return " ".join(title.split())[:200]
    for line in head.splitlines():
        found = line.strip().strip("\"'“”=#*-_ ").split()
        if found and re.search(r"[A-Za-z]{2}", line):
            return " ".join(found[:12])
    return ""
