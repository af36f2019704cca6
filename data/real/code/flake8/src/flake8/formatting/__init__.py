"""Submodule containing the default formatters for Flake8."""
from __future__ import annotations
