"""Matplotlib for the phase study's PNG plots. It is an optional extra
(``pip install 'lateseg[plot]'``), imported only where a plot is drawn, so the error
names the extra instead of failing on a bare import."""

from __future__ import annotations

from typing import Any

from lateseg.errors import ConfigError

INSTALL = "pip install 'lateseg[plot]'"


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display needed); a
    :class:`ConfigError` naming the ``plot`` extra when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        raise ConfigError(f"the phase plots (PNG) need matplotlib: {INSTALL}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
