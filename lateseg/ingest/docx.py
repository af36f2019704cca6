"""Word documents (.docx) with python-docx: body text in order, headings as structure.

The text is built like a Markdown file so the other stages treat it alike: one paragraph
per block separated by a blank line, a table as its header row, then one line per row
whose cells carry their column headers (:mod:`lateseg.ingest.tables`; ``row`` spans).
Paragraphs styled ``Title`` or ``Heading N`` (or a style based on one) become ``heading``
spans with path labels (``"Guide > Install"``). Content controls (``w:sdt``) are read
through; headers, footers, footnotes, comments and text boxes are not. Numbering that
Word generates (auto-numbered lists) is not part of a paragraph's text, so it is not in
ours either.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lateseg.errors import IngestError
from lateseg.ingest.tables import row_spans, table_text
from lateseg.ingest.text import nested_heading_spans, read_bytes
from lateseg.types import Span

_HEADING_STYLE = re.compile(r"heading ([1-9])", re.IGNORECASE)
_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SPACES = re.compile(r"\s+")


def _open(path: Path, data: bytes | None) -> Any:
    """The python-docx Document at ``path`` (of ``data`` when already read);
    IngestError with the reason otherwise."""
    import docx

    if data is None:
        data = read_bytes(path)
    if not data:
        raise IngestError("corrupt DOCX: empty file")
    if data.startswith(_OLE_MAGIC):
        raise IngestError("not a DOCX: an encrypted DOCX or a legacy .doc (OLE container)")
    if not data.startswith(_ZIP_MAGIC):
        raise IngestError("corrupt DOCX: not a zip archive")
    try:
        return docx.Document(io.BytesIO(data))
    except Exception as e:  # BadZipFile, KeyError for missing parts, ValueError, lxml errors
        raise IngestError(f"corrupt DOCX: {type(e).__name__}: {e}") from None


def _heading_level(paragraph: Any) -> int | None:
    """0 for ``Title``, N for ``Heading N`` (also via a style's base styles), else None."""
    style = paragraph.style
    for _ in range(5):  # custom styles are based on built-in ones, rarely deeply
        if style is None:
            return None
        name = style.name or ""
        if name.lower() == "title":
            return 0
        m = _HEADING_STYLE.fullmatch(name)
        if m:
            return int(m.group(1))
        style = style.base_style
    return None


def _blocks(document: Any) -> Iterator[Any]:
    """Paragraphs and tables of the body in document order, inside content controls too."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    container = document._body
    stack = [iter(document.element.body.iterchildren())]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            yield Paragraph(child, container)
        elif tag == "tbl":
            yield Table(child, container)
        elif tag in ("sdt", "sdtContent", "customXml", "ins", "smartTag"):
            stack.append(iter(child.iterchildren()))


def _table_text(table: Any) -> tuple[str, bool]:
    """The table as :func:`~lateseg.ingest.tables.table_text` writes it: the header row,
    then a line per row whose cells carry their headers. Cell texts are whitespace
    collapsed; a cell merged across columns is given once, under its first column, and
    one merged down from the row above (``vMerge``) repeats that row's value."""
    from docx.table import _Cell

    rows: list[list[tuple[str, None]]] = []
    merged: list[list[bool]] = []
    for tr in table._tbl.tr_lst:
        row: list[tuple[str, None]] = []
        down: list[bool] = []
        for tc in tr.tc_lst:
            across = max(1, min(int(tc.grid_span or 1), 100))
            row += [(_SPACES.sub(" ", _Cell(tc, table).text).strip(), None)]
            row += [("", None)] * (across - 1)
            down += [tc.vMerge == "continue"] * across
        rows.append(row)
        merged.append(down)
    text, _, header = table_text(rows, merged, header=_marked_header(table))
    return text, header


def _marked_header(table: Any) -> bool | None:
    """True when the table marks its first row as its header (Word's "repeat as header
    row", or every run of text in it bold), None when it does not say."""
    from docx.oxml.ns import qn

    trs = table._tbl.tr_lst
    if not trs:
        return None
    first = trs[0]
    flags = first.trPr.xpath("./w:tblHeader") if first.trPr is not None else []
    if flags and flags[0].get(qn("w:val"), "true") not in ("0", "false", "off"):
        return True
    from docx.table import _Cell

    def bold(tr: Any) -> bool:
        runs = [
            run
            for tc in tr.tc_lst
            for paragraph in _Cell(tc, table).paragraphs
            for run in paragraph.runs
            if run.text.strip()
        ]
        return bool(runs) and all(run.bold for run in runs)

    # a bold first row over rows that are not all bold (a table set bold throughout
    # marks nothing)
    return True if bold(first) and not all(bold(tr) for tr in trs[1:]) else None


def read_docx(path: Path, data: bytes | None = None) -> tuple[str, list[Span], dict]:
    """Return the document's text, its ``heading`` spans and metadata (``title`` and
    ``author`` where the file's core properties have them).

    Raises :class:`IngestError` for unreadable, corrupt or non-DOCX files, with the
    reason.
    """
    document = _open(path, data)
    parts: list[str] = []
    heads: list[tuple[int, int, str]] = []
    rows: list[Span] = []  # one per table row after its header
    pos = tables = 0
    for block in _blocks(document):
        table = hasattr(block, "rows")
        if table:
            text, header = _table_text(block)
            level = None
        else:
            text = block.text.strip()
            level = _heading_level(block)
        if not text:
            continue
        if parts:
            parts.append("\n\n")
            pos += 2
        if level is not None:
            heads.append((pos, level, _SPACES.sub(" ", text)))
        if table:
            tables += 1
            rows += row_spans(text, pos, f"table {tables}", header)
        parts.append(text)
        pos += len(text)
    meta: dict[str, Any] = {}
    props = document.core_properties
    for key in ("title", "author"):
        value = (getattr(props, key, None) or "").strip()
        if value:
            meta[key] = value
    text = "".join(parts)
    return text, nested_heading_spans(heads, pos, text) + rows, meta
