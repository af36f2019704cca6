"""The client of an OpenAI-compatible server (lateseg.generate.remote.client): settings, answers
whole and streamed, and every failure as one line that names the server and never the
key, within a stated time. Against a fault-injecting server (tests/llm_servers.py)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator

import pytest
from llm_servers import ANSWER, KEY, MODES, FaultServer, free_port

from lateseg.errors import ConfigError, GenerationError, RemoteModelError
from lateseg.generate.remote.client import ESTIMATE, SERVER_TOKENIZER, RemoteLLM
from lateseg.generate.remote.config import LLMConfig

MESSAGES = [{"role": "user", "content": "How long is the term?"}]
# Short limits: no test waits long for a failure it provokes.
FAST = {"timeout_s": 10.0, "stall_timeout_s": 0.5, "connect_timeout_s": 2.0, "backoff_s": 0.01}


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer() as s:
        yield s


def client(url: str, model: str, key: str | None = None, **limits: float) -> RemoteLLM:
    return RemoteLLM(LLMConfig(url=url, model=model, api_key=key, **{**FAST, **limits}))


def fails(llm: RemoteLLM, kind: str, stream: bool = False) -> RemoteModelError:
    """The error ``llm`` raises for a chat (or a stream read to the end), checked to be
    one line, of ``kind``, naming the server."""
    with pytest.raises(RemoteModelError) as info:
        if stream:
            list(llm.stream(MESSAGES, max_tokens=8))
        else:
            llm.chat(MESSAGES, max_tokens=8)
    err = info.value
    assert isinstance(err, GenerationError)
    assert err.kind == kind, str(err)
    assert "\n" not in str(err)
    assert llm.config.url.split("/v1")[0] in str(err)
    return err


# -- settings ----------------------------------------------------------------------


def test_config_from_env_reads_url_model_and_key_in_order(monkeypatch) -> None:
    monkeypatch.setenv("LATESEG_LLM_URL", "http://gpu-box:8000")
    monkeypatch.setenv("LATESEG_LLM_MODEL", "qwen")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.delenv("LATESEG_LLM_API_KEY", raising=False)
    config = LLMConfig.from_env()
    assert (config.url, config.model, config.api_key) == (
        "http://gpu-box:8000/v1",
        "qwen",
        "sk-openai",
    )
    monkeypatch.setenv("LATESEG_LLM_API_KEY", "sk-lateseg")
    config = LLMConfig.from_env(url="https://api.example.com/openai/v1/", model="m")
    assert (config.url, config.model, config.api_key) == (
        "https://api.example.com/openai/v1",
        "m",
        "sk-lateseg",
    )
    assert config.root == "https://api.example.com/openai"


def test_the_key_is_kept_out_of_repr_json_and_logs(monkeypatch, caplog, server) -> None:
    monkeypatch.setenv("LATESEG_LLM_API_KEY", KEY)
    config = LLMConfig.from_env(url=server.url, model="auth", **FAST)
    assert KEY not in repr(config)
    assert KEY not in json.dumps(config.to_dict())
    assert config.to_dict()["api_key_set"] is True
    caplog.set_level(logging.DEBUG)
    with RemoteLLM(config) as llm:
        assert KEY not in repr(llm)
        assert llm.chat(MESSAGES, max_tokens=8).text == "".join(ANSWER)
        assert llm.count_tokens("a b c") > 0
    assert KEY not in caplog.text
    assert server.auth_headers[-1] == f"Bearer {KEY}"


def test_no_url_and_bad_urls_are_clear_config_errors(monkeypatch) -> None:
    monkeypatch.delenv("LATESEG_LLM_URL", raising=False)
    with pytest.raises(ConfigError, match="LATESEG_LLM_URL"):
        LLMConfig.from_env()
    for bad in ("ftp://host/v1", "localhost:8000", "file:///etc/passwd", "http://"):
        with pytest.raises(ConfigError, match=r"http:// or https://"):
            LLMConfig(url=bad)
    with pytest.raises(ConfigError, match="credentials") as info:
        LLMConfig(url="https://user:sk-secret@host/v1")
    assert "sk-secret" not in str(info.value)
    with pytest.raises(ConfigError, match="not a URL"):
        LLMConfig(url="http://host:port/v1")
    with pytest.raises(ConfigError, match="stall_timeout_s"):
        LLMConfig(url="http://host/v1", stall_timeout_s=0)


# -- answers -----------------------------------------------------------------------


def test_chat_and_stream_give_the_same_answer(server) -> None:
    with client(server.url, "ok") as llm:
        done = llm.chat(MESSAGES, max_tokens=8, stop=["\nQuestion:"])
        assert done.text == "".join(ANSWER)
        assert (done.model, done.finish_reason) == ("ok", "stop")
        assert done.usage is not None and done.usage.completion_tokens == 6
        assert list(llm.stream(MESSAGES, max_tokens=8)) == ANSWER
        assert llm.models() == list(MODES)


def test_the_servers_only_model_is_taken_when_none_is_named(server) -> None:
    with (
        RemoteLLM(LLMConfig(url=server.url, **FAST)) as llm,
        pytest.raises(ConfigError, match="offers 12 models"),
    ):
        llm.model_name()


def test_tokens_are_counted_by_the_server_when_it_can_else_estimated() -> None:
    text = "one two three four five six seven eight"
    with FaultServer(tokenizer=True) as s, client(s.url, "ok") as llm:
        assert llm.counting == ESTIMATE
        assert llm.count_tokens(text) == 8
        assert llm.counting == SERVER_TOKENIZER
    with FaultServer() as s, client(s.url, "ok") as llm:
        assert llm.count_tokens(text) == -(-len(text) // 4)
        assert llm.counting == ESTIMATE


# -- failures ----------------------------------------------------------------------


def test_connection_refused() -> None:
    port = free_port()  # bound then released: nothing listens there
    err = fails(client(f"http://127.0.0.1:{port}/v1", "ok"), "refused")
    assert "refused the connection" in str(err)


def test_dns_failure_fails_fast_offline() -> None:
    start = time.monotonic()
    err = fails(client("http://no-such-model-server.invalid:8000/v1", "ok"), "dns")
    assert "resolve" in str(err)
    assert time.monotonic() - start < 10


def test_tls_to_a_plain_http_server(server) -> None:
    err = fails(client(f"https://127.0.0.1:{server.port}/v1", "ok"), "tls")
    assert "http:// URL" in str(err)


def test_a_refused_key_is_named_but_not_shown(server) -> None:
    err = fails(client(server.url, "auth", key="sk-wrong-key-123"), "auth")
    assert "refused the API key" in str(err)
    assert "sk-wrong-key-123" not in str(err) and "sk-wrong-key-123" not in repr(err)
    err = fails(client(server.url, "auth"), "auth")
    assert "none is set" in str(err)
    fails(client(server.url, "forbidden", key="k"), "auth")


def test_an_unknown_model_lists_what_the_server_offers(server) -> None:
    err = fails(client(server.url, "gpt-9"), "model")
    assert "'gpt-9'" in str(err) and "ok, auth, forbidden" in str(err)


def test_429_and_5xx_are_retried_then_answered(server) -> None:
    for model in ("rate", "flaky"):
        with client(server.url, model) as llm:
            assert llm.chat(MESSAGES, max_tokens=8).text == "".join(ANSWER)
        assert server.calls[model] == 3


def test_429_and_5xx_fail_after_bounded_retries(server) -> None:
    start = time.monotonic()
    err = fails(client(server.url, "down", max_retries=2), "server")
    assert "HTTP 500 after 3 tries" in str(err) and "internal error" in str(err)
    assert server.calls["down"] == 3
    # A Retry-After beyond the cap is not waited for.
    err = fails(client(server.url, "rate-long"), "rate-limit")
    assert server.calls["rate-long"] == 1
    assert time.monotonic() - start < 5


def test_a_stalled_stream_ends_after_the_stall_timeout(server) -> None:
    llm = client(server.url, "stall", stall_timeout_s=0.5)
    got: list[str] = []
    start = time.monotonic()
    with pytest.raises(RemoteModelError) as info:
        for piece in llm.stream(MESSAGES, max_tokens=8):
            got.append(piece)
    assert info.value.kind == "stall" and "0.5 s" in str(info.value)
    assert got == [ANSWER[0]]
    assert time.monotonic() - start < 5


def test_a_response_over_the_size_cap(server) -> None:
    fails(client(server.url, "big", max_response_bytes=50_000), "too-large")
    fails(client(server.url, "big", max_response_bytes=50_000), "too-large", stream=True)
    assert server.disconnected["big"].wait(timeout=5)


def test_malformed_json_and_empty_choices(server) -> None:
    err = fails(client(server.url, "malformed"), "malformed")
    assert "not JSON" in str(err) and "Bad gateway" in str(err)
    fails(client(server.url, "empty"), "empty")


def test_closing_a_stream_disconnects_from_the_server(server) -> None:
    llm = client(server.url, "endless", stall_timeout_s=5)
    pieces = llm.stream(MESSAGES, max_tokens=8)
    assert next(pieces) == "word " and next(pieces) == "word "
    pieces.close()
    assert server.disconnected["endless"].wait(timeout=5), "the server never saw the client go away"
