"""Plain text and Markdown: decoded verbatim, Markdown headings as structure.

Decoding never crashes: a byte-order mark first, then UTF-16 without a BOM (told apart from
binary by where its NUL bytes sit), then UTF-8 (the common case, and fast for huge files),
then charset-normalizer on a window around the first non-UTF-8 byte (preferring cp1252 when
that reading is as clean as any, since short Western texts are otherwise often taken for
Baltic or Central European code pages), and latin-1, which maps every byte, as the last
resort. Binary files are refused with a reason; a guess other than UTF-8 is logged.
"""

from __future__ import annotations

import codecs
import logging
import re
from pathlib import Path

from lateseg.errors import IngestError
from lateseg.types import Span

log = logging.getLogger(__name__)

# Linear on any input: one line starting with "#", no nested or lazy quantifiers.
_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+([^\n]*)", re.MULTILINE)
_MD_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)", re.MULTILINE)

_BOMS = (  # longest first: the UTF-32-LE BOM starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SAMPLE = 8192
_DETECT_WINDOW = 256 * 1024
# Control characters that text files do not contain (tab, LF, FF, CR, ESC are allowed).
_CONTROL = frozenset(range(32)) - {9, 10, 11, 12, 13, 27}


def _bom_encoding(data: bytes) -> str | None:
    return next((enc for bom, enc in _BOMS if data.startswith(bom)), None)


def _utf16_without_bom(head: bytes) -> str | None:
    """``utf-16-le``/``-be`` when NUL bytes sit (almost) only at odd/even offsets, as in
    UTF-16 text of mostly Latin script; None otherwise (binary, or not enough evidence)."""
    pairs = len(head) // 2
    if pairs < 4:
        return None
    odd_nul = head[1::2].count(0)
    even_nul = head[0::2].count(0)
    if odd_nul >= 0.3 * pairs and even_nul <= 0.02 * pairs:
        return "utf-16-le"
    if even_nul >= 0.3 * pairs and odd_nul <= 0.02 * pairs:
        return "utf-16-be"
    return None


def _is_binary(sample: str) -> bool:
    """True when more than 5% of the characters are control codes no text file holds."""
    if not sample:
        return False
    controls = sum(1 for ch in sample if ord(ch) in _CONTROL)
    return controls > 0.05 * len(sample)


def _guess_8bit(data: bytes, near: int) -> str:
    """The encoding of non-UTF-8 ``data`` by charset-normalizer, looking at a window
    around ``near`` (where the first non-UTF-8 byte is) so huge files stay fast."""
    from charset_normalizer import from_bytes

    start = max(0, near - 4096)
    # Start after a newline or space: no multi-byte encoding uses those as trail bytes.
    before = max(0, start - 4096)
    cut = max(data.rfind(b"\n", before, start), data.rfind(b" ", before, start))
    start = cut + 1 if cut >= 0 else start
    matches = list(from_bytes(data[start : start + _DETECT_WINDOW]))
    if not matches:
        return "cp1252"
    best = min(m.chaos for m in matches)
    clean = [m for m in matches if m.chaos <= best + 0.01]
    if any("cp1252" in m.could_be_from_charset for m in clean):
        return "cp1252"
    return max(clean, key=lambda m: m.coherence).encoding


def detect_encoding(data: bytes) -> str:
    """The Python codec name ``data`` decodes with (see the module docstring for the
    order); raises :class:`IngestError` for binary data."""
    bom = _bom_encoding(data)
    if bom:
        return bom
    if b"\0" in data:
        utf16 = _utf16_without_bom(data[:_SAMPLE])
        if utf16 is None:
            raise IngestError("binary file (NUL bytes), not text")
        return utf16
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as e:
        return _guess_8bit(data, e.start)


def decode(data: bytes, source: str, declared: str | None = None) -> tuple[str, str]:
    """Decode a text file to ``(text, encoding)``, verbatim apart from a BOM, so character
    offsets are offsets into the decoded file.

    A BOM wins; then ``declared`` (an HTML ``<meta charset>``, say) when the bytes decode
    with it; then detection (see the module docstring). Raises :class:`IngestError` for
    binary files (NUL bytes outside UTF-16/32, or many control characters).
    """
    encoding = _bom_encoding(data) or _declared(data, declared) or detect_encoding(data)
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        # The detector saw a window; a byte elsewhere may not fit. latin-1 maps every byte.
        fallback = "cp1252" if _decodes(data, "cp1252") else "latin-1"
        log.warning("%s: not valid %s throughout; decoded as %s", source, encoding, fallback)
        encoding, text = fallback, data.decode(fallback)
    if _is_binary(text[:_SAMPLE]):
        raise IngestError("binary file (control characters), not text")
    if encoding not in ("utf-8", "utf-8-sig"):
        log.info("%s is not UTF-8; decoded as %s", source, encoding)
    return text, encoding


def _declared(data: bytes, declared: str | None) -> str | None:
    """``declared`` as a codec name if ``data`` decodes with it (never UTF-16/32, whose
    declarations in ASCII-compatible bytes are wrong by construction)."""
    if not declared or b"\0" in data[:_SAMPLE]:
        return None
    try:
        name = codecs.lookup(declared).name
    except LookupError:
        return None
    if name.startswith(("utf-16", "utf-32")):
        return None
    if name in ("latin-1", "iso8859-1", "ascii"):  # browsers read these as cp1252 (WHATWG)
        return "cp1252" if _decodes(data, "cp1252") else "latin-1"
    return name if _decodes(data, name) else None


def decode_bytes(data: bytes, source: str) -> str:
    """The decoded text of a file's bytes (see :func:`decode`)."""
    return decode(data, source)[0]


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def looks_like_text(path: Path, data: bytes | None = None) -> bool:
    """True when the file's first 4 KiB (of ``data`` when given) are non-blank text: no
    NUL byte (unless it is UTF-16/32, with a BOM or recognisably without) and few
    control characters."""
    if data is not None:
        head = data[:4096]
    else:
        try:
            with path.open("rb") as f:
                head = f.read(4096)
        except OSError:
            return False
    try:
        encoding = detect_encoding(head)
    except IngestError:
        return False
    text = head.decode(encoding, errors="ignore")  # the 4 KiB may cut a character
    return bool(text.strip()) and not _is_binary(text)


def read_text(path: Path, data: bytes | None = None) -> str:
    """The decoded text of ``path`` (of its bytes ``data`` when already read);
    :class:`IngestError` with the OS reason when the file cannot be read (no permission,
    vanished, a directory)."""
    if data is None:
        data = read_bytes(path)
    return decode_bytes(data, str(path))


def read_bytes(path: Path) -> bytes:
    """The file's bytes; :class:`IngestError` with the OS reason when it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as e:
        raise IngestError(f"cannot read: {e.strerror or e}") from None


def _fenced_ranges(text: str) -> list[tuple[int, int]]:
    """Character ranges of fenced code blocks (``` or ~~~), where ``#`` is no heading."""
    ranges: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for m in _MD_FENCE.finditer(text):
        if opened is None:
            opened = (m.start(), m.group(1))
        elif m.group(1) == opened[1]:
            ranges.append((opened[0], m.end()))
            opened = None
    if opened is not None:
        ranges.append((opened[0], len(text)))
    return ranges


def _strip_closing_hashes(raw: str) -> str:
    """``"Install ##"`` -> ``"Install"``; a ``#`` glued to a word (``C#``) stays."""
    title = raw.strip()
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        title = bare.rstrip()
    return title


def markdown_headings(text: str) -> list[Span]:
    """Heading spans from ATX Markdown headings (not inside code fences), each running to
    the next heading of the same or a higher level; labels are heading paths
    (``"Guide > Install"``)."""
    fences = _fenced_ranges(text)
    heads: list[tuple[int, int, str]] = []
    f = 0
    for m in _MD_HEADING.finditer(text):
        while f < len(fences) and fences[f][1] <= m.start():
            f += 1
        if f < len(fences) and fences[f][0] <= m.start():
            continue
        title = _strip_closing_hashes(m.group(2))
        if title:
            heads.append((m.start(), len(m.group(1)), title))
    return nested_heading_spans(heads, len(text))


def nested_heading_spans(
    heads: list[tuple[int, int, str]], text_end: int, text: str | None = None
) -> list[Span]:
    """``heading`` spans from ``(start, level, title)`` in document order: each runs to
    the next heading of the same or a higher level (lower number) and is labelled with
    its path of titles. With ``text``, spans end before trailing whitespace. Shared by
    the Markdown, DOCX and HTML readers."""
    ends = [text_end] * len(heads)
    open_: list[int] = []  # indices of headings still open, levels strictly increasing
    for i, (start, level, _) in enumerate(heads):
        while open_ and heads[open_[-1]][1] >= level:
            ends[open_.pop()] = start
        open_.append(i)
    spans: list[Span] = []
    stack: list[tuple[int, str]] = []
    for i, (start, level, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = ends[i] if text is None else start + len(text[start : ends[i]].rstrip())
        spans.append(Span(start, end, "heading", " > ".join(t for _, t in stack)))
    return spans
