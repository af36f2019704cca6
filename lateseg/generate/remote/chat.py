"""Any LangChain chat model as the writer of a generated answer
(:class:`~lateseg.generate.writer.Writer`): ``pipe.ask(q, llm=ChatOllama(...))``.

The model writes from the same messages and the same whole-chunk context as a model
behind a URL; lateseg then locates the phrase, checks every sentence and cites, as for
any writer. Made by :func:`~lateseg.generate.remote.choice.as_writer` when such a model
is given (the ``langchain`` member of :data:`~lateseg.generate.writer.WRITERS`).
langchain-core (the ``lateseg[langchain]`` extra) is imported only when a LangChain
model is wrapped, never by importing this module: ``import lateseg`` and a model-server
ask never import it. It is the one place the answer path meets LangChain; it lives in
``generate`` because the answer path uses it (``integrations`` re-exports it).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

from lateseg.errors import GenerationError, LatesegError
from lateseg.generate.remote.errors import one_line
from lateseg.generate.writer import ESTIMATE, Completion, Usage, estimate_tokens, register

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import BaseMessage

log = logging.getLogger(__name__)

# Words providers use for an answer cut at its token limit, as the OpenAI API says it.
_LENGTH = {"max_tokens": "length", "max_output_tokens": "length", "MAX_TOKENS": "length"}


def display_name(model: BaseChatModel) -> str:
    """The name ``Answer.model`` shows for ``model``: its ``model_name`` or ``model``
    setting (``ChatOpenAI``, ``ChatOllama``, ``ChatAnthropic``, ``LatesegChatModel``),
    else its class name."""
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value.strip():
            return value
    return type(model).__name__


def is_chat_model(llm: object) -> TypeGuard[BaseChatModel]:
    """Whether ``llm`` is a LangChain chat model. Read without importing LangChain: a
    ``BaseChatModel`` exists only once langchain-core's module of it has been imported."""
    module = sys.modules.get("langchain_core.language_models.chat_models")
    return module is not None and isinstance(llm, module.BaseChatModel)


def counts_own_tokens(model: BaseChatModel) -> bool:
    """Whether ``model`` counts tokens with a tokenizer of its own: a
    ``custom_get_token_ids``, or a class that overrides ``get_num_tokens`` or
    ``get_token_ids``. LangChain's default counter is GPT-2's tokenizer, fetched from the
    Hugging Face hub on first use: not the model's, and a download lateseg never makes
    unasked; the stated estimate is used instead."""
    from langchain_core.language_models import BaseLanguageModel

    if getattr(model, "custom_get_token_ids", None) is not None:
        return True
    cls = type(model)
    return any(
        getattr(cls, name) is not getattr(BaseLanguageModel, name)
        for name in ("get_num_tokens", "get_token_ids")
    )


@register
class ChatModelWriter:
    """``model`` (any LangChain ``BaseChatModel``) as a
    :class:`~lateseg.generate.writer.StreamingWriter`.

    * Its own settings govern how it writes (temperature, its token limit: set them when
      you build it, e.g. ``ChatOllama(model=..., temperature=0, num_predict=256)``);
      lateseg's ``max_tokens`` and ``temperature`` are not passed, as chat models name
      them differently. The stop strings are passed (``stop=``, every chat model's
      argument).
    * Tokens are counted by its ``get_num_tokens`` where it has a tokenizer of its own
      (:func:`counts_own_tokens`), else (or when that fails) by the stated estimate;
      :attr:`counting` says which, and the answer's ``kv_stats["counting"]`` too.
    * Whatever it raises becomes one :class:`~lateseg.errors.GenerationError` line naming
      the model (lateseg's own errors pass as they are)."""

    name = "langchain"
    summary = "any LangChain chat model"

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self._name = display_name(model)
        self._counts = counts_own_tokens(model)

    @classmethod
    def accepts(cls, llm: object) -> bool:
        """Whether ``llm`` is a LangChain chat model (:func:`is_chat_model`)."""
        return is_chat_model(llm)

    @classmethod
    def of(cls, llm: Any) -> ChatModelWriter:
        """The writer of the chat model ``llm``."""
        return cls(llm)

    def __repr__(self) -> str:
        return f"ChatModelWriter({type(self.model).__name__}, model={self._name!r})"

    @property
    def counting(self) -> str:
        return f"{self._name} get_num_tokens" if self._counts else ESTIMATE

    def model_name(self) -> str:
        return self._name

    def count_tokens(self, text: str) -> int:
        if self._counts:
            try:
                return int(self.model.get_num_tokens(text))
            except Exception as e:  # any tokenizer failure: estimate, and say so
                log.warning(
                    "%s could not count tokens (%s); estimating them as %s",
                    self._name, one_line(f"{type(e).__name__}: {e}", 120), ESTIMATE,
                )  # fmt: skip
                self._counts = False
        return estimate_tokens(text)

    def _failed(self, e: Exception) -> GenerationError:
        said = one_line(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)
        return GenerationError(f"the chat model {self._name} failed to answer: {said}")

    def chat(
        self,
        messages: Sequence[dict[str, str]],
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Completion:
        try:
            reply = self.model.invoke(_messages(messages), stop=list(stop) or None)
        except LatesegError:
            raise
        except Exception as e:
            raise self._failed(e) from e
        meta = dict(reply.response_metadata or {})
        model = meta.get("model_name") or meta.get("model")
        return Completion(
            text=str(reply.text),
            model=model if isinstance(model, str) and model else self._name,
            finish_reason=_finish(meta),
            usage=Usage.of(getattr(reply, "usage_metadata", None), "input_tokens", "output_tokens"),
        )

    def stream(
        self,
        messages: Sequence[dict[str, str]],
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        """The reply's text as the model gives it (a model that cannot stream gives it
        whole: LangChain's own fallback). Closing this closes the model's stream."""
        pieces = self.model.stream(_messages(messages), stop=list(stop) or None)
        try:
            while True:
                try:
                    chunk = next(pieces, None)
                except LatesegError:
                    raise
                except Exception as e:
                    raise self._failed(e) from e
                if chunk is None:
                    return
                text = str(chunk.text)
                if text:
                    yield text
        finally:
            close = getattr(pieces, "close", None)  # a generator: stop the model's stream
            if close is not None:
                close()


def _messages(messages: Sequence[dict[str, str]]) -> list[BaseMessage]:
    from langchain_core.messages import convert_to_messages

    return convert_to_messages([(m["role"], m["content"]) for m in messages])


def _finish(meta: dict[str, Any]) -> str | None:
    """Why the model stopped, in the OpenAI API's words where a provider uses others
    (Ollama's ``done_reason``, Anthropic's ``stop_reason``)."""
    for key in ("finish_reason", "done_reason", "stop_reason"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return _LENGTH.get(value, value)
    return None
