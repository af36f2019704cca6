"""Local generator: any Hugging Face causal LM answering from numbered passages.

Greedy decoding in our own loop (so tokens can stream and the KV cache can be compressed
between prefill and decoding, ``lateseg.kv``). The prompt is the chat template over a
system prompt, the numbered passages and the question, with the question last: everything
before it is the *context*, which :class:`KVSession` prefills and compresses once to
answer several questions. The model is loaded once per process (``loading.py``), the
prompts are in ``prompts.py``, the decode loop and its stop rules in ``decode.py``. It
decodes and nothing more: a completion becomes a cited answer in ``compose.py``.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lateseg.answer.citations import fit_passages, format_passages
from lateseg.encode.models import DEFAULT_GENERATOR
from lateseg.errors import ConfigError, GenerationError
from lateseg.generate.agnostic import prefill_agnostic
from lateseg.generate.compose import too_long
from lateseg.generate.constraint import Constraint
from lateseg.generate.decode import Decoded, Stream, decode, end_tokens
from lateseg.generate.loading import load_model, model_version, run_lock
from lateseg.generate.prompts import ANSWER_STOPS, ORDERS, PROMPTS, QUESTION_MARK, Prompt
from lateseg.types import Hit

if TYPE_CHECKING:
    from lateseg.kv.compress import Compressed, KVConfig, ObservationWindow
    from lateseg.kv.sparse import SparsePrefill


@dataclass
class Completion:
    """What :meth:`LocalGenerator.complete` made: the text, the prompt and completion
    token counts, why it stopped (``"stop"``: end token or stop string; ``"length"``:
    the token limit; ``"repetition"``, ``"time"``: see
    :class:`~lateseg.generate.decode.Decoded`) and the KV statistics (None without
    compression)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    kv_stats: dict[str, Any] | None = None


@dataclass
class Prefilled:
    """A prompt in a new cache: the cache, the last token's logits, the compression
    (None without a KV config), the prefill's seconds and, after a sparse prefill, what
    it did (:meth:`lateseg.kv.sparse.SparseStats.summary`)."""

    cache: Any
    logits: Any
    compressed: Compressed | None
    seconds: float
    sparse: dict[str, Any] | None = None

    def stats(self) -> dict[str, Any] | None:
        """The KV statistics an answer carries: the compression's, with the sparse
        prefill's under ``"prefill"`` (None when neither ran)."""
        out = self.compressed.stats() if self.compressed else None
        if self.sparse is not None:
            out = {**(out or {"method": "full"}), "prefill": self.sparse}
        return out


class LocalGenerator:
    """A causal LM loaded lazily from a name or folder (default: SmolLM2-135M-Instruct).

    ``context_tokens``: the passages' budget in the generator's tokens (whole passages
    only, :meth:`fit`); ``max_new_tokens`` and ``max_seconds`` bound each answer;
    ``style`` and ``order`` choose the system prompt
    (:data:`~lateseg.generate.prompts.PROMPTS`) and the passages' order
    (:data:`~lateseg.generate.prompts.ORDERS`); ``prefill`` is ``"dense"`` or
    ``"sparse"`` (MInference-style, :mod:`lateseg.kv.sparse`; or its
    :class:`~lateseg.kv.sparse.SparsePrefill` settings)."""

    def __init__(
        self,
        model: str = DEFAULT_GENERATOR,
        device: str | None = None,
        max_new_tokens: int = 160,
        context_tokens: int = 2048,
        max_seconds: float = 120.0,
        style: str = "plain",
        order: str = "rank",
        prefill: str | SparsePrefill = "dense",
    ) -> None:
        from lateseg.kv.sparse import prefill_mode

        if style not in PROMPTS or order not in ORDERS:
            raise ConfigError(f"style must be one of {list(PROMPTS)} and order one of {ORDERS}")
        self.sparse = prefill_mode(prefill)
        self.last_sparse: dict[str, Any] | None = None  # what the last sparse prefill did
        self.style = style
        self.order = order
        self.model_name = model
        self.device = device
        self.max_new_tokens = max_new_tokens
        self.max_seconds = max_seconds
        self.context_tokens = context_tokens
        self._model: Any = None
        self._tokenizer: Any = None
        self._version: str | None = None  # the model folder's, as loaded
        self._lock = run_lock(model)

    def load(self) -> None:
        """Load the model and tokenizer: once per (model, device) in this process, shared
        by every generator of that model (a pipeline, a chat model, a test), which
        differ only in their settings. Later calls return at once, unless the model's
        folder was rewritten since: then it is loaded again (a running server picks up a
        replaced model at its next answer)."""
        version = model_version(self.model_name)
        if self._model is None or version != self._version:
            self._model, self._tokenizer, self.device = load_model(self.model_name, self.device)
            self._version = version

    def with_prefill(self, prefill: str | SparsePrefill | None) -> LocalGenerator:
        """This generator (the same loaded model and run lock) prefilling ``prefill``
        (``"dense"``, ``"sparse"`` or settings); itself when ``prefill`` is None."""
        from lateseg.kv.sparse import prefill_mode

        if prefill is None:
            return self
        other = copy.copy(self)
        other.sparse = prefill_mode(prefill)
        return other

    def window_budget(self) -> int:
        """The most passage tokens the model's context window leaves room for (its
        positions less the answer's tokens and 256 for the prompt around them)."""
        self.load()
        limit = getattr(self._model.config, "max_position_embeddings", None) or 2048
        return max(1, int(limit) - self.max_new_tokens - 256)

    def fit(
        self, passages: Sequence[Hit], budget: int | None = None
    ) -> tuple[list[Hit], list[Hit]]:
        """The passages that fit ``budget`` tokens (default :attr:`context_tokens`, at most
        :meth:`window_budget`) whole, in order, and those dropped (never cut)."""
        budget = min(budget or self.context_tokens, self.window_budget())
        tok = self._tokenizer
        return fit_passages(
            passages, budget, lambda t: len(tok(t, add_special_tokens=False)["input_ids"])
        )

    def fitted(self, passages: Sequence[Hit]) -> tuple[list[Hit], list[Hit]]:
        """The passages shown (those that fit, :meth:`fit`, in the prompt's order,
        :meth:`arrange`) and those dropped."""
        shown, dropped = self.fit(passages)
        return self.arrange(shown), dropped

    def arrange(self, passages: Sequence[Hit]) -> list[Hit]:
        """Ranked ``passages`` in the order the prompt shows (and numbers) them."""
        return list(passages)[::-1] if self.order == "nearest" else list(passages)

    def prompt(self, question: str, passages: Sequence[Hit]) -> list[dict[str, str]]:
        """The chat: system prompt, then the numbered passages (each whole: :meth:`fit`
        chooses them) and the question."""
        body = format_passages(passages)
        return [
            {"role": "system", "content": PROMPTS[self.style]},
            {"role": "user", "content": f"Passages:\n\n{body}{QUESTION_MARK}{question}"},
        ]

    def render(self, messages: list[dict[str, str]], max_new_tokens: int | None = None) -> Prompt:
        """The chat template applied to ``messages``, tokenized with character offsets.
        The tail starts at the last question marker (or is empty)."""
        self.load()
        tok = self._tokenizer
        if not getattr(tok, "chat_template", None):
            raise GenerationError(f"generator {self.model_name!r} has no chat template")
        text = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        cut = text.rfind(QUESTION_MARK)
        cut = len(text) if cut < 0 else cut
        # Context and tail tokenized apart, so the context's tokens are the same for every
        # question (a session prefills them once).
        head = tok(text[:cut], add_special_tokens=False, return_offsets_mapping=True)
        tail = tok(text[cut:], add_special_tokens=False, return_offsets_mapping=True)
        offsets = [tuple(o) for o in head["offset_mapping"]]
        offsets += [(a + cut, b + cut) for a, b in tail["offset_mapping"]]
        limit = getattr(self._model.config, "max_position_embeddings", None)
        new = self.max_new_tokens if max_new_tokens is None else max_new_tokens
        if limit and len(offsets) + new > limit:
            raise GenerationError(
                f"the prompt has {len(offsets)} tokens and the answer may take "
                f"{new}, but {self.model_name} reads at most {limit}; "
                "give fewer passages (-k) or use a generator with a longer context"
            )
        return Prompt(
            text, head["input_ids"] + tail["input_ids"], offsets, cut, len(head["input_ids"])
        )

    @property
    def model(self) -> Any:
        """The loaded causal LM (the KV observation window switches its attention)."""
        self.load()
        return self._model

    @property
    def lock(self) -> threading.RLock:
        """Held while this model runs: one forward at a time per model (the KV
        observation window switches the shared model's attention)."""
        return self._lock

    @property
    def tokenizer(self) -> Any:
        """The generator's tokenizer (the model is loaded first)."""
        self.load()
        return self._tokenizer

    def feed(self, ids: Sequence[int], cache: Any, position: int) -> Any:
        """Feed ``ids`` into ``cache`` at original positions ``position...`` (after a
        compressed prompt these continue its original length); the last token's logits.
        Call under ``torch.inference_mode()``."""
        import torch

        x = torch.tensor([list(ids)], device=self.device)
        pos = torch.arange(position, position + len(ids), device=self.device)[None]
        given = {cache_keyword(self._model): cache}
        out = self._model(input_ids=x, position_ids=pos, use_cache=True, logits_to_keep=1, **given)
        return out.logits[0, -1]

    def new_cache(self) -> Any:
        """An empty KV cache for this model."""
        from transformers import DynamicCache

        return DynamicCache(config=self._model.config)

    def decode(
        self,
        cache: Any,
        logits: Any,
        position: int,
        stream: Stream | None,
        *,
        max_new_tokens: int | None = None,
        stop: Sequence[str] = (),
        temperature: float = 0.0,
        seed: int | None = None,
        max_seconds: float | None = None,
        constraint: Constraint | None = None,
    ) -> Decoded:
        """Decoding from ``logits`` at ``position`` in ``cache`` by this model
        (:func:`lateseg.generate.decode.decode`: its stop rules, ``stream`` and options),
        at most ``max_new_tokens`` and ``max_seconds`` (default the generator's). Call
        under ``torch.inference_mode()``."""
        return decode(
            self._tokenizer,
            self.feed,
            end_tokens(self._model, self._tokenizer),
            cache,
            logits,
            position,
            stream,
            max_new_tokens=self.max_new_tokens if max_new_tokens is None else max_new_tokens,
            max_seconds=self.max_seconds if max_seconds is None else max_seconds,
            stop=stop,
            temperature=temperature,
            seed=seed,
            constraint=constraint,
        )

    def generate(
        self,
        messages: list[dict[str, str]],
        *,
        kv: KVConfig | None = None,
        stream: Stream | None = None,
    ) -> tuple[str, dict[str, Any] | None]:
        """Greedy completion of a chat, its KV cache compressed by ``kv`` after prefill
        (query-aware: the question tail is the observation window). Returns the text and
        the KV statistics (None without ``kv``)."""
        done = self.complete(messages, kv=kv, stream=stream)
        return done.text, done.kv_stats

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        kv: KVConfig | None = None,
        stream: Stream | None = None,
        max_new_tokens: int | None = None,
        stop: Sequence[str] = (),
        temperature: float = 0.0,
        seed: int | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        """Completion of a chat (see :meth:`decode` for the decoding options), its KV
        cache compressed by ``kv`` after prefill. The observation window is the question
        tail (after the last ``Question:`` marker) when there is one, else the prompt's
        last ``kv.window`` tokens. Calls are serialised: one model, one forward at a
        time (the observation window switches the shared model's attention)."""
        import torch

        with self._lock:
            prompt = self.render(messages, max_new_tokens)
            window = len(prompt.ids) - prompt.tail_token
            if window <= 0:
                window = min(len(prompt.ids), kv.window if kv else 1)
            with torch.inference_mode():
                done = self.prefill_and_compress(prompt, kv, window)
                prefill = done.seconds
                stats = done.stats()
                text, made, secs, finish = self.decode(
                    done.cache,
                    done.logits,
                    len(prompt.ids),
                    stream,
                    max_new_tokens=max_new_tokens,
                    stop=stop,
                    temperature=temperature,
                    seed=seed,
                    constraint=constraint,
                )
        if stats is not None:
            stats.update(_timing(prefill, made, secs))
        return Completion(text, len(prompt.ids), made, finish, stats)

    def prefill(
        self, ids: Sequence[int], observe: int | None = None
    ) -> tuple[Any, Any, ObservationWindow | None]:
        """A new cache holding ``ids`` from position 0, the last token's logits, and (when
        ``observe`` is given) the observation window of its last ``observe`` tokens, for
        :func:`lateseg.kv.compress.compress`. Prefills sparsely when the generator does
        (what it did is in :attr:`last_sparse`). Call under ``torch.inference_mode()``."""
        from lateseg.kv.compress import ObservationWindow
        from lateseg.kv.sparse import sparse_prefill

        self.load()
        cache = self.new_cache()
        self.last_sparse = None
        with contextlib.ExitStack() as stack:
            stats = None
            if self.sparse is not None:
                stats = stack.enter_context(sparse_prefill(self._model, self.sparse))
            obs = None
            if observe is not None:
                obs = stack.enter_context(ObservationWindow(self._model, observe))
            logits = self.feed(ids, cache, 0)
        if stats is not None:
            self.last_sparse = stats.summary()
        return cache, logits, obs

    def prefill_and_compress(
        self, prompt: Prompt, kv: KVConfig | None, window: int, *, context_only: bool = False
    ) -> Prefilled:
        """Prefill ``prompt`` (only its context, before the question tail, with
        ``context_only``) into a new cache and, with ``kv``, compress it using the
        observation window of its last ``window`` tokens: the one place where "prefill,
        then compress" is written. Call under ``torch.inference_mode()``."""
        from lateseg.kv.compress import compress

        end = prompt.tail_token if context_only else len(prompt.ids)
        t0 = time.perf_counter()
        cache, logits, obs = self.prefill(prompt.ids[:end], window if kv else None)
        seconds = time.perf_counter() - t0
        done = None
        if kv is not None and obs is not None:
            done = compress(
                cache,
                obs,
                kv,
                text=prompt.text[: prompt.tail_char if context_only else len(prompt.text)],
                offsets=prompt.offsets[:end],
                window_tokens=window,
            )
        return Prefilled(cache, logits, done, seconds, self.last_sparse)

    def session(
        self, passages: Sequence[Hit], kv: KVConfig | None = None, budget: int | None = None
    ) -> KVSession:
        """Prefill (and compress, query-agnostic) the context of ``passages`` (those that
        fit ``budget`` tokens, :meth:`fit`) once, to answer several questions from it
        (:meth:`KVSession.complete`)."""
        return KVSession(self, passages, kv, budget)


def cache_keyword(model: Any) -> str:
    """The name ``model``'s forward takes its KV cache by: ``cache`` in recent
    transformers, ``past_key_values`` before it was renamed (5.2, which kvpress pins,
    silently ignores ``cache=`` and prefills a cache of its own). Read once per class."""
    cls = type(model)
    if cls not in _CACHE_KEYWORDS:
        params = inspect.signature(getattr(cls, "forward")).parameters  # noqa: B009
        _CACHE_KEYWORDS[cls] = "cache" if "cache" in params else "past_key_values"
    return _CACHE_KEYWORDS[cls]


_CACHE_KEYWORDS: dict[type, str] = {}


def shared_generator(model: str = DEFAULT_GENERATOR, device: str | None = None) -> LocalGenerator:
    """A loaded generator with the default settings, for callers that do not keep one
    (LangChain chat models); its model is the process's one copy (:meth:`load`)."""
    gen = LocalGenerator(model, device=device)
    gen.load()
    return gen


class KVSession:
    """A context prefilled once and compressed without knowing the questions (scored as
    ``kv.observe`` says: :mod:`lateseg.generate.agnostic`); each :meth:`complete` feeds its
    question after the compressed cache and truncates the cache back afterwards."""

    def __init__(
        self,
        generator: LocalGenerator,
        passages: Sequence[Hit],
        kv: KVConfig | None,
        budget: int | None = None,
    ) -> None:
        import torch

        if not passages:
            raise GenerationError("a session needs at least one passage")
        shown, dropped = generator.fit(passages, budget)
        shown = generator.arrange(shown)
        if not shown:
            raise GenerationError(too_long(dropped, budget or generator.context_tokens).text)
        self.generator = generator
        self.passages = tuple(shown)
        self.dropped = tuple(dropped)
        self.kv = kv
        with torch.inference_mode():
            prompt, done = prefill_agnostic(generator, self.passages, kv)
        self.context_ids = prompt.ids[: prompt.tail_token]
        self.cache, self.prefill_s = done.cache, done.seconds
        self.compressed: Compressed | None = done.compressed
        self.stats = done.stats() or {"method": "full"}
        self.slots = int(self.cache.layers[0].keys.shape[-2])

    def complete(self, question: str, stream: Stream | None = None) -> Completion:
        """The completion of ``question`` asked of the prefilled context: its tail fed
        after the (compressed) cache, decoded, and the cache truncated back."""
        import torch

        from lateseg.kv.compress import truncate

        gen = self.generator
        prompt = gen.render(gen.prompt(question, self.passages))
        if prompt.ids[: prompt.tail_token] != self.context_ids:
            raise GenerationError("the question changed the context's tokens")  # a bug
        tail = prompt.ids[prompt.tail_token :]
        length = len(self.context_ids)
        try:
            with torch.inference_mode():
                logits = gen.feed(tail, self.cache, length)
                text, made, secs, finish = gen.decode(
                    self.cache, logits, length + len(tail), stream, stop=ANSWER_STOPS
                )
        finally:
            truncate(self.cache, self.slots)
        stats = dict(self.stats)
        stats.update(_timing(self.prefill_s, made, secs), reused=True)
        return Completion(text, len(prompt.ids), made, finish, stats)


def _timing(prefill_s: float, tokens: int, decode_s: float) -> dict[str, Any]:
    return {
        "prefill_ms": 1000 * prefill_s,
        "decode_tokens": tokens,
        "decode_tokens_per_s": tokens / decode_s if decode_s > 0 else None,
    }
