"""Context chosen as whole chunks under a token budget (lateseg.generate.remote.context) and the
draft of a model behind a URL (lateseg.generate.remote.generator), against the
fault-injecting server's well-behaved model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llm_servers import ANSWER, FaultServer

from lateseg.answer.citations import SEPARATOR, passage_block
from lateseg.errors import ConfigError, GenerationError
from lateseg.generate.prompts import CHECKABLE_PROMPT
from lateseg.generate.remote.client import SERVER_TOKENIZER, RemoteLLM
from lateseg.generate.remote.config import LLMConfig
from lateseg.generate.remote.context import fit_context
from lateseg.generate.remote.generator import RemoteGenerator
from lateseg.types import Hit


def hit(source: str, start: int, words: int, score: float) -> Hit:
    text = " ".join(f"w{start}_{i}" for i in range(words))
    return Hit(source=source, start=start, end=start + len(text), text=text, score=score)


def words(text: str) -> int:
    return len(text.split())


# Ranked best first: b.txt's best hit outranks a.txt's.
HITS = [hit("/d/b.txt", 500, 30, 0.9), hit("/d/a.txt", 900, 30, 0.8), hit("/d/b.txt", 100, 30, 0.7)]


def test_whole_chunks_in_document_order_numbered_from_one() -> None:
    fit = fit_context(HITS, budget=10_000, count_tokens=words)
    # Documents by their best hit, passages by position inside each.
    assert [(h.source, h.start) for h in fit.passages] == [
        ("/d/b.txt", 100),
        ("/d/b.txt", 500),
        ("/d/a.txt", 900),
    ]
    assert fit.dropped == ()
    assert fit.tokens == sum(words(passage_block(3, h) + SEPARATOR) for h in HITS)


def test_a_chunk_that_does_not_fit_is_left_out_whole_and_a_shorter_one_may_fit() -> None:
    long, short = hit("/d/a.txt", 0, 80, 0.9), hit("/d/a.txt", 300, 10, 0.5)
    best = hit("/d/a.txt", 600, 20, 1.0)
    fit = fit_context([best, long, short], budget=40, count_tokens=words)
    assert fit.passages == (short, best) and fit.dropped == (long,)
    assert fit.tokens <= 40
    assert all(h.text in (short.text, best.text) for h in fit.passages)
    with pytest.raises(ConfigError, match="context_tokens=0"):
        fit_context(HITS, budget=0, count_tokens=words)


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer(tokenizer=True) as s:
        yield s


def test_a_draft_sends_only_the_question_and_the_fitted_passages(server) -> None:
    with RemoteLLM(LLMConfig(url=server.url, model="ok", timeout_s=10)) as llm:
        gen = RemoteGenerator(llm, context_tokens=90, max_tokens=64)
        draft = gen.draft("How long is the term?", HITS)
    assert draft.text == "".join(ANSWER) and draft.model == "ok"
    assert draft.plan.counting == SERVER_TOKENIZER
    sent = draft.plan.fit.passages
    assert len(sent) == 2 and draft.plan.fit.dropped == (HITS[2],)
    body = server.bodies[-1]
    assert body["messages"][0] == {"role": "system", "content": CHECKABLE_PROMPT}
    user = body["messages"][1]["content"]
    assert user.endswith("\n\nQuestion: How long is the term?")
    assert "[1] (b.txt)" in user and "[2] (a.txt)" in user and HITS[2].text not in user
    assert body["max_tokens"] == 64 and body["temperature"] == 0
    assert set(body) == {"model", "messages", "max_tokens", "temperature", "stream", "stop"}


def test_a_stream_of_the_same_plan_gives_the_same_text(server) -> None:
    with RemoteLLM(LLMConfig(url=server.url, model="ok", timeout_s=10)) as llm:
        gen = RemoteGenerator(llm)
        plan = gen.plan("How long is the term?", HITS)
        assert "".join(gen.stream(plan)) == gen.draft("How long is the term?", HITS).text


def test_no_passage_fits_is_a_clear_error(server) -> None:
    llm = RemoteLLM(LLMConfig(url=server.url, model="ok", timeout_s=10))
    with llm, pytest.raises(GenerationError, match="none of the 3 passages fits context_tokens=5"):
        RemoteGenerator(llm, context_tokens=5).plan("q", HITS)
