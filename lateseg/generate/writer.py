"""Who writes the draft of a generated answer, as one small protocol.

A :class:`Writer` is what the answer path needs of a model it cannot reach inside: the
whole reply to chat messages (:meth:`~Writer.chat`), a token count to fit whole passages
under ``context_tokens`` (:meth:`~Writer.count_tokens`, with :attr:`~Writer.counting`
saying how it counts), and the name ``Answer.model`` shows (:meth:`~Writer.model_name`);
a :class:`StreamingWriter` also gives the reply as it is written. The kinds of writer
are one registry, :data:`WRITERS` (all of them imported by
:mod:`lateseg.generate.writers`), in this order:

* ``server``: a model behind an OpenAI-compatible URL
  (:class:`~lateseg.generate.remote.client.RemoteLLM`, made from an
  :class:`~lateseg.generate.remote.config.LLMConfig`);
* ``langchain``: any LangChain chat model (``ChatOllama``, ``ChatOpenAI``,
  ``ChatAnthropic``, lateseg's own ``LatesegChatModel``), through
  :class:`~lateseg.generate.remote.chat.ChatModelWriter`;
* ``local``: the local Hugging Face generator
  (:class:`~lateseg.generate.local_writer.LocalWriter` over a
  :class:`~lateseg.generate.local.LocalGenerator`).

A kind is a writer class with a ``name``, a ``summary`` and two class methods
(:class:`WriterKind`): ``accepts(llm)``, whether an ``llm`` option is of its kind, and
``of(llm)``, its writer. One ``@register`` line makes a new kind known to
:func:`~lateseg.generate.remote.choice.as_writer` (so to ``AskOptions(llm=...)``) and to
the family's conformance test (``tests/test_conformance_writers.py``).

The answer path (:mod:`~lateseg.generate.remote.generator`) sees only the protocol: the
passages chosen, the prompt, the support check, the phrase and the citations are the
same whoever writes. LangChain is imported only when a LangChain model is given
(``import lateseg`` never imports it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from lateseg.registry import Registry

#: How tokens are counted when the model offers no tokenizer: about four characters a
#: token for English text with the common BPE vocabularies.
CHARS_PER_TOKEN = 4
ESTIMATE = f"estimate (characters / {CHARS_PER_TOKEN})"


def estimate_tokens(text: str) -> int:
    """The tokens ``text`` takes by the stated estimate (:data:`ESTIMATE`)."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN)) if text else 0


@dataclass(frozen=True)
class Usage:
    """Tokens a model says one answer took (None where it did not say)."""

    prompt_tokens: int | None
    completion_tokens: int | None

    @classmethod
    def of(cls, raw: object, prompt: str, completion: str) -> Usage | None:
        """The usage a reply reports in the dict ``raw`` under the keys ``prompt`` and
        ``completion`` (each kept only where it is an integer); None when ``raw`` is not
        a dict."""
        if not isinstance(raw, dict):
            return None
        p, c = raw.get(prompt), raw.get(completion)
        return cls(p if isinstance(p, int) else None, c if isinstance(c, int) else None)


@dataclass(frozen=True)
class Completion:
    """A whole answer: its ``text``, the ``model`` that says it wrote it, why it stopped
    (``"stop"``, ``"length"`` …, or None) and the tokens it took, where said."""

    text: str
    model: str
    finish_reason: str | None
    usage: Usage | None


@runtime_checkable
class Writer(Protocol):
    """A model that writes an answer's draft from chat ``messages`` (``role`` /
    ``content`` dicts). ``max_tokens`` and ``temperature`` are lateseg's wishes; a writer
    whose model was configured when it was built (a LangChain chat model) may keep its
    own. Failures are :class:`~lateseg.errors.GenerationError` (its subclass
    :class:`~lateseg.errors.RemoteModelError` for a server), one line each."""

    @property
    def counting(self) -> str:
        """How :meth:`count_tokens` counts (a tokenizer's name, or :data:`ESTIMATE`)."""
        ...

    def model_name(self) -> str:
        """The model's name, as ``Answer.model`` shows it."""
        ...

    def count_tokens(self, text: str) -> int:
        """The tokens ``text`` takes."""
        ...

    def chat(
        self,
        messages: Sequence[dict[str, str]],
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Completion:
        """The whole reply to ``messages``, ending at any of the ``stop`` strings."""
        ...


@runtime_checkable
class StreamingWriter(Writer, Protocol):
    """A :class:`Writer` that also gives its reply as it is written. Closing the
    iterator early stops the model's work where it can (a server sees the connection go)."""

    def stream(
        self,
        messages: Sequence[dict[str, str]],
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        """The reply's text, piece by piece."""
        ...


class WriterKind(Protocol):
    """A kind of writer as :data:`WRITERS` holds it: the writer class itself, with its
    ``name`` and ``summary``."""

    name: str
    summary: str

    def accepts(self, llm: object) -> bool:
        """Whether ``llm`` (what a user gave as ``llm``) is of this kind."""
        ...

    def of(self, llm: Any) -> Writer:
        """The writer of ``llm`` (one this kind :meth:`accepts`)."""
        ...


#: The kinds of writer by name, in registration order (the order
#: :func:`~lateseg.generate.remote.choice.as_writer` asks them in).
WRITERS: Registry[Writer] = Registry("writer", key="type", option="llm")

_Kind = TypeVar("_Kind", bound=type)


def register(cls: _Kind) -> _Kind:
    """Class decorator: make the writer class ``cls`` a kind of :data:`WRITERS` (it needs
    a ``name`` and the class methods ``accepts`` and ``of``: :class:`WriterKind`)."""
    for method in ("accepts", "of"):
        if not callable(getattr(cls, method, None)):
            raise TypeError(f"a writer needs a class method {method!r} to register")
    WRITERS.register(cls)
    return cls
