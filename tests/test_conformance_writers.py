"""The answer writers' conformance test: every kind of writer in
:data:`lateseg.generate.writers.WRITERS` runs through the same matrix (the way kvpress runs
every press through one), so a new kind gets the family's whole test by registering and
saying, in :data:`MADE`, how a cheap real one is made.

A writer must name its model, count tokens (more text, never fewer tokens), answer chat
messages with a :class:`~lateseg.generate.writer.Completion`, be the writer
:func:`~lateseg.generate.remote.choice.as_writer` makes of what it accepts, and write a
draft that the answer path (:func:`~lateseg.generate.remote.generator.remote_answer`)
makes a checked, cited :class:`~lateseg.types.Answer`. The kinds: a model behind a URL
(the suite's OpenAI-compatible :class:`~llm_servers.FaultServer`), a LangChain chat model
(langchain-core's ``FakeListChatModel``) and the local generator (the packaged SmolLM2,
slow)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from llm_servers import FaultServer

from lateseg.answer.question import analyse
from lateseg.ask.options import AskOptions
from lateseg.errors import ConfigError
from lateseg.generate.remote.choice import as_writer, writer_kind
from lateseg.generate.remote.generator import RemoteGenerator, remote_answer
from lateseg.generate.writer import Completion, Writer
from lateseg.generate.writers import WRITERS, register
from lateseg.types import Answer, Hit

QUESTION = "How many days' notice must the Client give to terminate for convenience?"
_CLAUSE = (
    "12.2 Termination for Convenience. The Client may terminate this Agreement for "
    "convenience on sixty (60) days' prior written notice to the Provider."
)
_OTHER = "9.1 Data Export. The Customer may export its data for forty-five (45) days."
PASSAGES = [
    Hit("/c/msa.pdf", 0, len(_CLAUSE), _CLAUSE, 0.9, section="12 Term", chunk_id=1),
    Hit("/c/msa.pdf", 900, 900 + len(_OTHER), _OTHER, 0.5, section="9 Data", chunk_id=2),
]
#: What a scripted writer (the server, the chat model) replies.
REPLY = "The Client must give sixty (60) days' prior written notice [1]."


@contextmanager
def _server() -> Iterator[tuple[object, Writer]]:
    from lateseg.generate.remote.config import LLMConfig

    with FaultServer(tokenizer=True) as server:
        server.reply = REPLY
        config = LLMConfig(url=server.url, model="ok", timeout_s=30)
        writer = WRITERS["server"].of(config)
        try:
            yield config, writer
        finally:
            writer.close()


@contextmanager
def _langchain() -> Iterator[tuple[object, Writer]]:
    fake = pytest.importorskip(
        "langchain_core.language_models.fake_chat_models",
        reason="the langchain writer needs langchain-core (pip install 'lateseg[langchain]')",
    )
    model = fake.FakeListChatModel(responses=[REPLY])
    yield model, WRITERS["langchain"].of(model)


@contextmanager
def _local() -> Iterator[tuple[object, Writer]]:
    from lateseg.generate.local import LocalGenerator

    generator = LocalGenerator(max_new_tokens=48)
    yield generator, WRITERS["local"].of(generator)


#: How a cheap real member of each kind is made: ``(what a user gives as llm, its writer)``;
#: and whether making one loads a model (slow).
MADE: dict[str, tuple[Callable[[], Any], bool]] = {
    "server": (_server, False),
    "langchain": (_langchain, False),
    "local": (_local, True),
}


def _kinds() -> list[Any]:
    return [
        pytest.param(name, marks=[pytest.mark.slow] if MADE.get(name, (None, False))[1] else [])
        for name in WRITERS
    ]


@pytest.fixture(params=_kinds())
def made(request) -> Iterator[tuple[str, object, Writer]]:
    name = request.param
    assert name in MADE, f"say in MADE how a cheap real {name!r} writer is made"
    with MADE[name][0]() as (llm, writer):
        yield name, llm, writer


def test_every_kind_is_registered_with_a_name_and_a_summary():
    # in the order their modules were first imported (a LangChain user's import of the
    # chat adapter registers it first): the order asks nothing, see below
    assert {"server", "langchain", "local"} <= set(WRITERS)
    for name, cls in WRITERS.items():
        assert cls.name == name and getattr(cls, "summary", "")
    assert "server (a model behind an OpenAI-compatible URL, from an LLMConfig)" in (
        WRITERS.described()
    )


def test_a_writer_names_its_model_and_is_the_one_as_writer_makes(made):
    name, llm, writer = made
    assert isinstance(writer, Writer) and type(writer) is WRITERS[name]
    assert isinstance(writer.model_name(), str) and writer.model_name().strip()
    assert isinstance(writer.counting, str) and writer.counting
    kind = writer_kind(llm)
    assert kind is WRITERS[name] and kind.accepts(llm)
    made_again = as_writer(llm)
    assert type(made_again) is WRITERS[name]
    if name == "server":
        made_again.close()
    assert as_writer(writer) is writer  # a writer is taken as it is


def test_a_writer_counts_more_tokens_for_more_text(made):
    _, _, writer = made
    texts = ["", "notice", "sixty days' notice", _CLAUSE, f"{_CLAUSE} {_OTHER}"]
    counts = [writer.count_tokens(t) for t in texts]
    assert all(isinstance(n, int) and n >= 0 for n in counts)
    assert counts == sorted(counts) and counts[-1] > counts[1] > 0, counts


def test_a_writer_answers_chat_messages_with_a_completion(made):
    _, _, writer = made
    messages = [
        {"role": "system", "content": "Answer in one short sentence."},
        {"role": "user", "content": "What is two plus two?"},
    ]
    done = writer.chat(messages, max_tokens=16)
    assert isinstance(done, Completion)
    assert isinstance(done.text, str) and isinstance(done.model, str) and done.model
    assert done.finish_reason is None or isinstance(done.finish_reason, str)


def test_a_writers_draft_becomes_a_checked_cited_answer(made, encoder):
    name, _, writer = made
    gen = RemoteGenerator(writer, context_tokens=1000, max_tokens=48)
    answer = remote_answer(gen, analyse(QUESTION), PASSAGES, encoder)
    assert isinstance(answer, Answer) and answer.mode == "generate"
    assert answer.model == writer.model_name() or name == "server"  # the server says its own
    assert answer.kv_stats is not None and answer.kv_stats["counting"] == writer.counting
    assert answer.text.strip() and answer.support  # every sentence checked
    assert all(c in PASSAGES for c in answer.citations)
    for s in answer.support:
        assert s.supported == (s.reason is None)
    if name != "local":  # a scripted reply quoting the clause: supported, cited
        assert answer.supported and answer.citations == (PASSAGES[0],), answer.support


@dataclass(frozen=True)
class Parrot:
    """What a user of the toy kind gives as ``llm``: the one line it says."""

    line: str


def test_a_toy_kind_of_writer_is_one_class_and_one_register_line():
    @register
    class ParrotWriter:
        name: ClassVar[str] = "parrot"
        summary: ClassVar[str] = "says one line"
        counting = "words"

        def __init__(self, parrot: Parrot) -> None:
            self.parrot = parrot

        @classmethod
        def accepts(cls, llm: object) -> bool:
            return isinstance(llm, Parrot)

        @classmethod
        def of(cls, llm: Parrot) -> ParrotWriter:
            return cls(llm)

        def model_name(self) -> str:
            return "parrot"

        def count_tokens(self, text: str) -> int:
            return len(text.split())

        def chat(self, messages, max_tokens, temperature=0.0, stop=()) -> Completion:
            return Completion(self.parrot.line, "parrot", "stop", None)

    try:
        assert "parrot" in WRITERS and list(WRITERS)[-1] == "parrot"
        writer = as_writer(Parrot(REPLY))
        assert isinstance(writer, ParrotWriter) and isinstance(writer, Writer)
        options = AskOptions(llm=Parrot(REPLY))  # checked as any llm is
        assert options.llm == Parrot(REPLY) and options.answer == "generate"
    finally:
        WRITERS.unregister("parrot")
    assert "parrot" not in WRITERS
    with pytest.raises(ConfigError, match="llm=Parrot; give an LLMConfig"):
        AskOptions(llm=Parrot(REPLY))


def test_an_object_of_no_kind_is_refused_as_before():
    with pytest.raises(ConfigError) as e:
        as_writer(object())
    assert str(e.value) == (
        "llm=object; give an LLMConfig (LLMConfig.from_env(url, model)), a LangChain chat "
        "model (pip install 'lateseg[langchain]') or a lateseg Writer"
    )


def test_exactly_one_kind_accepts_a_writers_model(made):
    """The kinds are asked in registration order, which depends on import order: so each
    accepts what no other does, and the order never chooses."""
    name, llm, _ = made
    assert [n for n, cls in WRITERS.items() if cls.accepts(llm)] == [name]
