"""KV-cache compression after prefill, ChunkKV-style, on transformers 5 caches.

Protocol: prefill the prompt inside :class:`~lateseg.kv.observe.ObservationWindow` (a
context manager under which every attention layer records the final queries of the last
tokens it sees, restored in ``finally``; models it cannot compress correctly, such as
those with sliding-window layers, are refused by name); then :func:`compress` scores
every cached token by the attention those window queries give it (from the queries and
the cached keys, both rotated, with the layer's own scaling and soft-cap, so any
attention implementation works, sdpa included; grouped-query heads are averaged per KV
head), picks the slots to keep with the configured method, and replaces
each layer's keys and values by the kept slots. Kept tokens keep their original positions
(their keys were rotated at prefill), so the next tokens must be fed with ``position_ids``
continuing the *original* length (:class:`Compressed` carries it).

Methods are presses (:mod:`lateseg.kv.presses`, one small class each, in a registry):

* ``lateseg``: whole content-defined chunks (``lateseg.kv.chunks``), the set with the
  most attention that fills the budget exactly (0/1 knapsack over chunk lengths);
* ``chunkkv-fixed``: ChunkKV's fixed-length chunks (``chunk`` tokens), best first;
* ``snapkv``: the best single tokens per KV head after 1-D pooling (SnapKV);
* ``keydiff``: per KV head, the tokens whose keys differ most from the mean key
  (KeyDiff; query-agnostic);
* ``streaming``: the sinks and the most recent tokens (StreamingLLM);
* ``full``: nothing removed.

Each press carries its own settings (``SnapKVPress(kernel=7)``); :class:`KVConfig` holds
one press and what all share. All but ``full`` keep the first ``sinks`` tokens and the
observation window, and give every layer exactly ``budget`` slots (or the whole prompt
when it is shorter). Chunk and token choices are shared by groups of ``layer_group``
adjacent layers (ChunkKV's layer-wise index reuse; 1 = every layer chooses for itself;
by default 3 for ``lateseg`` and 1 for the others).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lateseg.errors import ConfigError
from lateseg.kv.chunks import content_chunks
from lateseg.kv.observe import ObservationWindow, window_scores
from lateseg.kv.presses import (
    METHODS,
    LatesegPress,
    Press,
    Slots,
    at_least,
    knapsack,
    press,
    press_from_dict,
)

__all__ = [
    "METHODS",
    "OBSERVE",
    "OPERATING_POINT",
    "KVConfig",
    "ObservationWindow",
    "at_positions",
    "knapsack",
    "window_scores",
]

#: The budget ``--kv-budget`` means when given alone: the share of the prompt that kept
#: about 94% of the full cache's answer tokens on retrieved passages (every press, 104
#: questions; bench/results/kv_answers.md). At 25% every press, StreamingLLM's recency
#: included, loses about a quarter of them.
OPERATING_POINT = 0.75

#: How a compression made before any question is known is scored (``KVConfig.observe``).
OBSERVE = ("end", "probe")
#: The settings every press shares, held by :class:`KVConfig` (not the press).
SHARED = ("sinks", "window", "layer_group", "observe")


@dataclass(frozen=True)
class KVConfig:
    """How to compress: a ``press`` (the method and its own settings; a name is taken
    for the press with its defaults) and what every press shares. ``budget``: slots kept
    per layer, an int (tokens) or a float in (0, 1) (a share of the prompt); ``sinks``:
    first tokens always kept; ``window``: the observation window when none is given
    (query-agnostic use); ``layer_group``: adjacent layers sharing one choice (None: the
    press's own, :attr:`group`); ``observe``: what scores a compression made before any
    question is known (``ask_many``, a served document): ``"end"``, the context's last
    ``window`` tokens, or ``"probe"``, a request to repeat the passages put where a
    question goes (KVzip's idea at the cost of a few tokens; its slots are dropped
    after), :data:`OBSERVE`. The probe is the default: it kept as many of the full
    cache's answers as the end or more on both sets measured (the sample contracts whole,
    ``bench/results/kv_observe.md``; RULER tasks at 8,192 tokens,
    ``bench/results/kv_agnostic.md``)."""

    press: Press = field(default_factory=LatesegPress)
    budget: int | float = 256
    sinks: int = 4
    window: int = 32
    layer_group: int | None = None
    observe: str = "probe"

    def __post_init__(self) -> None:
        if isinstance(self.press, str):
            object.__setattr__(self, "press", press(self.press))
        if not isinstance(self.press, Press):
            raise ConfigError(f"press={self.press!r:.80}; give a press or a method name")
        b = self.budget
        if isinstance(b, bool) or not isinstance(b, (int, float)):
            raise ConfigError(f"kv_budget={b!r}; give tokens (an int) or a share in (0, 1)")
        if isinstance(b, float) and not 0 < b < 1:
            raise ConfigError(f"kv_budget={b}; a share must lie strictly between 0 and 1")
        if isinstance(b, int) and b < 1:
            raise ConfigError(f"kv_budget={b}; must be at least 1 token")
        for name, least in (("window", 1), ("layer_group", 1), ("sinks", 0)):
            if name != "layer_group" or self.layer_group is not None:
                at_least(self, name, least)
        if self.observe not in OBSERVE:
            raise ConfigError(f"observe={self.observe!r:.40}; choose one of {', '.join(OBSERVE)}")

    @property
    def group(self) -> int:
        """Adjacent layers sharing one choice: ``layer_group``, or the press's default."""
        return self.press.layer_group if self.layer_group is None else self.layer_group

    @property
    def method(self) -> str:
        return self.press.name

    @classmethod
    def of(cls, method: str = "lateseg", budget: int | float = 256, **settings: Any) -> KVConfig:
        """A config by method name: ``settings`` go to the config where it has them
        (``sinks``, ``window``, ``layer_group``) and to the press otherwise."""
        shared = {k: settings.pop(k) for k in SHARED if k in settings}
        return cls(press(method, **settings), budget, **shared)

    @classmethod
    def from_options(cls, budget: int | float | None, method: str | None) -> KVConfig | None:
        """The config for a ``kv_budget`` / ``kv_method`` pair as users give them (the
        CLI, ``Pipeline.ask``, LangChain): None without a budget (no compression, which
        only ``full`` or no method may ask for); the ``lateseg`` method by default."""
        if budget is None:
            if method not in (None, "full"):
                raise ConfigError(f"kv_method={method!r} needs a kv_budget (tokens or a share)")
            return None
        return cls(press(method or "lateseg"), budget)

    def to_dict(self) -> dict[str, Any]:
        return {
            "press": self.press.to_dict(),
            "budget": self.budget,
            "sinks": self.sinks,
            "window": self.window,
            "layer_group": self.layer_group,
            "observe": self.observe,
        }

    @classmethod
    def from_dict(cls, data: Any) -> KVConfig:
        """The config :meth:`to_dict` wrote (JSON, a manifest), checked like any."""
        if not isinstance(data, dict) or not isinstance(data.get("press"), dict):
            raise ConfigError(f"a KV config is a mapping with its 'press': not {data!r:.80}")
        known = {"press", "budget", *SHARED}
        if set(data) - known:
            raise ConfigError(f"unknown KV config fields: {', '.join(sorted(set(data) - known))}")
        rest = {k: v for k, v in data.items() if k != "press"}
        return cls(press_from_dict(data["press"]), **rest)

    def tokens(self, length: int) -> int:
        """The slots kept of a prompt of ``length`` tokens (the whole prompt for a press
        that keeps everything)."""
        asked = (
            max(1, round(self.budget * length)) if isinstance(self.budget, float) else self.budget
        )
        return self.press.slots(asked, length)


def parse_budget(text: str) -> int | float:
    """``"128"`` -> 128 tokens, ``"0.25"`` -> a quarter of the prompt."""
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"kv budget {text!r}: give tokens (128) or a share (0.25)") from None
    if value.is_integer() and "." not in text:
        return int(value)
    return value


@dataclass
class Compressed:
    """A compressed cache's bookkeeping: ``length`` (original prompt tokens, the next
    position), ``kept[layer]`` (original positions kept, per KV head ``[heads, n]``), and
    the accounting in :meth:`stats`."""

    method: str
    length: int
    kept: list[np.ndarray]
    bytes_before: list[int]
    bytes_after: list[int]
    compress_s: float
    budget: int
    chunks: list[tuple[int, int]] = field(default_factory=list)

    def stats(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "budget_tokens": self.budget,
            "prompt_tokens": self.length,
            "kept_tokens": int(self.kept[0].shape[1]) if self.kept else self.length,
            "bytes_before": sum(self.bytes_before),
            "bytes_after": sum(self.bytes_after),
            "ratio": sum(self.bytes_after) / max(1, sum(self.bytes_before)),
            "per_layer_bytes": [
                [b, a] for b, a in zip(self.bytes_before, self.bytes_after, strict=True)
            ],
            "compress_ms": 1000 * self.compress_s,
        }

    def retention(self, start: int, end: int) -> float:
        """Share of the tokens ``start..end`` (original positions) kept, over layers and
        heads."""
        if end <= start:
            return 1.0
        shares = [
            float(np.isin(np.arange(start, end), heads).mean())
            for kept in self.kept
            for heads in kept
        ]
        return float(np.mean(shares))


def select(
    config: KVConfig,
    scores: list[np.ndarray],
    length: int,
    window: int,
    chunks: list[tuple[int, int]] | None = None,
) -> list[np.ndarray]:
    """Original positions to keep per layer, ``[kv_heads, budget]`` each (sorted): the
    sinks and the last ``window`` tokens, and what the method's press chooses for the
    rest of the budget, one choice per group of ``layer_group`` layers."""
    budget = config.tokens(length)
    heads = scores[0].shape[0]
    if budget >= length:
        return [np.tile(np.arange(length), (heads, 1)) for _ in scores]
    sinks = min(config.sinks, length)
    win_start = max(sinks, length - window)
    capacity = budget - sinks - (length - win_start)
    if capacity < 0:
        raise ConfigError(
            f"kv budget {budget} is smaller than the {sinks} sink and {length - win_start} "
            "window tokens that are always kept"
        )
    slots = Slots(length, sinks, win_start, capacity, heads)
    out: list[np.ndarray] = []
    size = config.group
    for g in range(0, len(scores), size):
        group = np.mean(scores[g : g + size], axis=0)  # [Hkv, T]
        keep = slots.keep(config.press.choose(group, slots, chunks))
        out += [keep] * len(scores[g : g + size])
    return out


def compress(
    cache: Any,
    window: ObservationWindow,
    config: KVConfig,
    *,
    text: str | None = None,
    offsets: Sequence[tuple[int, int]] | None = None,
    window_tokens: int | None = None,
) -> Compressed:
    """Compress ``cache`` (a ``DynamicCache`` holding one prompt from position 0) in place.

    ``window_tokens``: how many final prompt tokens form the observation window (default:
    as many as the window kept queries for). ``text`` and ``offsets`` (the prompt and its
    tokens' character spans) are needed by the ``lateseg`` method for its chunks.
    """

    t0 = time.perf_counter()
    layers = cache.layers
    length = int(layers[0].keys.shape[-2])
    before = [layer_bytes(layer) for layer in layers]
    w = window_tokens if window_tokens is not None else window.size
    w = min(w, length)
    budget = config.tokens(length)
    chunks: list[tuple[int, int]] = []
    chooser = config.press
    if not chooser.scored or budget >= length:
        scores = [np.zeros((layers[0].keys.shape[1], length))] * len(layers)
    else:
        scores = chooser.scores(cache) or window_scores(window, cache)
    longest = chooser.chunk_max_tokens
    if longest is not None and budget < length:
        if text is None or offsets is None:
            raise ConfigError(f"the {config.method} method needs the prompt text and token offsets")
        sinks = min(config.sinks, length)
        chunks = content_chunks(text, offsets, sinks, max(sinks, length - w), longest)
    kept = select(config, scores, length, w, chunks)
    for layer, keep in zip(layers, kept, strict=True):
        if keep.shape[1] == length:
            continue
        layer.keys, layer.values = at_positions(layer.keys, keep), at_positions(layer.values, keep)
    return Compressed(
        method=config.method,
        length=length,
        kept=kept,
        bytes_before=before,
        bytes_after=[layer_bytes(layer) for layer in layers],
        compress_s=time.perf_counter() - t0,
        budget=min(budget, length),
        chunks=chunks,
    )


def at_positions(tensor: Any, keep: np.ndarray) -> Any:
    """A cache layer's ``tensor`` ``[batch, kv_heads, T, D]`` at the positions ``keep``
    ``[kv_heads, n]`` of each head (:func:`select`'s)."""
    import torch

    idx = torch.from_numpy(keep).to(tensor.device)[None, :, :, None]
    return tensor.gather(2, idx.expand(tensor.shape[0], -1, -1, tensor.shape[-1]))


def shallow_copy(cache: Any) -> Any:
    """A cache sharing ``cache``'s tensors: :func:`compress` and decoding replace a
    layer's tensors, never write into them, so one prefill can serve several methods."""
    out = copy.copy(cache)
    out.layers = [copy.copy(layer) for layer in cache.layers]
    return out


def truncate(cache: Any, slots: int) -> None:
    """Drop every cached slot from ``slots`` on (back to a compressed prompt after an
    answer, so the next question starts from the same cache)."""
    for layer in cache.layers:
        layer.keys = layer.keys[:, :, :slots]
        layer.values = layer.values[:, :, :slots]


def layer_bytes(layer: Any) -> int:
    """The bytes of one cache layer's keys and values."""
    return int(
        layer.keys.numel() * layer.keys.element_size()
        + layer.values.numel() * layer.values.element_size()
    )
