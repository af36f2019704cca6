"""Plain text and Markdown: decoded verbatim, Markdown headings as structure."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from lateseg.errors import IngestError
from lateseg.types import Span

log = logging.getLogger(__name__)

_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def decode_bytes(data: bytes, source: str) -> str:
    """Decode a text file: UTF-8 (BOM stripped), else cp1252, else an error.

    Binary files (NUL bytes) are refused. The result is the file's content verbatim
    apart from the BOM, so character offsets are offsets into the decoded file.
    """
    if b"\0" in data[:8192]:
        raise IngestError("binary file (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as utf8_err:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            raise IngestError(
                f"not UTF-8 ({utf8_err.reason} at byte {utf8_err.start}) and not cp1252"
            ) from None
        log.warning("%s is not UTF-8; decoded as cp1252", source)
        return text


def looks_like_text(path: Path) -> bool:
    """True when the file's first 4 KiB are non-empty and hold no NUL byte."""
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return bool(head.strip()) and b"\0" not in head


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise IngestError(f"cannot read: {e.strerror or e}") from None
    return decode_bytes(data, str(path))


def markdown_headings(text: str) -> list[Span]:
    """Heading spans from ATX Markdown headings, each running to the next heading of the
    same or a higher level; labels are heading paths (``"Guide > Install"``)."""
    heads = [(m.start(), len(m.group(1)), m.group(2).strip()) for m in _MD_HEADING.finditer(text)]
    spans: list[Span] = []
    stack: list[tuple[int, str]] = []
    for i, (start, level, title) in enumerate(heads):
        end = len(text)
        for nstart, nlevel, _ in heads[i + 1 :]:
            if nlevel <= level:
                end = nstart
                break
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        spans.append(Span(start, end, "heading", " > ".join(t for _, t in stack)))
    return spans
