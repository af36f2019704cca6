"""Generator models loaded once per process: each (model, device) pair is loaded the
first time it is asked for and shared by every generator of that model after, which
differ only in their settings; each model name has one run lock, held while it runs
(the KV observation window switches the shared model's attention). A model folder
rewritten since (its files' names, sizes or times changed) is loaded again, and its old
weights forgotten."""

from __future__ import annotations

import threading
from typing import Any

from lateseg.encode.models import pick_device, quiet_transformers, resolve_generator
from lateseg.encode.quick import fingerprint
from lateseg.errors import ModelError

_MODELS: dict[tuple[str, str], tuple[Any, Any, str | None]] = {}
_RUN_LOCKS: dict[str, threading.RLock] = {}
_MODELS_LOCK = threading.Lock()


def run_lock(name: str) -> threading.RLock:
    """The run lock of the model ``name`` in this process."""
    with _MODELS_LOCK:
        return _RUN_LOCKS.setdefault(name, threading.RLock())


def model_version(name: str) -> str | None:
    """What identifies the files of the generator ``name`` as they are now: its folder's
    fingerprint (names, sizes and modification times), or None for a hub name."""
    return fingerprint(resolve_generator(name))


def load_model(name: str, device: str | None) -> tuple[Any, Any, str]:
    """The causal LM ``name`` (a name or folder) and its tokenizer on ``device`` (None:
    the best one there is, :func:`~lateseg.encode.models.pick_device`), and that device:
    bfloat16 on CUDA, float32 elsewhere, in eval mode. Loaded once per process, and again
    when its folder was rewritten since."""
    import torch

    quiet_transformers()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with _MODELS_LOCK:
        device = pick_device(device)
        key = (name, device)
        version = model_version(name)
        if key not in _MODELS or _MODELS[key][2] != version:
            where = resolve_generator(name)
            dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
            try:
                tokenizer = AutoTokenizer.from_pretrained(where)
                model = AutoModelForCausalLM.from_pretrained(where, dtype=dtype)
            except Exception as e:
                raise ModelError(f"cannot load generator {name!r} from {where!r}: {e}") from e
            _MODELS[key] = (model.to(device).eval(), tokenizer, version)  # type: ignore[arg-type]
        model, tokenizer, _ = _MODELS[key]
    return model, tokenizer, device


def release_models() -> None:
    """Forget the generator models kept for reuse: each is freed once no generator holds
    it, and loaded again when next asked for."""
    with _MODELS_LOCK:
        _MODELS.clear()
