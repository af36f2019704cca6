"""Which :class:`~lateseg.generate.writer.Writer` an ``llm`` option names: the first kind of
:data:`~lateseg.generate.writer.WRITERS` that accepts it (a model server's
:class:`~lateseg.generate.remote.config.LLMConfig`, a LangChain chat model, the local
generator), or a writer as it is. Apart from :mod:`~lateseg.generate.writer` because the
kinds' modules (:mod:`lateseg.generate.writers`) import that module's types."""

from __future__ import annotations

from typing import cast

from lateseg.errors import ConfigError
from lateseg.generate.remote.chat import is_chat_model
from lateseg.generate.writers import WRITERS, Writer, WriterKind

__all__ = ["as_writer", "is_chat_model", "writer_kind"]


def writer_kind(llm: object) -> WriterKind | None:
    """The first kind of writer (in registration order) that accepts ``llm``; None when
    none does."""
    for cls in WRITERS.values():
        kind = cast(WriterKind, cls)
        if kind.accepts(llm):
            return kind
    return None


def as_writer(llm: object) -> Writer:
    """The writer of ``llm``: made by the first kind of writer that accepts it
    (:func:`writer_kind`: a LangChain chat model wrapped in a
    :class:`~lateseg.generate.remote.chat.ChatModelWriter`, a local generator in a
    :class:`~lateseg.generate.local_writer.LocalWriter`), else a :class:`Writer` as it
    is. A model server's :class:`~lateseg.generate.remote.config.LLMConfig` is made a
    client here too, but an ask does not come here for one: its client keeps
    connections, so its owner (``Answerer.writer``) makes, keeps and closes it."""
    kind = writer_kind(llm)
    if kind is not None:
        return kind.of(llm)
    if isinstance(llm, Writer):
        return llm
    raise ConfigError(
        f"llm={type(llm).__name__}; give an LLMConfig (LLMConfig.from_env(url, model)), a "
        "LangChain chat model (pip install 'lateseg[langchain]') or a lateseg Writer"
    )
