"""Tesseract's words as lines: its TSV output parsed into words with pixel boxes, and
those words grouped into :class:`~lateseg.ingest.layout.Line` objects in page
points, each word its own :class:`~lateseg.ingest.layout.Frag`."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any

from lateseg.ingest.layout import Frag, Line
from lateseg.text.words import STOPWORDS, WORD, words


def parse_tsv(tsv: str) -> list[dict[str, Any]]:
    """Words (level 5 rows with text) of Tesseract's TSV output, in its order."""
    words = []
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) != 12 or cols[0] != "5":
            continue
        text = clean_word(cols[11])
        if not text:
            continue
        try:
            left, top, width, height = (int(c) for c in cols[6:10])
            line = [int(cols[2]), int(cols[3]), int(cols[4])]
            conf = float(cols[10])
        except ValueError:
            continue
        if not math.isfinite(conf):
            continue
        words.append(
            {
                "text": text,
                "box": [left, top, left + width, top + height],
                "conf": conf,
                "line": line,
            }
        )
    return words


def clean_word(text: str) -> str:
    """A word as Tesseract read it, NFC, without control characters; ligatures expanded
    (Tesseract emits "ﬁ" where the print has one)."""
    text = (
        unicodedata.normalize("NFKC", text)
        if any(0xFB00 <= ord(c) <= 0xFB06 for c in text)
        else text
    )
    text = unicodedata.normalize("NFC", text)
    return "".join(c for c in text if c.isprintable() and not c.isspace())


def word_lines(
    words: list[dict[str, Any]], to_page: tuple[float, float, float, float, float, float]
) -> list[Line]:
    """Words grouped into Tesseract's lines, each word's box mapped to page points; two
    words are one (no space between) where :func:`glued`."""
    out: list[Line] = []
    key: tuple[int, ...] | None = None
    current: list[tuple[str, tuple[float, float, float, float], list[float]]] = []
    para_of: list[bool] = []

    def flush() -> None:
        if not current:
            return
        text, frags, pos = "", [], 0
        for i, (w, box, raw) in enumerate(current):
            if i and not glued(current[i - 1][0], current[i - 1][2], w, raw):
                text += " "
                pos += 1
            frags.append(Frag(pos, pos + len(w), box))
            text += w
            pos += len(w)
        x0 = min(b[0] for _, b, _ in current)
        y0 = min(b[1] for _, b, _ in current)
        x1 = max(b[2] for _, b, _ in current)
        y1 = max(b[3] for _, b, _ in current)
        out.append(Line(text, x0, y0, x1, y1, para=para_of[-1], frags=frags))
        current.clear()

    paragraph: tuple[int, int] | None = None
    for w in words:
        line = tuple(w["line"])
        if line != key:
            flush()
            key = line
            para_of.append(line[:2] != paragraph)
            paragraph = line[:2]
        current.append((w["text"], mapped(w["box"], to_page), w["box"]))
    flush()
    return out


def glued(before: str, before_box: list[float], word: str, box: list[float]) -> bool:
    """Whether Tesseract split one word in two: their boxes share a third of the smaller
    one's area or more (letters of a monospaced path read apart: ``/t mp``), and one side
    is not a plain word (an italic ``f`` overhangs the next word: ``chief of`` stays two
    words; so do two paths in a list: ``/home /usr``); or a path is split at a ``/`` with
    less than a space between (:func:`_path_split`)."""
    if before.isalpha() and word.isalpha():
        return False
    if _path_split(before, before_box, word, box):
        return True
    across = min(before_box[2], box[2]) - max(before_box[0], box[0])
    down = min(before_box[3], box[3]) - max(before_box[1], box[1])
    if across <= 0 or down <= 0:
        return False
    areas = [(b[2] - b[0]) * (b[3] - b[1]) for b in (before_box, box)]
    return across * down * 3 >= min(areas)


#: A gap between two pieces of one path, as a share of the taller word's height, is
#: under this. Measured on FHS 3.0 scanned at 200 dpi: Tesseract splits
#: ``/etc/opt/<subdir>`` as ``/etc/opt`` ``/<subdir>`` with gaps of 0.21 to 0.29 of the
#: height, where a space of its monospaced print is some 0.5 (a proportional space is
#: 0.18 to 0.45, which is why a path is asked for on both sides).
PATH_GAP = 0.3


def _path_split(before: str, before_box: list[float], word: str, box: list[float]) -> bool:
    """Whether ``word`` goes on the path ``before`` (``/etc/opt`` ``/<subdir>``: it starts
    with ``/``, ``before`` holds one and ends in a letter, digit or ``>``; ``/opt/``
    ``<package>``: ``before`` ends with ``/``, ``word`` starts with a letter, digit or
    ``<``), and the gap between them is under :data:`PATH_GAP` of their height."""
    after_path = (
        word.startswith("/") and "/" in before and (before[-1].isalnum() or before[-1] == ">")
    )
    path_goes_on = (
        len(before) > 1 and before.endswith("/") and (word[0].isalnum() or word[0] == "<")
    )
    if not (after_path or path_goes_on):
        return False
    tall = max(before_box[3] - before_box[1], box[3] - box[1], 1.0)
    return box[0] - before_box[2] < PATH_GAP * tall


def mapped(
    box: Sequence[float], m: tuple[float, float, float, float, float, float]
) -> tuple[float, float, float, float]:
    """The box around pixel box ``box`` in page points through matrix ``m``."""
    a, b, c, d, e, f = m
    xs, ys = [], []
    for x, y in ((box[0], box[1]), (box[2], box[3]), (box[0], box[3]), (box[2], box[1])):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    return min(xs), min(ys), max(xs), max(ys)


#: Digits Tesseract reads for a letter of the same width: ``/var/1ib`` for ``/var/lib``,
#: ``c0py`` for ``copy``.
_LOOKALIKES = str.maketrans("10", "lo")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
#: A command-line option whose hyphen Tesseract read as a tilde or a dash: after a space,
#: one to three lower-case letters, then a space or punctuation (``make ~f``, ``set —e``,
#: ``—jn``); not a home folder (``~user/``), a dash before a word (``—another``, and
#: ``—an``, ``—yes`` where they are words of the text) nor a letter (``—A``).
_FLAG = re.compile(r"(?<=[ \t])[~—–](?=([a-z]{1,3})(?:[\s,;.)]|$))")


def fix_lookalikes(text: str, ranges: Sequence[tuple[int, int]]) -> str:
    """``text`` with each word of lower-case letters and a ``1`` or ``0`` inside
    ``ranges`` (the pages read by OCR) spelled with ``l`` and ``o`` instead, where the
    document itself uses that spelling at least twice elsewhere: the document is the
    dictionary, so ``1st``, ``h1`` or ``a0`` stay as they are unless the text says
    otherwise. And an option's hyphen read as a tilde or a dash (``make ~f``, ``set
    —e``: :data:`_FLAG`) is a hyphen again. Same length, so every offset holds."""
    if not ranges:
        return text
    known = Counter(w for w in words(text) if _LOWER.issuperset(w))
    out = list(text)
    for start, end in ranges:
        for m in _FLAG.finditer(text, start, end):
            flag = m.group(1)
            if len(flag) == 1 or (flag not in STOPWORDS and known[flag] < 2):
                out[m.start()] = "-"  # not "—an", "—yes" where the text says "yes"
        for m in WORD.finditer(text, start, end):
            word = m.group()
            fixed = word.translate(_LOOKALIKES)
            letters = sum(c in _LOWER for c in word)
            if fixed != word and letters >= 2 and _LOWER.issuperset(fixed) and known[fixed] >= 2:
                out[m.start() : m.end()] = fixed
    return "".join(out)
