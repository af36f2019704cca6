"""The code units a question names: "if I call naturaldelta", "what does clamp() raise".

A question about code that names a function, method or class finds that unit's
definition whatever its wording ranks first: each word of the question shaped like a
name (at least four characters, not a stop word; names with ``_``, ``()`` or inner
capitals first) is looked up with the index's own lexical search over code, and a chunk
whose qualified name ends in that word is the unit's. :func:`named_units` gives each
named unit's first chunk (its ``def`` or ``class`` line), at most :data:`LIMIT` of them,
for the answerer to read beside what the search found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lateseg.text.words import STOPWORDS, WORD_PATTERN

if TYPE_CHECKING:
    from lateseg.retrieve.retriever import Retriever
    from lateseg.types import Hit

#: The most units one question brings in by name.
LIMIT = 2
# chunks looked at per name: a unit's own chunks rank high for its name
_LOOKED_AT = 20
# words joined by underscores, as identifiers are (the one word pattern, joined)
_NAME = re.compile(rf"_*{WORD_PATTERN}(?:_+{WORD_PATTERN})*_*(?:\(\))?")


def _identifier(word: str) -> bool:
    """A name a definition may have: four or more ASCII letters, digits and underscores,
    not starting with a digit."""
    return (
        len(word) >= 4
        and word.isascii()
        and word.replace("_", "a").isalnum()
        and not word[0].isdigit()
    )


def _code_shaped(word: str) -> bool:
    return "_" in word or word.endswith("()") or bool(re.search(r"[a-z][A-Z]", word))


def names_in(question: str) -> list[str]:
    """The words of ``question`` that may name code, the code-shaped first, each once."""
    words = [m.group(0) for m in _NAME.finditer(question)]
    words = [
        w for w in words
        if _identifier(w.removesuffix("()")) and w.removesuffix("()").lower() not in STOPWORDS
    ]  # fmt: skip
    ordered = sorted(words, key=lambda w: not _code_shaped(w))  # stable: question order
    return list(dict.fromkeys(w.removesuffix("()") for w in ordered))


def named_units(
    retriever: Retriever,
    question: str,
    sources: Sequence[str] | None = None,
    source: str | None = None,
) -> list[Hit]:
    """The first chunk of each function, method or class ``question`` names by its name
    (see the module docstring), at most :data:`LIMIT`, among ``sources`` (or the files
    matching the glob ``source``) when given."""
    out: list[Hit] = []
    for name in names_in(question):
        found = retriever.search(
            name, _LOOKED_AT, mode="lexical", kind="code", sources=sources, source=source
        )
        mine = [h for h in found if h.section and h.section.rsplit(".", 1)[-1] == name]
        if mine:
            out.append(min(mine, key=lambda h: (h.source, h.start)))
        if len(out) == LIMIT:
            break
    return out
