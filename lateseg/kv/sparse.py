"""Sparse prefill, MInference-style: each attention head reads only the keys its own
pattern says matter, chosen online from the attention of the prompt's last queries.

Each head's shape and the attention itself are :mod:`lateseg.kv.sparse_attention`'s;
this module switches a model's attention to it.

Prompts shorter than ``min_tokens`` are prefilled densely; so is any call that is not a
fresh causal prefill of one sequence (decoding, a batch, an explicit mask).
:class:`SparsePrefill` (the settings) is applied by the context manager
:func:`sparse_prefill`, which switches the model's attention the way
:class:`~lateseg.kv.observe.ObservationWindow` does, so the two compose: a sparse prefill
inside an observation window, then ChunkKV selection from the same window's queries.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lateseg.errors import ConfigError
from lateseg.kv.sparse_attention import PATTERNS, SparsePrefill, attend

PREFILL_MODES = ("dense", "sparse")
_PREFIX = "lateseg_sparse_"
_SETTINGS = "_lateseg_sparse"


@dataclass
class SparseStats:
    """What one prefill did: per layer, the shape each query head took, and the share of
    the causal query-key pairs computed (``density``), over the layers that ran sparse."""

    patterns: list[list[str]] = field(default_factory=list)
    density: list[float] = field(default_factory=list)
    dense_calls: int = 0

    def summary(self) -> dict[str, Any]:
        counts = {p: sum(row.count(p) for row in self.patterns) for p in PATTERNS}
        mean = sum(self.density) / len(self.density) if self.density else 1.0
        return {"sparse_layers": len(self.patterns), "dense_calls": self.dense_calls,
                "density": mean, "heads": counts}  # fmt: skip


def prefill_mode(value: str | SparsePrefill | None) -> SparsePrefill | None:
    """The settings a ``prefill`` option names: None for ``"dense"`` (or None), the
    defaults for ``"sparse"``, or the given :class:`SparsePrefill`."""
    if value is None or value == "dense":
        return None
    if value == "sparse":
        return SparsePrefill()
    if isinstance(value, SparsePrefill):
        return value
    raise ConfigError(f"prefill={value!r}; choose one of {', '.join(PREFILL_MODES)}")


@contextlib.contextmanager
def sparse_prefill(model: Any, settings: SparsePrefill) -> Iterator[SparseStats]:
    """While active, every attention layer of ``model`` prefills sparsely (calls that are
    not a fresh prefill of one sequence run the model's own attention). Yields the
    statistics, filled as layers run; the model's attention is restored on exit."""
    layers = [layer.self_attn for layer in model.model.layers]
    stats = SparseStats()
    found = (model.config, *(getattr(a, "config", None) for a in layers))
    configs = {id(c): c for c in found if c is not None}
    switched: list[tuple[Any, str]] = []
    try:
        for config in configs.values():
            inner = config._attn_implementation or "eager"
            switched.append((config, inner))
            config._attn_implementation = _registered(inner)
        for attn in layers:
            setattr(attn, _SETTINGS, (settings, stats))
        yield stats
    finally:
        for attn in layers:
            if hasattr(attn, _SETTINGS):
                delattr(attn, _SETTINGS)
        for config, inner in reversed(switched):
            config._attn_implementation = inner


def _registered(inner: str) -> str:
    from transformers import AttentionInterface, AttentionMaskInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    from lateseg.kv.observe import _implementation

    name = _PREFIX + inner
    if name not in ALL_ATTENTION_FUNCTIONS:

        def attention(
            module: Any, query: Any, key: Any, value: Any, mask: Any, **kwargs: Any
        ) -> Any:
            own = getattr(module, _SETTINGS, None)
            if own is not None and _fresh_prefill(query, key, mask, kwargs, own[0]):
                settings, stats = own
                scaling = _scaling(module, kwargs)
                out, pattern, density = attend(
                    query, key, value, settings, scaling, kwargs.get("softcap")
                )
                stats.patterns.append(pattern)
                stats.density.append(density)
                return out, None
            if own is not None:
                own[1].dense_calls += 1
            return _implementation(inner, module)(module, query, key, value, mask, **kwargs)

        AttentionInterface.register(name, attention)
        AttentionMaskInterface.register(name, ALL_MASK_ATTENTION_FUNCTIONS[inner])
    return name


def _fresh_prefill(
    query: Any, key: Any, mask: Any, kwargs: dict[str, Any], s: SparsePrefill
) -> bool:
    n = query.shape[2]
    return (
        query.shape[0] == 1
        and key.shape[2] == n
        and mask is None
        and kwargs.get("sliding_window") is None
        and not kwargs.get("dropout")
        and s.applies(n)
    )


def _scaling(module: Any, kwargs: dict[str, Any]) -> float:
    scaling = kwargs.get("scaling")
    return float(module.head_dim**-0.5 if scaling is None else scaling)
