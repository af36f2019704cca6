"""The toy study's model: :class:`ToyLM`, a small pre-norm transformer whose attention is
the variant under test (full causal attention, or a local window plus compressed blocks
reduced by a softmax gate over their slots). Imports torch: load it only to train or run
the model."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from lateseg.errors import ConfigError
from lateseg.phase.toy.data import VARIANTS, ToyConfig, block_ids


class ToyLM(nn.Module):
    """The model: a small pre-norm transformer with a pluggable attention. Seeded by
    ``config.seed`` at construction, so one config and variant always start from the same
    weights."""

    def __init__(self, config: ToyConfig, variant: str, device: str = "cpu") -> None:
        if variant not in VARIANTS:
            raise ConfigError(f"variant={variant!r}; choose one of {', '.join(VARIANTS)}")
        super().__init__()
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
        self.slot_bias = nn.Parameter(torch.zeros(config.layers, config.heads, config.stride))
        self.to(torch.device(device))
        self.gate_weights: list[Any] = []  # per layer, the last forward's (when kept)
        self.train_s = float("nan")  # seconds its training took (kept with the cache)

    @property
    def device(self) -> torch.device:
        return self.slot_bias.device

    @property
    def compressed(self) -> bool:
        return self.variant != "full"

    def forward(self, x: Any, *, keep_gates: bool = False) -> Any:
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
    t = blocks.shape[1]
    idx = torch.arange(t, device=blocks.device)
    nb = int(blocks.max()) + 1
    member = blocks[:, None, :] == torch.arange(nb, device=blocks.device)[None, :, None]
    start = torch.where(member, idx, t).min(dim=2).values  # [B, nb]
    end = torch.where(member, idx, -1).max(dim=2).values  # [B, nb]
    return member, idx[None, :] - start.gather(1, blocks), end


def _rope(x: Any, pos: Any) -> Any:
    dh = x.shape[-1]
    freq = 1.0 / (10000 ** (torch.arange(0, dh, 2, device=x.device).float() / dh))
    ang = pos[:, None].float() * freq[None, :]
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
