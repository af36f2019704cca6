"""Ingest profiles: named sets of encoder settings, chosen by measurement.

* ``accurate`` (the default): the best recall measured (``bench/results/retrieval.md``);
  it reads about 2.4-2.5 model tokens per document token (late windows, then each chunk
  embedded alone for the naive half of its vector).
* ``fast``: the fastest combination of measured levers whose recall@2000 stays at or
  above the best peer's on every set of ``bench/retrieval.py``
  (``bench/results/profile_fast.md``). Source code's chunks keep their pure late vector
  (with their unit's name and signature mixed in): code is read about 1.2 times instead
  of 2.4. Prose is read as ``accurate`` reads it: every cheaper prose setting measured
  (pure late, 16 shared window tokens, int8, longer windows, the naive half for long
  chunks only) fell below the best peer on the sample contracts or the contract
  questions, so on prose-only corpora the two profiles are the same.

A profile is a small mapping onto :class:`~lateseg.encode.config.EncoderConfig` fields
(:data:`PROFILES`), applied to a new index's configuration and recorded in its manifest;
an index is always extended with its own (:mod:`lateseg.index.folder`). ``backend`` in a
profile is the backend a run uses when the caller leaves it open (None: lateseg's
default), so the index's precision follows the profile.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lateseg.encode.backends import run_backend
from lateseg.encode.config import EncoderConfig
from lateseg.errors import ConfigError

DEFAULT_PROFILE = "accurate"

#: name -> the EncoderConfig fields it sets (``backend``: when the caller gives none).
PROFILES: dict[str, dict[str, Any]] = {
    "accurate": {
        "window": 128,
        "overlap": 32,
        "late_weight": 0.5,
        "code_late_weight": 0.25,
        "backend": None,
    },
    "fast": {
        "window": 128,
        "overlap": 32,
        "late_weight": 0.5,
        "code_late_weight": 1.0,
        "backend": None,
    },
}


#: What ``--help`` says of the profiles (bench/results/profile_fast.md).
PROFILE_HELP = (
    "accurate (the default for a new index: the best recall measured) or fast (source "
    "code without its chunks' naive half: code is read 1.2 times instead of 2.4, "
    "standard-library recall@2000 0.590 against 0.628, still above the best peer's "
    "0.526; prose is read as accurate reads it, since every cheaper prose setting "
    "measured fell below the best peer on contracts). Measured on an AMD EPYC with "
    "AVX-512; bench/results/profile_fast.md"
)
#: The line ``lateseg ingest`` shows once on a CPU without bf16.
FAST_NOTICE = (
    "this CPU has no bf16, so ingest runs at fp32 and reads each token about 2.4 times "
    "(about half a plain chunk-and-embed pipeline's speed); for source code, `--profile "
    "fast` on a new index reads it 1.2 times at recall@2000 0.590 instead of 0.628 "
    "(the best peer: 0.526); prose is the same in both profiles "
    "(bench/results/profile_fast.md)"
)


def check_profile(name: str) -> str:
    """``name`` if it is a profile, else :class:`ConfigError` naming the choices."""
    if name not in PROFILES:
        raise ConfigError(
            f"profile={name!r} is not an ingest profile; choose one of {', '.join(PROFILES)} "
            f"(default {DEFAULT_PROFILE})"
        )
    return name


def apply_profile(config: EncoderConfig, name: str) -> EncoderConfig:
    """``config`` with the profile's settings; its backend only where ``config`` has
    none (the caller's choice of backend wins)."""
    fields = dict(PROFILES[check_profile(name)])
    fields.pop("backend")
    config = dataclasses.replace(config, **fields)
    return with_profile_backend(config, name)


def with_profile_backend(config: EncoderConfig, name: str | None) -> EncoderConfig:
    """``config`` running the profile's backend, where it names one, the caller chose
    none, and the run is on the CPU (a GPU keeps torch)."""
    backend = None if name is None else PROFILES[check_profile(name)]["backend"]
    if backend is None or config.backend is not None:
        return config
    if run_backend(None, config.device) == "torch":
        return config  # a GPU (or no OpenVINO): the profile's CPU backend does not apply
    return dataclasses.replace(config, backend=backend)


def matches(config: EncoderConfig, name: str) -> bool:
    """Whether ``config``'s encoder settings are the profile's (an index from before
    profiles were recorded may still be one)."""
    fields = {k: v for k, v in PROFILES[check_profile(name)].items() if k != "backend"}
    return all(getattr(config, k) == v for k, v in fields.items())
