"""Re-ranking by the generator's query likelihood (opt-in: ``search --rerank generator``).

Each of the top :data:`RERANK_TOP` hits is scored by how likely the local generator finds
the question after reading it: the mean log-probability of the question's tokens after
``Passage: <text>\\nA question this passage answers:``. That score and the retrieval
score are each standardised over those hits and summed
(:func:`~lateseg.answer.confidence.zmix`); the hits are
returned in that order, the sum as their score.

Measured (``bench/retrieval.py --rerank-ql``, ``bench/citations.py --rerank-ql``;
``bench/results/retrieval.md``): it gains on code (recall at 2,000 characters 0.628 →
0.694 on the standard-library set, 0.509 → 0.581 held out) and on the manuals (hit@5
15/18 → 17/18 Policy, 14/16 → 16/16 FHS), but loses on the sample contracts (hit@5 0.958
→ 0.750), whose questions paraphrase the clause, and it costs 4-6 s a query on 2 CPUs,
where dense search costs milliseconds. So it is never the default.

An ask with it also judges among the facts a code question's passages state
(:func:`fact_judge`; :func:`~lateseg.answer.code.code_answer`): the fact's score and the
question's likelihood after the fact's lines, standardised and summed, choose the one
quoted. Chosen on the eleven seen code repositories (the right fact first for 53 of the
78 questions with two facts or more and a right one among them, against 47 for the
score alone) and reported on the seven held out (``python bench/code_judge.py``,
``bench/results/code/judge_round10.md``): there 33 against 30 of 46 (four gained, one
lost), and of their 168 answerable questions, right 21 either way, wrong shown 14 → 13,
right if always answered 48 → 50. A small gain, for a pass of the generator over the facts.
Copied answers, which quote no fact, are not judged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from lateseg.answer.code import Judge
from lateseg.answer.confidence import zmix
from lateseg.errors import ConfigError
from lateseg.types import Hit

if TYPE_CHECKING:
    from lateseg.generate.local import LocalGenerator

#: Re-rankers ``search``/``ask`` accept (None: the retrieval order).
RERANKERS = ("generator",)
#: How many of the retrieval's hits are re-scored.
RERANK_TOP = 30
#: Each passage is cut to this many characters before it is scored (bounds the cost).
PASSAGE_CHARS = 1500
#: Passages scored in one forward pass.
BATCH = 4
PROMPT = "Passage: {passage}\nA question this passage answers:"


def check_reranker(name: str | None) -> str | None:
    """``name`` when it is a known re-ranker or None; else a :class:`ConfigError`."""
    if name is not None and name not in RERANKERS:
        raise ConfigError(f"rerank={name!r}; choose one of {', '.join(RERANKERS)} (or none)")
    return name


def likelihoods(
    generator: LocalGenerator, question: str, passages: Sequence[str], batch: int = BATCH
) -> np.ndarray:
    """The mean log-probability of ``question``'s tokens after each passage under
    ``generator``'s model (:data:`PROMPT`; passages cut to :data:`PASSAGE_CHARS`).

    Passages are scored ``batch`` at a time, left-padded so that the question's tokens
    end every row; position ids count real tokens only, so a padded row scores as it
    would alone."""
    import torch

    if not question.strip():
        raise ConfigError("the question is empty")
    if not passages:
        return np.zeros(0)
    tok, model = generator.tokenizer, generator.model
    asked = tok(" " + question.strip(), add_special_tokens=False)["input_ids"]
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    target = torch.tensor(asked, device=generator.device)
    out: list[float] = []
    with generator.lock, torch.inference_mode():
        for i in range(0, len(passages), batch):
            rows = [
                tok(PROMPT.format(passage=p[:PASSAGE_CHARS]), add_special_tokens=False)["input_ids"]
                + asked
                for p in passages[i : i + batch]
            ]
            width = max(map(len, rows))
            ids = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for r, row in enumerate(rows):
                ids[r, width - len(row) :] = torch.tensor(row)
                mask[r, width - len(row) :] = 1
            pos = (mask.cumsum(-1) - 1).clamp(min=0)
            dev = generator.device
            logits = model(
                input_ids=ids.to(dev),
                attention_mask=mask.to(dev),
                position_ids=pos.to(dev),
                logits_to_keep=len(asked) + 1,
            ).logits[:, :-1]  # the logits that predict each question token
            logp = torch.log_softmax(logits.float(), -1)
            picked = logp.gather(2, target[None, :, None].expand(len(rows), -1, 1))
            out.extend(picked[:, :, 0].mean(1).tolist())
    return np.asarray(out)


def fact_judge(generator: LocalGenerator) -> Judge:
    """What judges among a code question's facts under ``rerank="generator"``
    (:func:`~lateseg.answer.code.code_answer`): the question's likelihood after each
    fact's lines (:func:`likelihoods`). Each text's likelihood is remembered for the
    judge's life, one ask: its quote and the quote a generated answer is checked against
    (and replaced by, where unsupported) cost one pass."""
    memos: dict[str, dict[str, float]] = {}

    def judge(question: str, texts: Sequence[str]) -> np.ndarray:
        return remembered(generator, question, texts, memos.setdefault(question, {}))

    return judge


def remembered(
    generator: LocalGenerator, question: str, texts: Sequence[str], memo: dict[str, float]
) -> np.ndarray:
    """:func:`likelihoods` of ``texts``, each distinct text scored once and kept in
    ``memo`` (one question's likelihoods by text: a row scores as it would alone, so a
    remembered one is the one it would get)."""
    new = [t for t in dict.fromkeys(texts) if t not in memo]
    if new:
        memo.update(zip(new, likelihoods(generator, question, new).tolist(), strict=True))
    return np.asarray([memo[t] for t in texts])


def rerank(
    generator: LocalGenerator,
    question: str,
    hits: Sequence[Hit],
    k: int,
    memo: dict[str, float] | None = None,
) -> list[Hit]:
    """The ``k`` best of ``hits`` (in retrieval order) by retrieval score plus the
    question's likelihood under ``generator`` (:func:`~lateseg.answer.confidence.zmix`
    of the two over the first :data:`RERANK_TOP`); each hit's score becomes that sum.
    Hits past the first :data:`RERANK_TOP` keep their order after them. ``memo`` keeps
    each passage's likelihood by its text across calls for one question: a units search
    that reads more chunks re-ranks the same passages again (a row scores as it would alone, so a
    remembered likelihood is the one it would get)."""
    if k < 1:
        raise ConfigError(f"k={k} must be at least 1")
    top = list(hits[:RERANK_TOP])
    if len(top) < 2:
        return list(hits[:k])
    said = remembered(generator, question, [h.text for h in top], {} if memo is None else memo)
    mixed = zmix(np.asarray([h.score for h in top]), said)
    order = np.argsort(-mixed, kind="stable")
    ranked = [dataclasses.replace(top[i], score=float(mixed[i])) for i in order]
    return (ranked + list(hits[RERANK_TOP:]))[:k]
