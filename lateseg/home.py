"""Where lateseg keeps what it derives on this machine: downloaded and converted models,
compiled OpenVINO blobs, the OCR cache, the phase study's toy models.

A leaf module (it imports nothing of lateseg): the encoder, the OCR reader and the index
opener all need it, and :mod:`lateseg.config`, which re-exports it, imports the encoder.
"""

from __future__ import annotations

import os
from pathlib import Path


def lateseg_home() -> Path:
    """The cache folder: ``$LATESEG_HOME``, else ``$XDG_CACHE_HOME/lateseg``, else
    ``~/.cache/lateseg``."""
    if os.environ.get("LATESEG_HOME"):
        return Path(os.environ["LATESEG_HOME"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "lateseg"
