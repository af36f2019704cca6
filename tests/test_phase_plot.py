"""Matplotlib is the optional ``plot`` extra: the phase reports draw with it when it is
there, and without it the plotting functions and ``lateseg phase`` name the extra."""

from __future__ import annotations

import sys

import pytest

from lateseg.errors import ConfigError
from lateseg.phase import analyse, measure
from lateseg.phase.harness import plot
from lateseg.phase.toy import ToyConfig, ToyRow, write_toy_report

INSTALL = "pip install 'lateseg[plot]'"


@pytest.fixture
def no_matplotlib(monkeypatch):
    """An environment without matplotlib: its import fails as an uninstalled one does."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


class _Offsets:
    def case(self, offset, scheme, rep):
        return offset


def _toy_row() -> ToyRow:
    positions = list(range(64))
    result = analyse(positions, [p % 4 != 1 for p in positions], 4, system="toy demo")
    return ToyRow(
        name="demo",
        variant="fixed",
        config=ToyConfig(),
        result=result,
        period_found=4,
        slot_gains=[0.25] * 4,
        positional_gains=[0.25] * 4,
        mean_block_size=4.0,
        train_s=0.0,
    )


def test_toy_report_draws_its_plot_with_matplotlib(tmp_path):
    paths = write_toy_report([_toy_row()], tmp_path)
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| demo | 4 |" in paths["markdown"].read_text()


def test_plots_without_matplotlib_name_the_extra(tmp_path, no_matplotlib):
    result = measure(lambda o: o % 4 == 0, _Offsets(), period=4, offsets=16, name="fourth")
    with pytest.raises(ConfigError, match=r"lateseg\[plot\]"):
        plot(result, tmp_path / "fourth.png")
    with pytest.raises(ConfigError, match=r"lateseg\[plot\]"):
        write_toy_report([_toy_row()], tmp_path)
    assert not (tmp_path / "fourth.png").exists() and not (tmp_path / "toy.png").exists()


@pytest.mark.parametrize("probe", ["retrieval", "kv", "toy"])
def test_phase_command_without_matplotlib_stops_before_running(
    tmp_path, capsys, no_matplotlib, probe
):
    from lateseg.cli import main

    assert main(["phase", probe, "--reduced", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert INSTALL in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing run, nothing written
