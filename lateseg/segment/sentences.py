"""Candidate boundaries in text: paragraphs, sentence ends, clause punctuation.

The sentence splitter knows legal abbreviations ("Sec.", "U.S.", "e.g.", "Inc.") and
section numbers ("12.3"), so neither ends a sentence.
"""

from __future__ import annotations

import re

ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "inc",
        "ltd",
        "llc",
        "corp",
        "co",
        "no",
        "nos",
        "sec",
        "secs",
        "art",
        "arts",
        "para",
        "paras",
        "cl",
        "ch",
        "vol",
        "p",
        "pp",
        "e.g",
        "i.e",
        "etc",
        "vs",
        "v",
        "cf",
        "al",
        "approx",
        "dept",
        "est",
        "fig",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "u.s",
        "u.k",
        "u.s.a",
        "n.a",
        "s.a",
        "ex",
        "exh",
        "sch",
    ]
)

_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
# A sentence ends at . ! ? (optionally followed by quotes/brackets), then whitespace,
# then something that can start a sentence.
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(\s+)(?=[\"'“‘(\[]?[A-Z0-9])")
_CLAUSE_PUNCT = re.compile(r"[;:,][\"'”’)\]]*(\s+)(?=\S)")
_LINE = re.compile(r"\n[ \t]*(?=\S)")


def paragraph_starts(text: str) -> list[int]:
    """Offsets of the first non-blank character after each blank line."""
    return [m.end() for m in _PARAGRAPH.finditer(text) if m.end() < len(text)]


def line_starts(text: str) -> list[int]:
    """Offsets of the first non-blank character of every line after the first."""
    return [m.end() for m in _LINE.finditer(text)]


def sentence_starts(text: str) -> list[int]:
    """Offsets where a new sentence starts (after the whitespace that follows an end)."""
    out = []
    for m in _SENTENCE_END.finditer(text):
        end = m.start()  # position of the terminal punctuation
        if text[end] == "." and _is_abbreviation_or_number(text, end):
            continue
        out.append(m.end())
    return out


def clause_starts(text: str) -> list[int]:
    """Offsets after ``;``, ``:`` and ``,``: fallbacks inside over-long sentences."""
    return [m.end() for m in _CLAUSE_PUNCT.finditer(text)]


def _is_abbreviation_or_number(text: str, dot: int) -> bool:
    start = dot
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "(\"'“":
        start -= 1
    word = text[start:dot].lower()
    if not word:
        return False
    if word in ABBREVIATIONS or word.rstrip(".") in ABBREVIATIONS:
        return True
    if len(word) == 1 and word.isalpha():  # initials: "J. Smith", "(a). "
        return True
    # "12." "12.3." "(iv)." section numbers and list markers
    return bool(re.fullmatch(r"\(?[0-9ivxlc]+(\.[0-9]+)*\)?", word))
