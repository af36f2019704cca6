"""Whether a PDF page's text layer is text a reader sees, or a page to read by OCR
instead: glyph soup of unreadable characters, or a scanner's hidden OCR layer."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from lateseg.text.words import FUNCTION_WORDS, words


def unusable_text(text: str, page: Any = None) -> str | None:
    """Why a page's text layer is not text a reader sees (None: it is usable).

    Unreadable characters (private-use, replacement, control) in more than a third of
    the text always make it unusable. A text layer of 30 words or more with no function
    word of any language here does only when it is a scanner's hidden OCR layer: mostly
    invisible text (render mode 3) over a page-sized image of PyMuPDF ``page`` (None:
    not checked), so that visible price lists, tables of figures, code listings and
    languages without those words keep their text. The page is only looked at for such
    text: prose costs nothing more.
    """
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return "no text"
    bad = sum(1 for c in chars if _unreadable(c))
    if bad * 3 > len(chars):
        return f"{bad} of {len(chars)} characters unreadable"
    tokens = words(text)
    if len(tokens) < 30 or any(t in FUNCTION_WORDS for t in tokens) or page is None:
        return None
    if hidden_text_share(page) >= 0.5 and covered_by_image(page):
        return f"a hidden text layer of {len(tokens)} words, none a common word"
    return None


def hidden_text_share(page: Any) -> float:
    """The share of the page's characters drawn invisibly (render mode 3: a scanner's
    OCR layer under its image)."""
    try:
        spans = page.get_texttrace()
    except Exception:
        return 0.0
    total = sum(len(s["chars"]) for s in spans)
    hidden = sum(len(s["chars"]) for s in spans if s.get("type") == 3)
    return hidden / total if total else 0.0


def _unreadable(c: str) -> bool:
    cat = unicodedata.category(c)
    return cat in ("Co", "Cc", "Cs", "Cn") or c == "\ufffd"


def covered_by_image(page: Any, share: float = 0.5) -> bool:
    """Whether one image drawn on ``page`` covers at least ``share`` of it."""
    area = abs(page.rect.width * page.rect.height) or 1.0
    try:
        infos: Iterable[dict[str, Any]] = page.get_image_info()
    except Exception:
        return False
    for info in infos:
        x0, y0, x1, y1 = info.get("bbox", (0, 0, 0, 0))
        if abs((x1 - x0) * (y1 - y0)) >= share * area:
            return True
    return False
