"""``ask`` with a model behind a URL (issue 45): the model writes, lateseg picks the
passages, checks every sentence and cites it; against the fault server's scripted model
(fast) and a real ``transformers serve`` (slow)."""

from __future__ import annotations

import json

import pytest
from conftest import DEMO_QUESTION
from llm_servers import KEY, FaultServer

from lateseg.ask.options import AskOptions
from lateseg.errors import ConfigError, RemoteModelError
from lateseg.generate.remote.client import RemoteLLM
from lateseg.generate.remote.config import LLMConfig
from lateseg.generate.remote.generator import RemoteGenerator

GOLD = "sixty (60) days"


@pytest.fixture(scope="module")
def server():
    with FaultServer() as s:
        yield s


@pytest.fixture
def config(server, monkeypatch) -> LLMConfig:
    monkeypatch.setenv("LATESEG_LLM_API_KEY", KEY)
    server.reply = None
    return LLMConfig.from_env(server.url, "ok", max_retries=0)


def gold_number(pipe, config: LLMConfig) -> int:
    """The number the prompt gives the passage stating the gold value."""
    options = AskOptions(llm=config)
    prepared = pipe.answerer.prepare(DEMO_QUESTION, options)
    with RemoteLLM(config) as llm:
        plan = RemoteGenerator(llm).plan(prepared.question, prepared.hits)
    return next(n for n, h in enumerate(plan.fit.passages, 1) if GOLD in h.text)


def test_the_options_name_what_does_not_go_with_a_remote_model(config):
    assert AskOptions(llm=config).answer == "generate"
    for given, name in [
        ({"answer": "quote"}, "answer='quote'"),
        ({"answer": "copy"}, "answer='copy'"),
        ({"kv_budget": 64}, "kv_budget"),
        ({"context_tokens": 0}, "context_tokens=0"),
    ]:
        with pytest.raises(ConfigError, match=name):
            AskOptions.of(llm=config, **given)
    with pytest.raises(ConfigError, match="context_tokens=500"):
        AskOptions(context_tokens=500)
    assert KEY not in repr(AskOptions(llm=config))


@pytest.mark.parametrize("streamed", [False, True])
def test_a_stated_gold_value_is_supported_cited_and_names_its_model(
    sample_index, server, config, streamed
):
    n = gold_number(sample_index, config)
    server.reply = f"The Client must give {GOLD}' prior written notice [{n}]."
    pieces: list[str] = []
    answer = sample_index.ask(DEMO_QUESTION, llm=config, stream=pieces.append if streamed else None)
    assert answer.mode == "generate" and answer.generated is None
    assert answer.supported and answer.model == "ok"
    assert GOLD in answer.citations[0].text
    assert answer.phrase is not None and "60" in answer.phrase.text
    assert answer.kv_stats and answer.kv_stats["context_budget"] == 3000
    if streamed:
        assert "".join(pieces) == server.reply
    shown = json.dumps(answer.to_dict())
    assert '"model": "ok"' in shown and KEY not in shown and KEY not in repr(answer)


def test_a_value_the_passages_do_not_hold_is_replaced_by_the_quote(sample_index, server, config):
    server.reply = "The Client must give seventeen (17) days' notice [1]."
    answer = sample_index.ask(DEMO_QUESTION, llm=config)
    assert answer.mode == "quote" and answer.generated is not None
    assert answer.generated.text == server.reply and answer.generated.model == "ok"
    assert not answer.generated.supported
    assert answer.phrase is not None and "60" in answer.phrase.text
    kept = sample_index.ask(DEMO_QUESTION, llm=config, fallback=False)
    assert kept.mode == "generate" and kept.text == server.reply and not kept.supported


def test_a_server_error_is_one_line_naming_the_server(sample_index, server, monkeypatch):
    monkeypatch.setenv("LATESEG_LLM_API_KEY", KEY)
    down = LLMConfig.from_env(server.url, "down", max_retries=0)
    with pytest.raises(RemoteModelError) as e:
        sample_index.ask(DEMO_QUESTION, llm=down)
    said = str(e.value)
    assert "\n" not in said and "127.0.0.1" in said and KEY not in said


def test_the_cli_says_which_model_wrote_it_and_never_the_key(sample_index, server, config, capsys):
    from lateseg.cli import main

    n = gold_number(sample_index, config)
    server.reply = f"The Client must give {GOLD}' prior written notice [{n}]."
    index = str(sample_index.folder)
    code = main(["ask", DEMO_QUESTION, "--index", index, "--llm", server.url, "--llm-model", "ok"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert server.reply in out.out and f"Written by ok at {server.url}" in out.out
    assert KEY not in out.out + out.err
    code = main(
        ["ask", DEMO_QUESTION, "--index", index, "--llm", server.url, "--llm-model", "down"]
    )
    out = capsys.readouterr()
    assert code != 0 and "Traceback" not in out.err and out.err.strip().count("\n") == 0
    assert "127.0.0.1" in out.err and KEY not in out.out + out.err
    code = main(["ask", DEMO_QUESTION, "--index", index, "--context-tokens", "100"])
    out = capsys.readouterr()
    assert code != 0 and "context_tokens" in out.err


def test_a_real_server_writes_a_checked_answer(sample_index, served_llm):
    url, model = served_llm
    answer = sample_index.ask(DEMO_QUESTION, llm=LLMConfig(url, model), context_tokens=1500)
    written = answer.generated or answer
    assert written.mode == "generate" and written.model and written.text.strip()
    assert written.kv_stats and written.kv_stats["context_tokens"] <= 1500
    assert answer.supported or answer.mode == "quote"
    assert answer.citations


def test_a_value_of_another_party_is_replaced_by_the_quote(sample_index, server, config):
    """180 days is the Provider's notice, stated in the same clause of the passage: the
    answer is about notice to terminate for convenience, but it does not give the value
    the quoted answer gives, so ``ask`` shows the quote."""
    n = gold_number(sample_index, config)
    server.reply = (
        "The Client must give one hundred eighty (180) days' prior written notice to "
        f"terminate for convenience [{n}]."
    )
    answer = sample_index.ask(DEMO_QUESTION, llm=config)
    assert answer.mode == "quote" and answer.generated is not None
    assert answer.phrase is not None and "60" in answer.phrase.text
    kept = sample_index.ask(DEMO_QUESTION, llm=config, fallback=False)
    assert not kept.supported
    assert kept.support[0].reason.startswith("does not give the quoted answer")
