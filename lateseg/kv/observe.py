"""The observation window: the queries a model's attention really used, and the scores
they give each cached slot.

Rather than recomputing queries from each architecture's projections (Llama's ``q_proj``,
Phi-3's fused ``qkv_proj``, Qwen3's and Gemma 3's query norms, partial rotary...), the
window wraps the model's own attention function for the duration of a prefill: every
attention layer hands its final queries (projected, normed, rotated) and its scaling and
logit soft-cap to the wrapper, which keeps the last ``size`` queries and calls the
model's usual implementation unchanged. The wrapper is registered once per inner
implementation with transformers' ``AttentionInterface`` (and the same mask function
with ``AttentionMaskInterface``), and the model is switched to it only inside the
context manager.

A model whose cache is not one full-attention layer per decoder layer is refused before
anything runs (:func:`refusal`): a sliding-window layer drops slots on its own and masks
by slot distance, so a compressed cache would be attended wrongly, never visibly.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from lateseg.errors import ConfigError

_PREFIX = "lateseg_observe_"
_OBSERVER = "_lateseg_observer"


def refusal(model: Any) -> str | None:
    """Why ``model``'s KV cache cannot be compressed correctly, or None when it can:
    every decoder layer must be a full-attention layer with a cache of its own and no
    learned attention sinks."""
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer

    name = type(model).__name__
    layers = getattr(getattr(model, "model", None), "layers", None)
    if layers is None:
        return f"{name} has no model.layers (a decoder-only transformer is needed)"
    config = model.config
    cache = DynamicCache(config=config)
    if len(cache.layers) != len(layers):
        return f"{name} caches {len(cache.layers)} layers for its {len(layers)} decoder layers"
    sliding = [i for i, layer in enumerate(cache.layers) if getattr(layer, "is_sliding", False)]
    if sliding:
        window = getattr(cache.layers[sliding[0]], "sliding_window", "?")
        return (
            f"{name} has sliding-window attention ({len(sliding)} of {len(layers)} layers, "
            f"window {window}): those layers drop and mask slots by their distance in the "
            "cache, so a compressed cache would be attended wrongly"
        )
    other = {type(layer).__name__ for layer in cache.layers if type(layer) is not DynamicLayer}
    if other:
        return (
            f"{name} caches its layers as {', '.join(sorted(other))}; only full-attention "
            "layers (DynamicLayer) can be compressed"
        )
    for i, layer in enumerate(layers):
        attn = getattr(layer, "self_attn", None)
        if attn is None:
            return f"{name}: layer {i} has no self_attn"
        if getattr(attn, "sinks", None) is not None:
            return f"{name} has learned attention sinks, which the window's scores leave out"
    return None


def check_supported(model: Any) -> None:
    """Raise :class:`ConfigError` naming the reason when :func:`refusal` gives one."""
    reason = refusal(model)
    if reason:
        raise ConfigError(f"KV compression refused: {reason}")


class ObservationWindow:
    """Context manager: while active, every attention layer of ``model`` records the
    final queries of the last ``size`` tokens of each forward call (the latest call
    wins), with the scaling and soft-cap it used. The model's attention implementation
    is restored on exit, also on error."""

    def __init__(self, model: Any, size: int) -> None:
        check_supported(model)
        self.model = model
        self.size = size
        self.queries: dict[int, Any] = {}
        self.scaling: dict[int, float] = {}
        self.softcap: dict[int, float | None] = {}
        self.layers = [layer.self_attn for layer in model.model.layers]
        self._index = {id(attn): i for i, attn in enumerate(self.layers)}
        self._configs: list[tuple[Any, Any]] = []

    def __enter__(self) -> ObservationWindow:
        try:
            found = (self.model.config, *(getattr(a, "config", None) for a in self.layers))
            configs = {id(c): c for c in found if c is not None}
            for config in configs.values():
                inner = config._attn_implementation or "eager"
                self._configs.append((config, inner))
                config._attn_implementation = _registered(inner)
            for attn in self.layers:
                setattr(attn, _OBSERVER, self._record)
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def remove(self) -> None:
        for attn in self.layers:
            if hasattr(attn, _OBSERVER):
                delattr(attn, _OBSERVER)
        for config, inner in reversed(self._configs):
            config._attn_implementation = inner
        self._configs.clear()

    def _record(self, module: Any, query: Any, kwargs: dict[str, Any]) -> None:
        if kwargs.get("sliding_window") is not None:  # refusal() should have caught it
            raise ConfigError(
                f"KV compression refused: {type(module).__name__} attends through a "
                f"sliding window of {kwargs['sliding_window']}"
            )
        idx = self._index[id(module)]
        w = min(self.size, query.shape[2])
        self.queries[idx] = query[:, :, -w:].detach()  # [B, Hq, w, D]
        scaling = kwargs.get("scaling")
        self.scaling[idx] = float(module.head_dim**-0.5 if scaling is None else scaling)
        self.softcap[idx] = kwargs.get("softcap")


def _registered(inner: str) -> str:
    """The name of the observing wrapper around the attention implementation ``inner``,
    registered on first use (with ``inner``'s mask function)."""
    from transformers import AttentionInterface, AttentionMaskInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    name = _PREFIX + inner
    if name not in ALL_ATTENTION_FUNCTIONS:
        AttentionInterface.register(name, _observing(inner))
        AttentionMaskInterface.register(name, ALL_MASK_ATTENTION_FUNCTIONS[inner])
    return name


def _observing(inner: str) -> Callable[..., Any]:
    def attention(module: Any, query: Any, key: Any, value: Any, mask: Any, **kwargs: Any) -> Any:
        observer = getattr(module, _OBSERVER, None)
        if observer is not None:
            observer(module, query, kwargs)
        return _implementation(inner, module)(module, query, key, value, mask, **kwargs)

    return attention


def _implementation(inner: str, module: Any) -> Callable[..., Any]:
    """The function ``inner`` names, as the module would have called it: "eager" is the
    ``eager_attention_forward`` of the module's own modeling file."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    if inner != "eager":
        return ALL_ATTENTION_FUNCTIONS[inner]  # type: ignore[no-any-return]
    fn = getattr(sys.modules[type(module).__module__], "eager_attention_forward", None)
    if fn is None:
        raise ConfigError(f"{type(module).__name__}: no eager_attention_forward to observe")
    return fn  # type: ignore[no-any-return]


def window_scores(window: ObservationWindow, cache: Any) -> list[np.ndarray]:
    """Per layer, the attention ``[kv_heads, T]`` that the window's queries give each
    cached slot: the layer's own logits (scaled, soft-capped where it caps), softmax
    per query, causal, averaged over the queries and the query heads of each KV head."""
    import torch

    out = []
    for idx in range(len(window.layers)):
        if idx not in window.queries:
            raise ConfigError("the observation window saw no forward call; prefill inside it")
        q = window.queries[idx][0].float()  # [Hq, w, D]
        keys = cache.layers[idx].keys[0].float()  # [Hkv, T, D]
        hkv, t = keys.shape[0], keys.shape[1]
        w = q.shape[1]
        q = q.view(hkv, q.shape[0] // hkv, w, -1)
        logits = torch.einsum("hgwd,htd->hgwt", q, keys) * window.scaling[idx]
        cap = window.softcap[idx]
        if cap is not None:
            logits = torch.tanh(logits / cap) * cap
        # The window's queries are the last w slots; each sees only slots up to itself.
        dev = logits.device
        qpos = torch.arange(t - w, t, device=dev).view(1, 1, w, 1)
        later = torch.arange(t, device=dev).view(1, 1, 1, t) > qpos
        logits = logits.masked_fill(later, float("-inf"))
        out.append(torch.softmax(logits, dim=-1).mean(dim=(1, 2)).cpu().numpy())
    return out
