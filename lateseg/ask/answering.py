"""Answering: the one place that needs the retriever, the encoder and the generator.

:class:`Answerer` turns a question into a cited :class:`~lateseg.types.Answer`: it
scopes the question to the documents it names (:mod:`lateseg.answer.scope`),
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
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lateseg.answer.code import Judge
from lateseg.answer.confidence import doubted
from lateseg.answer.extractive import quote_answer
from lateseg.answer.question import Asked, analyse
from lateseg.answer.scope import (
    FILE_NAME,
    HEAD_CHARS,
    MOST_SCOPED,
    Profile,
    find_scope,
    plain_question,
    profiles,
)
from lateseg.ask.code_search import (
    asked_of,
    has_code,
    is_codebase,
    searched,
    with_named_code,
    without_nested,
)
from lateseg.ask.options import (
    ASK_DEFAULTS,
    DEFAULT_ANSWER,
    REMOTE_CONTEXT_TOKENS,
    UNIT_CHARS,
    AskOptions,
    SearchOptions,
)
from lateseg.generate.answers import copy_answer, generate_answer
from lateseg.generate.compose import generated
from lateseg.generate.remote.config import LLMConfig
from lateseg.generate.rerank import fact_judge
from lateseg.generate.rerank import rerank as by_likelihood
from lateseg.types import NO_PASSAGE, Answer, Hit, Scope, clean_text

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_ANSWER", "Answerer", "Prepared", "copy_answer", "generate_answer"]
#: Characters a list question's passages grow to with their neighbours: a list often
#: runs on past the chunk that introduces it.
LIST_CONTEXT = 6000

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.generate.local import LocalGenerator
    from lateseg.generate.remote.client import RemoteLLM
    from lateseg.generate.writer import Writer
    from lateseg.retrieve.retriever import Retriever


@dataclass(frozen=True)
class Prepared:
    """A question ready to answer: ``asked``, the question as asked of its scoped
    documents and analysed (once per ask: every later step reads this), its ``scope``
    and ``hits``; ``missing`` is the answer when it names a document the index lacks and
    nothing indexed answers it (a question naming a document the index lacks is otherwise
    answered from the whole index, unsure: :meth:`Answerer.unmatched`)."""

    asked: Asked
    scope: Scope | None
    hits: list[Hit]
    missing: Answer | None = None

    @property
    def question(self) -> str:
        return self.asked.question


#: Every answerer alive: :func:`release_models` makes each forget its local generator.
_ANSWERERS: weakref.WeakSet[Answerer] = weakref.WeakSet()


def release_models() -> None:
    """Make every answerer forget its local generator (made and loaded again on next
    use): a pipeline's generator is then freed once the model cache lets go of it too
    (:func:`lateseg.generate.loading.release_models`). An answer being generated keeps
    the generator it has until it ends."""
    for answerer in list(_ANSWERERS):
        answerer.release()


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
        self._remote: dict[LLMConfig, RemoteLLM] = {}
        _ANSWERERS.add(self)

    def release(self) -> None:
        """Forget the local generator (made again on next use), so its model can be
        freed; a generation under way keeps its own reference."""
        with self._lock:
            self._generator = None

    def remote(self, config: LLMConfig) -> RemoteLLM:
        """The client of the model server ``config`` names: one per config, kept (its
        connections reused) until :meth:`close`."""
        with self._lock:
            if config not in self._remote:
                from lateseg.generate.remote.client import RemoteLLM

                self._remote[config] = RemoteLLM(config)
            return self._remote[config]

    def writer(self, llm: object) -> Writer:
        """Who writes for ``options.llm``: the kept client of the model server an
        :class:`LLMConfig` names (:meth:`remote`), else ``llm`` as a writer (made by the
        kind of :data:`~lateseg.generate.writer.WRITERS` that accepts it, a LangChain
        chat model or a local generator wrapped:
        :func:`~lateseg.generate.remote.choice.as_writer`)."""
        if isinstance(llm, LLMConfig):
            return self.remote(llm)
        from lateseg.generate.remote.choice import as_writer

        return as_writer(llm)

    def close(self) -> None:
        """Close the model servers' clients."""
        with self._lock:
            clients, self._remote = list(self._remote.values()), {}
        for client in clients:
            client.close()

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
        does not hold (:func:`~lateseg.answer.scope.find_scope`); None: it names none.
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

    def retrieve(self, asked: Asked, options: AskOptions, scope: Scope | None = None) -> list[Hit]:
        """The passages that answer ``asked``: the best chunks as ``options`` select them
        (of the scoped documents only, when the question names some; see
        :meth:`search`), widened with their neighbours to ``options.context``
        characters (a list question's to :data:`LIST_CONTEXT` by default). A question
        about code reads the units it names first, a default's constants last
        (:func:`~lateseg.ask.code_search.with_named_code`), and without ``context``
        gets the whole function (or class) each code hit lies in, up to
        :data:`~lateseg.ask.options.UNIT_CHARS` characters (:meth:`Retriever.units`)."""
        sources = scope.sources if scope is not None and scope.sources else None
        hits = self.search(
            asked.question, options.search, sources=sources, about_code=asked.code is not None
        )
        if asked.code is not None:  # the units it names first, the constants named last
            hits = with_named_code(
                self.retriever, asked, hits, source=options.source,
                kind=options.kind, sources=sources,
            )  # fmt: skip
        context = options.context
        if context is None and asked.kind == "list":
            context = LIST_CONTEXT
        if context is not None and hits:
            hits = self.retriever.expand(hits, context)
        elif asked.code is not None and options.search.passages != "chunks":
            hits = self.retriever.units(hits, UNIT_CHARS)  # (the passages a reader chose)
        return self.retriever.whole_sentences(hits)

    def search(
        self,
        question: str,
        options: SearchOptions,
        *,
        sources: Sequence[str] | None = None,
        about_code: bool | None = None,
    ) -> list[Hit]:
        """:meth:`Retriever.search` as ``options`` select (of ``sources`` only, when
        given), then with ``options.rerank`` (one of
        :data:`~lateseg.generate.rerank.RERANKERS`) its top
        :data:`~lateseg.generate.rerank.RERANK_TOP` re-ranked by the generator's
        likelihood of the question (:func:`~lateseg.generate.rerank.rerank`; seconds a
        query on CPU, opt-in). Hybrid hits that ``"auto"`` chose (for a question about
        code, or over a codebase) or that an ask reads (it passes ``about_code``) are scored
        by cosine (:func:`~lateseg.ask.code_search.cosine_scored`) before re-ranking."""
        auto = options.mode == "auto"
        # an ask's analysed question knows already (Answerer.analysed asked the index)
        code = not auto or about_code is not None or has_code(self.retriever)
        codebase = auto and code and is_codebase(self.retriever, options.kind)
        select = {**options.select(question, code, about_code, codebase)}
        select["sources"] = sources
        rerank = None
        if options.rerank is not None:
            generator = self.local_generator()
            memo: dict[str, float] = {}  # (a units search may re-rank its head again)
            rerank = lambda hits, n: by_likelihood(generator, question, hits, n, memo)  # noqa: E731
        scored = auto or about_code is not None  # hybrid hits are scored by cosine
        return searched(self.retriever, question, options, select, rerank, scored)

    def missing(self, question: str, scope: Scope) -> Answer:
        """The answer to a question that names a document the index does not hold and
        whose words nothing indexed answers (an empty index)."""
        text = (
            f"No indexed document matches {scope.missing!r}, and nothing in the index "
            "answers the question."
        )
        return Answer(text, (), mode="scope", cited_by="none", scope=scope)

    @staticmethod
    def unmatched(answer: Answer, scope: Scope) -> Answer:
        """``answer``, looked for across the whole index because no indexed document
        matches the name the question gives (``scope.missing``): unsure whatever its
        rating, saying which name matched nothing, its best candidates quoted and cited
        (:func:`~lateseg.answer.confidence.doubted`); the reader decides."""
        note = (
            f"No indexed document matches {scope.missing!r}, so the question was answered "
            "from the whole index. "
        )
        if answer.confidence is None:  # generated: its words and phrase stay, unsure
            return dataclasses.replace(answer, text=note + answer.text, unsure=True)
        answer = doubted(answer, 1.0)
        return dataclasses.replace(answer, text=note + answer.text, phrase=None, unsure=True)

    def ask(
        self,
        question: str,
        options: AskOptions = ASK_DEFAULTS,
        *,
        stream: Callable[[str], None] | None = None,
    ) -> Answer:
        """Answer ``question`` as ``options`` say (:class:`AskOptions`), citing the
        passages it rests on.

        ``"quote"`` answers with the sentence that states what is asked, ``"copy"`` with
        a span of the passages the generator chooses, ``"generate"`` in the generator's
        own words. A question that names documents ("the NDA", ``lease.pdf``) is
        answered from them only (``Answer.scope``); one that names a document the index
        does not hold is told so. A generator's KV cache accounting is in
        ``Answer.kv_stats``; ``stream`` receives a generated answer's text as it is made.

        Every sentence of a generated answer is checked against its evidence
        (``Answer.support``). With ``options.fallback`` (the default), an answer none of
        whose sentences is supported is replaced by the quoted answer, which keeps the
        model's in ``Answer.generated``: the answer returned never rests on text its
        passages do not hold.

        A quoted answer rated below ``options.min_confidence`` (default
        :data:`~lateseg.answer.confidence.MIN_CONFIDENCE`; 0: never) is unsure: it says
        so and quotes its two best candidates (:func:`~lateseg.answer.confidence.doubted`).
        """
        prepared = self.prepare(question, options)
        if prepared.missing is not None:
            return prepared.missing
        done = self.answer_from(prepared.asked, prepared.hits, options, stream=stream)
        return self.finish(done, prepared, options.min_confidence)

    def prepare(self, question: str, options: AskOptions = ASK_DEFAULTS) -> Prepared:
        r"""The first half of :meth:`ask`: the question's scope, the question as asked of
        the scoped documents (:func:`~lateseg.answer.scope.plain_question`), analysed
        once for every later step, and its passages; or the answer that the document it
        names is missing. A server runs this under its retrieval lock, then answers
        (:meth:`answer_from`) and :meth:`finish`\ es."""
        question = clean_text(question)
        t0 = time.perf_counter()
        scope = self.scope(question) if options.source is None else None
        if scope is not None:
            log.info("scope: %s", scope.describe())
        if scope is not None and scope.missing is not None:  # looked for everywhere
            asked = self.analysed(question)
            hits = self.retrieve(asked, options, None)
            _log_hits(hits, t0)
            missing = None if hits else self.missing(question, scope)
            return Prepared(asked, scope, hits, missing)
        if scope is not None:  # asked of the named documents in their own words
            question = plain_question(question, scope, self.document_profiles())
            log.info("asked of them as: %s", question)
        asked = self.analysed(question)
        hits = self.retrieve(asked, options, scope)
        _log_hits(hits, t0)
        return Prepared(asked, scope, hits)

    def analysed(self, question: str) -> Asked:
        """``question`` analysed (:func:`~lateseg.answer.question.analyse`), as one about
        code only where this index can answer it so (:func:`asked_of`)."""
        return asked_of(self.retriever, analyse(question))

    def finish(
        self, answer: Answer, prepared: Prepared, min_confidence: float | None = None
    ) -> Answer:
        """The last step of :meth:`ask`: ``answer``, unsure below ``min_confidence``
        (:func:`~lateseg.answer.confidence.doubted`), cited where its phrase and evidence
        lie (:meth:`cite_where_it_lies`), with the question's scope."""
        if answer.confidence is not None:
            log.info("%s answer, confidence %.2f", answer.mode, answer.confidence)
        answer = doubted(answer, min_confidence)
        if prepared.scope is not None and prepared.scope.missing is not None:
            answer = self.unmatched(answer, prepared.scope)
        answer = self.cite_where_it_lies(answer)
        return dataclasses.replace(answer, scope=prepared.scope)

    def cite_where_it_lies(self, answer: Answer) -> Answer:
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
            generated = self.cite_where_it_lies(generated)
        alternatives = tuple(narrow(h) for h in answer.alternatives)
        return dataclasses.replace(
            answer, phrase=phrase, support=support, generated=generated, alternatives=alternatives
        )

    def answer_from(
        self,
        asked: Asked | str,
        hits: Sequence[Hit],
        options: AskOptions = ASK_DEFAULTS,
        *,
        stream: Callable[[str], None] | None = None,
    ) -> Answer:
        """The second half of :meth:`ask`: the answer to ``asked`` (as :meth:`prepare`
        analysed it) from passages already retrieved
        (a server retrieves under its own lock, then generates). With ``options.llm``
        (a model behind a URL, a LangChain chat model: :meth:`writer`), that model
        writes it (:func:`~lateseg.generate.remote.generator.remote_answer`), checked and
        cited as the local generator's answer is. A question's text is analysed here, once:
        this is a public entry point (:attr:`Pipeline.answerer <lateseg.Pipeline.answerer>`)."""
        if isinstance(asked, str):
            asked = analyse(asked)
        judge = None if options.rerank is None else fact_judge(self.local_generator())
        if options.llm is not None:
            from lateseg.generate.remote.generator import RemoteGenerator, remote_answer

            budget = options.context_tokens or REMOTE_CONTEXT_TOKENS
            writer = RemoteGenerator(self.writer(options.llm), context_tokens=budget)
            done = remote_answer(writer, asked, hits, self.encoder(), stream, judge)
            return self.supported_or_quoted(asked, done, hits, judge) if options.fallback else done
        if options.answer == "quote":  # the generator judges code facts where it re-ranks
            return quote_answer(asked, hits, self.encoder(), judge=judge)
        gen = self.local_generator().with_prefill(options.prefill)
        kv = options.kv
        if options.answer == "copy":
            return copy_answer(gen, asked, hits, self.encoder(), kv=kv, stream=stream)
        done = generate_answer(gen, asked, hits, self.encoder(), kv=kv, stream=stream, judge=judge)
        return self.supported_or_quoted(asked, done, hits, judge) if options.fallback else done

    def supported_or_quoted(
        self, asked: Asked, answer: Answer, passages: Sequence[Hit], judge: Judge | None = None
    ) -> Answer:
        """``answer`` when some sentence of it is supported; else the extractive answer
        from ``passages`` (code facts judged by ``judge``), carrying the model's as
        ``generated`` and naming the model it was asked of (``Answer.model``)."""
        if answer.supported or not passages:
            return answer
        quoted = quote_answer(asked, passages, self.encoder(), judge=judge)
        # kv_stats stays: it describes the generation this ask ran
        return dataclasses.replace(
            quoted,
            generated=answer,
            dropped=answer.dropped,
            kv_stats=answer.kv_stats,
            model=answer.model,
        )

    def shared_context(
        self,
        questions: Sequence[str],
        options: AskOptions,
        document: str | os.PathLike[str] | None = None,
    ) -> list[Hit]:
        """The one context :meth:`ask_many` answers from: every chunk of ``document`` in
        order, or the union of each question's best passages."""
        if document is not None:
            return self.retriever.document_hits(document)
        seen: dict[tuple[str, int, int], Hit] = {}  # a unit two questions find: once
        for q in questions:
            for h in self.search(q, options.search):
                seen.setdefault((h.source, h.start, h.end), h)
        return without_nested(list(seen.values()))

    def ask_many(
        self,
        questions: Sequence[str],
        options: AskOptions = ASK_DEFAULTS,
        *,
        document: str | os.PathLike[str] | None = None,
        stream: Callable[[int, str], None] | None = None,
        passages: Sequence[Hit] | None = None,
    ) -> list[Answer]:
        """Answer several questions from one context, prefilled and compressed once.

        The context is the whole of ``document`` (its chunks, numbered, in order) or else
        the union of each question's ``options.k`` best chunks as ``options`` select them
        (:meth:`search`). The KV cache is compressed (``kv_budget``, ``kv_method``)
        without knowing the questions (scored as ``KVConfig.observe`` says) and
        truncated back after each answer; ``prefill``, ``fallback`` and ``rerank`` (whose
        generator also judges the code facts quoted) as in :meth:`ask`. Options one shared
        context cannot apply are refused (:meth:`AskOptions.for_one_context`).
        ``stream(i, text)`` receives question ``i``'s answer as it is made; ``passages``:
        the context already found (:meth:`shared_context`; a server finds it under its
        index lock).
        """
        options = options.for_one_context()
        if passages is None:
            passages = self.shared_context(questions, options, document)
        if not passages:
            return [Answer(NO_PASSAGE, ()) for _ in questions]
        # A whole document gets all the model's window can hold; retrieved passages the
        # generator's usual budget. Passages that do not fit are dropped whole (reported).
        gen = self.local_generator().with_prefill(options.prefill)
        budget = None if document is None else gen.window_budget()
        session = gen.session(passages, options.kv, budget)
        out: list[Answer] = []
        judge = None if options.rerank is None else fact_judge(self.local_generator())
        for i, q in enumerate(questions):
            asked = analyse(q)
            done = session.complete(q, None if stream is None else functools.partial(stream, i))
            made = generated(
                done.text, asked, session.passages, self.encoder(), done.kv_stats,
                session.dropped, done.finish_reason,
                quote=quote_answer(asked, session.passages, self.encoder(), judge=judge),
            )  # fmt: skip
            if options.fallback:
                made = self.supported_or_quoted(asked, made, session.passages, judge)
            out.append(made)
        return out


def _log_hits(hits: Sequence[Hit], since: float) -> None:
    """``-v``: what retrieval found, and how long it took."""
    if not log.isEnabledFor(logging.INFO):
        return
    log.info("retrieved %d passages in %.2f s", len(hits), time.perf_counter() - since)
    for n, h in enumerate(hits[:5], 1):
        log.info("  [%d] %.3f %s", n, h.score, h.cite())
