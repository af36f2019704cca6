"""Phase robustness: does a fact's position modulo a stride decide whether a system
finds it? See :mod:`lateseg.phase.harness` (running), :mod:`lateseg.phase.stats`
(statistics), :mod:`lateseg.phase.probes` (needle cases, retrieval and KV systems) and
:mod:`lateseg.phase.toy` (tiny models trained from scratch)."""

from __future__ import annotations

from lateseg.phase.harness import (
    PhaseSensitivityError,
    assert_phase_robust,
    measure,
    measure_many,
    write_report,
)
from lateseg.phase.probes import NeedleCase, NeedleProbe
from lateseg.phase.stats import PhaseResult, analyse, wilson

__all__ = [
    "NeedleCase",
    "NeedleProbe",
    "PhaseResult",
    "PhaseSensitivityError",
    "analyse",
    "assert_phase_robust",
    "measure",
    "measure_many",
    "wilson",
    "write_report",
]
