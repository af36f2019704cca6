"""What a chunk's place says about it, as text: a code chunk's unit (its qualified name
and signature), a prose chunk's document title and section path (:func:`prose_fields`).

A question about code is usually phrased like the docstring it stands for ("Return an
iterator for one month ..."), and the words that match it best are often not in the
function's body but in its name (``Calendar.itermonthdates``) and signature. The
encoder embeds this *field* on its own and mixes it into each code chunk's vector
(``EncoderConfig.code_field_weight``), so that a chunk from the middle of a function
still carries what the function is called.

Measured with ``bench/retrieval.py --levers`` (issue 30; ``bench/results/retrieval.md``):
recall at 500 / 1,000 / 2,000 / 4,000 characters on the stdlib set goes from 0.323 /
0.445 / 0.591 / 0.706 to 0.314 / 0.451 / 0.628 / 0.744, and on the held-out stdlib set
from 0.226 / 0.314 / 0.488 / 0.594 to 0.279 / 0.397 / 0.509 / 0.665; licences do not
move, and the sample set gains at 1,000 (0.708 -> 0.750) through its code questions. A
prose chunk's section path as a field was measured too and loses (sample contracts
recall@2000 0.958 -> 0.875): a heading says less than the passage under it.
"""

from __future__ import annotations

from collections.abc import Sequence

from lateseg.text.words import document_title, identifier_words
from lateseg.types import Chunk, Document, Span

#: Span kinds whose label and first line make a code chunk's field.
UNIT_KINDS = ("class", "function", "method")
#: At most this many characters of a field (a label, a signature line), and of the
#: lines looked through for the signature (decorators and annotations come first).
MAX_FIELD_CHARS = 300
MAX_SIGNATURE_LINES = 8


def label_words(label: str) -> str:
    """An identifier path as lowercase words: ``json.JSONDecoder.raw_decode`` ->
    ``json json decoder raw decode`` (split at dots, underscores and case changes)."""
    return " ".join(identifier_words(label[:MAX_FIELD_CHARS]))


def signature(text: str, unit: Span) -> str:
    """The unit's first line that is not a decorator or annotation (``@...``), stripped
    and cut to :data:`MAX_FIELD_CHARS`."""
    body = text[unit.start : min(unit.end, unit.start + MAX_FIELD_CHARS * MAX_SIGNATURE_LINES)]
    for line in body.splitlines()[:MAX_SIGNATURE_LINES]:
        line = line.strip()
        if line and not line.startswith("@"):
            return line[:MAX_FIELD_CHARS]
    return ""


def units_at_middle(
    doc: Document, spans: Sequence[tuple[int, int]], kinds: Sequence[str] = UNIT_KINDS
) -> list[Span | None]:
    """For each ``(start, end)`` span, the innermost of ``doc``'s spans of ``kinds`` that
    holds its middle character, or None. Cost: one sweep over the units and the spans,
    both in order (a stack of the nested units open at the current middle)."""
    units = sorted(doc.spans(*kinds), key=lambda s: (s.start, -s.end))
    out: list[Span | None] = [None] * len(spans)
    order = sorted(range(len(spans)), key=lambda i: spans[i][0] + spans[i][1])
    open_units: list[Span] = []  # nested units that hold the current middle, outermost first
    at = 0
    for i in order:
        mid = (spans[i][0] + spans[i][1]) // 2
        while at < len(units) and units[at].start <= mid:
            while open_units and open_units[-1].end <= units[at].start:
                open_units.pop()
            open_units.append(units[at])
            at += 1
        while open_units and open_units[-1].end <= mid:
            open_units.pop()
        if open_units and open_units[-1].start <= mid < open_units[-1].end:
            out[i] = open_units[-1]
    return out


def unit_fields(doc: Document, chunks: Sequence[Chunk]) -> list[str | None]:
    """Each chunk's field: ``"<label words>. <signature>"`` of the innermost class,
    function or method holding the chunk's middle character (:func:`units_at_middle`),
    or None for a chunk at module level (and for prose). The middle, not the chunk's
    citation (``Chunk.section``, which may be the enclosing class when a chunk starts
    between two methods): the unit a chunk is mostly about names it best (held-out
    stdlib recall@2000 0.509 against 0.484)."""
    if doc.kind != "code":
        return [None] * len(chunks)
    units = units_at_middle(doc, [(c.start, c.end) for c in chunks])
    return [
        None if u is None else f"{label_words(u.label)}. {signature(doc.text, u)}".strip()
        for u in units
    ]


#: Characters of a document read for its title when its metadata has none.
TITLE_HEAD = 2000


def prose_fields(doc: Document, chunks: Sequence[Chunk]) -> list[str | None]:
    """Each prose chunk's field: ``"<document title> > <section path>"`` (the title
    alone where the chunk has no section): which document and section it is from, so a
    chunk of "the Pocket terms" is told from the same clause in another document
    (issue 62; summary-augmented chunking, arXiv 2510.06999). None for code."""
    if doc.kind == "code":
        return [None] * len(chunks)
    title = document_title(doc.meta, doc.text[:TITLE_HEAD])
    out: list[str | None] = []
    for c in chunks:
        field = f"{title} > {c.section}" if title and c.section else title or c.section
        out.append(field[:MAX_FIELD_CHARS] if field else None)
    return out


def chunk_fields(doc: Document, chunks: Sequence[Chunk]) -> list[str | None]:
    """Each chunk's field: its unit's (code, :func:`unit_fields`) or its document's title
    and section path (prose, :func:`prose_fields`)."""
    return unit_fields(doc, chunks) if doc.kind == "code" else prose_fields(doc, chunks)
