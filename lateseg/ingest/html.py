"""HTML pages: the visible text, laid out like a plain-text rendering, headings as spans.

What a reader sees, not the markup: ``script``, ``style``, ``noscript``, ``template``,
the ``head`` (its ``<title>`` goes to meta), embedded objects, form controls and elements
marked ``hidden`` (or styled ``display: none`` / ``visibility: hidden``) are dropped.
Whitespace in running text is collapsed as a browser does; ``pre`` keeps its own. Block
elements start new lines (paragraph-like ones a new paragraph, after a blank line), list
items get their own line with ``-`` or their number, a table is its header row, then one
line per row whose cells carry their column headers (:mod:`lateseg.ingest.tables`; cells
spanning rows or columns fill each slot they cover; ``row`` spans). ``h1``–``h6``
become ``heading`` spans with path labels.

Bytes are decoded by BOM, then the declared charset (``<meta charset>``, ``http-equiv``
or an XML declaration) when the bytes agree with it, then detection.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lateseg.ingest.tables import row_spans, table_text
from lateseg.ingest.text import decode, nested_heading_spans, read_bytes
from lateseg.types import Span

_DECLARED = re.compile(
    rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})"""
    rb"""|<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9_.:-]{1,40})""",
    re.IGNORECASE,
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def _names(s: str) -> frozenset[str]:
    return frozenset(s.split())


_SKIP = _names(
    "script style noscript template head svg math iframe object embed canvas audio video "
    "map select datalist textarea input button"
)
_PARAGRAPH = _names(
    "p h1 h2 h3 h4 h5 h6 table ul ol dl blockquote pre section article header footer main "
    "aside nav figure form fieldset details address hr"
)
_LINE = _names("div li dt dd tr caption figcaption summary legend center dialog hgroup menu br")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}


class _Out:
    """Text under construction: breaks and spaces are held back until the next text, so
    the result has no leading, trailing or doubled separators."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.breaks = 0  # newlines owed before the next text (1 = line, 2 = paragraph)
        self.space = False
        self.prefix = ""  # list marker owed before the next text on this line
        self.items: list[int] = []  # where each list item's marker was written
        #: a titled list item's heading, ``(level, label)``, owed at its marker
        self.item_head: tuple[int, str] | None = None
        self.heads: list[tuple[int, int, str]] = []

    def brk(self, n: int) -> None:
        if n:
            self.breaks = max(self.breaks, n)
            self.space = False

    def text(self, s: str, verbatim: bool = False) -> int | None:
        """Append ``s`` (whitespace collapsed unless ``verbatim``); return its offset."""
        if not verbatim:
            words = " ".join(s.split())
            if not words:
                self.space = self.space or bool(s)
                return None
            self.space = self.space or s[0].isspace()
            s, trailing = words, s[-1].isspace()
        if self.pos:
            sep = "\n" * self.breaks if self.breaks else (" " if self.space else "")
            self._emit(sep)
        if self.prefix:
            at = self.pos + len(self.prefix) - len(self.prefix.lstrip())  # past the indent
            self.items.append(at)
            if self.item_head is not None:
                self.heads.append((at, *self.item_head))
        self.item_head = None
        self._emit(self.prefix)
        self.breaks, self.prefix = 0, ""
        start = self.pos
        self._emit(s)
        self.space = False if verbatim else trailing
        return start

    def _emit(self, s: str) -> None:
        self.parts.append(s)
        self.pos += len(s)


def _hidden(tag: Any) -> bool:
    if tag.name in _SKIP or tag.has_attr("hidden"):
        return True
    if tag.name == "input" and str(tag.get("type", "")).lower() == "hidden":
        return True
    return bool(_HIDDEN_STYLE.search(str(tag.get("style", ""))))


def _visible_strings(node: Any) -> list[str]:
    """The visible text pieces under ``node`` in order (no recursion: pages nest deep)."""
    from bs4 import NavigableString, Tag
    from bs4.element import PreformattedString

    out: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Tag):
            if not _hidden(item):
                if item.name in _PARAGRAPH or item.name in _LINE:
                    out.append(" ")  # block content inside a cell or heading: a space
                stack.extend(reversed(item.contents))
        elif isinstance(item, NavigableString) and not isinstance(item, PreformattedString):
            out.append(str(item))
    return out


def _row(tr: Any) -> str:
    cells = [c for c in tr.find_all(("td", "th"), recursive=False) if not _hidden(c)]
    return " | ".join(_cell_text(c) for c in cells)


def _cell_text(cell: Any) -> str:
    return " ".join("".join(_visible_strings(cell)).split())


#: The most rows or columns one ``rowspan``/``colspan`` may cover, and the most slots a
#: table's spans may fill in all (hostile pages: past it, spans count as one slot).
MAX_SPAN = 100
MAX_SLOTS = 100_000


def _header(table: Any) -> bool | None:
    """True when the table marks its first row as its header (``<thead>``, or ``<th>``
    cells only), None when it does not say."""
    first = next((tr for tr in table.find_all("tr") if tr.find_parent("table") is table), None)
    if first is None:
        return None
    cells = first.find_all(("td", "th"), recursive=False)
    if first.find_parent("thead") is not None or (cells and all(c.name == "th" for c in cells)):
        return True
    return None


def _grid(table: Any) -> list[list[tuple[str, None]]]:
    """The visible rows of ``table`` (not of tables nested in it) as a grid: a cell
    spanning rows fills its column's slot in each row it covers with its text, one
    spanning columns its first column's (the others empty)."""
    rows = [
        tr for tr in table.find_all("tr") if tr.find_parent("table") is table and not _hidden(tr)
    ]
    grid: list[list[tuple[str, None]]] = []
    below: dict[tuple[int, int], str] = {}  # (row, column) -> text spanned down into it
    slots = 0
    for r, tr in enumerate(rows):
        out: list[tuple[str, None]] = []
        for cell in tr.find_all(("td", "th"), recursive=False):
            if _hidden(cell):
                continue
            while (r, len(out)) in below:
                out.append((below.pop((r, len(out))), None))
            text = _cell_text(cell)
            down, across = (_span(cell.get(a)) for a in ("rowspan", "colspan"))
            down = min(down, len(rows) - r)
            slots += down * across
            if slots > MAX_SLOTS:
                down = across = 1
            for k, c in enumerate(range(len(out), len(out) + across)):
                for d in range(1, down):
                    below[(r + d, c)] = "" if k else text
                out.append(("" if k else text, None))
        while (r, len(out)) in below:
            out.append((below.pop((r, len(out))), None))
        grid.append(out)
    return grid


def _span(value: Any) -> int:
    try:
        return max(1, min(MAX_SPAN, int(str(value or "1").strip())))
    except ValueError:
        return 1


#: A list item that opens with a title of its own (``1. **Fees.** ...``, or a ``<span
#: class="header_3">``) is a section: its title is at most this many characters.
MAX_ITEM_TITLE = 100


# A class that names a heading ("header_3", "heading", "section-head"), not "masthead".
_HEADING_CLASS = re.compile(r"(?:^|[\s_-])head(?:er|ing)?(?:$|[\s_-]|\d)", re.IGNORECASE)


# "Services. Provider will …": an item that opens with a title in Title Case and a full
# stop (a contract's numbered sections written as a list), not "Open the settings."
_PLAIN_TITLE = re.compile(
    r"([A-Z][\w’'&/-]*(?:\s+(?:[A-Z][\w’'&/-]*|of|and|or|the|to|for|in|on|a|an|by|with)){0,7})"
    r"\.\s+\S"
)


def _plain_title(li: Any) -> str | None:
    text = " ".join(li.get_text(" ").split())
    m = _PLAIN_TITLE.match(text)
    if m is None or len(m.group(1)) > MAX_ITEM_TITLE or m.group(1).split()[-1][0].islower():
        return None
    return m.group(1)


def _item_title(li: Any) -> str | None:
    """The title a list item opens with, when it opens with one: its first content is a
    ``strong``/``b`` element, or an element whose class names a heading, and more text
    follows (in the item or in a list nested in it). Other items are plain list items,
    never sections."""
    from bs4 import NavigableString, Tag

    node, first = li, None
    for _ in range(3):  # a loose list wraps the item's text in a <p>
        first = next(
            (c for c in node.contents if not (isinstance(c, NavigableString) and not c.strip())),
            None,
        )
        if not isinstance(first, Tag):
            return _plain_title(li) if isinstance(first, NavigableString) else None
        if first.name != "p":
            break
        node = first
    if first is None:
        return None
    classes = " ".join(first.get("class") or ())
    if first.name not in ("strong", "b") and not _HEADING_CLASS.search(classes):
        return None
    title = " ".join(first.get_text(" ").split()).rstrip(" .:")
    rest = " ".join(li.get_text(" ").split())
    if not title or len(title) > MAX_ITEM_TITLE or len(rest) <= len(title) + 2:
        return None
    return title


def _number_items(ol: Any, numbers: dict[int, int]) -> None:
    """Record the number of each item of ``ol`` (its ``start`` honoured)."""
    try:
        first = int(str(ol.get("start", "1")).strip())
    except ValueError:
        first = 1
    for k, li in enumerate(ol.find_all("li", recursive=False)):
        numbers[id(li)] = first + k


def _render(root: Any, out: _Out, rows: list[Span] | None = None) -> list[tuple[int, int, str]]:
    """Walk the tree into ``out``; return the headings as ``(start, level, title)``.
    Tables are written by :func:`~lateseg.ingest.tables.table_text`, each row after
    the header a ``row`` span added to ``rows``."""
    from bs4 import NavigableString, Tag
    from bs4.element import PreformattedString

    heads: list[tuple[int, int, str]] = []
    numbers: dict[int, int] = {}  # id(li) -> its number in an ordered list
    tables = 0
    stack: list[tuple[Any, bool]] = [(root, True)]
    while stack:
        node, entering = stack.pop()
        if isinstance(node, NavigableString):
            if not isinstance(node, PreformattedString):
                out.text(str(node))
            continue
        if not isinstance(node, Tag) or (entering and _hidden(node)):
            continue
        name = node.name
        gap = 2 if name in _PARAGRAPH else 1 if name in _LINE else 0
        if name in ("ul", "ol") and node.find_parent("li") is not None:
            gap = 1  # a nested list continues its item's lines
        if not entering:
            out.brk(gap)
            continue
        out.brk(gap)
        if name == "table":
            tables += 1
            text, _, header = table_text(_grid(node), header=_header(node))
            labels = {s.start: s.label for s in row_spans(text, 0, f"table {tables}", header)}
            pos = 0
            for line in text.split("\n"):
                out.brk(1)
                start = out.text(line)
                label, pos = labels.get(pos), pos + len(line) + 1
                if label is not None and start is not None and rows is not None:
                    rows.append(Span(start, start + len(" ".join(line.split())), "row", label))
            out.brk(gap)
            continue
        if name in _HEADINGS or name in ("tr", "pre"):
            text = _row(node) if name == "tr" else "".join(_visible_strings(node))
            if name == "pre":  # its own text only: not the space a block tag adds
                text = "".join(t for c in node.contents for t in _visible_strings(c))
                text = text.strip("\n").rstrip()
            start = out.text(text, verbatim=name == "pre")
            if name in _HEADINGS and start is not None:
                heads.append((start, _HEADINGS[name], " ".join(text.split())))
            out.brk(gap)
            continue
        if name == "ol":
            _number_items(node, numbers)
        elif name == "li":
            depth = sum(1 for p in node.parents if p.name in ("ul", "ol"))
            marker = f"{numbers[id(node)]}. " if id(node) in numbers else "- "
            out.prefix = "  " * max(0, depth - 1) + marker
            title = _item_title(node) if id(node) in numbers else None
            if title is not None:
                path = [numbers.get(id(p)) for p in node.parents if p.name == "li"]
                parts = [*reversed(path), numbers[id(node)]]
                number = ".".join(str(n) for n in parts if n is not None)
                out.item_head = (6 + depth, f"{number} {title}")
                # numbered as the reader cites it ("4.1"), not as the list restarts ("1.")
                nested = any(n is not None for n in path)
                out.prefix = "  " * max(0, depth - 1) + (f"{number} " if nested else marker)
        stack.append((node, False))
        stack.extend((child, True) for child in reversed(node.contents))
    return sorted(heads + out.heads)


def _meta(soup: Any, encoding: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"encoding": encoding}
    if soup.title and soup.title.string:
        meta["title"] = " ".join(soup.title.string.split())
    author = soup.find("meta", attrs={"name": re.compile("^author$", re.IGNORECASE)})
    if author and author.get("content"):
        meta["author"] = " ".join(str(author["content"]).split())
    return meta


def read_html(path: Path, data: bytes | None = None) -> tuple[str, list[Span], dict]:
    """Return the page's visible text, its ``heading`` spans and metadata (``title``,
    ``author`` where given, and the ``encoding`` used); ``data``: the file's bytes when
    already read.

    Raises :class:`IngestError` when the file cannot be read or is binary.
    """
    from bs4 import BeautifulSoup

    if data is None:
        data = read_bytes(path)
    m = _DECLARED.search(data[:4096])
    declared = (m.group(1) or m.group(2)).decode("ascii") if m else None
    markup, encoding = decode(data, str(path), declared)
    soup = BeautifulSoup(markup, "lxml")
    out = _Out()
    rows: list[Span] = []
    heads = _render(soup, out, rows)
    text = "".join(out.parts)
    structure = nested_heading_spans(heads, len(text), text) + rows
    return text, structure + list_free_structure(text, out.items), _meta(soup, encoding)


def list_free_structure(text: str, items: list[int]) -> list[Span]:
    """The contract structure of rendered text (definitions, recitals, clauses…) less
    the "clauses" that are list items: a numbered list item is not a section (an item
    with a title of its own is a heading span already)."""
    from lateseg.ingest.contract.clauses import contract_structure

    starts = set(items)
    return [s for s in contract_structure(text) if not (s.kind == "clause" and s.start in starts)]
