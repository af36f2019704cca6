"""The decode loop and its stop rules: token by token from a prefilled cache, greedy or
sampled, until the end token, a stop string, a loop, a repeated sentence or a limit.

It knows the model only through a tokenizer and a ``feed`` callable (one token into the
cache, its logits back), and a constraint only by the
:class:`~lateseg.generate.constraint.Constraint` protocol, so it imports no generator
and no answer mode.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any, NamedTuple

from lateseg.generate.constraint import Constraint
from lateseg.text.boundaries import generated_sentence_ends
from lateseg.text.words import terms

log = logging.getLogger(__name__)

Stream = Callable[[str], None]
#: Feeds token IDs into a cache at an original position; the last token's logits.
Feed = Callable[[Sequence[int], Any, int], Any]


class Decoded(NamedTuple):
    """What :func:`decode` made: the text, the tokens made, the seconds spent and why it
    stopped: ``"stop"`` (end token or stop string), ``"length"`` (the token limit),
    ``"repetition"`` (the same stretch of tokens looping; the text keeps one copy of it)
    or ``"time"`` (the time limit)."""

    text: str
    tokens: int
    seconds: float
    finish: str


def end_tokens(model: Any, tokenizer: Any) -> set[int | None]:
    """The tokens that end an answer: the tokenizer's end token and the model's
    generation config's (one or several)."""
    return {tokenizer.eos_token_id, *_as_list(model.generation_config.eos_token_id)}


def decode(
    tokenizer: Any,
    feed: Feed,
    ends: Collection[int | None],
    cache: Any,
    logits: Any,
    position: int,
    stream: Stream | None,
    *,
    max_new_tokens: int,
    max_seconds: float,
    stop: Sequence[str] = (),
    temperature: float = 0.0,
    seed: int | None = None,
    constraint: Constraint | None = None,
) -> Decoded:
    """Decoding from ``logits`` (the last token's, at ``position`` in ``cache``): greedy,
    or sampled at ``temperature`` > 0 (``seed`` fixes the draw). Stops at one of the
    ``ends`` tokens, after ``max_new_tokens``, before the first of the ``stop`` strings
    (not included; text that could begin one is held back from ``stream`` until it
    cannot), when the tokens loop (:func:`looping`: one copy of the loop is kept) or a
    whole sentence repeats (:func:`repeated_sentence`: the repeat is dropped), or after
    ``max_seconds``. The stream gets whole words only; an answer cut by a limit ends at
    its last whole word, with "…". A ``constraint`` (such as copy mode's
    :class:`~lateseg.generate.copying.CopyConstraint`) masks each step's logits to the
    tokens it allows (and the end token once one is written). Call under
    ``torch.inference_mode()``."""
    import torch

    draw = None
    if temperature > 0:
        draw = torch.Generator(device=logits.device)
        draw.manual_seed(int(seed) if seed is not None else int(time.time_ns()))
    out: list[int] = []
    shown = text = ""
    finish = "length"
    said = 0  # complete sentences checked for a repeat so far
    t0 = time.perf_counter()
    for _ in range(max_new_tokens):
        if constraint is not None:
            closing = sorted(i for i in ends if i is not None) if constraint.closable else []
            allowed = constraint.allowed() + closing
            if not allowed:  # the copy reached the end of its passage
                finish = "stop"
                break
            mask = torch.full_like(logits, float("-inf"))
            mask[allowed] = 0.0
            logits = logits + mask
        if draw is None:
            nxt = int(logits.argmax())
        else:
            probs = torch.softmax(logits.float() / temperature, dim=-1)
            nxt = int(torch.multinomial(probs, 1, generator=draw))
        if nxt in ends:
            finish = "stop"
            break
        out.append(nxt)
        if constraint is not None:
            constraint.advance(nxt)
        loop = looping(out)
        if loop:
            del out[len(out) - loop :]  # keep one copy of the repeated stretch
            text = tokenizer.decode(out, skip_special_tokens=True)
            finish = "repetition"
            break
        text = tokenizer.decode(out, skip_special_tokens=True)
        cut = _first_stop(text, stop)
        if cut is not None:
            text, finish = text[:cut], "stop"
            break
        said, repeat = repeated_sentence(text, said)
        if repeat is not None:  # a whole sentence said again, however long
            text, finish = text[:repeat], "repetition"
            break
        if stream is not None and not text.endswith("\ufffd"):  # a multi-byte char
            safe = min(len(text) - _held_back(text, stop), _word_end(text))
            if safe > len(shown):
                stream(text[len(shown) : safe])
                shown = text[:safe]
        if time.perf_counter() - t0 > max_seconds:
            finish = "time"
            break
        logits = feed([nxt], cache, position)
        position += 1
    text = text.replace("\ufffd", "")
    if finish in ("time", "length"):  # cut at a token: end at a whole word, say so
        text = text[: _word_end(text)].rstrip() + " …"
        log.info("the answer stopped at the %s limit", "time" if finish == "time" else "token")
    if stream is not None and len(text) > len(shown) and text.startswith(shown):
        stream(text[len(shown) :])
    return Decoded(text.strip(), len(out), time.perf_counter() - t0, finish)


def looping(tokens: Sequence[int], repeats: int = 3, longest: int = 16, least: int = 12) -> int:
    """How many trailing tokens to drop because the output loops: when its end is one
    stretch of ``n <= longest`` tokens said ``repeats`` times in a row (and the repeats
    cover at least ``least`` tokens, so "no, no, no" in a sentence is not a loop), the
    length of all but the first copy; else 0."""
    for n in range(1, longest + 1):
        span = n * repeats
        if span < least or span > len(tokens):
            continue
        unit = tokens[-n:]
        if all(tokens[-(k + 1) * n : len(tokens) - k * n] == unit for k in range(1, repeats)):
            return n * (repeats - 1)
    return 0


def repeated_sentence(text: str, checked: int = 0) -> tuple[int, int | None]:
    """Whether the last complete sentence of ``text`` repeats an earlier one (compared
    as lowercase words, at least three of them): ``(sentences complete, where the repeat
    starts)``; the position is None when nothing repeats. ``checked``: how many complete
    sentences an earlier call saw (only newer ones are compared)."""
    ends = generated_sentence_ends(text)
    if len(ends) <= checked:
        return checked, None
    starts = [0, *ends[:-1]]
    norm = [" ".join(terms(text[a:b])) for a, b in zip(starts, ends, strict=True)]
    for n in range(max(checked, 1), len(ends)):
        if len(norm[n].split()) >= 3 and norm[n] in norm[:n]:
            return len(ends), len(text[: starts[n]].rstrip())
    return len(ends), None


def _word_end(text: str) -> int:
    """Where the last whole word of ``text`` ends: its length when it ends in a space or
    punctuation, else the start of the word being written (never inside a word)."""
    if not text or not text[-1].isalnum():
        return len(text)
    m = re.search(r"[\w'’-]*\Z", text)
    return m.start() if m else len(text)


def _first_stop(text: str, stop: Sequence[str]) -> int | None:
    """Where the earliest of the ``stop`` strings begins in ``text`` (None: nowhere)."""
    found = [i for i in (text.find(s) for s in stop if s) if i >= 0]
    return min(found) if found else None


def _held_back(text: str, stop: Sequence[str]) -> int:
    """How many characters at the end of ``text`` could begin a stop string."""
    return max(
        (n for s in stop for n in range(min(len(s) - 1, len(text)), 0, -1) if text.endswith(s[:n])),
        default=0,
    )


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]
