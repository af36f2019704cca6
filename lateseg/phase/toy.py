"""The paper's controlled experiment at CPU scale: tiny LMs trained from scratch on
key-value retrieval over dense records, identical except for their attention.

A sequence is a stream of records ``k v`` (a key token, then its value token) separated
by runs of 0..``max_filler`` filler tokens (the first run is longer, up to ``2 x stride
- 1``, so every phase is seen), then ``tail`` fillers, then the queries: every key again,
in random order, each followed by its value, which is predicted at the key. The query is
far from its record (more than the ``local`` window), so recall must go through the
compressed blocks. Records are dense (mean spacing 3 tokens at the defaults), so a block
of 4 tokens often holds two of them, and the model is narrow (width 32, one head): a
block's summary cannot keep every slot equally (the capacity pressure the paper's needle
test has at 128K tokens).

Variants (``VARIANTS``), each trained from the same seed and data:

* ``full``: causal attention with RoPE (the negative control);
* ``fixed``: each query attends a short local window plus *compressed blocks*:
  non-overlapping blocks of ``stride`` tokens at fixed positions, each reduced to one key
  and value per head by a softmax gate over its slots, ``w_gate . x + bias[slot]``, with
  a learned bias per slot (DeepSeek-V4's ``ape[pos % ratio]``; the positive control).
  The study trains it at stride 4 and at stride 2;
* ``fixed-nope``: the same without position encoding; ``fixed-uniform``: the same with
  uniform gates (plain averages): the paper's two ablations;
* ``dynamic``: the same learned-gate compression, but blocks end where the content says
  so: before a key token once the block holds ``stride - 1`` tokens or no key yet (a
  record is never split), a run without keys every ``2 x stride`` tokens. No absolute position is
  special, and the blocks' mean size is close to the fixed ones' (``mean_block_size``).

Every layer has a short causal convolution (kernel 3) before its attention, as the
Based / Zoology associative-recall models do: without it not even full attention learns
the task in the CPU budget. The probe (:func:`recall_by_position`) is the paper's needle
test in small: fresh sequences from the training distribution, the first query's record
is the needle, and trials are grouped by the needle key's position mod the stride (the
query position and the mean needle position are the same for every residue).

Capacity is what makes the learned-gate model periodic at this scale. Exploratory runs
of the same task and model (one seed, 4,096 needles each) that learned around the blocks
(recall 0.97-0.99, gaps of 1.2-2.6 points, none with period 4 at p < 0.01 and a gap
over 3): width 64 with two heads (32 values, 0-4 fillers, 1,500 steps); width 64 with one
head (32 values, 0-2 fillers, 1,200 steps); width 64 with two heads and no fillers (1,200
steps); width 32 with two heads (64 values, 0-2 fillers, 2,500 steps). Width 32 with one
head and 64 values (the defaults) was periodic at 1,200 and 2,500 steps. The earlier toy
of this module (records padded by one pad token, width 64, four heads,
``bench/results/toy_sweep_v1.json``) was flat in all 8 settings
swept. The weak residues are where the record's span (key, value and the next token,
which the convolution mixes) crosses a block edge; the mean gate weights per slot differ
by a few hundredths and do not single them out (``toy.md``).

A variant trains in about 1-2 minutes on 2 CPU cores at the defaults; models are seeded
and cached (``train_variant(..., cache_dir=...)``). ``run_study`` trains the six rows of
the study and :func:`write_toy_report` writes ``toy.md``, ``toy.json`` and ``toy.png``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.errors import ConfigError
from lateseg.phase.stats import PhaseResult, analyse

log = logging.getLogger(__name__)

VARIANTS = ("full", "fixed", "fixed-nope", "fixed-uniform", "dynamic")
PAD = 0
_CACHE_VERSION = 2  # bump when the task or the model changes: old weights are not reused


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


class ToyLM:
    """The model: a small pre-norm transformer with a pluggable attention."""

    def __init__(self, config: ToyConfig, variant: str, device: str = "cpu") -> None:
        import torch
        from torch import nn

        if variant not in VARIANTS:
            raise ConfigError(f"variant={variant!r}; choose one of {', '.join(VARIANTS)}")
        self.config, self.variant = config, variant
        torch.manual_seed(config.seed)
        d = config.dim
        self.net = nn.ModuleDict(
            {
                "embed": nn.Embedding(config.vocab, d),
                "out": nn.Linear(d, config.vocab),
                "norm": nn.LayerNorm(d),
                "layers": nn.ModuleList(
                    [
                        nn.ModuleDict(
                            {
                                "n1": nn.LayerNorm(d),
                                "conv": nn.Conv1d(d, d, 3, groups=d, padding=2),
                                "qkv": nn.Linear(d, 3 * d),
                                "o": nn.Linear(d, d),
                                "n2": nn.LayerNorm(d),
                                "mlp": nn.Sequential(
                                    nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)
                                ),
                                "gate": nn.Linear(d, config.heads),
                            }
                        )
                        for _ in range(config.layers)
                    ]
                ),
            }
        )
        self.device = torch.device(device)
        self.net.to(self.device)
        self.slot_bias = nn.Parameter(
            torch.zeros(config.layers, config.heads, config.stride, device=self.device)
        )
        self.params = [*self.net.parameters(), self.slot_bias]
        self.gate_weights: list[Any] = []  # per layer, the last forward's (when kept)
        self.train_s = float("nan")  # seconds its training took (kept with the cache)

    @property
    def compressed(self) -> bool:
        return self.variant != "full"

    def forward(self, x: Any, *, keep_gates: bool = False) -> Any:
        import torch

        c = self.config
        b, t = x.shape
        h = self.net["embed"](x)
        pos = torch.arange(t, device=x.device)
        blocks = block_ids(c, self.variant, x) if self.compressed else None
        self.gate_weights = []
        layers: Any = self.net["layers"]
        for li, layer in enumerate(layers):
            if c.conv:
                h = h + layer["conv"](h.transpose(1, 2))[:, :, :t].transpose(1, 2)
            xn = layer["n1"](h)
            q, k, v = layer["qkv"](xn).view(b, t, 3, c.heads, -1).unbind(2)
            q, k, v = (z.transpose(1, 2) for z in (q, k, v))  # [B, H, T, dh]
            if self.variant != "fixed-nope":
                q, k = _rope(q, pos), _rope(k, pos)
            if blocks is None:
                att = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att, w = self._compressed(q, k, v, layer, li, xn, blocks)
                if keep_gates:
                    self.gate_weights.append(w.detach())
            h = h + layer["o"](att.transpose(1, 2).reshape(b, t, -1))
            h = h + layer["mlp"](layer["n2"](h))
        return self.net["out"](self.net["norm"](h))

    def block_slots(self, x: Any) -> tuple[Any, Any, Any]:
        """Per position: its block, its slot in the block, and whether the block is full
        (``stride`` tokens)."""
        blocks = block_ids(self.config, self.variant, x)
        member, slot, _ = _layout(blocks)
        size = member.sum(dim=2)  # [B, nb]
        return blocks, slot, size.gather(1, blocks) == self.config.stride

    def _compressed(
        self, q: Any, k: Any, v: Any, layer: Any, li: int, xn: Any, blocks: Any
    ) -> tuple[Any, Any]:
        import torch

        c = self.config
        b, nh, t, dh = q.shape
        idx = torch.arange(t, device=q.device)
        member, slot, end = _layout(blocks)
        slot = slot.clamp(max=c.stride - 1)
        if self.variant == "fixed-uniform":
            g = torch.zeros(b, nh, t, device=q.device)
        else:
            bias = self.slot_bias[li][:, slot].permute(1, 0, 2)  # [B, H, T]
            g = layer["gate"](xn).transpose(1, 2) + bias
        g = g[:, :, None, :].masked_fill(~member[:, None], float("-inf"))  # [B, H, nb, T]
        w = torch.softmax(g, dim=-1).nan_to_num(0.0)
        ck, cv = w @ k, w @ v  # [B, H, nb, dh]
        # Query i sees the blocks that ended before it and its local window.
        see_block = end[:, None, :] < idx[None, :, None]  # [B, T, nb]
        see_local = (idx[None, :] <= idx[:, None]) & (idx[None, :] > idx[:, None] - c.local)
        keys = torch.cat([ck, k], dim=2)
        vals = torch.cat([cv, v], dim=2)
        mask = torch.cat([see_block, see_local.expand(b, t, t)], dim=2)[:, None]
        logits = (q @ keys.transpose(-1, -2)) / math.sqrt(dh)
        logits = logits.masked_fill(~mask, float("-inf"))
        return torch.softmax(logits, dim=-1) @ vals, w.sum(dim=2)  # [B, H, T]: own gate


def _layout(blocks: Any) -> tuple[Any, Any, Any]:
    """For block ids ``[B, T]``: membership ``[B, nb, T]``, each position's slot in its
    block ``[B, T]`` and each block's last position ``[B, nb]``."""
    import torch

    t = blocks.shape[1]
    idx = torch.arange(t, device=blocks.device)
    nb = int(blocks.max()) + 1
    member = blocks[:, None, :] == torch.arange(nb, device=blocks.device)[None, :, None]
    start = torch.where(member, idx, t).min(dim=2).values  # [B, nb]
    end = torch.where(member, idx, -1).max(dim=2).values  # [B, nb]
    return member, idx[None, :] - start.gather(1, blocks), end


def _rope(x: Any, pos: Any) -> Any:
    import torch

    dh = x.shape[-1]
    freq = 1.0 / (10000 ** (torch.arange(0, dh, 2, device=x.device).float() / dh))
    ang = pos[:, None].float() * freq[None, :]
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


def train_variant(
    variant: str,
    config: ToyConfig | None = None,
    *,
    cache_dir: Path | None = None,
    device: str = "cpu",
) -> ToyLM:
    """Train (or load from ``cache_dir``) the ``variant`` model on ``device``; seeded."""
    import torch

    config = config or ToyConfig()
    model = ToyLM(config, variant, device)
    key = json.dumps([variant, asdict(config), _CACHE_VERSION])
    path = None
    if cache_dir is not None:
        path = cache_dir / f"toy-{variant}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.pt"
    if path is not None and path.is_file():
        try:
            state = torch.load(path, weights_only=True, map_location=model.device)
            model.net.load_state_dict(state["net"])
            model.slot_bias.data.copy_(state["slot_bias"])
            model.train_s = float(state.get("train_s", float("nan")))
            return model
        except Exception as e:  # a damaged cache file: train again
            log.warning("ignoring the cached toy model %s (%s)", path, e)
            model = ToyLM(config, variant, device)
    rng = np.random.default_rng(config.seed)
    opt = torch.optim.AdamW(model.params, lr=config.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, config.lr, total_steps=config.steps)
    t0 = time.perf_counter()
    for step in range(config.steps):
        xb, yb, _ = make_batch(config, rng, config.batch)
        logits = model.forward(torch.from_numpy(xb).to(model.device))
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, config.vocab), torch.from_numpy(yb).to(model.device).reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.params, 1.0)
        opt.step()
        sched.step()
        if step % 500 == 0 or step == config.steps - 1:
            log.info(
                "toy %s step %d loss %.3f (%.0f s)",
                variant,
                step,
                loss.item(),
                time.perf_counter() - t0,
            )
    model.train_s = round(time.perf_counter() - t0, 1)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        state = {"net": model.net.state_dict(), "slot_bias": model.slot_bias.data}
        torch.save({**state, "train_s": model.train_s}, tmp)
        tmp.replace(path)
    return model


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
            logits = model.forward(x, keep_gates=True).cpu()
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


def write_toy_report(
    rows: Sequence[ToyRow], out: Path, extra: dict[str, Any] | None = None
) -> dict[str, Path]:
    """``toy.md`` (one table of variants x gap, p, period found; residue profiles and slot
    gains), ``toy.json`` and ``toy.png`` (accuracy by residue per variant) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out / "toy.md", "json": out / "toy.json", "png": out / "toy.png"}
    data = {**(extra or {}), "rows": [r.to_dict() for r in rows]}
    paths["json"].write_text(json.dumps(data, indent=2) + "\n")
    lines = [
        "# Periodic weak spots in toy models trained from scratch",
        "",
        "Needle key-value recall over dense records (`lateseg.phase.toy`); trials grouped "
        "by the needle key's position mod the stride S (mod 4 for full attention). Gap = "
        "best minus worst residue; p = permutation test of the share of spectral power at "
        "the harmonics of 1/S; period found = the period (1-8, 1 = none) that explains "
        "the trials best by BIC; slot gains = mean gate weight of each slot of a full block "
        "(uniform: 1/S by construction); span in one block / across an edge = recall of the "
        "needles whose key, value and next token (the convolution's reach) lie in one "
        "compressed block, and of those whose span crosses a block edge (trials in "
        f"brackets). {rows[0].result.trials if rows else 0:,} trials (fresh sequences) "
        "per row.",
        "",
        "| variant | S | accuracy | gap (pts) | noise gap (pts) | p | period found "
        "| accuracy by residue | slot gains | weak residues = low-gain slots "
        "| span in one block / across an edge | train s |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|---|---|---:|",
    ]
    for r in rows:
        res = r.result
        profile = " / ".join(f"{x['accuracy']:.2f}" for x in res.residues)
        gains = " / ".join(f"{g:.3f}" for g in r.slot_gains) if r.slot_gains else "-"
        match = weak_slots_match(r)
        period = r.period_found if r.period_found > 1 else "none"
        lines.append(
            f"| {r.name} | {r.config.stride if r.variant != 'full' else '-'} | "
            f"{res.overall:.3f} | {100 * res.gap:.1f} | {100 * res.gap_noise:.1f} | "
            f"{res.p_value:.4f} | {period} | {profile} | {gains} | "
            f"{'-' if match is None else ('yes' if match else 'no')} | {_edge(r.edge)} | "
            f"{r.train_s:.0f} |"
        )
    dyn = [r for r in rows if r.variant == "dynamic"]
    if dyn:
        lines += ["", f"Content-defined blocks average {dyn[0].mean_block_size:.2f} tokens."]
    pos = [r for r in rows if r.positional_gains]
    if pos:
        lines += [
            "",
            "Positional part of the gates (softmax of the learned slot biases, mean over layers):",
            "",
        ]
        lines += [f"* {r.name}: " + " / ".join(f"{g:.3f}" for g in r.positional_gains) for r in pos]
    paths["markdown"].write_text("\n".join(lines) + "\n")
    _plot_rows(rows, paths["png"])
    return paths


def _edge(edge: dict[str, float]) -> str:
    if not edge:
        return "-"
    parts = []
    for label in ("inside", "crossing"):
        n = int(edge[f"{label}_n"])
        parts.append(f"{edge[label]:.2f} ({n})" if n else "- (0)")
    return " / ".join(parts)


def _plot_rows(rows: Sequence[ToyRow], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for i, r in enumerate(rows):
        res = r.result.residues
        x = [float(d["residue"]) + (i - len(rows) / 2) * 0.03 for d in res]
        acc = [d["accuracy"] for d in res]
        err = [
            [max(0.0, a - d["low"]) for a, d in zip(acc, res, strict=True)],
            [max(0.0, d["high"] - a) for a, d in zip(acc, res, strict=True)],
        ]
        ax.errorbar(
            x,
            acc,
            yerr=err,
            marker="o",
            capsize=2,
            lw=1,
            label=f"{r.name} (gap {100 * r.result.gap:.0f})",
        )
    ax.set_xlabel("needle key position mod S")
    ax.set_ylabel("recall")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(range(max(r.result.period for r in rows)))
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title("Toy models: recall by residue (95% intervals)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
