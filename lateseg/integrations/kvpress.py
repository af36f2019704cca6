"""lateseg's KV compression as a press of NVIDIA kvpress (``pip install -r
requirements/kvpress.txt``: kvpress pins ``transformers<5.3``, so it lives in an
environment of its own).

:class:`LatesegKVPress` is a kvpress ``BasePress``: it works wherever kvpress's presses do,
``KVPressTextGenerationPipeline`` included::

    from kvpress import KVPressTextGenerationPipeline
    from lateseg.integrations.kvpress import LatesegKVPress

    pipe = KVPressTextGenerationPipeline(model=model, tokenizer=tokenizer)
    press = LatesegKVPress(compression_ratio=0.5)          # whole content-defined chunks
    pipe(context=contract, questions=[...], press=press)

It keeps what lateseg's own press keeps (:mod:`lateseg.kv.compress`): the first ``sinks``
tokens and the last ``window`` tokens, and for the rest of the budget what the lateseg
method named by ``method`` chooses (``lateseg``: the whole content-defined chunks, cut
from the context's text, with the most attention, filling the budget; or
``chunkkv-fixed``, ``snapkv``, ``keydiff``, ``streaming``), scored the way lateseg scores:
the attention the window's queries give each slot, averaged over the queries and over
the query heads of each KV head. The budget is kvpress's: ``compression_ratio`` of the
context's slots removed, kept count as kvpress rounds it (``lateseg`` fills it with whole
chunks: exactly where the chunk lengths allow, else the largest total below). The window
takes at most half of what the sinks leave, so on a short context at a high ratio the
method still chooses.

The chunks need the context's text: the press reads the prefill's ``input_ids`` and
decodes them token by token with the model's tokenizer (``tokenizer``, or the one saved
with the model), so a chunk boundary falls on the token that holds a paragraph, sentence,
clause or line start. Adjacent layers share one choice, as in lateseg's own press
(``layer_group``; None: the method's own, three layers for ``lateseg``, one for
``snapkv``): kvpress compresses layer by layer as the prefill runs, so each layer's
scores wait until the last layer of its group has run, and the group is then cut at
once. Chosen layer by layer instead, the press lost most answers on RULER tasks at 8,192
tokens without the question (``bench/results/kv_agnostic_group1.md``: 53 % → 25 % at
three quarters kept, on lateseg's own path). One sequence per call (batch size 1), as
kvpress's ChunkKVPress.
"""

from __future__ import annotations

try:  # one clear message when the bench environment is not the one running
    import kvpress  # noqa: F401
    from kvpress.presses.base_press import BasePress, is_prefilling
    from kvpress.utils import compute_n_kept, get_prerope_query_states
except ImportError as e:  # pragma: no cover - exercised where kvpress is absent
    raise ImportError(
        "lateseg.integrations.kvpress needs NVIDIA kvpress, which pins transformers<5.3: "
        "make an environment of its own (make kvpress-env, or pip install -r "
        "requirements/kvpress.txt)"
    ) from e

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch

from lateseg.errors import ConfigError
from lateseg.kv.chunks import content_chunks
from lateseg.kv.compress import at_positions
from lateseg.kv.presses import Press, Slots, at_least, press

__all__ = ["LatesegKVPress", "token_text"]


def token_text(tokenizer: Any, ids: list[int]) -> tuple[str, list[tuple[int, int]]]:
    """The text of ``ids`` decoded token by token, and each token's character span in it
    (one span per id, so spans and cache slots stay aligned). Each token is decoded after
    the one before it and keeps what that adds, so a SentencePiece word start keeps its
    space (decoded alone it loses it); a token holding part of a character gives the
    replacement character, which never cuts a chunk."""
    if not ids:
        return "", []
    singles = tokenizer.batch_decode([[i] for i in ids], skip_special_tokens=False)
    pairs = tokenizer.batch_decode(
        [list(pair) for pair in itertools.pairwise(ids)], skip_special_tokens=False
    )
    pieces = [singles[0]]
    for before, pair, alone in zip(singles, pairs, singles[1:], strict=False):
        pieces.append(pair[len(before) :] if pair.startswith(before) else alone)
    offsets: list[tuple[int, int]] = []
    at = 0
    for piece in pieces:
        offsets.append((at, at + len(piece)))
        at += len(piece)
    return "".join(pieces), offsets


@dataclass
class LatesegKVPress(BasePress):
    """A lateseg method as a kvpress press (see the module): ``compression_ratio`` of the
    context removed; ``method`` a lateseg press name (its ``settings`` go to it);
    ``sinks`` and ``window`` the first and last tokens always kept, the window's queries
    scoring the rest; ``tokenizer`` decodes the context for the chunks (None: the
    model's own, loaded from where the model was); ``layer_group`` adjacent layers
    sharing one choice (None: the method's own; inside kvpress's ``ComposedPress``, give
    1, since a group is cut after the presses that follow it have run)."""

    compression_ratio: float = 0.0
    method: str = "lateseg"
    settings: dict[str, Any] = field(default_factory=dict)
    sinks: int = 4
    window: int = 32
    tokenizer: Any = None
    layer_group: int | None = None

    def __post_init__(self) -> None:
        ratio = self.compression_ratio
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float, np.floating)):
            raise ConfigError(f"compression_ratio={ratio!r}; give a share in [0, 1)")
        if not 0 <= ratio < 1:
            raise ConfigError(f"compression_ratio={ratio!r}; give a share in [0, 1)")
        at_least(self, "sinks", 0)
        at_least(self, "window", 1)
        if self.layer_group is not None:
            at_least(self, "layer_group", 1)
        self.chooser: Press = press(self.method, **self.settings)
        # a group's scores, keys and values until its last layer has run
        self._waiting: dict[int, tuple[np.ndarray, torch.Tensor, torch.Tensor, Slots]] = {}
        self._ids: list[int] | None = None
        self._chunks: list[tuple[int, int]] | None = None
        #: The last prefill's kept positions per layer, ``[kv_heads, n]`` (what to look at
        #: when asking why a fact was lost), and its content-defined chunks.
        self.kept: dict[int, np.ndarray] = {}
        self.chunks: list[tuple[int, int]] = []

    def context(self, ids: list[int]) -> None:
        """The token ids of the context about to be prefilled and compressed, for a
        caller that runs kvpress's layer hooks itself (``with press(model)`` reads them
        from the prefill's ``input_ids``)."""
        self._ids = [int(i) for i in ids]
        self._chunks = None
        self._waiting = {}
        self.kept = {}

    @property
    def group(self) -> int:
        """Adjacent layers sharing one choice: ``layer_group``, or the method's own."""
        return self.chooser.layer_group if self.layer_group is None else self.layer_group

    def post_init_from_model(self, model: Any) -> None:
        if self.tokenizer is None and self.chooser.chunk_max_tokens is not None:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(model.config.name_or_path)

    @contextlib.contextmanager
    def __call__(self, model: Any) -> Iterator[None]:
        """kvpress's hooks on every attention layer, and one on the model that reads the
        prefill's token ids (for the chunks)."""
        base = model.model.language_model if hasattr(model.model, "language_model") else model.model

        def read_ids(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            ids = kwargs.get("input_ids", args[0] if args else None)
            cache = kwargs.get("past_key_values", kwargs.get("cache"))
            if ids is not None and (cache is None or cache.get_seq_length() == 0):
                if ids.shape[0] != 1:
                    raise ConfigError("LatesegKVPress compresses one sequence at a time")
                self.context(ids[0].tolist())

        def flush(module: Any, args: Any, kwargs: dict[str, Any], output: Any) -> None:
            cache = getattr(output, "past_key_values", None) or kwargs.get("past_key_values")
            if cache is None:
                return
            for j, (keys, values) in self.flush().items():  # a group the hooks left open
                cache.layers[j].keys, cache.layers[j].values = keys, values

        hook = base.register_forward_pre_hook(read_ids, with_kwargs=True)
        after = base.register_forward_hook(flush, with_kwargs=True)
        try:
            with super().__call__(model):
                yield
        finally:
            hook.remove()
            after.remove()
            self._ids = None
            self._chunks = None
            self._waiting = {}

    def forward_hook(self, module: Any, input: Any, kwargs: dict[str, Any], output: Any) -> Any:
        """kvpress's hook after each attention layer: the layers :meth:`cut` completes
        are cut in the cache (a quantized cache: kvpress's own hook, layer by layer)."""
        from transformers import QuantizedCache

        cache = kwargs["past_key_values"]
        if isinstance(cache, QuantizedCache):
            return super().forward_hook(module, input, kwargs, output)
        hidden = kwargs["hidden_states"]
        if not is_prefilling(kwargs["cache_position"], hidden.shape[1]):
            return output
        held = cache.layers[module.layer_idx]
        for j, (keys, values) in self.cut(module, hidden, held.keys, held.values, kwargs).items():
            cache.layers[j].keys, cache.layers[j].values = keys, values
        return output

    def cut(
        self,
        module: Any,
        hidden_states: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        kwargs: dict[str, Any],
    ) -> dict[int, tuple[torch.Tensor, torch.Tensor]]:
        """The layers this layer's prefill completes, each cut: none until the last layer
        of its group (:attr:`group`) has run, then the whole group, by the mean of its
        layers' scores (a group of one: this layer at once)."""
        layer = int(module.layer_idx)
        plan = self._plan(keys)
        if plan is None:
            return {layer: (keys, values)}
        slots, window = plan
        scores = self._scores(module, hidden_states, keys, kwargs, window)
        self._waiting[layer] = (scores, keys, values, slots)
        size = self.group
        total = getattr(getattr(module, "config", None), "num_hidden_layers", None)
        if layer % size != size - 1 and layer != (total or 0) - 1:
            return {}
        return self._cut_group([j for j in self._waiting if j // size == layer // size])

    def flush(self) -> dict[int, tuple[torch.Tensor, torch.Tensor]]:
        """Every group still waiting (its last layer never ran a hook: a model whose last
        layers kvpress does not hook, or whose layers name no layer count), cut now."""
        size = self.group
        out: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        for g in sorted({j // size for j in self._waiting}):
            out.update(self._cut_group([j for j in self._waiting if j // size == g]))
        return out

    def _cut_group(self, members: list[int]) -> dict[int, tuple[torch.Tensor, torch.Tensor]]:
        held = [self._waiting.pop(j) for j in sorted(members)]
        keep = self._keep(np.mean([h[0] for h in held], axis=0), held[-1][3])
        out = {}
        for j, (_, k, v, _) in zip(sorted(members), held, strict=True):
            self.kept[j] = keep
            out[j] = (_gathered(k, keep), _gathered(v, keep))
        return out

    def compress(
        self,
        module: Any,
        hidden_states: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        attentions: torch.Tensor,
        kwargs: dict[str, Any],
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """One layer cut by its own scores at once (kvpress's contract for a press that
        cuts layer by layer; :meth:`cut` is the grouped choice that the hooks make)."""
        plan = self._plan(keys)
        if plan is None:
            return keys, values
        slots, window = plan
        keep = self._keep(self._scores(module, hidden_states, keys, kwargs, window), slots)
        self.kept[int(module.layer_idx)] = keep
        return _gathered(keys, keep), _gathered(values, keep)

    def _plan(self, keys: torch.Tensor) -> tuple[Slots, int] | None:
        """The slots of a cache of ``keys`` at kvpress's budget and the window that
        scores them; None when nothing is cut."""
        length = keys.shape[2]
        kept = compute_n_kept(length, self.compression_ratio)
        if self.compression_ratio == 0 or kept >= length:
            return None
        if keys.shape[0] != 1:
            raise ConfigError("LatesegKVPress compresses one sequence at a time")
        if self._ids is not None and len(self._ids) != length:
            raise ConfigError(
                f"LatesegKVPress read {len(self._ids)} token ids for a cache of {length} "
                "slots: it compresses a prefill from an empty cache"
            )
        sinks = min(self.sinks, length)
        # the window never takes more than half of what the sinks leave, so the method
        # still chooses at high ratios on short contexts
        window = max(1, min(self.window, (kept - sinks) // 2, length - sinks))
        win_start = length - window
        capacity = kept - sinks - window
        if capacity < 0:  # a budget below the sinks: the most recent slots only
            sinks, win_start, capacity = 0, length - kept, 0
        return Slots(length, sinks, win_start, capacity, keys.shape[1]), window

    def _keep(self, scores: np.ndarray, slots: Slots) -> np.ndarray:
        """``[kv_heads, kept]`` sorted positions: the fixed slots and the method's choice."""
        chunks = self._content_chunks(slots.sinks, slots.win_start)
        return slots.keep(self.chooser.choose(scores, slots, chunks))

    def _scores(
        self,
        module: Any,
        hidden_states: torch.Tensor,
        keys: torch.Tensor,
        kwargs: dict[str, Any],
        window: int,
    ) -> np.ndarray:
        """``[kv_heads, T]``: the press's own scores from the keys, or the attention the
        last ``window`` queries give each slot (lateseg's observation window)."""
        hkv, length = keys.shape[1], keys.shape[2]
        if not self.chooser.scored:
            return np.zeros((hkv, length))
        own = self.chooser.scores(SimpleNamespace(layers=[SimpleNamespace(keys=keys)]))
        if own is not None:
            return own[0]
        from transformers.models.llama.modeling_llama import rotate_half

        q = get_prerope_query_states(module, hidden_states[:, -window:])  # [1, Hq, w, D]
        cos, sin = kwargs["position_embeddings"]
        cos, sin = cos[:, -window:].unsqueeze(1), sin[:, -window:].unsqueeze(1)
        q = (q * cos + rotate_half(q) * sin)[0].float()
        q = q.view(hkv, q.shape[0] // hkv, window, -1)
        logits = torch.einsum("hgwd,htd->hgwt", q, keys[0].float()) * module.scaling
        qpos = torch.arange(length - window, length).view(1, 1, window, 1)
        later = torch.arange(length).view(1, 1, 1, length) > qpos
        logits = logits.masked_fill(later.to(logits.device), float("-inf"))
        return torch.softmax(logits, dim=-1).mean(dim=(1, 2)).cpu().numpy()

    def _content_chunks(self, begin: int, end: int) -> list[tuple[int, int]] | None:
        """The context's content-defined chunks over slots ``begin..end`` (computed once
        a prefill; None for a method that needs none)."""
        longest = self.chooser.chunk_max_tokens
        if longest is None:
            return None
        if self._ids is None:
            raise ConfigError(
                "LatesegKVPress saw no token ids: prefill inside `with press(model):`"
            )
        if self.tokenizer is None:
            raise ConfigError("LatesegKVPress needs the model's tokenizer for its chunks")
        if self._chunks is None:
            text, offsets = token_text(self.tokenizer, self._ids)
            self._chunks = content_chunks(text, offsets, begin, end, longest)
            self.chunks = self._chunks
        return self._chunks


def _gathered(tensor: torch.Tensor, keep: np.ndarray) -> torch.Tensor:
    """``tensor`` ``[1, kv_heads, T, D]`` at positions ``keep`` ``[kv_heads, n]``, laid out
    anew (kvpress's caches are contiguous)."""
    return at_positions(tensor, keep).contiguous()
