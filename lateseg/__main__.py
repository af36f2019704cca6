"""``python -m lateseg`` is the ``lateseg`` command."""

from __future__ import annotations

import sys

from lateseg.cli import main

sys.exit(main())
