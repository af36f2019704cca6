"""``lateseg serve`` and ``lateseg mcp`` with the operator's model behind a URL (issue 45):
generated answers are written by it, a client can never name another server, its
failures are a 502 with one line (never the key), and a client that goes away stops the
upstream stream. Against the fault server's scripted model."""

from __future__ import annotations

import json
import threading

import pytest
from conftest import DEMO_QUESTION
from fastapi.testclient import TestClient
from llm_servers import KEY, FaultServer
from test_remote_ask import GOLD, gold_number

from lateseg.generate.remote.config import LLMConfig
from lateseg.serve.app import create_app
from lateseg.serve.service import Cancelled, Service


@pytest.fixture(scope="module")
def server():
    with FaultServer() as s:
        yield s


@pytest.fixture(scope="module")
def keyed():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LATESEG_LLM_API_KEY", KEY)
        yield


def _config(server, model: str) -> LLMConfig:
    return LLMConfig.from_env(server.url, model, max_retries=0)


@pytest.fixture(scope="module")
def service(sample_index, encoder, server, keyed):
    svc = Service(sample_index.folder, encoder=encoder, queue=0, llm=_config(server, "ok"))
    svc.preload(wait=True)
    yield svc
    svc.close()


@pytest.fixture
def client(service, server):
    server.reply = None
    return TestClient(create_app(service), base_url="http://127.0.0.1:8765")


def _stated(sample_index, server) -> None:
    n = gold_number(sample_index, _config(server, "ok"))
    server.reply = f"The Client must give {GOLD}' prior written notice [{n}]."


def test_a_generated_answer_is_written_by_the_operators_model(
    sample_index, service, server, client
):
    _stated(sample_index, server)
    r = client.post("/api/ask", json={"question": DEMO_QUESTION, "answer": "generate"})
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["mode"] == "generate" and a["supported"] and a["model"] == "ok"
    assert a["text"] == server.reply and GOLD in a["citations"][0]["text"]
    assert KEY not in r.text
    assert service.pipe.generator._model is None  # the local generator is never loaded
    # the default answer stays the quote; no model wrote it
    quoted = client.post("/api/ask", json={"question": DEMO_QUESTION}).json()
    assert quoted["mode"] == "quote" and quoted["model"] is None


def test_a_client_cannot_name_another_server_or_model(sample_index, service, server, client):
    _stated(sample_index, server)
    before = len(server.bodies)
    r = client.post(
        "/api/ask",
        json={
            "question": DEMO_QUESTION, "answer": "generate", "llm": "http://127.0.0.1:1/v1",
            "url": "http://127.0.0.1:1/v1", "llm_model": "down", "model": "down",
            "api_key": "stolen", "context_tokens": 10,
        },
    )  # fmt: skip
    assert r.status_code == 200, r.text
    assert r.json()["model"] == "ok"
    assert [b["model"] for b in server.bodies[before:]] == ["ok"]
    # nor can a caller of the service in Python slip its own server in
    other = _config(server, "down")
    from lateseg.errors import ConfigError

    with pytest.raises(ConfigError, match="operator"):
        service.ask(DEMO_QUESTION, answer="generate", llm=other)


def test_local_generator_settings_are_refused_by_name(client):
    r = client.post("/api/ask", json={"question": DEMO_QUESTION, "answer": "copy"})
    assert r.status_code == 400 and "copy" in r.json()["error"]
    r = client.post("/api/ask", json={"question": DEMO_QUESTION, "kv_budget": 64})
    assert r.status_code == 400 and "kv_budget" in r.json()["error"]


def test_a_failing_model_server_is_a_502_with_one_line(service, server, client):
    ok = service.llm
    service.llm = _config(server, "down")
    try:
        r = client.post("/api/ask", json={"question": DEMO_QUESTION, "answer": "generate"})
        assert r.status_code == 502, r.text
        said = r.json()["error"]
        assert "\n" not in said and "127.0.0.1" in said and KEY not in r.text
        body = {"question": DEMO_QUESTION, "answer": "generate", "stream": True}
        streamed = client.post("/api/ask", json=body)
        assert streamed.status_code == 200 and KEY not in streamed.text
        errors = [
            json.loads(line[len("data:") :])
            for block in streamed.text.replace("\r\n", "\n").split("\n\n")
            if "event: error" in block
            for line in block.split("\n")
            if line.startswith("data:")
        ]
        assert [e["status"] for e in errors] == [502] and "\n" not in errors[0]["error"]
    finally:
        service.llm = ok


def test_a_client_gone_away_stops_the_upstream_stream(service, server):
    ok = service.llm
    service.llm = _config(server, "endless")
    server.disconnected["endless"].clear()
    cancel = threading.Event()
    try:
        with pytest.raises(Cancelled):
            service.ask(
                DEMO_QUESTION, answer="generate", cancel=cancel,
                stream=lambda text: cancel.set(),
            )  # fmt: skip
        assert server.disconnected["endless"].wait(10)
    finally:
        service.llm = ok


async def test_mcp_ask_is_written_by_the_operators_model(sample_index, service, server):
    from mcp import Client

    from lateseg.serve.mcp import build

    _stated(sample_index, server)
    async with Client(build(service)) as mcp_client:
        result = await mcp_client.call_tool(
            "ask", {"question": DEMO_QUESTION, "answer": "generate"}
        )
        assert not result.is_error, result.content
        told = json.loads(result.content[0].text)
    assert told["mode"] == "generate" and told["supported"] and told["model"] == "ok"
    assert KEY not in json.dumps(told)


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_llm_with_no_generate_is_refused(sample_index, server, command, capsys):
    from lateseg.cli import main

    index = str(sample_index.folder)
    code = main([command, "--index", index, "--llm", server.url, "--no-generate"])
    out = capsys.readouterr()
    assert code != 0 and "--no-generate" in out.err and "Traceback" not in out.err
    code = main([command, "--index", index, "--context-tokens", "500"])
    out = capsys.readouterr()
    assert code != 0 and "--context-tokens" in out.err
