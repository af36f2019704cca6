"""Run a system on needle cases shifted one unit at a time, and judge the phase result.

A *probe* makes the cases: ``probe.case(offset, scheme, rep)`` returns whatever its
systems take, with the needle moved by ``offset`` units. Schemes:

* ``prefix``: ``offset`` padding units before everything (all content moves together);
* ``inside``: ``offset`` units just before the needle and ``max_offset - offset`` just
  after it, so only the needle moves and the text around it stays where it was.

A *system* is a callable ``system(case) -> bool | float`` (success, or a share such as
the needle retention). :func:`measure` runs it over offsets ``0..offsets-1`` and
``repeats`` cases per offset and returns a :class:`PhaseResult`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from tqdm.auto import tqdm

from lateseg.errors import ConfigError
from lateseg.phase.plotting import pyplot
from lateseg.phase.stats import PhaseResult, analyse

SCHEMES = ("prefix", "inside")


class Probe(Protocol):
    def case(self, offset: int, scheme: str, rep: int) -> Any: ...


System = Callable[[Any], "bool | float"]


class PhaseSensitivityError(AssertionError):
    """A system's success depends on the needle's phase (raised by
    :func:`assert_phase_robust`, with the per-residue table)."""


def collect(
    system: Callable[[Any], Any],
    probe: Probe,
    *,
    offsets: int,
    scheme: str = "prefix",
    repeats: int = 1,
    name: str = "system",
    progress: bool | None = False,
) -> tuple[list[int], list[Any]]:
    """Run ``system`` on ``probe``'s cases at offsets ``0..offsets-1``, ``repeats`` each;
    returns the offsets and the outcomes."""
    if scheme not in SCHEMES:
        raise ConfigError(f"scheme={scheme!r}; choose one of {', '.join(SCHEMES)}")
    if offsets < 2:
        raise ConfigError(f"offsets={offsets}; need at least 2")
    offs, outcomes = [], []
    grid = [(o, r) for r in range(repeats) for o in range(offsets)]
    bar = tqdm(grid, desc=name, unit="case", disable=None if progress is None else not progress)
    for o, r in bar:
        offs.append(o)
        outcomes.append(system(probe.case(o, scheme, r)))
    return offs, outcomes


def measure(
    system: System,
    probe: Probe,
    *,
    period: int,
    offsets: int,
    scheme: str = "prefix",
    repeats: int = 1,
    name: str = "system",
    permutations: int = 2000,
    scan: Sequence[int] = (),
    progress: bool | None = False,
) -> PhaseResult:
    """Run ``system`` on ``probe``'s cases at offsets ``0..offsets-1`` (``repeats`` each)
    and analyse the outcomes for ``period``."""
    if offsets < period:
        raise ConfigError(f"offsets={offsets} cover less than one period ({period})")
    offs, outcomes = collect(
        system, probe, offsets=offsets, scheme=scheme, repeats=repeats, name=name, progress=progress
    )
    return analyse(
        offs,
        [float(o) for o in outcomes],
        period,
        system=name,
        scheme=scheme,
        permutations=permutations,
        scan=scan,
    )


def measure_many(
    system: Callable[[Any], dict[str, float]],
    probe: Probe,
    *,
    periods: Sequence[int],
    offsets: int,
    scheme: str = "prefix",
    repeats: int = 1,
    name: str = "systems",
    permutations: int = 2000,
    progress: bool | None = False,
) -> list[PhaseResult]:
    """Like :func:`measure` for a system that returns one outcome per sub-system (a
    dict), e.g. several KV compressors sharing a prefill; each sub-system is analysed
    for every period in ``periods``."""
    offs, outcomes = collect(
        system, probe, offsets=offsets, scheme=scheme, repeats=repeats, name=name, progress=progress
    )
    return [
        analyse(
            offs,
            [float(o[key]) for o in outcomes],
            period,
            system=key,
            scheme=scheme,
            permutations=permutations,
        )
        for key in outcomes[0]
        for period in periods
    ]


def assert_phase_robust(
    system: System,
    cases: Probe,
    period: int,
    *,
    offsets: int | None = None,
    scheme: str = "prefix",
    repeats: int = 1,
    max_gap: float = 0.05,
    alpha: float = 0.01,
    name: str = "system",
) -> PhaseResult:
    """Fail (``PhaseSensitivityError``, an ``AssertionError``, with the per-residue
    table) when ``system``'s success on ``cases`` is periodic in the needle's offset:
    the harmonic power at ``1/period`` is significant (p < ``alpha``), or the gap between
    the best and worst residue exceeds ``max_gap`` with their 95% intervals apart.
    Returns the result when the system passes. For pytest::

        assert_phase_robust(my_system, my_probe, period=8, offsets=32, repeats=4)
    """
    result = measure(
        system,
        cases,
        period=period,
        offsets=offsets or 4 * period,
        scheme=scheme,
        repeats=repeats,
        name=name,
    )
    problems = []
    if result.p_value < alpha:
        problems.append(f"periodic with period {period} (p = {result.p_value:.4f} < {alpha})")
    if result.gap > max_gap and not result.intervals_overlap:
        problems.append(f"residue gap {100 * result.gap:.1f} pts > {100 * max_gap:.1f} pts")
    if problems:
        raise PhaseSensitivityError("; ".join(problems) + "\n" + result.table())
    return result


def write_report(
    results: Sequence[PhaseResult],
    out: Path,
    title: str,
    extra: dict[str, Any] | None = None,
) -> dict[str, Path]:
    """Write ``phase.json`` (with ``extra``), ``summary.md`` and one PNG per result
    into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "phase.json", "markdown": out / "summary.md"}
    data = {"title": title, **(extra or {}), "results": [r.to_dict() for r in results]}
    paths["json"].write_text(json.dumps(data, indent=2) + "\n")
    lines = [
        f"# {title}",
        "",
        "| system | scheme | period | trials | accuracy | gap (pts) | noise gap (pts) | "
        "harmonic power | p | stride consistency |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.system} | {r.scheme} | {r.period} | {r.trials} | {r.overall:.3f} | "
            f"{100 * r.gap:.1f} | {100 * r.gap_noise:.1f} | {r.power_share:.2f} | "
            f"{r.p_value:.4f} | "
            f"{r.stride_consistency:.3f} |"
        )
    lines += ["", *(r.table() + "\n" for r in results)]
    paths["markdown"].write_text("\n".join(lines))
    for r in results:
        png = out / f"{_slug(r.system)}-{r.scheme}-p{r.period}.png"
        plot(r, png)
        paths[png.stem] = png
    return paths


def plot(result: PhaseResult, path: Path) -> None:
    """Accuracy against offset, and folded by residue with 95% intervals."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    left.plot(result.offsets, result.accuracy_by_offset, marker=".", lw=1)
    for x in range(0, max(result.offsets) + 1, result.period):
        left.axvline(x, color="0.85", lw=0.8, zorder=0)
    left.set_xlabel("needle offset (units)")
    left.set_ylabel("success")
    left.set_ylim(-0.05, 1.05)
    left.set_title(f"{result.system} ({result.scheme})")
    res = [r["residue"] for r in result.residues]
    acc = [r["accuracy"] for r in result.residues]
    err = [
        [max(0.0, a - r["low"]) for a, r in zip(acc, result.residues, strict=True)],
        [max(0.0, r["high"] - a) for a, r in zip(acc, result.residues, strict=True)],
    ]
    right.errorbar(res, acc, yerr=err, fmt="o", capsize=3)
    right.set_xlabel(f"offset mod {result.period}")
    right.set_ylim(-0.05, 1.05)
    right.set_title(
        f"gap {100 * result.gap:.0f} pts, power {result.power_share:.2f}, p={result.p_value:.3g}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
