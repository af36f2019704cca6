"""The local generator's answers, one function per mode that runs it: ``copy``
(:func:`copy_answer`: decoding constrained to copy a span of a passage) and ``generate``
(:func:`generate_answer`: its own words, each sentence checked). Both give the
generator the passages that fit its budget, whole, and say so when none does
(:func:`_fitted`); the orchestration (:mod:`lateseg.ask.answering`) chooses the mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lateseg.answer.extractive import quote_answer
from lateseg.generate.compose import copied, generated, too_long
from lateseg.generate.copying import COPY_TOKENS, CopyConstraint, copy_messages, openings
from lateseg.generate.prompts import ANSWER_STOPS
from lateseg.types import NO_PASSAGE, Answer, Hit

if TYPE_CHECKING:
    from lateseg.answer.code import Judge
    from lateseg.answer.question import Asked
    from lateseg.encode.late import LateEncoder
    from lateseg.generate.local import LocalGenerator
    from lateseg.kv.compress import KVConfig


def _fitted(
    gen: LocalGenerator, passages: Sequence[Hit], empty: Answer
) -> tuple[Sequence[Hit], Sequence[Hit]] | Answer:
    """The passages that fit ``gen``'s budget and those left out; or the answer when
    there is nothing to read: ``empty`` without passages, :func:`too_long` when none
    fits."""
    if not passages:
        return empty
    shown, dropped = gen.fitted(passages)
    return (shown, dropped) if shown else too_long(dropped, gen.context_tokens)


def copy_answer(
    gen: LocalGenerator,
    asked: Asked,
    passages: Sequence[Hit],
    encoder: LateEncoder,
    *,
    kv: KVConfig | None = None,
    stream: Callable[[str], None] | None = None,
) -> Answer:
    """The generator's answer to ``asked``, copied from ``passages``
    (:mod:`lateseg.generate.copying`: decoding may open only where the extractive
    ranker's best sentences do, and only continue a span of a passage)."""
    fit = _fitted(gen, passages, Answer(NO_PASSAGE, (), mode="copy", cited_by="copy"))
    if isinstance(fit, Answer):
        return fit  # nothing to copy from: the model is not loaded for it
    shown, dropped = fit
    gen.load()  # the constraint reads its tokenizer
    constraint = CopyConstraint(
        gen.tokenizer, [h.text for h in shown], openings(asked, shown, encoder)
    )
    done = gen.complete(
        copy_messages(asked.question, shown), kv=kv, stream=stream,
        max_new_tokens=COPY_TOKENS, constraint=constraint,
    )  # fmt: skip
    return copied(asked, shown, constraint.span(), dropped, done.kv_stats, done.finish_reason)


def generate_answer(
    gen: LocalGenerator,
    asked: Asked,
    passages: Sequence[Hit],
    encoder: LateEncoder,
    *,
    kv: KVConfig | None = None,
    stream: Callable[[str], None] | None = None,
    judge: Judge | None = None,
) -> Answer:
    """The generator's own answer to ``asked`` from the ``passages`` that fit its budget
    (KV cache compressed by ``kv``), each sentence checked against the passage that
    holds it and against the quoted answer from the same passages
    (:func:`~lateseg.generate.compose.generated`)."""
    fit = _fitted(gen, passages, Answer(NO_PASSAGE, ()))
    if isinstance(fit, Answer):
        return fit
    shown, dropped = fit
    done = gen.complete(gen.prompt(asked.question, shown), kv=kv, stream=stream, stop=ANSWER_STOPS)
    return generated(
        done.text, asked, shown, encoder, done.kv_stats, dropped, done.finish_reason,
        gen.model_name, quote_answer(asked, shown, encoder, judge=judge),
    )  # fmt: skip
