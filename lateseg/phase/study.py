"""The phase study: retrieval, KV-compression and toy-model probes with their controls.

``run_retrieval`` and ``run_kv`` return :class:`PhaseResult` rows, which ``lateseg phase …``
and ``pipelines/phase_study.py`` write with :func:`lateseg.phase.harness.write_report`;
``run_toy`` returns :class:`~lateseg.phase.toy.ToyRow` rows (each with its
:class:`PhaseResult`), written by :func:`lateseg.phase.toy.write_toy_report`.
Sizes default to the full study (about 12 minutes on 2 CPU cores for retrieval and KV,
10-15 minutes for the six toy models); ``reduced=True`` gives the small version the test
suite runs (seconds for retrieval and KV; for the toy, full attention against learned
gates, shorter training).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from lateseg.errors import ConfigError
from lateseg.phase.harness import measure, measure_many
from lateseg.phase.probes import NeedleProbe, kv_system, retrieval_systems
from lateseg.phase.stats import PhaseResult
from lateseg.phase.toy import REDUCED_STEPS, ToyConfig, ToyRow

log = logging.getLogger(__name__)

DEFAULT_TEXT = Path("/usr/share/common-licenses/Apache-2.0")


def haystack(path: Path | None, chars: int) -> str:
    """The first ``chars`` characters (cut at a paragraph end) of ``path``."""
    path = path or DEFAULT_TEXT
    if not path.is_file():
        raise ConfigError(f"{path} does not exist; give a long plain-text file with --text")
    text = path.read_text("utf-8", errors="replace")
    cut = text.rfind("\n\n", 0, chars)
    return text[: cut if cut > 0 else chars]


def run_retrieval(
    *,
    text: Path | None = None,
    period: int = 16,
    offsets: int | None = None,
    repeats: int = 2,
    schemes: Sequence[str] = ("prefix", "inside"),
    reduced: bool = False,
    progress: bool | None = False,
) -> list[PhaseResult]:
    """Fixed ``period``-token chunks (naive and late vectors), LangChain's recursive
    splitter, and lateseg late + dynamic, on a needle clause in a real document."""
    from lateseg.encode.late import LateEncoder

    chars = 1500 if reduced else 3000
    offsets = offsets or 2 * period
    probe = NeedleProbe.from_text(haystack(text, chars), depth=0.5, max_offset=offsets)
    systems = retrieval_systems(LateEncoder(), fixed_tokens=period)
    if reduced:
        systems = {k: v for k, v in systems.items() if "naive" in k or k.startswith("lateseg")}
    return [
        measure(
            system,
            probe,
            period=period,
            offsets=offsets,
            scheme=scheme,
            repeats=repeats,
            name=name,
            progress=progress,
        )
        for scheme in schemes
        for name, system in systems.items()
    ]


def run_kv(
    *,
    text: Path | None = None,
    periods: Sequence[int] = (4, 8, 10),
    offsets: int | None = None,
    budget: int = 128,
    schemes: Sequence[str] = ("inside",),
    reduced: bool = False,
    progress: bool | None = False,
) -> list[PhaseResult]:
    """The default generator with fixed ChunkKV (c = 4, 8, 10), SnapKV, lateseg ChunkKV
    and the full cache, on answer correctness and needle retention (the share of the
    needle's tokens kept, over layers and heads)."""
    from lateseg.generate.local import LocalGenerator
    from lateseg.kv.compress import KVConfig
    from lateseg.kv.presses import ChunkKVFixedPress, LatesegPress, SnapKVPress

    chars = 1200 if reduced else 2500
    offsets = offsets or (20 if reduced else 40)
    probe = NeedleProbe.from_text(haystack(text, chars), depth=0.5, max_offset=offsets)
    gen = LocalGenerator(max_new_tokens=16)  # the answer sentence reaches the code
    gen.load()
    methods: dict[str, KVConfig | None] = {"full cache": None}
    for c in (4, 8) if reduced else (4, 8, 10):
        methods[f"chunkkv-fixed c={c}"] = KVConfig(ChunkKVFixedPress(chunk=c), budget)
    if not reduced:
        methods["snapkv"] = KVConfig(SnapKVPress(), budget)
    methods["lateseg chunkkv"] = KVConfig(LatesegPress(), budget)
    system = kv_system(gen, methods, measure="share" if reduced else "both")
    out: list[PhaseResult] = []
    for scheme in schemes:
        out += measure_many(
            system,
            probe,
            periods=periods,
            offsets=offsets,
            scheme=scheme,
            name="kv",
            progress=progress,
        )
    return out


def run_toy(
    *,
    cache_dir: Path | None = None,
    reduced: bool = False,
    rows: Sequence[str] | None = None,
    trials: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[ToyRow]:
    """Tiny LMs trained from scratch on needle key-value recall (:mod:`lateseg.phase.toy`):
    full attention, learned gates at strides 4 and 2, the two ablations and content-defined
    blocks; the period tested is each model's stride. ``reduced``: full attention against
    learned gates at stride 4, trained for fewer steps, 2,048 trials."""
    from lateseg.phase.toy import run_study

    if reduced:
        rows = rows or ("full attention", "learned gates, S=4")
    return run_study(
        base=ToyConfig(steps=REDUCED_STEPS) if reduced else ToyConfig(),
        rows=rows,
        cache_dir=cache_dir,
        trials=trials or (2048 if reduced else 16384),
        progress=progress,
    )
