"""The toy study's rows: which variants it trains (:data:`STUDY`), one trained and probed
variant with its statistics (:class:`ToyRow`, :func:`run_variant`), and whether the weak
residues are the low-gain slots."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.errors import ConfigError
from lateseg.phase.stats import PhaseResult, analyse
from lateseg.phase.toy.data import ToyConfig
from lateseg.phase.toy.probe import dominant_period, recall_by_position
from lateseg.phase.toy.train import train_variant


@dataclass
class ToyRow:
    """One trained variant of the study and what the probe found."""

    name: str
    variant: str
    config: ToyConfig
    result: PhaseResult
    period_found: int
    slot_gains: list[float]
    positional_gains: list[float]  # softmax of the learned slot biases, mean over layers
    mean_block_size: float
    train_s: float  # the training's seconds (also when loaded from the cache)
    #: accuracy of needles whose span (key, value, next token) lies in one block, and of
    #: those whose span crosses a block edge, with their counts
    edge: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "variant": self.variant,
            "config": asdict(self.config),
            "period_found": self.period_found,
            "slot_gains": self.slot_gains,
            "positional_gains": self.positional_gains,
            "mean_block_size": self.mean_block_size,
            "train_s": self.train_s,
            "edge": self.edge,
            "result": self.result.to_dict(),
        }


#: The study's rows: name -> (variant, changes to the default config).
STUDY: dict[str, tuple[str, dict[str, Any]]] = {
    "full attention": ("full", {}),
    "learned gates, S=4": ("fixed", {}),
    "learned gates, S=2": ("fixed", {"stride": 2}),
    "learned gates, no PE": ("fixed-nope", {}),
    "uniform gates": ("fixed-uniform", {}),
    "content-defined blocks": ("dynamic", {}),
}
#: The reduced study (the test): full attention against learned gates at stride 4.
REDUCED_STEPS = 1200


def run_variant(
    name: str,
    variant: str,
    config: ToyConfig,
    *,
    cache_dir: Path | None = None,
    trials: int = 4096,
    permutations: int = 2000,
    device: str = "cpu",
) -> ToyRow:
    """Train (or load) one variant and probe it; the period tested is its stride."""
    model = train_variant(variant, config, cache_dir=cache_dir, device=device)
    recall = recall_by_position(model, trials=trials)
    result = analyse(
        recall.key_at,
        recall.success,
        config.stride,
        system=f"toy {name}",
        scheme="needle",
        permutations=permutations,
    )
    edge: dict[str, float] = {}
    if recall.crosses:
        ok, cross = np.asarray(recall.success), np.asarray(recall.crosses)
        for label, sel in (("inside", ~cross), ("crossing", cross)):
            edge[f"{label}_n"] = int(sel.sum())
            edge[label] = float(ok[sel].mean()) if sel.any() else float("nan")
    positional: list[float] = []
    if variant not in ("full", "fixed-uniform"):
        import torch

        positional = torch.softmax(model.slot_bias.detach(), dim=-1).mean(dim=(0, 1)).tolist()
    return ToyRow(
        name=name,
        variant=variant,
        config=config,
        result=result,
        period_found=dominant_period(recall.key_at, recall.success, 2 * max(config.stride, 4)),
        slot_gains=recall.slot_gains,
        positional_gains=positional,
        mean_block_size=recall.mean_block_size,
        train_s=model.train_s,
        edge=edge,
    )


def run_study(
    *,
    base: ToyConfig | None = None,
    rows: Sequence[str] | None = None,
    cache_dir: Path | None = None,
    trials: int = 4096,
    progress: Callable[[str], None] | None = None,
) -> list[ToyRow]:
    """The study's rows (:data:`STUDY`, or the named ones), each from ``base``."""
    base = base or ToyConfig()
    out = []
    for name in rows or list(STUDY):
        if name not in STUDY:
            raise ConfigError(f"toy row {name!r}; choose from {', '.join(STUDY)}")
        variant, changes = STUDY[name]
        if progress:
            progress(name)
        out.append(
            run_variant(name, variant, replace(base, **changes), cache_dir=cache_dir, trials=trials)
        )
    return out


def weak_slots_match(row: ToyRow) -> bool | None:
    """Whether the needle's weakest residues (below the median accuracy) are the slots
    with the lowest mean gate weight (below the median gain); None where no gains."""
    if not row.slot_gains or row.variant == "fixed-uniform":
        return None
    acc = np.array([r["accuracy"] for r in row.result.residues])
    gains = np.array(row.slot_gains)
    weak = set(np.flatnonzero(acc < np.median(acc)).tolist())
    low = set(np.flatnonzero(gains < np.median(gains)).tolist())
    return bool(weak) and weak == low
