"""Copy-constrained generation: the generator may only write a span of its passages.

At each decoding step the logits are masked to the tokens that keep the answer a
verbatim stretch of one passage's tokens (:class:`CopyConstraint`, every suffix of every
passage tracked by the positions it can still continue from, as a suffix automaton
would): the first token must start a word of some passage, each next one must be the
token that follows in a passage where the answer so far occurs, and the end token may
close it once a word is written. The answer is then a quote with known offsets:
supported by construction, cited where it was copied from, and the model only has to
choose where to start and where to stop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lateseg.answer.citations import format_passages
from lateseg.answer.extractive import candidates, score_candidates
from lateseg.text.values import find_values
from lateseg.types import Hit

if TYPE_CHECKING:
    from lateseg.answer.question import Asked
    from lateseg.encode.late import LateEncoder

#: The system prompt of copy mode: the decoder enforces the copying, the prompt asks for
#: the shortest span that answers.
COPY_PROMPT = (
    "You answer questions about documents by copying, word for word, the shortest phrase "
    "of the numbered passages that answers the question: a number with its unit, a name, "
    "a date, or one sentence. Write nothing else. For example, to the question 'How long "
    "is the warranty?' over a passage saying 'Supplier warrants the goods for a period of "
    "twelve (12) months after delivery.', the answer is: twelve (12) months after delivery"
)
#: Most tokens a copied answer may take.
COPY_TOKENS = 64
#: How many of the extractive ranker's best sentences a copy may open in.
CHOICES = 3
_OPENERS = "([\"'“‘$§"


class CopyConstraint:
    """The tokens that keep an answer a verbatim span of ``texts`` (tokenized with
    ``tokenizer``, as the generator writes them).

    :meth:`allowed` gives the token IDs that may come next (before the first token: the
    tokens that start at one of ``starts``, per text the character offsets an answer
    may open at; by default any word); :meth:`advance` takes the token written;
    :attr:`closable` says whether the answer may end (after ``least`` tokens).
    """

    def __init__(
        self,
        tokenizer: Any,
        texts: Sequence[str],
        starts: Sequence[Sequence[int]] | None = None,
        least: int = 1,
    ) -> None:
        self.texts = list(texts)
        self.least = least
        self.ids: list[list[int]] = []
        self.offsets: list[list[tuple[int, int]]] = []
        self.starts: dict[int, list[tuple[int, int]]] = {}
        for p, text in enumerate(self.texts):
            enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
            ids, offs = list(enc["input_ids"]), [tuple(o) for o in enc["offset_mapping"]]
            self.ids.append(ids)
            self.offsets.append(offs)
            opens = None if starts is None else set(starts[p])
            for i, (a, b) in enumerate(offs):
                first = a + len(text[a:b]) - len(text[a:b].lstrip())
                if first >= b:
                    continue
                before = text[first - 1] if first > 0 else " "
                if opens is not None:
                    ok = first in opens
                else:
                    ok = (before.isspace() or before in _OPENERS) and (
                        text[first].isalnum() or text[first] in _OPENERS
                    )
                if ok:
                    self.starts.setdefault(ids[i], []).append((p, i))
        self.at: list[tuple[int, int]] | None = None  # (passage, index of the last token)
        self.length = 0

    def allowed(self) -> list[int]:
        """The token IDs that may come next (at least one once started, unless every
        passage where the answer occurs has ended)."""
        if self.at is None:
            return list(self.starts)
        return sorted({self.ids[p][i + 1] for p, i in self.at if i + 1 < len(self.ids[p])})

    def advance(self, token: int) -> None:
        """Take the token written (one of :meth:`allowed`)."""
        if self.at is None:
            self.at = list(self.starts.get(token, []))
        else:
            self.at = [
                (p, i + 1)
                for p, i in self.at
                if i + 1 < len(self.ids[p]) and self.ids[p][i + 1] == token
            ]
        self.length += 1
        if not self.at:
            raise ValueError(f"token {token} does not continue a span of the passages")

    @property
    def closable(self) -> bool:
        """Whether the answer may end here: ``least`` tokens are written."""
        return self.length >= self.least

    def span(self) -> tuple[int, int, int] | None:
        """``(passage, start, end)``: where the answer written so far was copied from,
        in the passage's characters (its first occurrence); None before a token."""
        if not self.at or not self.length:
            return None
        p, last = self.at[0]
        first = last - self.length + 1
        a, b = self.offsets[p][first][0], self.offsets[p][last][1]
        text = self.texts[p]
        a += len(text[a:b]) - len(text[a:b].lstrip())
        return p, a, b


def openings(
    asked: Asked, passages: Sequence[Hit], encoder: LateEncoder, best: int | None = CHOICES
) -> list[list[int]]:
    """Per passage, where a copied answer may open: at the ``best`` candidate sentences
    of the extractive ranker (all sentences when None), after their headings, and at
    each value they state (never a clause number or a page number). The generator then
    only chooses among sentences that may answer, and where to stop."""
    cands = candidates(passages)
    if best is not None and cands:
        score, _ = score_candidates(asked, passages, cands, encoder)
        keep = set(np.argsort(-score, kind="stable")[:best].tolist())
        cands = [c for k, c in enumerate(cands) if k in keep]
    out: list[list[int]] = [[] for _ in passages]
    for c in cands:
        text = passages[c.passage].text[c.start : c.end]
        out[c.passage].append(c.start)
        out[c.passage] += [c.start + v.start for v in find_values(text) if v.is_value]
    return [sorted(set(o)) for o in out]


def copy_messages(question: str, passages: Sequence[Hit]) -> list[dict[str, str]]:
    """The chat of copy mode: :data:`COPY_PROMPT`, the numbered passages, the question."""
    return [
        {"role": "system", "content": COPY_PROMPT},
        {
            "role": "user",
            "content": f"Passages:\n\n{format_passages(passages)}\n\nQuestion: {question}",
        },
    ]
