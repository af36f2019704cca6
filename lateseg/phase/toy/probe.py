"""Probing a trained toy model: the needle test in small (recall per fresh sequence, with
the needle key's position and what the gates did) and the period that best explains the
trials."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from lateseg.phase.toy.data import PAD, make_batch

if TYPE_CHECKING:
    from lateseg.phase.toy.model import ToyLM


@dataclass
class Recall:
    """The probe's trials and what the gates did on its sequences."""

    key_at: list[int]
    success: list[float]
    slot_gains: list[float] = field(default_factory=list)  # mean gate weight per slot
    mean_block_size: float = float("nan")
    crosses: list[bool] = field(default_factory=list)  # the record's span crosses a block edge


def recall_by_position(model: ToyLM, *, trials: int = 4096, seed: int = 1) -> Recall:
    """Per trial (a fresh sequence): is the needle's value recalled at its query? With
    the needle key's position, and for compressed variants the mean gate weight of each
    slot over the full blocks of these sequences (averaged over layers and heads)."""
    import torch

    c = model.config
    rng = np.random.default_rng(seed)
    key_at: list[int] = []
    ok: list[float] = []
    sums = np.zeros(c.stride)
    counts = np.zeros(c.stride)
    sizes: list[float] = []
    crosses: list[bool] = []
    for lo in range(0, trials, 512):
        xb, _, probes = make_batch(c, rng, min(512, trials - lo))
        x = torch.from_numpy(xb).to(model.device)
        with torch.no_grad():
            logits = model(x, keep_gates=True).cpu()
        for i, p in enumerate(probes):
            key_at.append(p.key_at)
            ok.append(float(int(logits[i, p.query_at].argmax()) == p.value))
        if model.compressed:
            blocks, slot, full = model.block_slots(x)
            # The record's span as the convolution spreads it: key, value, next token.
            crosses += [
                bool(blocks[i, p.key_at] != blocks[i, p.key_at + 2]) for i, p in enumerate(probes)
            ]
            real = x != PAD
            sizes.append(
                float(real.sum() / (blocks.masked_fill(~real, -1).max(dim=1).values + 1).sum())
            )
            gates = torch.stack(model.gate_weights).mean(dim=(0, 2)).cpu()  # [B, T]
            sel = (full & real).cpu()
            for s in range(c.stride):
                m = sel & (slot.cpu() == s)
                sums[s] += float(gates[m].sum())
                counts[s] += int(m.sum())
    gains = (sums / np.maximum(counts, 1)).tolist() if model.compressed else []
    size = float(np.mean(sizes)) if sizes else float("nan")
    return Recall(key_at, ok, gains, size, crosses)


def dominant_period(positions: Sequence[int], success: Sequence[float], longest: int = 8) -> int:
    """The period that best explains the trials, by BIC: for each candidate ``P`` in
    1..``longest`` (1 = no period) a Bernoulli rate per residue ``position mod P``, the
    log-likelihood penalised by ``P log N``. A pattern of period P also fits 2P, but the
    penalty keeps the shorter one unless the longer one explains more than chance."""
    pos = np.asarray(positions, dtype=np.int64)
    ok = np.asarray(success, dtype=float)
    n = len(ok)
    best, best_bic = 1, math.inf
    for p in range(1, longest + 1):
        res = pos % p
        trials = np.bincount(res, minlength=p).astype(float)
        hits = np.bincount(res, weights=ok, minlength=p)
        rate = np.clip(hits / np.maximum(trials, 1), 1e-9, 1 - 1e-9)
        loglik = float((hits * np.log(rate) + (trials - hits) * np.log(1 - rate)).sum())
        bic = -2 * loglik + p * math.log(n)
        if bic < best_bic - 1e-9:
            best, best_bic = p, bic
    return best
