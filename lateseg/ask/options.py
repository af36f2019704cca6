"""How to search and how to answer: the one list of options, checked once.

:class:`SearchOptions` selects passages (``Pipeline.search``, the HTTP and MCP search,
LangChain's retriever); :class:`AskOptions` adds how they are answered (``Pipeline.ask``,
``Answerer``, ``Service``, ``POST /api/ask``, MCP's ``ask``, ``lateseg ask``). Every
front end builds one of these instead of restating the options, so a new option, its
default and its check are written here only; a wrong value is a
:class:`~lateseg.errors.ConfigError` naming the option, raised before any work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from lateseg.answer.confidence import check_min_confidence
from lateseg.answer.question import code_kind, is_question, weakly_default
from lateseg.errors import ConfigError
from lateseg.generate.remote.config import LLMConfig
from lateseg.generate.rerank import check_reranker
from lateseg.kv.compress import KVConfig
from lateseg.kv.sparse import prefill_mode
from lateseg.options import check_names
from lateseg.retrieve.fusion import fusion_weights
from lateseg.retrieve.retriever import SEARCH_MODES

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel

    from lateseg.generate.writer import Writer
    from lateseg.kv.sparse import SparsePrefill

#: How ``ask`` answers: quote the sentence that states what is asked, copy a span of
#: the passages with the generator (constrained decoding), or generate freely (each
#: sentence checked; an unsupported answer is replaced by the quote). ``Answer.mode``
#: says which made an answer, in the same words.
ANSWER_MODES = ("quote", "copy", "generate")
#: The names earlier versions used, still accepted where a user gives a mode.
MODE_ALIASES = {"extractive": "quote", "generative": "generate"}
#: The default, chosen on bench/answers.py (bench/results/answers.md).
DEFAULT_ANSWER = "quote"
#: The tokens of passages a model behind a URL is given when ``context_tokens`` is not.
REMOTE_CONTEXT_TOKENS = 3000


def answer_mode(answer: str | None, extractive: bool = False, generator: bool = False) -> str:
    """The answer mode asked for: ``answer`` (one of :data:`ANSWER_MODES` or an alias
    of :data:`MODE_ALIASES`), ``"quote"`` for ``extractive``, ``"generate"`` when only
    generator settings (``generator``: a KV budget or method, a sparse prefill) say a
    generator is wanted, else :data:`DEFAULT_ANSWER`."""
    answer = MODE_ALIASES.get(answer, answer) if answer is not None else None
    if answer is not None and answer not in ANSWER_MODES:
        raise ConfigError(f"answer={answer!r}; choose one of {', '.join(ANSWER_MODES)}")
    if extractive:
        if answer not in (None, "quote"):
            raise ConfigError(f"extractive=True quotes; it cannot be answer={answer!r}")
        return "quote"
    if answer is None and generator:
        return "generate"
    return answer or DEFAULT_ANSWER


#: The most passages one search returns, and the most one answer reads: past these a
#: search ranks the whole index (``ask -k 100000`` ran five minutes over every chunk)
#: and an answer reads passages no quote or generator can use.
MAX_SEARCH_K = 1000
MAX_ASK_K = 50


def _positive(name: str, value: Any, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name}={value!r}; give a whole number of at least 1")


#: How ask and search choose passages: :data:`SEARCH_MODES`, or ``"auto"`` (the
#: default): dense, but hybrid for a question about code or any question of a codebase
#: (:func:`search_mode`).
QUERY_MODES = ("auto", *SEARCH_MODES)
#: What a search returns: ``"chunks"``, the stored chunks; ``"units"``, each code hit
#: as the function, method or class it lies in (the innermost of at most
#: :data:`UNIT_CHARS` characters; a longer one keeps its chunk), a unit two hits share
#: once, at the better hit's place, so ``k`` hits are ``k`` different units;
#: ``"auto"`` (the default): units where ``auto`` searches as for code (hybrid: a
#: question about code, or any question of a codebase), chunks otherwise. Measured on
#: real repositories in ``bench/results/code.md`` (round 7).
PASSAGES = ("auto", "chunks", "units")
#: The longest function, method or class a code hit is widened to: two or three screens
#: of code.
UNIT_CHARS = 8000


def search_mode(
    mode: str, question: str, codebase: bool = False, about_code: bool | None = None
) -> str:
    """The mode ``mode`` names for ``question``: itself, or for ``"auto"``, ``"hybrid"``
    when the question is about code (it asks which exception, default, environment
    variable, exit code or function: :func:`~lateseg.answer.question.code_kind`), or
    when it is a question (:func:`~lateseg.answer.question.is_question`) and the search
    looks in a ``codebase``; ``"dense"`` otherwise (``about_code``: the caller's reading
    of the question where it has analysed it already). Measured on real code
    (``bench/results/code.md``): hybrid for questions over a repository raised hit@5 on
    humanize, HTTPie and isort; a description of code (the stdlib sets, docstrings as
    queries) stays dense, where hybrid lost 0.05; questions over contracts and licences
    stay dense, where hybrid lost on the licences."""
    if mode != "auto":
        return mode
    if about_code is None:  # a default in a contract's words too: hybrid in a codebase only
        about_code = code_kind(question) is not None and not weakly_default(question)
    return "hybrid" if about_code or (codebase and is_question(question)) else "dense"


def _concrete(mode: str) -> str:
    return "dense" if mode == "auto" else mode


@dataclass(frozen=True)
class SearchOptions:
    """Which passages: the ``k`` best by ``mode`` (:data:`QUERY_MODES`), of the files
    matching the glob ``source`` and of kind ``kind`` only, tables of contents with
    ``include_toc``, fused with ``weights`` (dense, lexical) in hybrid mode, the best
    re-ranked by ``rerank`` (:data:`~lateseg.generate.rerank.RERANKERS`), returned as
    ``passages`` say (:data:`PASSAGES`: chunks, or code hits as whole units)."""

    k: int = 5
    mode: str = "auto"
    source: str | None = None
    kind: str | None = None
    include_toc: bool = False
    rerank: str | None = None
    weights: tuple[float, float] = (1.0, 1.0)
    passages: str = "auto"

    def __post_init__(self) -> None:
        _positive("k", self.k)
        check_passages(self.passages)
        if self.k > MAX_SEARCH_K:
            raise ConfigError(f"k={self.k}; a search returns at most {MAX_SEARCH_K} passages")
        if self.mode not in QUERY_MODES:
            raise ConfigError(f"mode={self.mode!r}; choose one of {', '.join(QUERY_MODES)}")
        check_reranker(self.rerank)
        if not fusion_weights(self.weights):
            raise ConfigError(
                f"weights={self.weights!r}; give two non-negative numbers, not both 0"
            )

    @classmethod
    def of(cls, **given: Any) -> SearchOptions:
        """The options given as keywords (``Pipeline.search``'s); an unknown name is a
        :class:`ConfigError` listing the known ones."""
        check_names(cls, given, "search")
        return cls(**given)

    def select(
        self,
        question: str | None = None,
        code: bool = True,
        about_code: bool | None = None,
        codebase: bool = False,
    ) -> dict[str, Any]:
        """The options of :meth:`Retriever.search <lateseg.retrieve.retriever.Retriever.search>`
        for ``question`` (``"auto"`` made a mode by :func:`search_mode`, with
        ``about_code`` where the caller has analysed the question already and
        ``codebase`` where the search looks in one; dense without a question, or where
        the index holds no ``code``)."""
        mode = _concrete(self.mode)
        if question is not None and code:
            mode = search_mode(self.mode, question, codebase, about_code)
        elif self.mode == "auto" and code and about_code:
            mode = "hybrid"
        return {
            "mode": mode,
            "source": self.source,
            "kind": self.kind,
            "include_toc": self.include_toc,
            "weights": self.weights,
        }

    def units(self, mode: str) -> bool:
        """Whether code hits are returned as whole units (:data:`PASSAGES`), ``mode``
        being the mode :meth:`select` chose: ``auto`` widens where it searches as for
        code (it chose hybrid)."""
        if self.passages != "auto":
            return self.passages == "units"
        return self.mode == "auto" and mode == "hybrid"


def check_passages(passages: Any) -> None:
    """A :class:`ConfigError` unless ``passages`` is one of :data:`PASSAGES`."""
    if passages not in PASSAGES:
        raise ConfigError(f"passages={passages!r}; choose one of {', '.join(PASSAGES)}")


@dataclass(frozen=True)
class AskOptions:
    """How to answer: from the ``k`` best passages, selected as by :class:`SearchOptions` (``mode``,
    ``source``, ``kind``, ``include_toc``, ``rerank``, ``passages``) and widened with their
    neighbours to ``context`` characters; ``answer`` (:data:`ANSWER_MODES`, an alias is read as its
    mode; default :data:`DEFAULT_ANSWER`, or ``"generate"`` when generator settings are given); the
    generator's KV cache compressed to ``kv_budget`` (tokens, or a share in (0, 1)) by
    ``kv_method``, its prompt prefilled by ``prefill`` (``"dense"``, ``"sparse"`` or settings); with
    ``fallback``, a generated answer none of whose sentences is supported is replaced by the quote;
    a quote rated below ``min_confidence`` (in [0, 1]; default
    :data:`~lateseg.answer.confidence.MIN_CONFIDENCE`; 0: never) is unsure. A quote's
    ``rerank`` also judges among the facts a code question's passages state
    (:func:`~lateseg.generate.rerank.fact_judge`).

    With ``llm``, that model writes the answer: a model behind a URL
    (:class:`~lateseg.generate.remote.config.LLMConfig`), any LangChain chat model
    (``BaseChatModel``) or any :class:`~lateseg.generate.writer.Writer`. ``answer`` is
    then ``"generate"`` (quote and copy are refused, so the model is never silently
    ignored), from whole passages under ``context_tokens`` (default
    :data:`REMOTE_CONTEXT_TOKENS`; only with ``llm``)."""

    k: int = 5
    answer: str | None = None
    mode: str = "auto"
    source: str | None = None
    kind: str | None = None
    include_toc: bool = False
    rerank: str | None = None
    context: int | None = None
    kv_budget: int | float | None = None
    kv_method: str | None = None
    prefill: str | SparsePrefill | None = None
    fallback: bool = True
    min_confidence: float | None = None
    llm: LLMConfig | BaseChatModel | Writer | None = None
    context_tokens: int | None = None
    passages: str = "auto"
    #: The options that select the passages.
    search: SearchOptions = field(init=False, repr=False, compare=False)
    #: The KV config ``kv_budget`` and ``kv_method`` make (None: no compression).
    kv: KVConfig | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.k, int) and self.k > MAX_ASK_K:
            raise ConfigError(f"k={self.k}; an answer reads at most {MAX_ASK_K} passages")
        search = SearchOptions(
            self.k, self.mode, self.source, self.kind, self.include_toc, self.rerank,
            passages=self.passages,
        )  # fmt: skip
        _positive("context", self.context, optional=True)
        kv = KVConfig.from_options(self.kv_budget, self.kv_method)
        sparse = prefill_mode(self.prefill) is not None
        how = answer_mode(self.answer, generator=kv is not None or sparse or self.llm is not None)
        _check_remote(self.llm, self.context_tokens, how, kv is not None or sparse)
        if how == "quote" and (kv is not None or sparse):
            raise ConfigError(
                "kv_budget/kv_method/prefill apply to the generator, not to quoted answers"
            )
        object.__setattr__(self, "answer", how)
        object.__setattr__(self, "min_confidence", check_min_confidence(self.min_confidence))
        object.__setattr__(self, "search", search)
        object.__setattr__(self, "kv", kv)

    @classmethod
    def of(cls, *, extractive: bool = False, **given: Any) -> AskOptions:
        """The options given as keywords (``Pipeline.ask``'s), ``extractive=True`` read
        as ``answer="quote"``; an unknown name is a :class:`ConfigError` listing the
        known ones."""
        check_names(cls, given, "ask")
        if extractive:
            given["answer"] = answer_mode(given.get("answer"), extractive=True)
        return cls(**given)

    def for_one_context(self) -> AskOptions:
        """These options, for answers all made from one shared, prefilled context
        (``ask_many``): the options of one question's own passages or writer
        (``context``, ``min_confidence``, ``llm``, ``context_tokens``, and
        ``answer="copy"``) are refused, never silently ignored."""
        own = [
            n
            for n in ("context", "min_confidence", "llm", "context_tokens")
            if getattr(self, n) != getattr(ASK_DEFAULTS, n)
        ]
        if self.answer == "copy":
            own.insert(0, "answer='copy'")
        if own:
            raise ConfigError(
                f"ask_many generates every answer from one shared context: {', '.join(own)} "
                "cannot apply (ask each question alone)"
            )
        return self


def _check_remote(llm: Any, context_tokens: Any, how: str, local: bool) -> None:
    """``llm`` and ``context_tokens`` agree with the answer mode ``how`` and with the
    local generator's settings (``local``: a KV budget or sparse prefill given)."""
    if llm is None:
        if context_tokens is not None:
            raise ConfigError(
                f"context_tokens={context_tokens!r} budgets the passages of llm; give llm too"
            )
        return
    if not isinstance(llm, LLMConfig):
        from lateseg.generate.remote.choice import as_writer

        as_writer(llm)  # a ConfigError naming what llm may be
    if how != "generate":
        raise ConfigError(f"llm writes the answer; it cannot be answer={how!r}")
    if local:
        raise ConfigError("kv_budget/kv_method/prefill apply to the local generator, not to llm")
    _positive("context_tokens", context_tokens, optional=True)


#: The options of an ask that gives none.
ASK_DEFAULTS = AskOptions()


_Options = TypeVar("_Options", AskOptions, SearchOptions)


def options_of(
    kind: type[_Options], options: _Options | None, k: int | None, given: dict[str, Any]
) -> _Options:
    """``options``, or those ``k`` and ``given`` name (the keywords a caller writes
    inline, ``ask(q, k=3, answer="copy")``); never both, so no option is silently
    ignored."""
    if options is not None:
        if k is not None or given:
            raise ConfigError("give options=… or the options as keywords, not both")
        return options
    if k is not None:
        given = {"k": k, **given}
    return kind.of(**given)
