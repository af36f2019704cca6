"""Where text may be cut: paragraph, sentence, clause and line starts, and how a
character position maps to a token. Every rule for these lives here.

Four named rule sets decide sentence ends; they differ on purpose (their users need
different things) and are kept apart until a bench shows a merge costs nothing (the
definitions' own abbreviation list is merged; the encoder's rule lost recall merged):

* **segmentation** (:func:`sentence_starts` and friends; :data:`ABBREVIATIONS`, 57 legal
  and general abbreviations, section numbers and initials): chunk boundaries
  (``segment/``), KV chunks (``kv/chunks.py``), extractive answers, whose candidates
  are also cut at the list items, year ends and numbered clauses a sentence runs over
  (:func:`answer_pieces`); a numeral in brackets that repeats a number in words
  ("fourteen (14) days", even across a line break) is never an item;
* **definitions** (:class:`DefinitionSentences`: the same abbreviations, and a blank line
  also ends a sentence): the sentence a defined term's definition runs to
  (``ingest/contract_terms.py``). It had its own 17 abbreviations, all among the 57; on
  145 definitions (sample contracts, licence texts, Policy, FHS) the merge changed none;
* **encoder windows** (:func:`window_tiers`): paragraph and sentence starts between
  tokens, from the gap between them alone (no abbreviation list): where the late
  encoder's windows may start;
* **generated text** (:func:`generated_sentence_ends`): any ``.``/``!``/``?`` and the
  space after it, whatever follows: a decoder's output, whose repeated sentences stop it
  (``generate/decode.py``), written one token at a time, with no abbreviation worth
  keeping whole there.

Token mapping: :func:`token_starts` / :func:`token_span` map characters to the tokens
that *hold* them (KV compression, needle positions); :func:`tokens_at` maps boundary
positions to the tokens that *start* at them, dropping positions inside a token
(segmentation).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

import numpy as np

from lateseg.text.values import number_word
from lateseg.text.words import words

# -- segmentation ---------------------------------------------------------------------

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


#: Between the cells of a table row as ingest writes it (``lateseg.ingest.tables``): a
#: cell is ``Header: value``, the row one line.
CELL_SEPARATOR = " · "
_TABLE_ROW = re.compile(
    r"^[^\n:·]{1,60}: [^\n]*?" + re.escape(CELL_SEPARATOR) + r"[^\n:·]{1,60}: [^\n]*$", re.M
)


def table_row_lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the lines of ``text`` that are table rows (two cells or more)."""
    return [(m.start(), m.end()) for m in _TABLE_ROW.finditer(text)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of ``text`` as ``(start, end)``, surrounding whitespace trimmed,
    each at least 3 characters. A table row (:func:`table_row_lines`) is one sentence,
    whatever its cells hold ("Ltd.", "B.V.")."""
    cuts = [0, *sentence_starts(text), len(text)]
    if rows := table_row_lines(text):
        inside = [c for c in cuts if not any(a < c < b for a, b in rows)]
        cuts = sorted({*inside, *(a for a, _ in rows), *(b for _, b in rows)})
    spans = []
    for a, b in itertools.pairwise(cuts):
        seg = text[a:b]
        lead = len(seg) - len(seg.lstrip())
        s, e = a + lead, a + len(seg.rstrip())
        if e - s >= 3:
            spans.append((s, e))
    return spans


_ITEM = re.compile(r"\n[ \t]*(?=(?:[-•*–·▪]|\((?:[a-z]|[ivx]{1,4}|\d{1,2})\)|\d{1,2}\.)[ \t]+\S)")
# "… prior to November 1, 2008. The operator …": a year ends a sentence (the segmentation
# rules read "2008." as a number, as they read "12." as a section number).
_YEAR_END = re.compile(r"(?<=\b(?:19|20)\d\d)\.\s+(?=[A-Z][a-z])")
# "… listed in Exhibit B. 1.5 "Order Form" means …": a numbered clause after a full stop
# starts a sentence (the rules read "B." as an initial and "2.4." as a clause number).
_CLAUSE_START = re.compile(r"(?<=[.;])\s+(?=\d{1,3}(?:\.\d{1,3})+\.?\s+[\"“A-Z])")


def _repeats_a_number(text: str, item: int) -> bool:
    r"""Whether the ``(14)`` that opens a line at ``item`` repeats the number in words
    that ends the line before ("… by giving Processor fourteen\n(14) days"): the
    numeral of a value, not a list item."""
    if not text.startswith("(", item) or not text[item + 1 : item + 2].isdigit():
        return False
    before = text[max(0, item - 40) : text.rfind("\n", 0, item)].rstrip()
    if not before or not before[-1].isalpha():  # "fourteen\n(14)", not "fourteen;\n(14)"
        return False
    said = words(before)
    return bool(said) and number_word(said[-1])


def answer_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentence ``text[start:end]`` cut where an extractive answer's candidates
    end: before each list item it runs over (``- Lease Year 5 …``, ``(e) Commencement
    Date: …``; never before a numeral that repeats a number in words, as in "fourteen
    (14) days" broken at the line), after a year that ends a sentence and before a
    numbered clause that follows a full stop. ``(start, end)`` of each non-blank piece,
    trimmed."""
    cuts = [start]
    for m in _ITEM.finditer(text, start, end):
        if not _repeats_a_number(text, m.end()):
            cuts.append(m.end())
    cuts += [m.end() for rx in (_YEAR_END, _CLAUSE_START) for m in rx.finditer(text, start, end)]
    cuts = [*sorted(set(cuts)), end]
    out = []
    for a, b in itertools.pairwise(cuts):
        seg = text[a:b]
        a2, b2 = a + len(seg) - len(seg.lstrip()), a + len(seg.rstrip())
        if b2 > a2:
            out.append((a2, b2))
    return out


# A sentence that opens by pointing back at what precedes it: an exemption or proviso
# ("This Section does not apply…", "Notwithstanding the foregoing", "Provided, however")
# or a sentence about "the foregoing", "such …", "these …" restrictions. Cut before it,
# and the rule it qualifies is in another chunk.
_BACK_REFERENCE = re.compile(
    r"(?:This|These|That|Those|The\s+(?:foregoing|preceding|above))"
    r"(?:\s+(?:Section|section|Clause|clause|Article|article|paragraph|Paragraph|obligation|"
    r"obligations|restriction|restrictions|limitation|limitations|exclusion|exclusions|"
    r"provision|provisions|requirement|requirements|right|rights|term|terms|policy))?"
    r"\s+(?:does|do|shall|will|is|are|may|must)\s+not\s+(?:apply|be\s+construed|limit)"
    r"|Notwithstanding\s+(?:the\s+foregoing|anything|the\s+above)"
    r"|Provided,?\s+(?:however|that)|The\s+(?:foregoing|preceding)\b"
    r"|(?:However|Nevertheless|Even\s+so|In\s+(?:that|such)\s+(?:case|event)),"
    r"|(?:This|These)\s+(?:exception|exemption|exclusion|limitation|restriction)s?\b"
)


def back_reference_starts(text: str, starts: list[int]) -> list[int]:
    """Those of ``starts`` (sentence or paragraph starts) where a sentence opens by
    pointing back at the one before it (:data:`_BACK_REFERENCE`): no place to cut."""
    return [s for s in starts if _BACK_REFERENCE.match(text, s)]


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


# -- definitions ----------------------------------------------------------------------

_DEFINITION_END = re.compile(r"[.!?][\"”’'*_)]*(?=\s|$)|\n[ \t]*\n")
_SPACE = re.compile(r"\s*")
MAX_SENTENCE = 2000


class DefinitionSentences:
    """Sentence ends of a text (positions just after ``.``/``!``/``?`` or a blank line),
    skipping abbreviations such as ``Inc.``, ``No.`` and ``a.m.``."""

    def __init__(self, text: str) -> None:
        self.ends: list[int] = []
        for m in _DEFINITION_END.finditer(text):
            if m.group().startswith("."):
                word = text[max(0, m.start() - 12) : m.start()].split()
                w = word[-1].lower() if word else ""
                if len(w) == 1 or "." in w or w in ABBREVIATIONS:
                    continue
            self.ends.append(m.end())

    def end_after(self, pos: int, default: int) -> int:
        i = bisect.bisect_left(self.ends, pos + 1)
        return min(self.ends[i], default) if i < len(self.ends) else default

    def start_before(self, text: str, pos: int) -> int:
        """Start of the sentence holding ``pos``, at most ``MAX_SENTENCE`` back."""
        i = bisect.bisect_right(self.ends, pos) - 1
        start = self.ends[i] if i >= 0 else 0
        if start < pos - MAX_SENTENCE:
            start = text.find(" ", pos - MAX_SENTENCE, pos) + 1 or pos - MAX_SENTENCE
        m = _SPACE.match(text, start, pos)
        return m.end() if m else start


# -- generated text -------------------------------------------------------------------

_GENERATED_END = re.compile(r"[.!?][\"'”’)\]]*\s+")


def generated_sentence_ends(text: str) -> list[int]:
    """Where the complete sentences of generated ``text`` end: after each ``.``, ``!``
    or ``?`` (and the quotes or brackets closing it) and the whitespace that follows."""
    return [m.end() for m in _GENERATED_END.finditer(text)]


# -- encoder windows ------------------------------------------------------------------


def window_tiers(
    text: str, ids: Sequence[int], offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per token: boundary tier ``[n]`` (2 starts a paragraph, 1 a sentence, 0 neither)
    and a content key ``[n]`` (hash of the token and its two neighbours' IDs)."""
    n = offsets.shape[0]
    tier = np.zeros(n, dtype=np.int8)
    for i in range(1, n):
        gap = text[offsets[i - 1, 1] : offsets[i, 0]]
        if "\n\n" in gap or ("\n" in gap and not gap.strip(" \t\n")):
            tier[i] = 2 if gap.count("\n") >= 2 else 1
        elif gap and text[offsets[i - 1, 1] - 1] in ".!?:;":
            tier[i] = 1
    a = np.asarray(ids, dtype=np.uint64)
    prev = np.concatenate([[np.uint64(0)], a[:-1]])
    nxt = np.concatenate([a[1:], [np.uint64(0)]])
    with np.errstate(over="ignore"):
        keys = (prev * np.uint64(0x9E3779B97F4A7C15)) ^ (a * np.uint64(0xC2B2AE3D27D4EB4F)) ^ nxt
        keys = keys * np.uint64(0x165667B19E3779F9)
    return tier, keys


# -- characters and tokens -------------------------------------------------------------


def token_starts(offsets: Sequence[tuple[int, int]]) -> np.ndarray:
    """Start character of every token, made non-decreasing (an empty token takes the
    start of the token before it)."""
    out = np.zeros(len(offsets), dtype=np.int64)
    last = 0
    for i, (start, end) in enumerate(offsets):
        if end > start:
            last = max(last, start)
        out[i] = last
    return out


def token_span(offsets: Sequence[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    """Tokens ``[first, last)`` that hold characters ``start..end``."""
    starts = token_starts(offsets)
    first = int(np.searchsorted(starts, start, side="right")) - 1
    return max(0, first), int(np.searchsorted(starts, end, side="left"))


def tokens_at(starts: np.ndarray, ends: np.ndarray, positions: Sequence[int]) -> np.ndarray:
    """Index of the token that starts at each of ``positions`` (or the first after the
    whitespace there), or -1 where a token runs across the position: a boundary never
    falls inside a token. ``starts``/``ends``: the tokens' character spans."""
    n = starts.shape[0]
    pos = np.asarray(positions, dtype=np.int64)
    idx = np.searchsorted(starts, pos, side="left")
    ok = idx < n
    ok[ok] &= starts[idx[ok]] >= pos[ok]
    ok[ok] &= (idx[ok] == 0) | (ends[np.maximum(idx[ok] - 1, 0)] <= pos[ok])
    return np.where(ok, idx, -1)
