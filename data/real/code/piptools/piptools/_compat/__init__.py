from __future__ import annotations

from .pip_compat import (
    Distribution,
    canonicalize_name,
    create_wheel_cache,
    parse_requirements,
)

__all__ = [
    "Distribution",
    "parse_requirements",
    "create_wheel_cache",
    "canonicalize_name",
]
