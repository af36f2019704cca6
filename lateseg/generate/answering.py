"""Answering: the one place that needs the retriever, the encoder and the generator.

:class:`Answerer` turns a question into a cited :class:`~lateseg.types.Answer`: it
scopes the question to the documents it names (:mod:`lateseg.generate.scope`),
retrieves (and widens) passages, then quotes them (``"quote"``: the encoder picks the
sentence that states what is asked), lets the local generator copy its answer from them
(``"copy"``: decoding constrained to spans of the passages) or answer freely
(``"generate"``), its KV cache compressed by a ``KVConfig`` made from the user's budget
and method; several questions can share one prefilled, compressed context.
``Pipeline.ask`` and ``Pipeline.ask_many`` delegate here.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lateseg.errors import ConfigError
from lateseg.generate.confidence import check_min_confidence, doubted
from lateseg.generate.extractive import extractive_answer
from lateseg.generate.question import analyse
from lateseg.generate.rerank import RERANK_TOP, check_reranker
from lateseg.generate.rerank import rerank as by_likelihood
from lateseg.generate.scope import (
    FILE_NAME,
    HEAD_CHARS,
    MOST_SCOPED,
    Profile,
    find_scope,
    plain_question,
    profiles,
)
from lateseg.kv.compress import KVConfig
from lateseg.types import NO_PASSAGE, Answer, Hit, Scope, clean_text

#: How ``ask`` answers: quote the sentence that states what is asked, copy a span of
#: the passages with the generator (constrained decoding), or generate freely (each
#: sentence checked; an unsupported answer is replaced by the quote).
ANSWER_MODES = ("quote", "copy", "generate")
#: The default, chosen on bench/answers.py (bench/results/answers.md).
DEFAULT_ANSWER = "quote"
#: Characters a list question's passages grow to with their neighbours: a list often
#: runs on past the chunk that introduces it.
LIST_CONTEXT = 6000

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.generate.local import LocalGenerator
    from lateseg.index.retrieval import Retriever
    from lateseg.kv.sparse import SparsePrefill


@dataclass(frozen=True)
class Prepared:
    """A question ready to answer: as asked of its scoped documents, its ``scope`` and
    ``hits``; ``missing`` is the answer when it names a document the index lacks."""

    question: str
    scope: Scope | None
    hits: list[Hit]
    missing: Answer | None = None


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
        self._profiles: tuple[int, list[Profile]] | None = None

    def local_generator(self) -> LocalGenerator:
        """The local generator, made (not yet loaded) on first use."""
        with self._lock:
            if self._generator is None:
                from lateseg.generate.local import LocalGenerator

                device = self.encoder().config.device
                self._generator = LocalGenerator(self.generator_name, device=device)
            return self._generator

    def document_profiles(self) -> list[Profile]:
        """What names each indexed document (title, file name, parties), read once per
        state of the index."""
        state = self.retriever.state()
        with self._lock:
            if self._profiles is None or self._profiles[0] != state:
                seq, rows = self.retriever.heads(HEAD_CHARS)
                self._profiles = (seq, profiles(rows))
            return self._profiles[1]

    def scope(self, question: str) -> Scope | None:
        """The indexed documents ``question`` names, or the one it names that the index
        does not hold (:func:`~lateseg.generate.scope.find_scope`); None: it names none.
        A document named by words that some indexed text says ("the service level
        agreement", an exhibit of a contract) is not missing: the question is scoped to
        the documents that say it, when they are few."""
        scope = find_scope(question, self.document_profiles())
        if scope is None or scope.missing is None or FILE_NAME.fullmatch(scope.missing):
            return scope
        said = self.retriever.mentions(scope.missing, MOST_SCOPED + 1)
        if not said:
            return scope
        return Scope(tuple(said), (scope.missing,)) if len(said) <= MOST_SCOPED else None

    def retrieve(
        self,
        question: str,
        k: int,
        scope: Scope | None = None,
        *,
        mode: str = "dense",
        source: str | None = None,
        kind: str | None = None,
        include_toc: bool = False,
        context: int | None = None,
        rerank: str | None = None,
    ) -> list[Hit]:
        """The passages that answer ``question``: the ``k`` best chunks (of the scoped
        documents only, when the question names some; re-ranked by ``rerank``, see
        :meth:`search`), widened with their neighbours to ``context`` characters (a list
        question's to :data:`LIST_CONTEXT` by default)."""
        sources = scope.sources if scope is not None and scope.sources else None
        hits = self.search(
            question, k, mode=mode, source=source, kind=kind, include_toc=include_toc,
            sources=sources, rerank=rerank,
        )  # fmt: skip
        if context is None and analyse(question).kind == "list":
            context = LIST_CONTEXT
        if context is not None and hits:
            hits = self.retriever.expand(hits, context)
        return self.retriever.whole_sentences(hits)

    def search(
        self, question: str, k: int, *, rerank: str | None = None, **select: Any
    ) -> list[Hit]:
        """:meth:`Retriever.search` (``select``: its options), then with ``rerank`` (one of
        :data:`~lateseg.generate.rerank.RERANKERS`) its top
        :data:`~lateseg.generate.rerank.RERANK_TOP` re-ranked by the generator's
        likelihood of the question (:func:`~lateseg.generate.rerank.rerank`; seconds a
        query on CPU, opt-in)."""
        if check_reranker(rerank) is None:
            return self.retriever.search(question, k, **select)
        hits = self.retriever.search(question, max(k, RERANK_TOP), **select)
        return by_likelihood(self.local_generator(), question, hits, k)

    def missing(self, question: str, scope: Scope) -> Answer:
        """The answer to a question that names a document the index does not hold."""
        names = sorted(
            f"{p.name} ({p.title})" if p.title else p.name for p in self.document_profiles()
        )
        shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
        text = (
            f"The question names {scope.missing!r}, but no indexed document matches it, so "
            f"it is not answered from another one. The index holds: {shown}."
        )
        return Answer(text, (), mode="scope", cited_by="none", scope=scope)

    def ask(
        self,
        question: str,
        k: int = 5,
        *,
        answer: str | None = None,
        extractive: bool = False,
        mode: str = "dense",
        source: str | None = None,
        kind: str | None = None,
        include_toc: bool = False,
        context: int | None = None,
        kv_budget: int | float | None = None,
        kv_method: str | None = None,
        prefill: str | SparsePrefill | None = None,
        stream: Callable[[str], None] | None = None,
        fallback: bool = True,
        rerank: str | None = None,
        min_confidence: float | None = None,
    ) -> Answer:
        """Answer ``question`` from the ``k`` best chunks, citing them.

        ``answer`` is how (:data:`ANSWER_MODES`; default :data:`DEFAULT_ANSWER`):
        ``"quote"`` the sentence that states what is asked, ``"copy"`` a span of the
        passages the generator chooses, ``"generate"`` the generator's own words;
        ``extractive=True`` is ``answer="quote"``. A question that names documents ("the
        NDA", ``lease.pdf``) is answered from them only (``Answer.scope``); one that names
        a document the index does not hold is told so. ``mode``, ``source``, ``kind`` and
        ``include_toc`` select the chunks as in :meth:`Retriever.search` (a ``source``
        glob replaces the scope); ``context`` widens them with their neighbours up to that
        many characters in all (:meth:`Retriever.expand`). ``kv_budget`` compresses the
        generator's KV cache after prefill to that many tokens (an int) or that share of
        the prompt (a float in (0, 1)) with ``kv_method`` (``lateseg``, the default: whole
        content-defined chunks; or any registered press, :mod:`lateseg.kv.presses`); the
        accounting is in ``Answer.kv_stats``. ``prefill="sparse"`` prefills the
        generator's prompt MInference-style (:mod:`lateseg.kv.sparse`; the default
        ``"dense"`` reads every key). ``stream`` receives the answer's text as it is
        made. ``rerank="generator"`` re-ranks the retrieved chunks by the generator's
        likelihood of the question (:meth:`search`; opt-in: seconds a question on CPU).

        Every sentence of a generated answer is checked against its evidence
        (``Answer.support``). With ``fallback`` (the default), an answer none of whose
        sentences is supported is replaced by the extractive answer, which keeps the
        model's in ``Answer.generated``: the answer returned never rests on text its
        passages do not hold.

        A quoted answer rated below ``min_confidence`` (default
        :data:`~lateseg.generate.confidence.MIN_CONFIDENCE`; 0: never) is unsure: it says
        so and quotes its two best candidates (:func:`~lateseg.generate.confidence.doubted`).
        """
        check_min_confidence(min_confidence)
        kv = KVConfig.from_options(kv_budget, kv_method)
        how = answer_mode(answer, extractive, kv is not None)
        if how == "quote" and (kv is not None or prefill not in (None, "dense")):
            raise ConfigError(
                "kv_budget/kv_method/prefill apply to the generator, not to quoted answers"
            )
        asked = self.prepare(
            question, k, mode=mode, source=source, kind=kind, include_toc=include_toc,
            context=context, rerank=rerank,
        )  # fmt: skip
        if asked.missing is not None:
            return asked.missing
        done = self.answer_from(
            asked.question, asked.hits, answer=how, kv=kv, prefill=prefill, stream=stream,
            fallback=fallback,
        )  # fmt: skip
        return self.finish(done, asked, min_confidence)

    def prepare(
        self,
        question: str,
        k: int = 5,
        *,
        mode: str = "dense",
        source: str | None = None,
        kind: str | None = None,
        include_toc: bool = False,
        context: int | None = None,
        rerank: str | None = None,
    ) -> Prepared:
        r"""The first half of :meth:`ask`: the question's scope, the question as asked of
        the scoped documents (:func:`~lateseg.generate.scope.plain_question`) and its
        passages; or the answer that the document it names is missing. A server runs
        this under its retrieval lock, then answers (:meth:`answer_from`) and
        :meth:`finish`\ es."""
        question = clean_text(question)
        scope = self.scope(question) if source is None else None
        if scope is not None and scope.missing is not None:
            return Prepared(question, scope, [], self.missing(question, scope))
        if scope is not None:  # asked of the named documents in their own words
            question = plain_question(question, scope, self.document_profiles())
        hits = self.retrieve(
            question, k, scope, mode=mode, source=source, kind=kind,
            include_toc=include_toc, context=context, rerank=rerank,
        )  # fmt: skip
        return Prepared(question, scope, hits)

    def finish(
        self, answer: Answer, prepared: Prepared, min_confidence: float | None = None
    ) -> Answer:
        """The last step of :meth:`ask`: ``answer``, unsure below ``min_confidence``
        (:func:`~lateseg.generate.confidence.doubted`), cited where its phrase and evidence
        lie (:meth:`located`), with the question's scope."""
        answer = self.located(doubted(answer, min_confidence))
        return dataclasses.replace(answer, scope=prepared.scope)

    def located(self, answer: Answer) -> Answer:
        """``answer`` with its phrase's sentence and each evidence span cited where they
        lie (their own page, lines and clause: :meth:`Retriever.narrow`), not where the
        passage around them starts."""

        def narrow(span: Hit) -> Hit:
            for h in answer.context:
                if h.source == span.source and h.start <= span.start <= span.end <= h.end:
                    return self.retriever.narrow(h, span.start, span.end)
            return span

        phrase = answer.phrase
        if phrase is not None:
            phrase = dataclasses.replace(phrase, sentence=narrow(phrase.sentence))
        support = tuple(
            dataclasses.replace(s, evidence=narrow(s.evidence)) if s.evidence is not None else s
            for s in answer.support
        )
        generated = answer.generated
        if generated is not None:
            generated = self.located(generated)
        alternatives = tuple(narrow(h) for h in answer.alternatives)
        return dataclasses.replace(
            answer, phrase=phrase, support=support, generated=generated, alternatives=alternatives
        )

    def answer_from(
        self,
        question: str,
        hits: Sequence[Hit],
        *,
        answer: str | None = None,
        extractive: bool = False,
        kv: KVConfig | None = None,
        prefill: str | SparsePrefill | None = None,
        stream: Callable[[str], None] | None = None,
        fallback: bool = True,
    ) -> Answer:
        """The second half of :meth:`ask`: the answer to ``question`` from passages
        already retrieved (a server retrieves under its own lock, then generates)."""
        how = answer_mode(answer, extractive)
        if how == "quote":
            return extractive_answer(question, hits, self.encoder())
        gen = self.local_generator().with_prefill(prefill)
        if how == "copy":
            from lateseg.generate.copying import copy_answer

            return copy_answer(gen, question, hits, self.encoder(), kv=kv, stream=stream)
        done = gen.answer(question, hits, self.encoder(), kv=kv, stream=stream)
        return self.checked(question, done, hits) if fallback else done

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
        prefill: str | SparsePrefill | None = None,
        stream: Callable[[int, str], None] | None = None,
    ) -> list[Answer]:
        """Answer several questions from one context, prefilled and compressed once.

        The context is the whole of ``document`` (its chunks, numbered, in order) or else
        the union of each question's ``k`` best chunks. The KV cache is compressed without
        knowing the questions (the observation window is the context's end) and truncated
        back after each answer. ``stream(i, text)`` receives question ``i``'s answer as it
        is made. ``prefill``: as in :meth:`ask`.
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
        gen = self.local_generator().with_prefill(prefill)
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


def answer_mode(answer: str | None, extractive: bool = False, kv: bool = False) -> str:
    """The answer mode asked for: ``answer`` (one of :data:`ANSWER_MODES`), ``"quote"``
    for ``extractive``, ``"generate"`` when only a KV budget or method (``kv``) says a
    generator is wanted, else :data:`DEFAULT_ANSWER`."""
    if answer is not None and answer not in ANSWER_MODES:
        raise ConfigError(f"answer={answer!r}; choose one of {', '.join(ANSWER_MODES)}")
    if extractive:
        if answer not in (None, "quote"):
            raise ConfigError(f"extractive=True quotes; it cannot be answer={answer!r}")
        return "quote"
    if answer is None and kv:
        return "generate"
    return answer or DEFAULT_ANSWER
