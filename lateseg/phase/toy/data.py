"""The toy study's task: its sizes (:class:`ToyConfig`), the sequences of dense key-value
records with their needle (:func:`make_batch`), and where each variant's compressed
blocks fall (:func:`block_ids`). No torch at import: the study's callers stay light."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lateseg.errors import ConfigError

VARIANTS = ("full", "fixed", "fixed-nope", "fixed-uniform", "dynamic")
PAD = 0


@dataclass(frozen=True)
class ToyConfig:
    """Task and model sizes (defaults: about 1-2 minutes of training per variant)."""

    keys: int = 32
    values: int = 64
    fillers: int = 8
    records: int = 8
    max_filler: int = 2  # fillers between records: uniform 0..max_filler
    tail: int = 4  # fillers between the last record and the queries
    dim: int = 32
    heads: int = 1
    layers: int = 2
    stride: int = 4  # compressed block size (S = W)
    local: int = 2  # local window (tokens) next to the compressed blocks
    conv: bool = True  # short causal convolution before each attention
    steps: int = 2500
    batch: int = 32
    lr: float = 3e-3
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("keys", "values", "fillers", "records", "dim", "heads", "layers"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name}={getattr(self, name)}; must be at least 1")
        if self.stride < 2 or self.steps < 1 or self.batch < 1 or self.local < 1:
            raise ConfigError("stride must be at least 2, and steps, batch and local at least 1")
        if self.max_filler < 0:
            raise ConfigError(f"max_filler={self.max_filler}; must be >= 0")
        if self.records > self.keys:
            raise ConfigError("records must not exceed the number of keys (keys are distinct)")
        if self.tail < self.local:
            raise ConfigError(
                f"tail={self.tail} < local={self.local}: a record would sit in the first "
                "query's local window and need no compressed block"
            )
        if self.dim % (2 * self.heads):
            raise ConfigError("dim must be a multiple of 2 x heads (RoPE pairs)")

    @property
    def vocab(self) -> int:
        return 1 + self.keys + self.values + self.fillers

    def is_key(self, x: Any) -> Any:
        return (x >= 1) & (x <= self.keys)


@dataclass(frozen=True)
class Probe:
    """The needle of one sequence: where its query's answer is predicted, the answer,
    and where the needle's key sits in the sequence."""

    query_at: int
    value: int
    key_at: int


def make_batch(
    config: ToyConfig, rng: np.random.Generator, n: int
) -> tuple[np.ndarray, np.ndarray, list[Probe]]:
    """``n`` sequences ``[n, T]`` (0-padded at the end), their targets (-100 = no loss)
    and each sequence's needle: the record queried first."""
    c = config
    filler0 = 1 + c.keys + c.values
    rows, targets, probes = [], [], []
    for _ in range(n):
        keys = rng.choice(c.keys, c.records, replace=False) + 1
        vals = rng.integers(0, c.values, c.records) + 1 + c.keys
        seq: list[int] = []
        key_at = []
        for j, (k, v) in enumerate(zip(keys, vals, strict=True)):
            longest = max(c.max_filler, 2 * c.stride - 1) if j == 0 else c.max_filler
            seq += (
                rng.integers(0, c.fillers, int(rng.integers(0, longest + 1))) + filler0
            ).tolist()
            key_at.append(len(seq))
            seq += [int(k), int(v)]
        seq += (rng.integers(0, c.fillers, c.tail) + filler0).tolist()
        y = [-100] * len(seq)
        order = rng.permutation(c.records)
        probes.append(Probe(len(seq), int(vals[order[0]]), key_at[order[0]]))
        for j in order:
            seq += [int(keys[j]), int(vals[j])]
            y += [int(vals[j]), -100]
        rows.append(seq)
        targets.append(y)
    length = max(map(len, rows))
    x = np.zeros((n, length), dtype=np.int64)
    t = np.full((n, length), -100, dtype=np.int64)
    for i, (s, y) in enumerate(zip(rows, targets, strict=True)):
        x[i, : len(s)] = s
        t[i, : len(y)] = y
    return x, t, probes


def block_ids(config: ToyConfig, variant: str, x: Any) -> Any:
    """Block index of every position ``[B, T]``: fixed blocks of ``stride`` tokens, or
    (``dynamic``) content-defined blocks of about the same mean size: a block ends before
    a key token once it holds at least ``stride - 1`` tokens or when it holds no key yet
    (so a record is never split, and records close together share a block), and a run
    without keys is cut every ``2 x stride`` tokens."""
    import torch

    b, t = x.shape
    dev = x.device
    if variant != "dynamic":
        return (torch.arange(t, device=dev) // config.stride).expand(b, t)
    is_key = config.is_key(x)
    ids = torch.zeros(b, t, dtype=torch.long, device=dev)
    since = torch.zeros(b, dtype=torch.long, device=dev)
    current = torch.zeros(b, dtype=torch.long, device=dev)
    keyed = torch.zeros(b, dtype=torch.bool, device=dev)  # the open block holds a key
    for j in range(t):
        key = is_key[:, j]
        start = (key & ((since >= config.stride - 1) | ~keyed)) | (since >= 2 * config.stride)
        if j > 0:
            current = current + start.long()
        since = torch.where(start, torch.zeros_like(since), since) + 1
        keyed = torch.where(start, key, keyed | key)
        ids[:, j] = current
    return ids
