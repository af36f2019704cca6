"""The LangChain integration: LangChain's own standard test suites (langchain-tests) run
against lateseg's classes with the real local models, plus what those suites do not
cover (provenance metadata, late chunking of long documents, the loader, an LCEL chain
over the sample contracts, import hygiene)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableParallel, RunnablePassthrough
from langchain_tests.integration_tests import (
    ChatModelIntegrationTests,
    RetrieversIntegrationTests,
    VectorStoreIntegrationTests,
)
from langchain_tests.unit_tests import ChatModelUnitTests

from lateseg import Pipeline
from lateseg.errors import ConfigError
from lateseg.integrations.langchain import (
    LatesegChatModel,
    LatesegEmbeddings,
    LatesegLoader,
    LatesegRetriever,
    LatesegVectorStore,
)

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = ROOT / "data" / "contracts"
QUESTION = "How many days' notice must the Client give to terminate the agreement for convenience?"


@functools.cache
def sample_index() -> str:
    """The sample contracts indexed once for the module (standard tests take their
    constructor arguments from a property, not a fixture)."""
    folder = Path(tempfile.mkdtemp(prefix="lateseg-langchain-test-"))
    atexit.register(shutil.rmtree, folder, True)
    with Pipeline.open(folder / "index") as pipe:
        pipe.ingest([CONTRACTS], progress=False, workers=0)
    return str(folder / "index")


# -- LangChain's standard suites -----------------------------------------------------------
class TestRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[LatesegRetriever]:
        return LatesegRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"index": sample_index()}

    @property
    def retriever_query_example(self) -> str:
        return "termination for convenience"


class TestVectorStoreStandard(VectorStoreIntegrationTests):
    @pytest.fixture
    def vectorstore(self):
        store = LatesegVectorStore()  # a temporary index; the real late encoder
        try:
            yield store
        finally:
            store.close()


class TestChatModelUnitStandard(ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[LatesegChatModel]:
        return LatesegChatModel

    @property
    def chat_model_params(self) -> dict:
        return {}  # test_standard_params passes max_tokens itself


@pytest.mark.slow
class TestChatModelIntegrationStandard(ChatModelIntegrationTests):
    @property
    def chat_model_class(self) -> type[LatesegChatModel]:
        return LatesegChatModel

    @property
    def chat_model_params(self) -> dict:
        return {"max_tokens": 12}  # short answers: the suite makes about 30 calls


# -- retriever -----------------------------------------------------------------------------
def test_retriever_documents_carry_provenance_and_filters_apply():
    retriever = LatesegRetriever(index=sample_index(), k=3)
    docs = retriever.invoke(QUESTION)
    assert len(docs) == 3
    for d in docs:
        assert set(d.metadata) >= {"source", "page", "page_end", "section", "start", "end", "score"}
        assert d.metadata["page_end"] >= d.metadata["page"]
        assert Path(d.metadata["source"]).parent == CONTRACTS
        text = retriever.pipeline.document(d.metadata["source"]).text
        assert text[d.metadata["start"] : d.metadata["end"]] == d.page_content
    assert [d.metadata["score"] for d in docs] == sorted(
        (d.metadata["score"] for d in docs), reverse=True
    )
    top = docs[0]
    assert top.metadata["source"].endswith("msa.pdf") and "convenience" in top.page_content.lower()
    only_nda = retriever.invoke(QUESTION, source="*/nda.pdf", k=2)
    assert only_nda and all(d.metadata["source"].endswith("nda.pdf") for d in only_nda)
    with pytest.raises(TypeError, match="unknown search arguments"):
        retriever.invoke(QUESTION, colour="red")


@pytest.mark.slow
def test_the_retriever_reranks_on_request():
    """``rerank="generator"`` gives the pipeline's re-ranked hits, per retriever or per
    call; an unknown re-ranker is refused by name."""
    retriever = LatesegRetriever(index=sample_index(), k=3, rerank="generator")
    want = retriever.pipeline.search(QUESTION, 3, rerank="generator")
    docs = retriever.invoke(QUESTION)
    assert [(d.metadata["start"], d.metadata["score"]) for d in docs] == [
        (h.start, pytest.approx(h.score)) for h in want
    ]
    plain = LatesegRetriever(pipeline=retriever.pipeline, k=3)
    assert [d.metadata["start"] for d in plain.invoke(QUESTION, rerank="generator")] == [
        h.start for h in want
    ]
    with pytest.raises(ConfigError, match="rerank"):
        plain.invoke(QUESTION, rerank="colbert")


# -- vector store beyond the standard suite ------------------------------------------------
def test_vector_store_chunks_long_documents_late_and_filters_by_metadata(tmp_path):
    msa = Pipeline.open(sample_index()).document(str(CONTRACTS / "msa.pdf")).text
    store = LatesegVectorStore.from_texts(
        [msa, "A short note about lunch."],
        metadatas=[{"name": "msa", "year": 2024}, {"name": "note", "year": 2023}],
        ids=["msa", "note"],
        index=tmp_path / "lc",
    )
    try:
        found = store.similarity_search_with_relevance_scores(QUESTION, k=3)
        assert len(found) == 3
        best, relevance = found[0]
        assert best.id == "msa" and best.metadata["name"] == "msa"
        assert "convenience" in best.page_content.lower() and len(best.page_content) < len(msa)
        assert msa[best.metadata["start"] : best.metadata["end"]] == best.page_content
        assert 0.5 < relevance <= 1.0
        only_note = store.similarity_search(QUESTION, k=2, filter={"name": "note"})
        assert [d.page_content for d in only_note] == ["A short note about lunch."]
        assert store.similarity_search(QUESTION, k=2, filter=lambda m: m["year"] > 2030) == []
        assert store.get_by_ids(["msa"])[0].page_content == msa
    finally:
        store.close()
    reopened = LatesegVectorStore(index=tmp_path / "lc")  # the index persists
    try:
        assert reopened.similarity_search("lunch", k=1)[0].id == "note"
        reopened.delete(["msa"])
        assert {d.id for d in reopened.similarity_search(QUESTION, k=5)} == {"note"}
    finally:
        reopened.close()


def test_vector_store_refuses_foreign_embeddings_and_empty_text():
    from langchain_core.embeddings import DeterministicFakeEmbedding

    with pytest.raises(ConfigError, match="token vectors"):
        LatesegVectorStore(DeterministicFakeEmbedding(size=6))
    store = LatesegVectorStore(LatesegEmbeddings())
    try:
        with pytest.raises(ValueError, match="no text"):
            store.add_texts(["   "])
        assert len(store.embeddings.embed_query("notice")) == 384
    finally:
        store.close()


# -- loader --------------------------------------------------------------------------------
def test_loader_reads_contracts_by_document_page_and_section_and_skips_a_corrupt_pdf(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(CONTRACTS / "msa.pdf", folder)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7 this is not a pdf")
    (folder / "notes.md").write_text("# Notes\n\nThe client pays monthly.\n\n## Fees\n\nNone.\n")

    loader = LatesegLoader(folder)
    docs = {Path(d.metadata["source"]).name: d for d in loader.lazy_load()}
    assert set(docs) == {"msa.pdf", "notes.md"}
    assert [Path(p).name for p, _ in loader.failed] == ["broken.pdf"]
    in_workers = LatesegLoader(folder, workers=2)  # parsed in 2 processes: the same
    assert in_workers.load() == list(docs.values()) and in_workers.failed == loader.failed
    msa = docs["msa.pdf"]
    assert msa.metadata["kind"] == "pdf"
    clauses = [s for s in msa.metadata["structure"] if s["kind"] == "clause"]
    assert any("Termination for Convenience" in s["label"] for s in clauses)

    pages = LatesegLoader(folder / "msa.pdf", mode="page").load()
    assert [p.metadata["page"] for p in pages] == list(range(1, len(pages) + 1))
    assert len(pages) > 1 and "".join(p.page_content for p in pages).strip()

    sections = LatesegLoader(folder / "msa.pdf", mode="section").load()
    assert len(sections) > 3
    assert "".join(s.page_content for s in sections).split() == msa.page_content.split()
    term = [s for s in sections if s.metadata["section"] == "5 Term and Termination"]
    assert term and term[0].metadata["section_kind"] == "clause"
    assert "Termination for Convenience" in term[0].page_content  # sub-clauses stay inside
    assert term[0].metadata["page"] is not None
    md = LatesegLoader(folder / "notes.md", mode="section").load()
    assert [s.metadata["section"] for s in md] == ["Notes"]  # "## Fees" lies inside it
    with pytest.raises(ConfigError, match="mode="):
        LatesegLoader(folder, mode="chapter")


# -- chat model and chains -----------------------------------------------------------------
def _format(docs: list[Document]) -> str:
    return "\n\n".join(
        f"[{i}] ({Path(d.metadata['source']).name} p. {d.metadata['page']}) {d.page_content}"
        for i, d in enumerate(docs, 1)
    )


PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "Answer from the numbered passages and cite one as [n]."),
        ("human", "Passages:\n\n{context}\n\nQuestion: {question}"),
    ]
)


def _chain(llm):
    retriever = LatesegRetriever(index=sample_index(), k=3)
    return RunnableParallel(docs=retriever, question=RunnablePassthrough()).assign(
        answer=(lambda x: {"context": _format(x["docs"]), "question": x["question"]})
        | PROMPT
        | llm
        | StrOutputParser()
    )


@pytest.mark.slow
def test_lcel_chain_over_the_sample_contracts_answers_offline_with_kv_compression():
    llm = LatesegChatModel(max_tokens=48, kv_budget=96)
    out = _chain(llm).invoke(QUESTION)
    assert out["answer"].strip()
    assert out["docs"][0].metadata["source"].endswith("msa.pdf")
    assert any("convenience" in d.page_content.lower() for d in out["docs"])
    # The same prompt through the model directly: the cache was compressed to the budget.
    msg = llm.invoke(
        PROMPT.invoke({"context": _format(out["docs"]), "question": QUESTION}).to_messages()
    )
    kv = msg.response_metadata["kv"]
    assert kv["method"] == "lateseg" and kv["kept_tokens"] == 96
    assert kv["prompt_tokens"] == msg.usage_metadata["input_tokens"] > 96
    streamed = "".join(_chain(llm).pick("answer").stream(QUESTION))
    assert streamed.strip() == out["answer"].strip()


def test_the_same_chain_runs_with_any_other_chat_model():
    fake = FakeListChatModel(responses=["Thirty days' written notice [1]."])
    out = _chain(fake).invoke(QUESTION)
    assert out["answer"] == "Thirty days' written notice [1]."
    assert out["docs"][0].metadata["source"].endswith("msa.pdf")


@pytest.mark.slow
def test_chat_model_stop_sequences_are_cut_and_not_streamed():
    llm = LatesegChatModel(max_tokens=40)
    msgs = [("human", "Count from 1 to 10, separated by commas.")]
    full = llm.invoke(msgs).content
    assert "," in full
    first = full.index(",")
    cut = llm.invoke(msgs, stop=[","])
    assert cut.content == full[:first].strip()
    assert cut.response_metadata["finish_reason"] == "stop"
    pieces = [c.content for c in llm.stream(msgs, stop=[","])]
    assert "".join(pieces).strip() == cut.content and not any("," in p for p in pieces)
    short = llm.invoke(msgs, max_tokens=2)
    assert short.usage_metadata["output_tokens"] == 2
    assert short.response_metadata["finish_reason"] == "length"
    with pytest.raises(ConfigError, match="text only"):
        llm.invoke([("human", [{"type": "image", "url": "http://x/y.png"}])])
    with pytest.raises(ValueError, match="kv_budget"):  # pydantic wraps the ConfigError
        LatesegChatModel(kv_method="snapkv")


# -- import hygiene ------------------------------------------------------------------------
def test_lateseg_imports_without_langchain_and_the_integration_names_the_extra():
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('langchain_core', 'langchain'):
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import lateseg
assert 'torch' not in sys.modules and 'langchain_core' not in sys.modules
try:
    import lateseg.integrations.langchain
except ImportError as e:
    print('ERR', e)
"""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert "ERR" in out.stdout and "lateseg[langchain]" in out.stdout


def test_a_document_added_through_langchain_opens_in_the_viewer(tmp_path):
    """One document-ID format: what the vector store writes, the index keeps and the
    service's document routes accept."""
    pytest.importorskip("fastapi", reason="needs the serve extra")
    from fastapi.testclient import TestClient

    from lateseg.serve.app import create_app
    from lateseg.serve.service import Service
    from lateseg.types import DOC_ID, DOC_ID_LENGTH

    text = "# Escrow\n\nThe Escrow Agent shall release the deposit within nine (9) days."
    store = LatesegVectorStore(index=tmp_path / "lc")
    try:
        store.add_documents([Document(page_content=text, metadata={"k": 1}, id="escrow-1")])
    finally:
        store.close()
    service = Service(tmp_path / "lc")
    try:
        client = TestClient(create_app(service), base_url="http://127.0.0.1:8765")
        hit = client.get("/api/search", params={"q": "when is the deposit released"}).json()
        doc_id = hit["hits"][0]["doc_id"]
        assert len(doc_id) == DOC_ID_LENGTH and DOC_ID.fullmatch(doc_id)
        doc = client.get(f"/api/documents/{doc_id}")
        assert doc.status_code == 200, doc.text
        assert doc.json()["name"] == "langchain:escrow-1"
        view = client.get(f"/api/documents/{doc_id}/view", params={"start": 10, "end": 40})
        assert view.status_code == 200 and "Escrow Agent" in view.json()["html"]
    finally:
        service.close()


def test_a_document_id_of_another_format_is_refused_at_the_write(tmp_path):
    from lateseg.errors import InvariantError
    from lateseg.types import Document as LatesegDocument

    with Pipeline.open(tmp_path / "idx") as pipe, pytest.raises(InvariantError, match="16 hex"):
        pipe.add_documents([LatesegDocument("note", "Some text here.", "text", id="x" * 32)])
