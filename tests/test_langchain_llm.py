"""Any LangChain chat model writes the answer (issue 45, point 2): ``pipe.ask(q,
llm=chat_model)`` and ``answer_chain``. The chat model writes from lateseg's messages and
whole-chunk context; lateseg's own checks (phrase, support, citations) run unmocked.
LangChain's own test models (``FakeListChatModel``, ``GenericFakeChatModel``) stand in
for a third-party model; lateseg's ``LatesegChatModel`` over the packaged SmolLM2 is a
real one (slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from conftest import DEMO_QUESTION
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    FakeListChatModelError,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import RunnableLambda

from lateseg.ask.options import AskOptions
from lateseg.encode.models import DEFAULT_GENERATOR
from lateseg.errors import ConfigError, GenerationError
from lateseg.generate.remote.choice import as_writer
from lateseg.generate.remote.client import RemoteLLM
from lateseg.generate.remote.config import LLMConfig
from lateseg.generate.remote.generator import RemoteGenerator
from lateseg.generate.writer import ESTIMATE, StreamingWriter
from lateseg.integrations.langchain import (
    ChatModelWriter,
    LatesegChatModel,
    LatesegRetriever,
    answer_chain,
)
from lateseg.types import Answer

GOLD = "sixty (60) days"
WRONG = "The Client must give seventeen (17) days' notice [1]."


def gold_reply(pipe, model: BaseChatModel, **options: Any) -> str:
    """A reply that quotes the gold sentence and marks the number the prompt gives it."""
    prepared = pipe.answerer.prepare(DEMO_QUESTION, AskOptions(llm=model, **options))
    plan = RemoteGenerator(as_writer(model)).plan(prepared.question, prepared.hits)
    n = next(n for n, h in enumerate(plan.fit.passages, 1) if GOLD in h.text)
    return f"The Client must give {GOLD}' prior written notice [{n}]."


def test_a_reply_quoting_the_passage_is_supported_cited_and_names_the_model(sample_index):
    reply = gold_reply(sample_index, FakeListChatModel(responses=["-"]))
    answer = sample_index.ask(DEMO_QUESTION, llm=FakeListChatModel(responses=[reply]))
    assert answer.mode == "generate" and answer.generated is None
    assert answer.text == reply and answer.supported
    assert answer.model == "FakeListChatModel"
    assert GOLD in answer.citations[0].text and answer.cited_by == "model"
    assert answer.phrase is not None and answer.phrase.text == GOLD
    assert answer.kv_stats is not None and answer.kv_stats["counting"] == ESTIMATE
    assert 0 < answer.kv_stats["context_tokens"] <= answer.kv_stats["context_budget"] == 3000
    assert '"model": "FakeListChatModel"' in json.dumps(answer.to_dict())


def test_a_streaming_chat_model_streams_the_draft_then_lateseg_checks_it(sample_index):
    reply = gold_reply(sample_index, FakeListChatModel(responses=["-"]))
    model = GenericFakeChatModel(messages=iter([AIMessage(content=reply)]))
    pieces: list[str] = []
    answer = sample_index.ask(DEMO_QUESTION, llm=model, stream=pieces.append)
    assert len(pieces) > 5 and "".join(pieces) == reply
    assert answer.supported and answer.model == "GenericFakeChatModel"
    assert GOLD in answer.citations[0].text


def test_a_wrong_reply_is_flagged_and_replaced_by_the_quote(sample_index):
    model = FakeListChatModel(responses=[WRONG])
    answer = sample_index.ask(DEMO_QUESTION, llm=model)
    assert answer.mode == "quote" and answer.generated is not None
    assert answer.generated.text == WRONG and not answer.generated.supported
    assert answer.generated.model == "FakeListChatModel"
    assert answer.model == "FakeListChatModel"  # the model asked, not None (issue 62)
    assert answer.phrase is not None and "60" in answer.phrase.text
    kept = sample_index.ask(DEMO_QUESTION, llm=model, fallback=False)
    assert kept.mode == "generate" and kept.text == WRONG and kept.supported is False
    assert not any(s.supported for s in kept.support)


def test_tokens_are_counted_by_the_models_own_counter_else_by_the_stated_estimate(sample_index):
    """Budget 1000: the passages take about 700 tokens by the estimate, several times
    that counted one token a character; a counter that fails falls back to the estimate."""
    per_char = FakeListChatModel(responses=[WRONG], custom_get_token_ids=lambda t: [0] * len(t))
    estimated = sample_index.ask(DEMO_QUESTION, llm=FakeListChatModel(responses=[WRONG]),
                                 context_tokens=1000, fallback=False)  # fmt: skip
    counted = sample_index.ask(DEMO_QUESTION, llm=per_char, context_tokens=1000, fallback=False)
    assert estimated.kv_stats["counting"] == ESTIMATE and not estimated.dropped
    assert counted.kv_stats["counting"] == "FakeListChatModel get_num_tokens"
    assert counted.dropped and len(counted.context) < len(estimated.context)
    assert counted.kv_stats["context_tokens"] <= 1000
    sent = sum(len(h.text) for h in counted.context)
    assert counted.kv_stats["context_tokens"] > sent  # counted per character, with headers

    def broken(text: str) -> list[int]:
        raise RuntimeError("no tokenizer here")

    failing = FakeListChatModel(responses=[WRONG], custom_get_token_ids=broken)
    answer = sample_index.ask(DEMO_QUESTION, llm=failing, context_tokens=1000, fallback=False)
    assert answer.kv_stats == {**estimated.kv_stats}


class _Unreachable(BaseChatModel):
    """A chat model whose provider is down (a third-party model failing its way)."""

    model: str = "provider-model-7b"

    @property
    def _llm_type(self) -> str:
        return "unreachable"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:  # fmt: skip
        raise ConnectionError("connection reset by peer\nwhile reading the response")


def test_a_failing_chat_model_is_one_clear_generation_error(sample_index):
    with pytest.raises(GenerationError) as e:
        sample_index.ask(DEMO_QUESTION, llm=_Unreachable())
    said = str(e.value)
    assert "\n" not in said and "provider-model-7b" in said
    assert "ConnectionError: connection reset by peer while reading" in said
    assert isinstance(e.value.__cause__, ConnectionError)
    # a stream that breaks after a few pieces
    breaking = FakeListChatModel(responses=[WRONG], error_on_chunk_number=3)
    pieces: list[str] = []
    with pytest.raises(GenerationError, match="FakeListChatModel failed") as e:
        sample_index.ask(DEMO_QUESTION, llm=breaking, stream=pieces.append)
    assert isinstance(e.value.__cause__, FakeListChatModelError) and "".join(pieces) == "The"
    with pytest.raises(ConfigError, match="LangChain chat model"):
        AskOptions(llm="gpt-4o")
    with pytest.raises(ConfigError, match="answer='quote'"):
        AskOptions(llm=FakeListChatModel(responses=["-"]), answer="quote")


def test_the_lcel_chain_returns_lateseg_answers(sample_index):
    retriever = LatesegRetriever(pipeline=sample_index, k=5)
    reply = gold_reply(sample_index, FakeListChatModel(responses=["-"]), k=5)
    chain = answer_chain(retriever, FakeListChatModel(responses=[reply]))
    answer = chain.invoke(DEMO_QUESTION)
    assert isinstance(answer, Answer) and answer.supported and answer.model == "FakeListChatModel"
    assert answer.phrase is not None and answer.phrase.text == GOLD
    phrase = chain | RunnableLambda(lambda a: a.phrase.text if a.phrase else None)
    assert phrase.batch([DEMO_QUESTION, DEMO_QUESTION]) == [GOLD, GOLD]
    wrong = answer_chain(sample_index, FakeListChatModel(responses=[WRONG]), fallback=False)
    assert wrong.invoke(DEMO_QUESTION).supported is False
    quoted = answer_chain(retriever).invoke(DEMO_QUESTION)  # no model: lateseg's quote
    assert quoted.mode == "quote" and GOLD in quoted.text
    with pytest.raises(ConfigError, match="context_tokens=0"):
        answer_chain(retriever, FakeListChatModel(responses=["-"]), context_tokens=0)
    with pytest.raises(TypeError, match="question string"):
        chain.invoke({"question": DEMO_QUESTION})


@pytest.mark.slow
def test_lateseg_s_own_chat_model_writes_a_checked_answer(sample_index):
    model = LatesegChatModel(max_tokens=48)
    writer = ChatModelWriter(model)
    assert writer.counting == f"{DEFAULT_GENERATOR} get_num_tokens"
    assert writer.count_tokens("Termination for Convenience") < len("Termination for Convenience")
    pieces: list[str] = []
    answer = sample_index.ask(DEMO_QUESTION, llm=model, context_tokens=1200, stream=pieces.append)
    written = answer.generated or answer
    assert written.mode == "generate" and written.text.strip()
    assert "".join(pieces) == written.text
    assert written.model == DEFAULT_GENERATOR and answer.model == DEFAULT_GENERATOR
    assert written.kv_stats["counting"] == f"{DEFAULT_GENERATOR} get_num_tokens"
    assert 0 < written.kv_stats["context_tokens"] <= 1200
    assert answer.citations and (answer.supported or answer.mode == "quote")


def test_import_lateseg_and_a_model_server_ask_do_not_import_langchain():
    code = (
        "import sys, lateseg\n"
        "from lateseg.ask import answering, options\n"
        "from lateseg.generate import writer\n"
        "from lateseg.generate.remote import generator\n"
        "options.AskOptions(llm=lateseg.LLMConfig('http://localhost:1/v1', 'm'))\n"
        "print(sorted(m for m in sys.modules if m.startswith('langchain')))\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


def test_a_model_server_and_a_chat_model_are_the_same_kind_of_writer():
    with RemoteLLM(LLMConfig("http://127.0.0.1:9/v1", "m")) as server:
        assert isinstance(server, StreamingWriter)
    chat = as_writer(FakeListChatModel(responses=["-"]))
    assert isinstance(chat, ChatModelWriter) and isinstance(chat, StreamingWriter)
    assert as_writer(chat) is chat


def test_every_readme_python_example_imports_only_what_make_install_installs():
    """Issue 62: the README's LangChain example imported ``ChatOllama``, which ``make
    install`` does not install: a reader pasting it got a ModuleNotFoundError."""
    import importlib.util
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks
    missing = []
    for block in blocks:
        # a block made for another environment says so first, and names what it adds
        own = re.match(r"# in the venv of make kvpress-env\n", block)
        if own:
            needs = Path(__file__).resolve().parent.parent / "requirements" / "kvpress.txt"
            assert re.search(r"^kvpress==", needs.read_text("utf-8"), re.M)
        for line in block.splitlines():
            m = re.match(r"\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", line)
            if m:
                top = (m.group(1) or m.group(2)).split(".")[0]
                if own and top == "kvpress":
                    continue  # requirements/kvpress.txt installs it there
                if importlib.util.find_spec(top) is None:
                    missing.append(line.strip())
    assert not missing, f"README imports what make install does not install: {missing}"
