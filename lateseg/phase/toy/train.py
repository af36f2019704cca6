"""Training a toy variant: seeded AdamW with a one-cycle schedule on fresh batches, and
the weights cached per variant, config and the cache version so a study trains each
model once."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lateseg.phase.toy.data import ToyConfig, make_batch

if TYPE_CHECKING:
    from lateseg.phase.toy.model import ToyLM

log = logging.getLogger(__name__)

_CACHE_VERSION = 2  # bump when the task or the model changes: old weights are not reused


def train_variant(
    variant: str,
    config: ToyConfig | None = None,
    *,
    cache_dir: Path | None = None,
    device: str = "cpu",
) -> ToyLM:
    """Train (or load from ``cache_dir``) the ``variant`` model on ``device``; seeded."""
    import torch

    from lateseg.phase.toy.model import ToyLM

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
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, config.lr, total_steps=config.steps)
    t0 = time.perf_counter()
    for step in range(config.steps):
        xb, yb, _ = make_batch(config, rng, config.batch)
        logits = model(torch.from_numpy(xb).to(model.device))
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, config.vocab), torch.from_numpy(yb).to(model.device).reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
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
