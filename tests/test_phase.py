"""Phase-robustness harness: statistics, probes, and the reduced study with real models."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import license_file

from lateseg.errors import ConfigError
from lateseg.phase import (
    NeedleProbe,
    PhaseSensitivityError,
    analyse,
    assert_phase_robust,
    measure,
    wilson,
    write_report,
)
from lateseg.phase.probes import UNIT, retrieval_systems
from lateseg.phase.stats import harmonic_share

pytestmark = pytest.mark.slow  # trains the toy model


def test_wilson_interval_matches_the_formula():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_harmonic_share_is_the_dft_power_share_over_whole_periods():
    rng = np.random.default_rng(3)
    values = rng.random(48)
    spectrum = np.abs(np.fft.rfft(values - values.mean())) ** 2
    spectrum[1:-1] *= 2  # one-sided: count the mirrored bins (48 is even)
    bins = [m * 48 // 8 for m in range(1, 5)]  # harmonics of 1/8
    want = spectrum[bins].sum() / spectrum[1:].sum()
    assert harmonic_share(np.arange(48), values, 8) == pytest.approx(want)


def test_periodic_outcomes_are_found_and_flat_ones_are_not():
    off = np.repeat(np.arange(32), 6)
    rng = np.random.default_rng(0)
    periodic = rng.random(off.size) < np.where(off % 8 < 3, 0.9, 0.2)
    r = analyse(off, periodic, 8, system="fixed", scan=[5, 6, 7, 8, 9])
    assert r.p_value < 0.01 and r.gap > 0.5 and not r.intervals_overlap
    best = max(r.scan, key=lambda s: s["power_share"])
    assert best["period"] == 8
    flat = rng.random(off.size) < 0.6
    f = analyse(off, flat, 8, system="flat")
    assert f.p_value > 0.05 and f.intervals_overlap
    with pytest.raises(ConfigError, match="period"):
        analyse(off, flat, 1)
    with pytest.raises(ConfigError, match="one success value"):
        analyse(off, flat[:-1], 8)


class _Stride:
    """A stand-in case source: the case is just its offset (the harness is generic)."""

    def case(self, offset, scheme, rep):
        return offset


def test_assert_phase_robust_fails_with_the_table_and_passes_flat_systems(tmp_path):
    with pytest.raises(PhaseSensitivityError) as err:
        assert_phase_robust(lambda o: (o + 3) % 8 < 4, _Stride(), 8, offsets=32, name="blocky")
    assert "periodic with period 8" in str(err.value) and "| residue |" in str(err.value)
    assert isinstance(err.value, AssertionError)  # pytest reports it as a failed assert
    ok = assert_phase_robust(lambda o: True, _Stride(), 8, offsets=32, name="flat")
    assert ok.gap == 0.0
    r = measure(lambda o: o % 4 == 0, _Stride(), period=4, offsets=16, name="every fourth")
    paths = write_report([ok, r], tmp_path, "demo")
    data = json.loads(paths["json"].read_text())
    assert [x["system"] for x in data["results"]] == ["flat", "every fourth"]
    assert "| every fourth |" in paths["markdown"].read_text()
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["every-fourth-prefix-p4.png", "flat-prefix-p8.png"]
    assert all((tmp_path / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_each_padding_unit_is_one_token_and_inside_padding_moves_only_the_needle(encoder):
    text = license_file("Apache-2.0").read_text()[:2000]
    probe = NeedleProbe.from_text(text, max_offset=12)
    tok = encoder.tokenizer

    def needle_token(case):
        enc = tok(case.text, add_special_tokens=False, return_offsets_mapping=True)
        return next(i for i, (a, _) in enumerate(enc["offset_mapping"]) if a >= case.start), enc

    base, _ = needle_token(probe.case(0, "prefix", 0))
    for o in (1, 5, 12):
        for scheme in ("prefix", "inside"):
            case = probe.case(o, scheme, 0)
            assert case.text[case.start : case.end].startswith("The access code")
            at, _ = needle_token(case)
            assert at - base == o, (scheme, o)
    # Inside padding: the same total length, and the text after the needle stays put.
    a, b = probe.case(2, "inside", 0), probe.case(9, "inside", 0)
    after = len(probe.haystack) - probe.insert_at
    assert len(a.text) == len(b.text) and a.text[-after:] == b.text[-after:]
    assert b.start - a.start == 7 * len(UNIT)
    assert probe.case(0, "prefix", 1).answer != probe.case(0, "prefix", 0).answer


def test_reduced_retrieval_study_fixed_chunks_are_periodic_lateseg_is_flat(encoder):
    text = license_file("Apache-2.0").read_text()[:1000]
    probe = NeedleProbe.from_text(text, max_offset=32)
    systems = retrieval_systems(encoder, fixed_tokens=16, k=3, rcts_chars=None)
    fixed = measure(systems["fixed-16 naive"], probe, period=16, offsets=32, name="fixed-16")
    assert fixed.p_value < 0.01 and fixed.gap >= 0.15, fixed.table()
    ours = measure(systems["lateseg late+dynamic"], probe, period=16, offsets=32, name="lateseg")
    assert ours.p_value > 0.05 and ours.gap <= 0.03, ours.table()


def test_reduced_kv_study_fixed_chunks_are_periodic_lateseg_is_flat():
    """Retention of the needle (share of its tokens kept, over layers and heads) under
    fixed 4-token ChunkKV and lateseg ChunkKV, the needle moved one token at a time."""
    from lateseg.generate.local import LocalGenerator
    from lateseg.kv.compress import KVConfig
    from lateseg.phase import measure_many
    from lateseg.phase.probes import kv_system

    gen = LocalGenerator(max_new_tokens=4)
    gen.load()
    text = license_file("Apache-2.0").read_text()[:1000]
    probe = NeedleProbe.from_text(text, max_offset=16)
    # Each unit is one generator token too.
    tok = gen.tokenizer
    lengths = [
        len(tok(probe.case(o, "inside", 0).text[: probe.case(o, "inside", 0).start])["input_ids"])
        for o in (0, 1, 5)
    ]
    assert [n - lengths[0] for n in lengths] == [0, 1, 5]
    methods = {
        "fixed c=4": KVConfig.of("chunkkv-fixed", 128, chunk=4),
        "lateseg": KVConfig.of("lateseg", 128),
    }
    results = measure_many(
        kv_system(gen, methods, measure="share"),
        probe,
        periods=[4],
        offsets=16,
        scheme="inside",
    )
    by = {r.system: r for r in results}
    assert by["fixed c=4"].p_value < 0.01, by["fixed c=4"].table()
    assert by["lateseg"].p_value > 0.05, by["lateseg"].table()


def test_toy_fixed_blocks_split_records_at_some_phases_dynamic_blocks_never():
    import torch

    from lateseg.phase.toy import ToyConfig, block_ids, make_batch

    c = ToyConfig()
    x, y, probes = make_batch(c, np.random.default_rng(0), 64)
    xt = torch.from_numpy(x)
    is_key = c.is_key(xt)
    # Every needle is a record of its sequence, queried first, far from its key.
    for b, p in enumerate(probes):
        assert x[b, p.key_at + 1] == p.value == y[b, p.query_at]
        assert x[b, p.query_at] == x[b, p.key_at] and p.query_at - p.key_at > c.local
    keys_at = [(b, t) for b, t in is_key.nonzero().tolist() if y[b, t] == -100]  # records
    for variant, splits in (("fixed", True), ("dynamic", False)):
        ids = block_ids(c, variant, xt)
        split = [ids[b, t] != ids[b, t + 1] for b, t in keys_at]
        assert any(split) == splits, variant
    # Needle keys sit at every residue of the stride.
    assert {p.key_at % c.stride for p in probes} == set(range(c.stride))
    # Dynamic blocks depend on content only: a shifted sequence gets shifted blocks.
    shifted = torch.cat([torch.zeros(64, 3, dtype=torch.long), xt], dim=1)
    a, b = block_ids(c, "dynamic", xt), block_ids(c, "dynamic", shifted)[:, 3:]
    first_key = is_key.float().argmax(dim=1)
    for row in range(64):
        k = int(first_key[row])
        assert torch.equal(a[row, k:] - a[row, k], b[row, k:] - b[row, k])


def test_reduced_toy_study_separates_full_attention_from_learned_gates(tmp_path):
    """The paper's positive and negative controls, trained from scratch at a smaller
    setting: learned-gate block compression at stride 4 is periodic in the needle's
    position with period 4; full attention is flat."""
    from lateseg.phase.study import run_toy
    from lateseg.phase.toy import write_toy_report

    rows = {r.name: r for r in run_toy(reduced=True, cache_dir=tmp_path)}
    full, gated = rows["full attention"], rows["learned gates, S=4"]
    assert full.result.overall >= 0.95, full.result.table()
    assert full.result.p_value > 0.05 and full.result.gap <= 0.03, full.result.table()
    assert gated.result.p_value < 0.01 and gated.result.gap >= 0.10, gated.result.table()
    assert gated.period_found == 4, gated.result.table()
    assert len(gated.slot_gains) == 4 and all(0 < g < 1 for g in gated.slot_gains)
    assert len(list(tmp_path.glob("toy-*.pt"))) == 2  # cached for the next run
    paths = write_toy_report(list(rows.values()), tmp_path / "out")
    assert "learned gates, S=4" in paths["markdown"].read_text()
    assert paths["png"].stat().st_size > 1000
