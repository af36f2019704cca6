"""`lateseg mcp` driven by the MCP SDK's own stdio client: the server process lists its
three tools and answers each, results naming file, page, clause path and offsets."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("mcp", reason="needs the serve extra: pip install 'lateseg[serve]'")

from conftest import DATA, DEMO_QUESTION
from mcp import Client
from mcp.client.stdio import StdioServerParameters

MSA = str((DATA / "contracts" / "msa.pdf").resolve())


def _data(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


@pytest.mark.slow
async def test_the_stdio_server_lists_and_runs_search_ask_and_read(sample_index):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lateseg", "mcp", "--index", str(sample_index.folder)],
        env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"},
    )
    async with Client(params) as client:
        tools = await client.list_tools()
        assert sorted(t.name for t in tools.tools) == ["ask", "read", "search"]
        schema = {t.name: t.input_schema for t in tools.tools}
        assert {"query", "k", "kind", "source"} <= set(schema["search"]["properties"])

        found = _data(await client.call_tool("search", {"query": DEMO_QUESTION, "k": 3}))
        top = next(h for h in found["hits"] if h["source"] == "contracts/msa.pdf")
        assert top["page"] == 4 and "5.2 Termination for Convenience" in top["section"]
        assert top["end"] > top["start"] and top["doc_id"]

        answer = _data(await client.call_tool("ask", {"question": DEMO_QUESTION}))
        assert answer["phrase"] == "sixty (60) days" and answer["mode"] == "quote"
        assert "sixty (60) days" in answer["sentence"]["text"] and answer["sentence"]["page"] == 4
        assert answer["citations"][0]["page"] == 4
        nda = _data(
            await client.call_tool("ask", {"question": "Which state's law governs the NDA?"})
        )
        assert "California" in nda["phrase"] and nda["scope"]["sources"][0].endswith("nda.pdf")

        text = _data(
            await client.call_tool(
                "read", {"source": top["source"], "start": top["start"], "end": top["end"]}
            )
        )
        assert text["text"] == top["text"] and text["page"] == 4

        code = _data(await client.call_tool("search", {"query": "invoice", "kind": "code"}))
        assert code["hits"] and all(h["kind"] == "code" for h in code["hits"])
        bad = await client.call_tool("read", {"source": "/etc/passwd"})
        assert bad.is_error and "not a document of this index" in bad.content[0].text


@pytest.mark.slow
async def test_a_missing_index_is_served_only_with_create(tmp_path):
    """Without --create the server refuses to start on a missing index (a typo); with it,
    an empty index is made and its tools answer (no hits yet)."""
    import subprocess

    index = tmp_path / "new-index"
    argv = [sys.executable, "-m", "lateseg", "mcp", "--index", str(index), "--no-generate"]
    refused = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert refused.returncode == 1 and "no index at" in refused.stderr
    assert not index.exists()
    params = StdioServerParameters(
        command=sys.executable,
        args=[*argv[1:], "--create", "--device", "cpu"],
        env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error", "LATESEG_CONFIG": ""},
    )
    async with Client(params) as client:
        tools = await client.list_tools()
        assert sorted(t.name for t in tools.tools) == ["ask", "read", "search"]
        found = await client.call_tool("search", {"query": "anything", "k": 3})
        assert (index / "manifest.json").is_file()
        assert _data(found)["hits"] == []
