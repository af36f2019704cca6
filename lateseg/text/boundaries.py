"""Where text may be cut: paragraph, sentence, clause and line starts, and how a
character position maps to a token. Every rule for these lives here.

Three named rule sets decide sentence ends; they differ on purpose (their users need
different things) and are kept apart until a bench shows a merge costs nothing (the
definitions' own abbreviation list is merged; the encoder's rule lost recall merged):

* **segmentation** (:func:`sentence_starts` and friends; :data:`ABBREVIATIONS`, 57 legal
  and general abbreviations, section numbers and initials): chunk boundaries
  (``segment/``), KV chunks (``kv/chunks.py``), extractive answers;
* **definitions** (:class:`DefinitionSentences`: the same abbreviations, and a blank line
  also ends a sentence): the sentence a defined term's definition runs to
  (``ingest/contract_terms.py``). It had its own 17 abbreviations, all among the 57; on
  145 definitions (sample contracts, licence texts, Policy, FHS) the merge changed none;
* **encoder windows** (:func:`window_tiers`): paragraph and sentence starts between
  tokens, from the gap between them alone (no abbreviation list): where the late
  encoder's windows may start.

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
