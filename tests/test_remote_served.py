"""The client of a model behind a URL against a real OpenAI-compatible server that lateseg
did not write: ``transformers serve`` on the packaged SmolLM2 folder (the ``served_llm``
fixture, slow). Whole and streamed answers agree with each other and with lateseg's
in-process generator on the same chat, greedy."""

from __future__ import annotations

import time

import pytest

from lateseg.errors import RemoteModelError
from lateseg.generate.remote.client import ESTIMATE, RemoteLLM
from lateseg.generate.remote.config import LLMConfig
from lateseg.generate.remote.generator import RemoteGenerator, chat_messages
from lateseg.types import Hit

pytestmark = pytest.mark.slow

PASSAGES = [
    Hit(
        source="/docs/msa.txt",
        start=0,
        end=93,
        text="12.2 Either party may terminate this Agreement for convenience on "
        "ninety (90) days' written notice.",
        score=0.9,
        section="12 Term and Termination",
    )
]
QUESTION = "How many days' notice must be given to terminate for convenience?"
TOKENS = 24


def test_chat_and_stream_agree_with_each_other_and_the_in_process_generator(served_llm) -> None:
    from lateseg.generate.local import shared_generator

    url, model = served_llm
    messages = chat_messages(QUESTION, PASSAGES)
    with RemoteLLM(LLMConfig(url=url, timeout_s=120)) as llm:
        assert llm.models() == [model]
        assert llm.model_name() == model  # the server's only model, taken when none is named
        start = time.monotonic()
        whole = llm.chat(messages, max_tokens=TOKENS)
        chat_s = time.monotonic() - start
        streamed = "".join(llm.stream(messages, max_tokens=TOKENS))
    assert whole.text.strip() and whole.model == model
    assert streamed == whole.text
    local = shared_generator().complete(messages, max_new_tokens=TOKENS, temperature=0.0)
    assert local.finish_reason == whole.finish_reason
    # The in-process generator marks an answer cut at the token limit with "…".
    text = local.text.removesuffix("…") if local.finish_reason == "length" else local.text
    assert text.strip() == whole.text.strip(), (
        f"in-process: {local.text!r}; served: {whole.text!r} ({chat_s:.1f} s)"
    )


def test_a_draft_through_the_server_and_its_failures(served_llm) -> None:
    url, model = served_llm
    with RemoteLLM(LLMConfig(url=url, model=model, timeout_s=120)) as llm:
        draft = RemoteGenerator(llm, context_tokens=500, max_tokens=TOKENS).draft(
            QUESTION, PASSAGES
        )
        # transformers serve has no /tokenize: the count is the stated estimate.
        assert draft.plan.counting == ESTIMATE
        assert draft.text.strip() and draft.model == model
        assert draft.plan.fit.passages == tuple(PASSAGES)
    # The server is pinned to one model: another name is refused, and the error lists it.
    llm = RemoteLLM(LLMConfig(url=url, model="gpt-9", timeout_s=30))
    with llm, pytest.raises(RemoteModelError) as info:
        llm.chat([{"role": "user", "content": "hi"}], max_tokens=2)
    assert info.value.kind == "model" and model in str(info.value)
