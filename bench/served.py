"""Generated answers written by a model behind an OpenAI-compatible URL, for
``bench/answers.py --llm URL`` (issue 45): one row per context strategy
(:mod:`bench.context_strategies`) at one token budget, and the ``local`` row, the
in-process generator's own prompt and passages sent to the server instead (the parity
check: the same weights, greedy, should write the same text).

``--serve-local`` starts ``transformers serve`` on the packaged SmolLM2 for the run, as
the tests' ``served_llm`` fixture does (``tests/llm_servers.py``, one copy of the logic).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.context_strategies import (
    WINDOW_TOKENS,
    fixed_context,
    fixed_windows,
    rank_windows,
    topk_context,
)
from lateseg.generate.remote.generator import Plan, RemoteGenerator
from lateseg.types import Hit

ROOT = Path(__file__).resolve().parent.parent
#: The served rows' contexts: the three strategies, and the in-process layout.
CONTEXTS = ("chunks", "topk", "fixed", "local")
#: How many of the ranked fixed windows are offered to the budget (more never fit).
WINDOW_POOL = 64


@contextlib.contextmanager
def served_smollm2(log_dir: Path | None = None) -> Iterator[tuple[str, str]]:
    """``transformers serve`` (float32, offline) on the packaged SmolLM2 folder for the
    block: its base URL and the model name it answers to (the folder)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from llm_servers import smollm2_folder, start_transformers_serve, stop_process

    folder = smollm2_folder()
    # a run stopped by SIGTERM (timeout, kill) still stops the server, in its own session
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory() as tmp:
        log = (log_dir or Path(tmp)) / "transformers-serve.log"
        t0 = time.perf_counter()
        proc, url = start_transformers_serve(folder, log)
        print(f"transformers serve {folder} at {url} ({time.perf_counter() - t0:.0f} s)",
              file=sys.stderr, flush=True)  # fmt: skip
        try:
            yield url, str(folder)
        finally:
            stop_process(proc)


def label(context: str, model: str, budget: int) -> str:
    """The row's name: ``generate (served MODEL, chunks@1000)``."""
    name = Path(model).name or model
    how = "in-process prompt" if context == "local" else f"{context}@{budget}"
    return f"generate (served {name}, {how})"


@dataclass
class Served:
    """The served rows of one run: ``writer`` (a RemoteLLM), the ``contexts`` asked for,
    the ``budget`` in the writer's tokens, and ``tokenizer`` (the model's own, where its
    name is a local folder) to count the whole prompt each row sent."""

    writer: Any
    contexts: Sequence[str]
    budget: int
    tokenizer: Any = None
    windows: dict[str, tuple[list[Any], Any]] = field(default_factory=dict)

    def labels(self) -> dict[str, str]:
        model = self.writer.model_name()
        return {c: label(c, model, self.budget) for c in self.contexts}

    def answer(self, pipe: Any, prepared: Any, context: str) -> Any:
        """The served model's answer to ``prepared`` (the question as ``ask`` prepared it,
        and its hits) with ``context``'s passages, finished as ``ask`` finishes it."""
        from lateseg.ask.options import AskOptions
        from lateseg.generate.remote.generator import remote_answer

        answerer = pipe.answerer
        if context == "chunks":  # the shipped path itself
            options = AskOptions(
                k=max(len(prepared.hits), 1), answer="generate", fallback=False,
                llm=self.writer, context_tokens=self.budget,
            )  # fmt: skip
            done = answerer.answer_from(prepared.asked, prepared.hits, options)
        else:
            gen = self.generator(pipe, prepared, context)
            done = remote_answer(gen, prepared.asked, prepared.hits, answerer.encoder())
        return answerer.finish(done, prepared, 0.0)

    def generator(self, pipe: Any, prepared: Any, context: str) -> Any:
        from lateseg.generate.prompts import PROMPTS
        from lateseg.generate.remote.context import ContextFit
        from lateseg.generate.remote.generator import chat_messages

        count = self.writer.count_tokens
        budget = self.budget
        question = prepared.asked.question
        if context == "topk":
            fit = topk_context(prepared.hits, budget, count)
        elif context == "fixed":
            ranked = self.ranked_windows(pipe, question, prepared.hits)
            fit = fixed_context(ranked[:WINDOW_POOL], budget, count)
        else:  # local: what the in-process generator shows, as it shows it
            local = pipe.generator
            shown, dropped = local.fitted(prepared.hits)
            fit = ContextFit(tuple(shown), tuple(dropped), 0)
            messages = tuple(chat_messages(question, shown, PROMPTS[local.style]))
            plan = Plan(messages, fit, "the in-process generator's fit")
            return Planned(self.writer, plan, max_tokens=local.max_new_tokens)
        messages = tuple(chat_messages(question, fit.passages))
        return Planned(self.writer, Plan(messages, fit, self.writer.counting), budget)

    def ranked_windows(self, pipe: Any, question: str, hits: Sequence[Any]) -> list[Any]:
        """The fixed windows of the documents ``hits`` come from, best first for
        ``question``; each document cut and embedded once a run."""
        pool: list[Any] = []
        vectors: list[Any] = []
        for source in dict.fromkeys(h.source for h in hits):
            if source not in self.windows:
                doc = pipe.document(source)
                cut = fixed_windows(doc, WINDOW_TOKENS, self.writer.count_tokens)
                # unique ids, none a stored chunk's: the support check tells windows apart
                cut = [
                    _with_id(w, -2 - len(self.windows) * 1_000_000 - i) for i, w in enumerate(cut)
                ]
                vecs = pipe.answerer.encoder().embed_texts([w.text for w in cut])
                self.windows[source] = (cut, vecs)
            cut, vecs = self.windows[source]
            pool += cut
            vectors += list(vecs)
        return rank_windows(pipe.answerer.encoder(), question, pool, vectors)

    def prompt_tokens(self, question: str, answer: Any, context: str, local: Any) -> int | None:
        """The whole prompt's tokens (chat template applied) by the model's tokenizer."""
        from lateseg.generate.prompts import PROMPTS
        from lateseg.generate.remote.generator import chat_messages

        if self.tokenizer is None or not answer.context:
            return None
        system = PROMPTS[local.style] if context in ("local", "in-process") else None
        messages = (
            chat_messages(question, answer.context)
            if system is None
            else chat_messages(question, answer.context, system)
        )
        ids = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, tokenize=True
        )
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return len(ids)


class Planned(RemoteGenerator):
    """A :class:`~lateseg.generate.remote.generator.RemoteGenerator` that sends a plan
    made beforehand (its passages chosen by a strategy), whatever hits it is given."""

    def __init__(self, writer: Any, plan: Plan, context_tokens: int = 3000, **kw: Any) -> None:
        super().__init__(writer, context_tokens=context_tokens, **kw)
        self.fixed_plan = plan

    def plan(self, question: str, hits: Sequence[Hit]) -> Plan:
        return self.fixed_plan


def _with_id(hit: Any, chunk_id: int) -> Any:
    import dataclasses

    return dataclasses.replace(hit, chunk_id=chunk_id)


def load_tokenizer(model: str) -> Any:
    """The tokenizer of ``model`` when it names a local folder (None otherwise)."""
    if not (Path(model) / "tokenizer_config.json").is_file():
        return None
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model)
