"""Walk the paths a user gives: files in a deterministic order, junk skipped."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lateseg.errors import ConfigError
from lateseg.ingest.code import CODE_SUFFIXES
from lateseg.ingest.text import looks_like_text

DOCUMENT_SUFFIXES = {".pdf", ".txt", ".md", ".markdown", ".rst"}

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "site-packages",
        "dist",
        "build",
        ".idea",
        ".vscode",
    }
)


@dataclass(frozen=True)
class WalkConfig:
    """Which files a folder walk yields.

    ``max_bytes`` skips files larger than this (generated data, dumps); files named
    directly on the command line are always tried.
    """

    max_bytes: int = 20_000_000
    skip_dirs: frozenset[str] = field(default=SKIP_DIRS)
    suffixes: frozenset[str] = field(default=frozenset(DOCUMENT_SUFFIXES | set(CODE_SUFFIXES)))

    def __post_init__(self) -> None:
        if self.max_bytes <= 0:
            raise ConfigError(f"max_bytes={self.max_bytes} must be positive")


def _wanted(path: Path, cfg: WalkConfig) -> bool:
    if path.name.startswith("."):
        return False
    # Files without a known suffix ("LICENSE", "GPL-3", "GFDL-1.3") are taken when their
    # first bytes look like text.
    return path.suffix.lower() in cfg.suffixes or looks_like_text(path)


def iter_files(
    paths: Iterable[str | os.PathLike[str]], cfg: WalkConfig | None = None
) -> list[Path]:
    """Absolute, de-duplicated file paths under ``paths`` in sorted order.

    Raises :class:`FileNotFoundError` for a path that does not exist.
    """
    cfg = cfg or WalkConfig()
    out: dict[Path, None] = {}
    for raw in paths:
        root = Path(raw).expanduser().resolve()
        if root.is_file():
            out[root] = None
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"no such file or folder: {raw}")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(
                d for d in dirnames if d not in cfg.skip_dirs and not d.startswith(".")
            )
            for name in sorted(filenames):
                p = Path(dirpath) / name
                try:
                    if not p.is_file() or p.stat().st_size > cfg.max_bytes:
                        continue
                except OSError:
                    continue
                if _wanted(p, cfg):
                    out[p.resolve()] = None  # symlinks to one file count once
    return sorted(out)
