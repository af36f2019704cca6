"""Which :class:`~lateseg.generate.writer.Writer` an ``llm`` option names: a LangChain chat
model wrapped, a writer as it is. Apart from :mod:`~lateseg.generate.writer` because the
LangChain adapter (:mod:`~lateseg.generate.remote.chat`) imports that module's types."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypeGuard

from lateseg.errors import ConfigError
from lateseg.generate.writer import Writer

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel


def is_chat_model(llm: object) -> TypeGuard[BaseChatModel]:
    """Whether ``llm`` is a LangChain chat model. Read without importing LangChain: a
    ``BaseChatModel`` exists only once langchain-core's module of it has been imported."""
    module = sys.modules.get("langchain_core.language_models.chat_models")
    return module is not None and isinstance(llm, module.BaseChatModel)


def as_writer(llm: object) -> Writer:
    """The writer of ``llm``: a LangChain chat model wrapped
    (:class:`~lateseg.generate.remote.chat.ChatModelWriter`), a :class:`Writer`
    as it is. A model server's :class:`~lateseg.generate.remote.config.LLMConfig` is
    not taken here: its client keeps connections, so its owner (``Answerer.writer``)
    makes and closes it."""
    if is_chat_model(llm):
        from lateseg.generate.remote.chat import ChatModelWriter

        return ChatModelWriter(llm)
    if isinstance(llm, Writer):
        return llm
    raise ConfigError(
        f"llm={type(llm).__name__}; give an LLMConfig (LLMConfig.from_env(url, model)), a "
        "LangChain chat model (pip install 'lateseg[langchain]') or a lateseg Writer"
    )
