"""Statistics of phase sensitivity: is success periodic in a fact's offset?

Given trials (offset, success), with offsets shifted one unit at a time:

* per-residue accuracy ``A(r)`` for ``r = offset mod P`` with Wilson 95% intervals, and
  the gap ``max A(r) - min A(r)``;
* the share of the non-DC spectral power of the per-offset accuracy that lies at the
  harmonics of ``1/P`` (the variance of the per-residue means over the total: for
  offsets covering whole periods this is exactly the DFT power at ``m/P``), with a
  permutation p-value: offsets shuffled among the trials with a fixed seed;
* the stride consistency ``mean |a(o) - a(o + P)|`` over per-offset accuracies (small
  when the pattern repeats every ``P`` units);
* optionally the same share and p-value for each candidate period (a scan).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lateseg.errors import ConfigError


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def per_offset(offsets: np.ndarray, success: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct offsets and the mean success at each."""
    uniq, inverse = np.unique(offsets, return_inverse=True)
    sums = np.bincount(inverse, weights=success.astype(float))
    return uniq, sums / np.bincount(inverse)


def harmonic_share(offsets: np.ndarray, values: np.ndarray, period: int) -> float:
    """Share of the variance of ``values`` (one per offset) explained by the harmonics
    of ``1 / period``: the periodic part is the per-residue mean, so the share is the
    between-residue sum of squares over the total (equal to the DFT power share at
    ``m / period`` when offsets span whole periods)."""
    centred = values - values.mean()
    total = float((centred**2).sum())
    if total <= 1e-12:
        return 0.0
    res = offsets % period
    means = np.bincount(res, weights=centred, minlength=period)
    counts = np.bincount(res, minlength=period)
    with np.errstate(invalid="ignore", divide="ignore"):
        fitted = np.where(counts > 0, means / np.maximum(counts, 1), 0.0)
    return float((fitted[res] ** 2).sum() / total)


def residue_gap(offsets: np.ndarray, success: np.ndarray, period: int) -> float:
    """Best minus worst mean success over the residues ``offset mod period`` that have
    trials."""
    res = offsets % period
    n = np.bincount(res, minlength=period)
    k = np.bincount(res, weights=success, minlength=period)
    rates = k[n > 0] / n[n > 0]
    return float(rates.max() - rates.min())


def _permutation_p(
    offsets: np.ndarray,
    success: np.ndarray,
    period: int,
    observed: float,
    n: int,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """Share of ``n`` offset shufflings whose harmonic share reaches ``observed`` (with
    the observed one counted, so never 0), and the 95th percentile of the residue gap
    over the same shufflings: the gap that noise alone gives at this many trials."""
    beats, gaps = 0, []
    for _ in range(n):
        perm = rng.permutation(offsets)
        beats += harmonic_share(*per_offset(perm, success), period) >= observed - 1e-12
        gaps.append(residue_gap(perm, success, period))
    return (1 + beats) / (1 + n), float(np.quantile(gaps, 0.95))


@dataclass
class PhaseResult:
    """What :func:`analyse` found for one system and one period."""

    system: str
    period: int
    residues: list[dict[str, float]]
    gap: float
    power_share: float
    p_value: float
    stride_consistency: float
    overall: float
    trials: int
    offsets: list[int] = field(default_factory=list)
    accuracy_by_offset: list[float] = field(default_factory=list)
    scan: list[dict[str, float]] = field(default_factory=list)
    scheme: str = ""
    gap_noise: float = float("nan")

    @property
    def intervals_overlap(self) -> bool:
        """Whether the best and worst residues' intervals overlap (a gap within noise)."""
        best = max(self.residues, key=lambda r: r["accuracy"])
        worst = min(self.residues, key=lambda r: r["accuracy"])
        return best["low"] <= worst["high"]

    def periodic(self, alpha: float = 0.01) -> bool:
        return self.p_value < alpha

    def table(self) -> str:
        """The per-residue table as text (for messages and the markdown summary)."""
        lines = [
            f"{self.system} ({self.scheme or 'offsets'}), period {self.period}: gap "
            f"{100 * self.gap:.1f} pts (noise alone: {100 * self.gap_noise:.1f}), "
            f"harmonic power share {self.power_share:.2f} "
            f"(p = {self.p_value:.4f}), stride consistency {self.stride_consistency:.3f}, "
            f"{self.trials} trials",
            "| residue | trials | accuracy | 95% interval |",
            "|---:|---:|---:|---|",
        ]
        for r in self.residues:
            lines.append(
                f"| {int(r['residue'])} | {int(r['n'])} | {r['accuracy']:.3f} | "
                f"{r['low']:.3f}-{r['high']:.3f} |"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "scheme": self.scheme,
            "period": self.period,
            "trials": self.trials,
            "overall_accuracy": self.overall,
            "gap": self.gap,
            "gap_noise": self.gap_noise,
            "power_share": self.power_share,
            "p_value": self.p_value,
            "stride_consistency": self.stride_consistency,
            "intervals_overlap": self.intervals_overlap,
            "residues": self.residues,
            "offsets": self.offsets,
            "accuracy_by_offset": self.accuracy_by_offset,
            "scan": self.scan,
        }


def analyse(
    offsets: Sequence[int],
    success: Sequence[bool | float],
    period: int,
    *,
    system: str = "system",
    scheme: str = "",
    permutations: int = 2000,
    seed: int = 0,
    scan: Sequence[int] = (),
) -> PhaseResult:
    """Phase statistics of trials ``(offsets[i], success[i])`` for ``period``."""
    if period < 2:
        raise ConfigError(f"period={period}; must be at least 2")
    off = np.asarray(offsets, dtype=np.int64)
    ok = np.asarray(success, dtype=float)
    if off.shape != ok.shape or off.size == 0:
        raise ConfigError("give one success value per offset, and at least one trial")
    if (off < 0).any():
        raise ConfigError("offsets must be non-negative")
    res = off % period
    residues = []
    for r in range(period):
        sel = ok[res == r]
        k = float(sel.sum())
        lo, hi = wilson(round(k), len(sel)) if len(sel) else (0.0, 1.0)
        rate = k / len(sel) if len(sel) else float("nan")
        residues.append({"residue": r, "n": len(sel), "accuracy": rate, "low": lo, "high": hi})
    seen = [r["accuracy"] for r in residues if r["n"]]
    uniq, acc = per_offset(off, ok)
    share = harmonic_share(uniq, acc, period)
    rng = np.random.default_rng(seed)
    p, gap_noise = _permutation_p(off, ok, period, share, permutations, rng)
    lookup = dict(zip(uniq.tolist(), acc.tolist(), strict=True))
    diffs = [abs(lookup[o] - lookup[o + period]) for o in lookup if o + period in lookup]
    scans = []
    for cand in scan:
        if cand < 2 or cand == period:
            continue
        s = harmonic_share(uniq, acc, cand)
        p_cand = _permutation_p(off, ok, cand, s, max(1, permutations // 10), rng)[0]
        scans.append({"period": cand, "power_share": s, "p_value": p_cand})
    if scan:
        scans.append({"period": period, "power_share": share, "p_value": p})
        scans.sort(key=lambda d: d["period"])
    return PhaseResult(
        system=system,
        period=period,
        residues=residues,
        gap=float(max(seen) - min(seen)),
        gap_noise=gap_noise,
        power_share=share,
        p_value=float(p),
        stride_consistency=float(np.mean(diffs)) if diffs else float("nan"),
        overall=float(ok.mean()),
        trials=int(off.size),
        offsets=uniq.tolist(),
        accuracy_by_offset=acc.tolist(),
        scan=scans,
        scheme=scheme,
    )
