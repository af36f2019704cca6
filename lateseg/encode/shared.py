"""Embedders and query kits loaded once per process and shared by every encoder with
the same settings (inference only). Each is keyed by its model folder's fingerprint
(:func:`~lateseg.encode.quick.fingerprint`: names, sizes and modification times), so a
folder rewritten since is loaded again, not served from memory, and its old weights are
forgotten; :class:`~lateseg.encode.late.LateEncoder` decides whether the new files may
go on serving an index built with the old ones."""

from __future__ import annotations

import logging
import threading

from lateseg.encode.backends import Embedder, default_backend, load_embedder
from lateseg.encode.config import EncoderConfig
from lateseg.encode.models import cuda_possible, pick_device, resolve_embedder
from lateseg.encode.quick import QuickEmbedder, fingerprint, quick_embedder
from lateseg.errors import ModelError
from lateseg.home import lateseg_home

log = logging.getLogger(__name__)

_LOADED: dict[tuple[str, str, str | None, bool], tuple[str | None, Embedder]] = {}
_QUICK: dict[tuple[str, str, str], tuple[str | None, QuickEmbedder]] = {}
_LOCK = threading.Lock()


def release_models() -> None:
    """Forget the embedders and query kits kept for reuse: each is freed once no encoder
    holds it, and loaded again when next asked for."""
    with _LOCK:
        _LOADED.clear()
        _QUICK.clear()


def embedder_version(config: EncoderConfig) -> str | None:
    """What identifies the embedder's files as they are now: its folder's fingerprint,
    or None for a name that is not a folder (a hub model: its files do not change under
    a running process)."""
    try:
        return fingerprint(resolve_embedder(config.model))
    except ModelError:
        return None


def shared_embedder(config: EncoderConfig) -> tuple[Embedder, str, str | None]:
    """The embedder ``config`` names, its device and its files' version: loaded once per
    process for each setting (and again once its folder is rewritten). With no backend
    chosen, a model the default backend cannot export runs on torch instead."""
    chosen = config.backend
    device = pick_device(config.device if chosen in (None, "torch") else "cpu")
    backend = chosen or default_backend(device)
    # the automatic choice has its own entry: it may have fallen back to torch
    key = (config.model, device, chosen, config.trust_remote_code)
    version = embedder_version(config)
    with _LOCK:
        held = _LOADED.get(key)
        if held is None or held[0] != version:
            _LOADED.pop(key, None)  # the old weights go with the last encoder using them
            try:
                model = load_embedder(config.model, device, backend, config.trust_remote_code)
            except ModelError as e:
                if chosen is not None or backend == "torch":
                    raise
                log.warning("%s; the embedder runs on torch instead", e)
                model = load_embedder(config.model, device, "torch", config.trust_remote_code)
            held = _LOADED[key] = (version, model)
    return held[1], device, version


def shared_quick(config: EncoderConfig) -> tuple[QuickEmbedder | None, str | None]:
    """The torch-free query path (:mod:`lateseg.encode.quick`) where the full one would
    run the same exported graph on the CPU and a kit for the model exists (else None),
    and the files' version it was found for."""
    chosen, device = config.backend, config.device
    if chosen == "torch" or config.trust_remote_code:
        return None, None
    if chosen is None:
        if device is None and cuda_possible():
            return None, None  # the full path may pick CUDA and torch
        if device is not None and not device.startswith("cpu"):
            return None, None
    backend = chosen or default_backend("cpu")
    if backend == "torch":
        return None, None
    try:
        source = resolve_embedder(config.model)
    except ModelError:
        return None, None
    version = fingerprint(source)
    key = (str(lateseg_home()), source, backend)  # kits live in the home
    with _LOCK:
        held = _QUICK.get(key)
        if held is not None and held[0] == version:
            return held[1], version
        _QUICK.pop(key, None)
        # looked for again later: a full load may leave the kit
        found = quick_embedder(source, backend)
        if found is not None:
            _QUICK[key] = (version, found)
    return found, version
