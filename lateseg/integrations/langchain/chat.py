"""``LatesegChatModel``: the local generator as a LangChain ``BaseChatModel``."""

from __future__ import annotations

import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from lateseg.encode.models import DEFAULT_GENERATOR
from lateseg.errors import ConfigError
from lateseg.generate.local import shared_generator
from lateseg.kv.compress import METHODS, KVConfig

# -- chat model --------------------------------------------------------------------------
#: Per-call arguments of the chat model (``llm.invoke(msgs, max_tokens=64)``).
CALL_ARGUMENTS = frozenset({"model", "max_tokens", "temperature", "seed", "kv_budget", "kv_method"})


class LatesegChatModel(BaseChatModel):
    """A local Hugging Face chat model (default: SmolLM2-135M-Instruct, offline) with
    lateseg's decoding loop.

    ``kv_budget`` (tokens, or a share of the prompt such as 0.25) compresses the KV cache
    after prefill by keeping whole content-defined chunks (``kv_method="lateseg"``; every
    registered method is accepted: {methods}); the observation window is the text
    after the last ``Question:`` in the prompt, else its last tokens. ``temperature`` 0
    (the default) decodes greedily; above 0 samples (``seed`` fixes the draw). ``stop``
    strings end the answer (not included). ``timeout`` and ``max_retries`` are accepted
    for compatibility and unused: nothing is sent anywhere. Text messages only.
    """

    model_config = ConfigDict(populate_by_name=True)

    model: str = Field(default=DEFAULT_GENERATOR, alias="model_name")
    temperature: float | None = 0.0
    max_tokens: int | None = Field(default=256, ge=1)
    stop: list[str] | None = Field(default=None, alias="stop_sequences")
    streaming: bool = False
    kv_budget: int | float | None = None
    kv_method: str | None = None
    device: str | None = None
    seed: int | None = None
    timeout: float | None = None
    max_retries: int | None = None
    _checked: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _check(self) -> LatesegChatModel:
        if self.temperature is not None and self.temperature < 0:
            raise ConfigError(f"temperature={self.temperature} must be >= 0")
        KVConfig.from_options(self.kv_budget, self.kv_method)  # validates the pair
        return self

    @property
    def _llm_type(self) -> str:
        return "lateseg-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "kv_budget": self.kv_budget,
            "kv_method": self.kv_method,
        }

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "lateseg"
        params["ls_model_name"] = kwargs.get("model", self.model)
        params["ls_max_tokens"] = kwargs.get("max_tokens", self.max_tokens)
        params["ls_temperature"] = kwargs.get("temperature", self.temperature)
        if stop or self.stop:
            params["ls_stop"] = stop or self.stop
        return params

    def get_token_ids(self, text: str) -> list[int]:
        """``text``'s token IDs by the generator's own tokenizer (``custom_get_token_ids``
        first, when set): LangChain's default would fetch GPT-2's from the hub, which
        is neither this model's nor offline. Loads the model, as writing does."""
        if self.custom_get_token_ids is not None:
            return self.custom_get_token_ids(text)
        tokenizer = shared_generator(self.model, self.device).tokenizer
        return list(tokenizer.encode(text, add_special_tokens=False))

    def _call(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        on_text: Callable[[str], None] | None,
    ) -> AIMessage:
        unknown = set(kwargs) - CALL_ARGUMENTS
        if unknown:
            raise TypeError(f"unknown generation arguments: {', '.join(sorted(unknown))}")
        model = kwargs.get("model", self.model)
        kv = KVConfig.from_options(
            kwargs.get("kv_budget", self.kv_budget), kwargs.get("kv_method", self.kv_method)
        )
        gen = shared_generator(model, self.device)
        done = gen.complete(
            _chat(messages),
            kv=kv,
            stream=on_text,
            max_new_tokens=kwargs.get("max_tokens", self.max_tokens) or gen.max_new_tokens,
            stop=[*(stop if stop is not None else self.stop or [])],
            temperature=kwargs.get("temperature", self.temperature) or 0.0,
            seed=kwargs.get("seed", self.seed),
        )
        meta: dict[str, Any] = {"model_name": model, "finish_reason": done.finish_reason}
        if done.kv_stats is not None:
            meta["kv"] = done.kv_stats
        return AIMessage(
            content=done.text,
            response_metadata=meta,
            usage_metadata={
                "input_tokens": done.prompt_tokens,
                "output_tokens": done.completion_tokens,
                "total_tokens": done.prompt_tokens + done.completion_tokens,
            },
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.streaming:
            chunks = list(self._stream(messages, stop, run_manager, **kwargs))
            full = chunks[0].message
            for c in chunks[1:]:
                full = full + c.message
            message = AIMessage(
                content=full.content,
                response_metadata=full.response_metadata,
                usage_metadata=getattr(full, "usage_metadata", None),
            )
        else:
            message = self._call(messages, stop, kwargs, None)
        info = {"finish_reason": message.response_metadata.get("finish_reason")}
        return ChatResult(generations=[ChatGeneration(message=message, generation_info=info)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Pieces of text as they are decoded (a worker thread decodes; the pieces come
        through a queue), then a last chunk with the usage and the finish reason."""
        pieces: queue.Queue[Any] = queue.Queue()
        stopped = threading.Event()
        done = object()

        def on_text(text: str) -> None:
            if stopped.is_set():
                raise _Abandoned
            pieces.put(text)

        def work() -> None:
            try:
                pieces.put(self._call(messages, stop, kwargs, on_text))
            except _Abandoned:
                pass
            except BaseException as e:  # handed to the consumer
                pieces.put(e)
            finally:
                pieces.put(done)

        worker = threading.Thread(target=work, name="lateseg-chat-stream", daemon=True)
        worker.start()
        final: AIMessage | None = None
        try:
            while (item := pieces.get()) is not done:
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, AIMessage):
                    final = item
                    continue
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=item))
                if run_manager is not None:
                    run_manager.on_llm_new_token(item, chunk=chunk)
                yield chunk
        finally:
            stopped.set()
        assert final is not None
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                response_metadata=final.response_metadata,
                usage_metadata=final.usage_metadata,
                chunk_position="last",
            ),
            generation_info={"finish_reason": final.response_metadata.get("finish_reason")},
        )

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        iterator = self._stream(messages, stop, None, **kwargs)
        while True:
            chunk: ChatGenerationChunk | None = await run_in_executor(None, next, iterator, None)
            if chunk is None:
                return
            if run_manager is not None and chunk.message.content:
                await run_manager.on_llm_new_token(str(chunk.message.content), chunk=chunk)
            yield chunk


class _Abandoned(Exception):
    """The consumer of a stream stopped reading: the decoding thread stops too."""


_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


def _chat(messages: Sequence[BaseMessage]) -> list[dict[str, str]]:
    """LangChain messages as role/content dicts for the chat template (text only)."""
    out = []
    for m in messages:
        if isinstance(m, ChatMessage):
            role = m.role
        elif isinstance(m, ToolMessage):
            raise ConfigError("LatesegChatModel does not call tools; give it text messages")
        else:
            role = _ROLES.get(m.type, "user")
        if isinstance(m.content, str):
            text = m.content
        else:
            parts = []
            for block in m.content:
                if isinstance(block, str):
                    parts.append(block)
                elif block.get("type") == "text":
                    parts.append(str(block.get("text", "")))
                else:
                    raise ConfigError(
                        f"LatesegChatModel reads text only; got a {block.get('type')!r} block"
                    )
            text = "".join(parts)
        out.append({"role": role, "content": text})
    if not out:
        raise ConfigError("no messages to answer")
    return out


# The methods are the registry's, named in the docstring as they are registered.
LatesegChatModel.__doc__ = (LatesegChatModel.__doc__ or "").replace(
    "{methods}", ", ".join(f"``{name}``" for name in METHODS)
)
