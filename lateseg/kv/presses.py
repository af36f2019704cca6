"""KV compression methods: one small dataclass each, with its own settings, behind a
registry.

A method (a *press*, as kvpress calls them) decides only which middle slots to keep.
What every method shares is decided once, in :func:`lateseg.kv.compress.select`: the
first ``sinks`` tokens and the observation window are always kept, every layer gets
exactly the budget (``capacity`` middle slots, :class:`Slots`), and layers in groups of
``layer_group`` share one choice made from their averaged scores (by default the press's
own ``layer_group``: 3 for ``lateseg``, 1 for the others, as published).

A press says what it needs: ``scored`` (per-slot scores; by default the attention the
observation window's queries give each slot, or its own :meth:`Press.scores`) and, when
it has a ``chunk_max_tokens`` setting, the prompt's content-defined chunks. Its
:meth:`Press.choose` returns the middle positions to keep: one row for all KV heads, or
one row per head. Its settings are its fields (``SnapKVPress(kernel=7)``,
``ChunkKVFixedPress(chunk=20)``), checked when it is made, and :meth:`Press.to_dict` /
:func:`press_from_dict` carry them through JSON.

Adding a method is one dataclass and its :func:`register` line; ``KVConfig`` then accepts
its name, the CLI, the server and the LangChain chat model list it, and an unknown name
lists the registered ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lateseg.errors import ConfigError
from lateseg.kv.chunks import fixed_chunks
from lateseg.registry import Registry

#: The KV compression methods, by name (the family's registry: :mod:`lateseg.registry`).
PRESSES: Registry[Press] = Registry("method", key="method", option="kv_method", noun="press")
register = PRESSES.register


def press(name: str, **settings: Any) -> Press:
    """The registered press called ``name`` with ``settings``; an unknown name lists the
    known ones, an unknown setting the press's own."""
    return PRESSES.make(name, **settings)


def press_from_dict(data: Mapping[str, Any]) -> Press:
    """The press :meth:`Press.to_dict` described (a manifest, JSON): checked like any."""
    return PRESSES.from_dict(data)


def at_least(owner: Any, name: str, least: int, label: str = "") -> None:
    """:class:`ConfigError` unless ``owner.name`` is an integer ``>= least`` (``label``
    goes before the setting's name in the message)."""
    value = getattr(owner, name)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ConfigError(f"{label}{name}={value!r}; must be an integer >= {least}")


@dataclass(frozen=True)
class Slots:
    """The slots of one prompt: ``length`` tokens, of which ``[0, sinks)`` and
    ``[win_start, length)`` (the observation window) are always kept and ``capacity``
    more are chosen from ``[sinks, win_start)``; ``heads`` KV heads."""

    length: int
    sinks: int
    win_start: int
    capacity: int
    heads: int

    @property
    def fixed(self) -> np.ndarray:
        return np.r_[np.arange(self.sinks), np.arange(self.win_start, self.length)]

    def keep(self, middle: np.ndarray) -> np.ndarray:
        """``[heads, kept]`` sorted positions: the fixed slots and ``middle``, a press's
        choice (``[n]`` for every head, or ``[heads, n]``)."""
        if middle.ndim == 1:
            return np.tile(np.sort(np.r_[self.fixed, middle]), (self.heads, 1))
        return np.sort(np.concatenate([np.tile(self.fixed, (self.heads, 1)), middle], axis=1))


@dataclass(frozen=True)
class Press:
    """One KV compression method: its name, what it needs, its settings (the dataclass's
    fields) and its choice."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""  # a few words for lists of methods (--help)
    scored: ClassVar[bool] = True  # needs per-slot scores
    # Adjacent layers sharing one choice when the config does not say (KVConfig.group).
    layer_group: ClassVar[int] = 1

    @property
    def chunk_max_tokens(self) -> int | None:
        """Longest content-defined chunk it chooses among (None: it needs no chunks)."""
        return None

    def slots(self, budget: int, length: int) -> int:
        """The slots it keeps of a ``length``-token prompt asked to fit ``budget``."""
        return min(budget, length)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.name, **dataclasses.asdict(self)}

    def scores(self, cache: Any) -> list[np.ndarray] | None:
        """Per layer ``[kv_heads, T]`` scores from the cache alone, or None for the
        observation window's attention (the default)."""
        return None

    def choose(
        self, scores: np.ndarray, slots: Slots, chunks: Sequence[tuple[int, int]] | None
    ) -> np.ndarray:
        """Middle positions to keep for one layer group (``scores``: ``[kv_heads, T]``):
        ``[n]`` for all heads or ``[kv_heads, n]``, ``n <= slots.capacity``."""
        raise NotImplementedError


@register
@dataclass(frozen=True)
class FullPress(Press):
    """Nothing removed (the reference): it keeps every slot, whatever the budget."""

    name = "full"
    summary = "nothing removed"
    scored = False

    def slots(self, budget: int, length: int) -> int:
        return length

    def choose(self, scores, slots, chunks):  # type: ignore[no-untyped-def]
        return np.arange(slots.sinks, slots.win_start)


@register
@dataclass(frozen=True)
class LatesegPress(Press):
    """Whole content-defined chunks (sentences, clauses, lines, at most
    ``max_chunk`` generator tokens): the set with the most attention that fills the
    budget exactly (0/1 knapsack over chunk lengths)."""

    name = "lateseg"
    summary = "whole content-defined chunks; the default"
    # Layer-wise index reuse (ChunkKV): one choice per 3 layers cost no answer agreement
    # or needle beyond noise and a third of the selection time (bench/kv_answers.py,
    # bench/kv_groups, bench/kv_layers.py).
    layer_group = 3
    max_chunk: int = 32

    def __post_init__(self) -> None:
        at_least(self, "max_chunk", 1, f"{self.name} ")

    @property
    def chunk_max_tokens(self) -> int | None:
        return self.max_chunk

    def choose(self, scores, slots, chunks):  # type: ignore[no-untyped-def]
        if chunks is None:
            raise ConfigError("the lateseg method needs the prompt's content chunks")
        token = scores.mean(axis=0)
        sums = [float(token[a:b].sum()) for a, b in chunks]
        idx = knapsack([b - a for a, b in chunks], sums, slots.capacity)
        return np.concatenate([np.arange(*chunks[i]) for i in idx] or [np.zeros(0, np.int64)])


@register
@dataclass(frozen=True)
class ChunkKVFixedPress(Press):
    """ChunkKV: fixed-length chunks of ``chunk`` tokens (its c), best first."""

    name = "chunkkv-fixed"
    summary = "fixed-length chunks"
    chunk: int = 10

    def __post_init__(self) -> None:
        at_least(self, "chunk", 1, f"{self.name} ")

    def choose(self, scores, slots, chunks):  # type: ignore[no-untyped-def]
        pieces = fixed_chunks(slots.sinks, slots.win_start, self.chunk)
        token = scores.mean(axis=0)
        sums = [float(token[a:b].sum()) for a, b in pieces]
        return best_first(pieces, sums, slots.capacity, token)


@register
@dataclass(frozen=True)
class SnapKVPress(Press):
    """SnapKV: the best single tokens per KV head after 1-D pooling of the scores over
    ``kernel`` slots."""

    name = "snapkv"
    summary = "single tokens"
    kernel: int = 7

    def __post_init__(self) -> None:
        at_least(self, "kernel", 1, f"{self.name} ")

    def choose(self, scores, slots, chunks):  # type: ignore[no-untyped-def]
        return top_per_head(pool(scores, self.kernel), slots)


@register
@dataclass(frozen=True)
class StreamingPress(Press):
    """StreamingLLM: the sinks and the most recent tokens."""

    name = "streaming"
    summary = "sinks and the most recent tokens"
    scored = False

    def choose(self, scores, slots, chunks):  # type: ignore[no-untyped-def]
        return np.arange(slots.win_start - slots.capacity, slots.win_start)


@register
@dataclass(frozen=True)
class KeyDiffPress(Press):
    """KeyDiff (Park et al., 2025): query-agnostic; per KV head, keep the tokens whose
    keys differ most from the head's mean direction (lowest cosine similarity to the
    mean of the normalised keys)."""

    name = "keydiff"
    summary = "keys least like the mean key"

    def scores(self, cache: Any) -> list[np.ndarray]:
        import torch

        out = []
        for layer in cache.layers:
            keys = torch.nn.functional.normalize(layer.keys[0].float(), dim=-1)  # [H, T, D]
            anchor = keys.mean(dim=1, keepdim=True)
            out.append((-torch.nn.functional.cosine_similarity(keys, anchor, dim=-1)).cpu().numpy())
        return out

    def choose(self, scores, slots, chunks):  # type: ignore[no-untyped-def]
        return top_per_head(scores, slots)


#: The registered methods' names, in registration order.
METHODS = tuple(PRESSES)


def described() -> str:
    """The registered methods with a few words each: ``lateseg (whole …), …``."""
    return ", ".join(f"{name} ({cls.summary})" for name, cls in PRESSES.items())


# -- shared pieces of the choices -------------------------------------------------------


def knapsack(lengths: Sequence[int], values: Sequence[float], capacity: int) -> list[int]:
    """Indices of items with total length exactly ``capacity`` (or the largest reachable
    total below it) and the largest total value among such sets."""
    n = len(lengths)
    if capacity <= 0 or n == 0:
        return []
    neg = -np.inf
    best = np.full(capacity + 1, neg)
    best[0] = 0.0
    take = np.zeros((n, capacity + 1), dtype=bool)
    for i, (ln, val) in enumerate(zip(lengths, values, strict=True)):
        if ln > capacity:
            continue
        cand = np.full(capacity + 1, neg)
        cand[ln:] = best[: capacity + 1 - ln] + val
        better = cand > best
        take[i] = better
        best = np.where(better, cand, best)
    reach = np.flatnonzero(best > neg)
    c = int(reach.max())
    chosen = []
    for i in range(n - 1, -1, -1):
        if take[i, c]:
            chosen.append(i)
            c -= lengths[i]
    return sorted(chosen)


def best_first(
    pieces: list[tuple[int, int]], sums: list[float], capacity: int, token: np.ndarray
) -> np.ndarray:
    """Whole pieces by score while they fit; the rest of the budget from the best tokens
    of the next piece (so every method keeps the same number of slots)."""
    chosen: list[np.ndarray] = []
    left = capacity
    for i in np.argsort(-np.asarray(sums), kind="stable"):
        a, b = pieces[i]
        if left == 0:
            break
        if b - a <= left:
            chosen.append(np.arange(a, b))
            left -= b - a
        else:
            part = a + np.sort(np.argsort(-token[a:b], kind="stable")[:left])
            chosen.append(part)
            left = 0
    return np.concatenate(chosen) if chosen else np.zeros(0, np.int64)


def pool(scores: np.ndarray, kernel: int) -> np.ndarray:
    """``[heads, T]`` scores averaged over a sliding window of ``kernel`` slots."""
    import torch

    return torch.nn.functional.avg_pool1d(
        torch.from_numpy(scores[:, None, :]).float(),
        kernel,
        stride=1,
        padding=kernel // 2,
        count_include_pad=False,
    )[:, 0, : scores.shape[1]].numpy()


def top_per_head(scores: np.ndarray, slots: Slots) -> np.ndarray:
    """Per head, the ``capacity`` middle slots with the highest scores ``[heads, n]``."""
    middle = scores[:, slots.sinks : slots.win_start]
    return slots.sinks + np.argsort(-middle, axis=1, kind="stable")[:, : slots.capacity]
