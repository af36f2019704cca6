from __future__ import annotations

from .local import LocalRequirementsRepository
from .pypi import PyPIRepository

__all__ = ["LocalRequirementsRepository", "PyPIRepository"]
