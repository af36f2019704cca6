from __future__ import annotations

import sys

if sys.version_info < (3, 10, 0):  # ruff:ignore[outdated-version-block]
    sys.exit("Python 3.10 or later is required. See https://github.com/pypa/pipx for installation instructions.")
