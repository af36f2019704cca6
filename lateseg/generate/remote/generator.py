"""A model lateseg does not run itself writes the draft of an answer: a model behind a URL
or any LangChain chat model, seen as a :class:`~lateseg.generate.writer.Writer`.
:class:`RemoteGenerator` chooses
the passages (whole chunks under ``context_tokens``,
:func:`~lateseg.generate.remote.context.fit_context`), asks for the value, a verbatim quote
and ``[n]`` markers (:data:`~lateseg.generate.prompts.CHECKABLE_PROMPT`), and returns
the model's raw text with what was sent. Only the question and those passages leave the
machine (for a model behind a URL).

The draft is not an answer yet: locating the phrase and quote, the support check and the
citations are the answer path's, the same for every writer."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lateseg.answer.citations import format_passages
from lateseg.answer.extractive import quote_answer
from lateseg.errors import ConfigError, GenerationError, RemoteModelError
from lateseg.generate.compose import generated, too_long
from lateseg.generate.prompts import ANSWER_STOPS, CHECKABLE_PROMPT, QUESTION_MARK
from lateseg.generate.remote.context import ContextFit, fit_context
from lateseg.generate.writer import StreamingWriter, Writer
from lateseg.types import NO_PASSAGE, Answer, Hit

if TYPE_CHECKING:
    from lateseg.answer.code import Judge
    from lateseg.answer.question import Asked
    from lateseg.encode.late import LateEncoder


@dataclass(frozen=True)
class Plan:
    """What will be sent for one question: the chat ``messages`` and the passages they
    number (``fit``), and how their tokens were counted (``counting``)."""

    messages: tuple[dict[str, str], ...]
    fit: ContextFit
    counting: str


@dataclass(frozen=True)
class Draft:
    """The model's raw ``text`` for a :class:`Plan`, the ``model`` that wrote it (as the
    writer names it) and why it stopped (``finish_reason``, where said)."""

    text: str
    plan: Plan
    model: str
    finish_reason: str | None = None


def chat_messages(
    question: str, passages: Sequence[Hit], system: str = CHECKABLE_PROMPT
) -> list[dict[str, str]]:
    """The chat for ``question`` over ``passages`` numbered from 1, in the layout the
    local generator uses (so one model gives the same text either way)."""
    body = format_passages(passages)
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Passages:\n\n{body}{QUESTION_MARK}{question}"},
    ]


class RemoteGenerator:
    """Drafts answers with ``llm`` (any :class:`~lateseg.generate.writer.Writer`):
    passages fitted to ``context_tokens`` (counted by the model's tokenizer where it has
    one, else estimated; :attr:`Plan.counting` says which), at most ``max_tokens``
    written, greedy (``temperature`` 0) by default, where the writer takes these."""

    def __init__(
        self,
        llm: Writer,
        context_tokens: int = 3000,
        max_tokens: int = 256,
        temperature: float = 0.0,
        system: str = CHECKABLE_PROMPT,
    ) -> None:
        if context_tokens < 1 or max_tokens < 1:
            raise ConfigError(
                f"context_tokens={context_tokens} and max_tokens={max_tokens} must be >= 1"
            )
        self.llm = llm
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.system = system

    def plan(self, question: str, hits: Sequence[Hit]) -> Plan:
        """The messages for ``question`` and the ranked ``hits`` that fit the budget."""
        fit = fit_context(hits, self.context_tokens, self.llm.count_tokens)
        if not fit.passages:
            raise GenerationError(
                f"none of the {len(hits)} passages fits context_tokens={self.context_tokens} "
                f"(counted by {self.llm.counting}); raise --context-tokens"
                if hits
                else "no passages to answer from"
            )
        messages = chat_messages(question, fit.passages, self.system)
        return Plan(tuple(messages), fit, self.llm.counting)

    def draft(self, question: str, hits: Sequence[Hit]) -> Draft:
        """The model's whole answer to ``question`` over the fitted ``hits``."""
        return self.write(self.plan(question, hits))

    def write(self, plan: Plan) -> Draft:
        """The model's whole answer to ``plan``."""
        done = self.llm.chat(
            list(plan.messages), self.max_tokens, self.temperature, stop=ANSWER_STOPS
        )
        return Draft(done.text, plan, done.model, done.finish_reason)

    def stream(self, plan: Plan) -> Iterator[str]:
        """The answer to ``plan`` as the model writes it (whole, in one piece, from a
        writer that cannot stream); closing the iterator cancels the request where the
        writer can (a server sees the connection go)."""
        if isinstance(self.llm, StreamingWriter):
            return self.llm.stream(
                list(plan.messages), self.max_tokens, self.temperature, stop=ANSWER_STOPS
            )
        return iter([self.write(plan).text])


def remote_answer(
    gen: RemoteGenerator,
    asked: Asked,
    hits: Sequence[Hit],
    encoder: LateEncoder,
    stream: Callable[[str], None] | None = None,
    judge: Judge | None = None,
) -> Answer:
    """The answer ``gen``'s model writes to ``asked`` over the ``hits`` that fit its
    budget (streamed to ``stream`` as written), made an answer as the local generator's
    is (:func:`~lateseg.generate.compose.generated`: each sentence checked against the
    passages actually sent, ``[n]`` markers read as their citations), with the model's
    name; ``kv_stats`` holds what the context took and how it was counted."""
    if not hits:
        return Answer(NO_PASSAGE, ())
    try:
        plan = gen.plan(asked.question, hits)
    except RemoteModelError:
        raise
    except GenerationError:  # no passage fits the budget
        return too_long(hits, gen.context_tokens)
    if stream is None:
        draft = gen.write(plan)
    else:
        pieces = []
        for piece in gen.stream(plan):
            pieces.append(piece)
            stream(piece)
        draft = Draft("".join(pieces), plan, gen.llm.model_name())
    fit = draft.plan.fit
    stats = {
        "context_tokens": fit.tokens,
        "context_budget": gen.context_tokens,
        "counting": draft.plan.counting,
    }
    return generated(
        draft.text, asked, fit.passages, encoder, stats, fit.dropped, draft.finish_reason,
        draft.model, quote_answer(asked, fit.passages, encoder, judge=judge),
    )  # fmt: skip
