"""Ingest profiles: named sets of encoder settings, chosen by measurement.

* ``accurate`` (the default): the best recall measured (``bench/results/retrieval.md``);
  it reads about 2.4-2.5 model tokens per document token (late windows, then each chunk
  embedded alone for the naive half of its vector).
* ``fast``: the fastest combination of measured levers whose recall@2000 stays at or
  above the best peer's on every set of ``bench/retrieval.py``
  (``bench/results/profile_fast.md``). Source code's chunks keep their pure late vector
  (with their unit's name and signature mixed in): code is read about 1.2 times instead
  of 2.4. On a CPU that reads at fp32 (no bf16), the late windows are read by the int8
  graph (``onnx-int8``, 1.4x the fp32 forward's tokens a second) while the chunks'
  texts embedded alone and the queries stay fp32, the index's precision: recall@2000
  0.958 / 0.893 / 0.740 / 0.583 / 0.503 on the sample, contract, licence, standard-library
  and held-out questions, against accurate's 0.958 / 0.875 / 0.760 / 0.628 / 0.509 and
  the best peer's 0.938 / 0.876 / 0.596 / 0.526 / 0.435 (lateseg's rerun on 7 December,
  after the prose title field: ``bench/results/retrieval_fast_intel.md``). Every cheaper
  prose setting measured instead (pure late, 16 or 24 shared window tokens, int8 for
  everything, longer windows, the naive half for long chunks only, int8 texts embedded
  alone) fell
  below the best peer on the sample contracts or the contract questions. Where the CPU
  has bf16, windows stay bf16 (faster there than int8), so on prose-only corpora the two
  profiles are the same on such a CPU.

A profile is a small mapping onto :class:`~lateseg.encode.config.EncoderConfig` fields
(:data:`PROFILES`), applied to a new index's configuration and recorded in its manifest;
an index is always extended with its own (:mod:`lateseg.open_index`). ``backend`` in a
profile is the backend a run uses when the caller leaves it open (None: lateseg's
default), so the index's precision follows the profile; ``window_backend`` the one a
new index's late windows are read with where the run's backend reads at fp32 on the CPU
(:func:`with_profile_windows`, once the run's backend is settled), recorded in its
manifest and followed by every later run on any CPU.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lateseg.encode.backends import run_backend, vector_precision
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
        "window_backend": None,
    },
    "fast": {
        "window": 128,
        "overlap": 32,
        "late_weight": 0.5,
        "code_late_weight": 1.0,
        "backend": None,
        "window_backend": "onnx-int8",
    },
}
#: Profile keys that belong to the run (backends), not to the index's encoder settings.
RUN_KEYS = ("backend", "window_backend")


#: What ``--help`` says of the profiles (bench/results/profile_fast.md).
PROFILE_HELP = (
    "accurate (the default for a new index: the best recall measured) or fast (code "
    "chunks pure late, read 1.2 times instead of 2.4; on a CPU without bf16 the late "
    "windows read by the int8 model, the rest at fp32). recall@2000 on the sample, "
    "contract, licence, stdlib and held-out questions: fast 0.958/0.893/0.740/0.583/"
    "0.503, accurate 0.958/0.875/0.760/0.628/0.509, the best peer 0.938/0.876/0.596/"
    "0.526/0.435 (bench/results/retrieval_fast_intel.md). Ingest speed against that "
    "peer at fp32 (AMD EPYC Zen 5, AVX-512 with "
    "bf16 off): fast 1.08x on licences and 1.80x on code, accurate 0.98x and 1.06x; with "
    "bf16 (the same CPU): fast 1.51x and 3.03x, accurate 1.63x and 1.65x; "
    "bench/results/profile_fast.md. On an Intel Xeon without bf16 (family 6 model 207), "
    "where that pipeline's torch forward is nearly as fast: fast 0.57x and 0.66x, "
    "accurate 0.49x and 0.56x (bench/results/throughput_intel_fp32.md)"
)
#: The line ``lateseg ingest`` shows once on a CPU without bf16.
FAST_NOTICE = (
    "this CPU has no bf16, so ingest runs at fp32 and reads each token about 2.5 times; "
    "`--profile fast` on a new index reads the late windows with the int8 model and code "
    "1.2 times: measured at fp32 on an AVX-512 CPU (not yet on an AVX2-only one) at "
    "1.08x a plain chunk-and-embed pipeline's speed on "
    "licences and 1.80x on code (accurate: 0.98x, 1.06x), but on an Intel Xeon without "
    "bf16 at 0.57x and 0.66x (accurate: 0.49x, 0.56x; bench/results/throughput_intel_fp32.md); "
    "recall@2000 0.740 and 0.583 "
    "instead of 0.760 and 0.628 (the pipeline's: 0.596, 0.526) "
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
    fields = {k: v for k, v in PROFILES[check_profile(name)].items() if k not in RUN_KEYS}
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


def with_profile_windows(config: EncoderConfig, name: str | None) -> EncoderConfig:
    """``config`` reading its late windows with the profile's ``window_backend``, where
    the profile names one, the caller chose none, and the run's backend reads at fp32 on
    the CPU (``openvino``, ``onnx``, or ``openvino-bf16`` on a CPU without bf16; a CPU
    with bf16 reads windows faster in bf16 than in int8: bench/results/profile_fast.md).
    For a new index, once the run's backend is settled; an existing index reads its
    windows as its manifest records (:mod:`lateseg.open_index`)."""
    chosen = None if name is None else PROFILES[check_profile(name)]["window_backend"]
    if chosen is None or config.window_backend is not None:
        return config
    run = run_backend(config.backend, config.device)
    if run == "torch" or vector_precision(run, config.device) != "fp32":
        return config  # bf16, int8 already, or a GPU: nothing faster to read windows with
    return dataclasses.replace(config, window_backend=chosen)


def matches(config: EncoderConfig, name: str) -> bool:
    """Whether ``config``'s encoder settings are the profile's (an index from before
    profiles were recorded may still be one)."""
    fields = {k: v for k, v in PROFILES[check_profile(name)].items() if k not in RUN_KEYS}
    return all(getattr(config, k) == v for k, v in fields.items())
