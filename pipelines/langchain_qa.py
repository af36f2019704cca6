"""Retrieval-augmented QA over the sample contracts as a LangChain (LCEL) chain, offline.

    python pipelines/langchain_qa.py ["question"] [--index DIR] [--kv-budget 128] [-k 3]

The chain is ``{docs: retriever, question} | prompt | chat model | StrOutputParser()``:
lateseg's retriever (late + dynamic chunks, FAISS + SQLite) and lateseg's local chat model
(SmolLM2-135M-Instruct, its KV cache compressed by whole content-defined chunks when
``--kv-budget`` is given). The answer streams as it is written, then the passages it
was given are listed with file, page, clause and character span.

Any other LangChain chat model fits the same chain; ``build_chain`` takes it:

    from langchain_openai import ChatOpenAI          # needs that package and network
    chain = build_chain(LatesegRetriever(index=DIR), ChatOpenAI(model="gpt-4o-mini"))
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_QUESTION = (
    "How many days' notice must the Client give to terminate the Master Services "
    "Agreement for convenience?"
)
SYSTEM = (
    "You answer questions about contracts using only the numbered passages given. Answer "
    "in one or two sentences and cite the passage you used as [n]."
)


def format_passages(docs: list[Any]) -> str:
    return "\n\n".join(
        f"[{i}] ({Path(d.metadata['source']).name}, p. {d.metadata['page']}) {d.page_content}"
        for i, d in enumerate(docs, 1)
    )


def build_chain(retriever: Any, llm: Any) -> Any:
    """``question -> {"docs", "question", "answer"}`` with any LangChain chat model."""
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableParallel, RunnablePassthrough

    prompt = ChatPromptTemplate.from_messages(
        [("system", SYSTEM), ("human", "Passages:\n\n{context}\n\nQuestion: {question}")]
    )
    answer = (
        (lambda x: {"context": format_passages(x["docs"]), "question": x["question"]})
        | prompt
        | llm
        | StrOutputParser()
    )
    return RunnableParallel(docs=retriever, question=RunnablePassthrough()).assign(answer=answer)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("question", nargs="?", default=DEFAULT_QUESTION)
    ap.add_argument(
        "--index",
        default=str(Path.home() / ".cache" / "lateseg" / "langchain-demo-index"),
        help="index folder (built from data/contracts when it does not exist)",
    )
    ap.add_argument("-k", type=int, default=3, help="passages given to the model")
    ap.add_argument(
        "--kv-budget",
        type=float,
        default=None,
        help="KV cache budget: tokens (128) or a share of the prompt (0.25)",
    )
    ap.add_argument("--max-tokens", type=int, default=96)
    args = ap.parse_args(argv)

    from lateseg import Pipeline
    from lateseg.integrations.langchain import LatesegChatModel, LatesegRetriever

    index = Path(args.index).expanduser()
    pipe = Pipeline.open(index)
    if not pipe.sources():
        report = pipe.ingest([ROOT / "data" / "contracts"])
        print(f"indexed the sample contracts: {report.summary()}", file=sys.stderr)
    budget = args.kv_budget
    if budget is not None and budget >= 1:
        budget = int(budget)
    llm = LatesegChatModel(max_tokens=args.max_tokens, kv_budget=budget)
    chain = build_chain(LatesegRetriever(pipeline=pipe, k=args.k), llm)

    print(f"Q: {args.question}\n")
    docs: list[Any] = []
    for part in chain.stream(args.question):
        docs = part.get("docs", docs)
        if "answer" in part:
            print(part["answer"], end="", flush=True)
    print("\n\nPassages:")
    for i, d in enumerate(docs, 1):
        m = d.metadata
        print(
            f"  [{i}] {Path(m['source']).name} p. {m['page']} | {m['section'] or '-'} | "
            f"chars {m['start']}-{m['end']} | score {m['score']:.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
