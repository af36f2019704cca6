"""Markdown as a reader sees it, not as its source reads.

A Markdown file is rendered to the text its reader sees, laid out as the HTML reader lays
out a page (:mod:`lateseg.ingest.html`), so both formats give the same structure:

* **front matter** (YAML between ``---`` lines, or TOML between ``+++`` lines, at the top)
  becomes metadata (``title``, ``description``, … as strings) and never text; its
  ``title`` names the document, else the first level-1 heading does;
* **headings** (ATX and setext) become ``heading`` spans labelled with their path;
* **links and images** keep their text (the address is not text a reader reads);
  emphasis, inline code marks, inline HTML tags and kramdown attribute lists
  (``{: .class }``) are markup, not words;
* a **numbered list item** is a list item, not a section: only an item that opens with a
  title of its own (``1. **Fees.** Customer will pay…``) is a heading span, numbered by
  its place in the nested lists (``4.1 Fees``);
* **tables** are rows with their headers (``row`` spans), as in HTML;
* **code fences** are code: their lines are kept verbatim, never read as headings or
  lists.

Offsets are offsets into the rendered text (``Document.text``), which is what search
quotes and the viewer shows. Rendering is CommonMark (markdown-it-py, with its nesting
limit), linear in the file's size; the front matter read is bounded
(:data:`MAX_FRONT_MATTER`) and only its scalar fields are kept.
"""

from __future__ import annotations

import datetime as _dt
import logging
import re
from pathlib import Path
from typing import Any

from lateseg.ingest.contract.clauses import contract_structure
from lateseg.ingest.html import _meta, _Out, _render, list_free_structure
from lateseg.ingest.text import _fenced_ranges, markdown_headings, nested_heading_spans, read_text
from lateseg.text.words import words
from lateseg.types import Span

log = logging.getLogger(__name__)

#: The most characters of front matter read (a longer block is not front matter).
MAX_FRONT_MATTER = 64 * 1024
#: The most fields kept from front matter, and the most characters of each value.
MAX_FIELDS, MAX_VALUE = 50, 2000

_FENCES = {"---": ("---", "..."), "+++": ("+++",)}
# Front matter opens with a field: "title: …" (YAML) or "title = …" (TOML), a comment, or
# a YAML list item of its first key's value.
_FIELD_LINE = re.compile(r"\A\s*(?:#|[\w\"'][\w \"'.-]{0,100}?\s*[:=](?:\s|$))")
# A kramdown inline attribute list at the end of a line or alone on one: "{: .note }",
# "{: datetime="2025-06-10" }" (never inside code: fenced blocks are left alone).
_IAL = re.compile(r"[ \t]*\{:[^{}\n]{0,400}\}[ \t]*$", re.MULTILINE)
# Link addresses and HTML tags: markup, not words a reader reads.
_ADDRESSES = re.compile(r"\]\([^)\s]{0,2000}\)|<[^>\n]{0,400}>")
#: markdown-it's nesting limit (its CommonMark preset stops at 20 and drops what is deeper).
MAX_NESTING = 100


def front_matter(text: str) -> tuple[dict[str, Any], int]:
    """``(fields, body_start)``: the front matter's scalar fields and where the body
    starts (0 when the file has none). Only a block that reads as fields is front
    matter: a file that opens with a ``---`` rule and a paragraph ("Intro.\n\nSection\n---")
    keeps all its text. A block of fields that does not parse is dropped with a warning
    (it is no text a reader reads)."""
    first = text.split("\n", 1)[0].rstrip()
    if first not in _FENCES:
        return {}, 0
    closers = _FENCES[first]
    pos = len(first) + 1
    while pos < min(len(text), MAX_FRONT_MATTER):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl
        if text[pos:end].rstrip() in closers:
            block = text[len(first) + 1 : pos]
            if not _FIELD_LINE.match(block):
                return {}, 0  # a rule and prose, not fields
            return _fields(block, toml=first == "+++"), min(len(text), end + 1)
        pos = end + 1
    return {}, 0  # no closing line: a thematic break, not front matter


def _fields(block: str, toml: bool) -> dict[str, Any]:
    try:
        if toml:
            try:
                import tomllib
            except ModuleNotFoundError:  # Python 3.10
                import tomli as tomllib
            data: Any = tomllib.loads(block)
        else:
            import yaml

            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            data = yaml.load(block, Loader=loader)  # a safe loader: no tags, no objects
    except Exception as e:  # any parse failure (YAML, TOML, nesting) drops the block
        log.warning("front matter does not parse (%s); left out of the text", type(e).__name__)
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in list(data.items())[:MAX_FIELDS]:
        if not isinstance(key, str):
            continue
        if isinstance(value, list):
            value = ", ".join(_scalar(v) for v in value[:MAX_FIELDS] if _scalar(v))
        value = _scalar(value)
        if value:
            out[key.strip()[:100]] = value[:MAX_VALUE]
    return out


def _scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, (str, int, float, _dt.date)):
        return " ".join(str(value).split())
    return ""


def render(text: str) -> tuple[str, list[Span], dict[str, Any]]:
    """Markdown source to ``(text, structure, meta)`` (see the module docstring)."""
    from bs4 import BeautifulSoup
    from markdown_it import MarkdownIt

    meta, body = front_matter(text)
    source = _without_attributes(text[body:])
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING})
    md.enable(["table", "strikethrough"])
    soup = BeautifulSoup(md.render(source), "lxml")
    out = _Out()
    rows: list[Span] = []
    heads = _render(soup, out, rows)
    rendered = "".join(out.parts)
    if _lost_words(source, rendered):
        log.warning("Markdown nested past what is read (%d levels): read as plain text",
                    MAX_NESTING)  # fmt: skip
        return source, markdown_headings(source) + contract_structure(source), meta
    structure = nested_heading_spans(heads, len(rendered), rendered) + rows
    structure += list_free_structure(rendered, out.items)
    title = meta.get("title") or _meta(soup, "").get("title")
    if not title:
        title = next((t for _, level, t in heads if level == 1), "")
    if title:
        meta["title"] = title
    return rendered, structure, meta


def _without_attributes(source: str) -> str:
    """``source`` without kramdown attribute lists, outside fenced code only."""
    out, pos = [], 0
    for a, b in _fenced_ranges(source):
        out += [_IAL.sub("", source[pos:a]), source[a:b]]
        pos = b
    return "".join([*out, _IAL.sub("", source[pos:])])


def _lost_words(source: str, rendered: str) -> bool:
    """Whether rendering lost text: fewer than half the source's words came out (link
    addresses and tags left aside, markup is fewer words than that in any real file)."""
    have = len(words(rendered))
    want = len(words(_ADDRESSES.sub("", source)))
    return want >= 20 and have < want // 2


def read_markdown(path: Path, data: bytes | None = None) -> tuple[str, list[Span], dict]:
    """Read and render a Markdown file (its bytes ``data`` when already read)."""
    return render(read_text(path, data))
