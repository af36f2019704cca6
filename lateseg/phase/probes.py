"""Probes: a needle fact in a real long text, shifted one padding unit at a time, and
the systems run on it (retrieval chunkers, KV-cache compressors).

One padding unit is ``" ="``: exactly one token for WordPiece (MiniLM) and for byte-level
BPE (SmolLM2). Repeats change the needle's
*content* (another vault name and code) but not where it is inserted, so all repeats
share the phase and their outcomes can be pooled by residue.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from lateseg.errors import ConfigError
from lateseg.types import Document

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.generate.local import LocalGenerator

UNIT = " ="
VAULTS = ("Amber", "Birch", "Cobalt", "Delta", "Ember", "Falcon", "Garnet", "Harbor")


@dataclass(frozen=True)
class NeedleCase:
    """One trial: the text, where the needle lies in it, the question and its answer."""

    text: str
    start: int
    end: int
    question: str
    answer: str
    offset: int
    scheme: str


@dataclass
class NeedleProbe:
    """``haystack`` with a needle at character ``insert_at`` (a paragraph start).

    ``prefix``: a line of ``offset`` units opens the text, moving everything; ``inside``:
    a line of ``offset`` units right before the needle and one of ``max_offset - offset``
    right after it, so only the needle moves.
    """

    haystack: str
    insert_at: int
    max_offset: int
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.insert_at <= len(self.haystack):
            raise ConfigError("insert_at lies outside the haystack")

    @classmethod
    def from_text(
        cls, text: str, *, depth: float = 0.5, max_offset: int = 64, seed: int = 0
    ) -> NeedleProbe:
        """A probe with the needle at the paragraph start nearest ``depth`` of ``text``."""
        at = text.find("\n\n", int(len(text) * depth))
        at = len(text) if at < 0 else at + 2
        return cls(text, at, max_offset, seed)

    def needle(self, rep: int) -> tuple[str, str, str]:
        rng = np.random.default_rng([self.seed, rep])
        vault = VAULTS[rep % len(VAULTS)]
        code = str(int(rng.integers(1000, 10000)))
        return (
            f"The access code for the {vault} vault is {code}.",
            f"What is the access code for the {vault} vault?",
            code,
        )

    def case(self, offset: int, scheme: str, rep: int) -> NeedleCase:
        if not 0 <= offset <= self.max_offset:
            raise ConfigError(f"offset {offset} outside 0..{self.max_offset}")
        needle, question, answer = self.needle(rep)
        before, after = self.haystack[: self.insert_at], self.haystack[self.insert_at :]
        if scheme == "prefix":
            pad = pad_line(offset)
            text = pad + before + needle + "\n\n" + after
            start = len(pad) + len(before)
        elif scheme == "inside":
            lead, trail = pad_line(offset), "\n" + pad_line(self.max_offset - offset)
            text = before + lead + needle + trail + "\n" + after
            start = len(before) + len(lead)
        else:
            raise ConfigError(f"scheme={scheme!r}; choose prefix or inside")
        return NeedleCase(text, start, start + len(needle), question, answer, offset, scheme)


def pad_line(units: int) -> str:
    """A line of ``units + 1`` padding units: always one, so that going from 0 to 1 unit
    adds exactly one token like every other step; on a line of its own, so that the
    padding never joins the needle's sentence."""
    return "=" + " =" * units + "\n"


# -- retrieval ------------------------------------------------------------------------


def retrieval_systems(
    encoder: LateEncoder, *, fixed_tokens: int = 16, k: int = 3, rcts_chars: int | None = 200
) -> dict[str, Callable[[NeedleCase], bool]]:
    """Systems that chunk a case's text, rank the chunks for its question and succeed
    when a chunk holding the whole needle is among the ``k`` best: fixed
    ``fixed_tokens``-token chunks with naive and with late vectors, LangChain's recursive
    splitter (``rcts_chars`` characters, when langchain-text-splitters is installed) and
    lateseg (late + dynamic, its defaults)."""
    from lateseg.segment import DynamicChunker, FixedChunker

    def ranked(case: NeedleCase, spans: Sequence[tuple[int, int]], vectors: np.ndarray) -> bool:
        q = encoder.embed_queries([case.question])[0]
        best = np.argsort(-(vectors @ q), kind="stable")[:k]
        return any(spans[i][0] <= case.start and case.end <= spans[i][1] for i in best)

    def chunked(chunker: Any, vectors: str) -> Callable[[NeedleCase], bool]:
        def run(case: NeedleCase) -> bool:
            doc = Document("/probe.txt", case.text, "text")
            tokens = encoder.encode_document(case.text)
            spans = [(c.start, c.end) for c in chunker.chunk(doc, tokens)]
            if vectors == "naive":
                vecs = encoder.embed_texts([case.text[a:b] for a, b in spans])
            elif vectors == "late":
                vecs = tokens.pool(spans)
            else:
                vecs = encoder.chunk_vectors(case.text, tokens, spans)
            return ranked(case, spans, vecs)

        return run

    systems = {
        f"fixed-{fixed_tokens} naive": chunked(FixedChunker(fixed_tokens), "naive"),
        f"fixed-{fixed_tokens} late": chunked(FixedChunker(fixed_tokens), "late"),
    }
    if rcts_chars:
        try:
            from langchain_text_splitters import RecursiveCharacterTextSplitter
        except ImportError:
            pass
        else:
            splitter = RecursiveCharacterTextSplitter(
                chunk_size=rcts_chars, chunk_overlap=0, add_start_index=True
            )

            def rcts(case: NeedleCase) -> bool:
                docs = splitter.create_documents([case.text])
                spans = [
                    (d.metadata["start_index"], d.metadata["start_index"] + len(d.page_content))
                    for d in docs
                ]
                vecs = encoder.embed_texts([d.page_content for d in docs])
                return ranked(case, spans, vecs)

            systems[f"langchain-recursive-{rcts_chars}"] = rcts
    systems["lateseg late+dynamic"] = chunked(DynamicChunker(), "default")
    return systems


# -- KV-cache compression -----------------------------------------------------------


def kv_system(
    generator: LocalGenerator,
    methods: dict[str, Any],
    *,
    measure: str = "answer",
) -> Callable[[NeedleCase], dict[str, float]]:
    """One prefill per case, then every KV method (``name -> KVConfig``, None = full
    cache) compresses a shallow copy of the cache. ``measure``: ``"answer"`` (the code
    appears in the greedy answer), ``"retention"`` (the needle's tokens are all kept, in
    every layer and head; 1 or 0), ``"share"`` (the share of the needle's tokens kept,
    over layers and heads), or ``"both"`` (``name/answer`` and ``name/retention``, the
    share)."""
    import torch

    from lateseg.kv.chunks import token_span
    from lateseg.kv.compress import compress, shallow_copy
    from lateseg.types import Hit

    def run(case: NeedleCase) -> dict[str, float]:
        hit = Hit("/probe.txt", 0, len(case.text), case.text, 1.0)
        prompt = generator.render(generator.prompt(case.question, [hit]))
        window = len(prompt.ids) - prompt.tail_token
        at = prompt.text.index(case.text[case.start : case.end])
        first, last = token_span(prompt.offsets, at, at + case.end - case.start)
        with torch.inference_mode():
            cache, logits, obs = generator.prefill(prompt.ids, window)
            out: dict[str, float] = {}
            for name, config in methods.items():
                work = shallow_copy(cache)
                share = 1.0
                if config is not None and obs is not None:
                    done = compress(
                        work,
                        obs,
                        config,
                        text=prompt.text,
                        offsets=prompt.offsets,
                        window_tokens=window,
                    )
                    share = done.retention(first, last)
                kept = float(share == 1.0)
                if measure == "share":
                    out[name] = share
                if measure == "retention":
                    out[name] = kept
                if measure == "both":
                    out[f"{name}/retention"] = share
                if measure in ("answer", "both"):
                    text = generator.decode(work, logits, len(prompt.ids), None).text
                    out[f"{name}/answer" if measure == "both" else name] = float(
                        case.answer in text
                    )
        return out

    return run
