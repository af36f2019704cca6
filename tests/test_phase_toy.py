"""The toy model is a ``torch.nn.Module`` (its weights registered, saved and loaded as
any module's), and loading the toy study stays light: torch comes with the model only."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import torch

from lateseg.phase.toy import VARIANTS, ToyConfig, make_batch
from lateseg.phase.toy.model import ToyLM


def test_toy_model_registers_its_weights_and_round_trips_its_state():
    config = ToyConfig(layers=1, steps=1)
    x = torch.from_numpy(make_batch(config, np.random.default_rng(0), 2)[0])
    for variant in VARIANTS:
        model = ToyLM(config, variant)
        params = dict(model.named_parameters())
        assert "slot_bias" in params and "net.embed.weight" in params
        assert len(params) == len(model.state_dict())
        with torch.no_grad():
            model.slot_bias.add_(0.5)
            want = model(x)
        other = ToyLM(ToyConfig(layers=1, steps=1, seed=1), variant)
        with torch.no_grad():
            assert not torch.equal(other(x), want)
        other.load_state_dict(model.state_dict())
        with torch.no_grad():
            assert torch.equal(other(x), want), variant
    same = ToyLM(config, "fixed").state_dict()
    assert all(torch.equal(v, ToyLM(config, "fixed").state_dict()[k]) for k, v in same.items())


def test_toy_study_imports_without_torch_or_matplotlib():
    code = (
        "import sys\n"
        "import lateseg.phase.study, lateseg.phase.toy\n"
        "print(','.join(m for m in ('torch', 'matplotlib') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
