"""Answering: the one place that needs the retriever, the encoder and the generator.

:class:`Answerer` turns a question into a cited :class:`~lateseg.types.Answer`: it
retrieves (and widens) passages, then quotes them (extractive, the encoder picks the
sentences) or lets the local generator answer from them, its KV cache compressed by a
``KVConfig`` made from the user's budget and method; several questions can share one
prefilled, compressed context. ``Pipeline.ask`` and ``Pipeline.ask_many`` delegate here.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lateseg.errors import ConfigError
from lateseg.generate.extractive import extractive_answer
from lateseg.kv.compress import KVConfig
from lateseg.types import NO_PASSAGE, Answer, Hit, clean_text

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.generate.local import LocalGenerator
    from lateseg.index.retrieval import Retriever


class Answerer:
    """Answers from ``retriever``'s passages. ``encoder`` is called when needed (the
    caller may swap its encoder); the generator ``generator`` (a name or folder) is
    made on first use, on the encoder's device."""

    def __init__(
        self, retriever: Retriever, encoder: Callable[[], LateEncoder], generator: str
    ) -> None:
        self.retriever = retriever
        self.encoder = encoder
        self.generator_name = generator
        self._generator: LocalGenerator | None = None
        self._lock = threading.Lock()

    def local_generator(self) -> LocalGenerator:
        """The local generator, made (not yet loaded) on first use."""
        with self._lock:
            if self._generator is None:
                from lateseg.generate.local import LocalGenerator

                device = self.encoder().config.device
                self._generator = LocalGenerator(self.generator_name, device=device)
            return self._generator

    def ask(
        self,
        question: str,
        k: int = 5,
        *,
        extractive: bool = False,
        mode: str = "dense",
        source: str | None = None,
        kind: str | None = None,
        include_toc: bool = False,
        context: int | None = None,
        kv_budget: int | float | None = None,
        kv_method: str | None = None,
        stream: Callable[[str], None] | None = None,
        fallback: bool = True,
    ) -> Answer:
        """Answer ``question`` from the ``k`` best chunks, citing them.

        ``extractive=True`` quotes the best sentences instead of running the generator;
        ``mode``, ``source``, ``kind`` and ``include_toc`` select the chunks as in
        :meth:`Retriever.search`; ``context`` widens them with their neighbours up to that
        many characters in all (:meth:`Retriever.expand`). ``kv_budget`` compresses the
        generator's KV cache after prefill to that many tokens (an int) or that share of
        the prompt (a float in (0, 1)) with ``kv_method`` (``lateseg``, the default: whole
        content-defined chunks; or any registered press, :mod:`lateseg.kv.presses`); the
        accounting is in ``Answer.kv_stats``. ``stream`` receives the answer's text as it
        is made.

        Every sentence of a generated answer is checked against its evidence
        (``Answer.support``). With ``fallback`` (the default), an answer none of whose
        sentences is supported is replaced by the extractive answer, which keeps the
        model's in ``Answer.generated``: the answer returned never rests on text its
        passages do not hold.
        """
        kv = KVConfig.from_options(kv_budget, kv_method)
        if extractive and kv is not None:
            raise ConfigError("kv_budget/kv_method apply to the generator, not --extractive")
        question = clean_text(question)
        hits = self.retriever.search(
            question, k, mode=mode, source=source, kind=kind, include_toc=include_toc
        )
        if context is not None:
            hits = self.retriever.expand(hits, context)
        return self.answer_from(
            question, hits, extractive=extractive, kv=kv, stream=stream, fallback=fallback
        )

    def answer_from(
        self,
        question: str,
        hits: Sequence[Hit],
        *,
        extractive: bool = False,
        kv: KVConfig | None = None,
        stream: Callable[[str], None] | None = None,
        fallback: bool = True,
    ) -> Answer:
        """The second half of :meth:`ask`: the answer to ``question`` from passages
        already retrieved (a server retrieves under its own lock, then generates)."""
        if extractive:
            return extractive_answer(question, hits, self.encoder())
        answer = self.local_generator().answer(question, hits, self.encoder(), kv=kv, stream=stream)
        return self.checked(question, answer, hits) if fallback else answer

    def checked(self, question: str, answer: Answer, passages: Sequence[Hit]) -> Answer:
        """``answer`` when some sentence of it is supported; else the extractive answer
        from ``passages``, carrying the model's as ``generated``."""
        if answer.supported or not passages:
            return answer
        quoted = extractive_answer(question, passages, self.encoder())
        # kv_stats stays: it describes the generation this ask ran
        return dataclasses.replace(
            quoted, generated=answer, dropped=answer.dropped, kv_stats=answer.kv_stats
        )

    def ask_many(
        self,
        questions: Sequence[str],
        *,
        document: str | os.PathLike[str] | None = None,
        k: int = 5,
        mode: str = "dense",
        kv_budget: int | float | None = None,
        kv_method: str | None = None,
        stream: Callable[[int, str], None] | None = None,
    ) -> list[Answer]:
        """Answer several questions from one context, prefilled and compressed once.

        The context is the whole of ``document`` (its chunks, numbered, in order) or else
        the union of each question's ``k`` best chunks. The KV cache is compressed without
        knowing the questions (the observation window is the context's end) and truncated
        back after each answer. ``stream(i, text)`` receives question ``i``'s answer as it
        is made.
        """
        kv = KVConfig.from_options(kv_budget, kv_method)
        if document is not None:
            passages = self.retriever.document_hits(document)
        else:
            seen: dict[int, Hit] = {}
            for q in questions:
                for h in self.retriever.search(q, k, mode=mode):
                    seen.setdefault(h.chunk_id, h)
            passages = list(seen.values())
        if not passages:
            return [Answer(NO_PASSAGE, ()) for _ in questions]
        # A whole document gets all the model's window can hold; retrieved passages the
        # generator's usual budget. Passages that do not fit are dropped whole (reported).
        gen = self.local_generator()
        session = gen.session(passages, kv, None if document is None else gen.window_budget())
        return [
            self.checked(
                q,
                session.answer(
                    q, self.encoder(), None if stream is None else functools.partial(stream, i)
                ),
                session.passages,
            )
            for i, q in enumerate(questions)
        ]
