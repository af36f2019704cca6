"""Walk the paths a user gives: files in a deterministic order, each skip with a reason.

Folders are walked in sorted order without following directory symlinks; file symlinks
are followed only when their target stays inside the folder being walked. Hidden entries
are passed over silently. Caches, virtualenvs, ``node_modules``, gitignored, vendored,
generated and minified files and binaries are skipped with a reason (see
:class:`~lateseg.ingest.repo.RepoFilter`); unusable paths are reported, never raised.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lateseg.errors import ConfigError
from lateseg.ingest.code import CODE_SUFFIXES
from lateseg.ingest.text import looks_like_text

if TYPE_CHECKING:
    from lateseg.ingest.repo import RepoFilter

DOCUMENT_SUFFIXES = frozenset(
    {".pdf", ".txt", ".md", ".markdown", ".rst", ".docx", ".html", ".htm", ".xhtml"}
)


@dataclass(frozen=True)
class WalkConfig:
    """Which files a walk yields.

    ``max_bytes``: larger files are skipped (generated dumps, data). ``include_hidden``:
    walk dot-files and dot-folders too. ``honour_gitignore``, ``skip_vendored``,
    ``skip_generated``: repository rules applied inside folders.
    """

    max_bytes: int = 20_000_000
    include_hidden: bool = False
    honour_gitignore: bool = True
    skip_vendored: bool = True
    skip_generated: bool = True
    suffixes: frozenset[str] = field(default=DOCUMENT_SUFFIXES | frozenset(CODE_SUFFIXES))

    def __post_init__(self) -> None:
        if self.max_bytes <= 0:
            raise ConfigError(f"max_bytes={self.max_bytes} must be positive")


@dataclass(frozen=True)
class FoundFile:
    """A file to ingest and the folder it was found under (None: named directly)."""

    path: Path
    root: Path | None


@dataclass
class Walk:
    """What a walk found: files to ingest, skipped paths and unusable paths, with reasons."""

    files: list[FoundFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def walk(paths: Iterable[str | os.PathLike[str]], cfg: WalkConfig | None = None) -> Walk:
    """Find the files under ``paths`` (files or folders), de-duplicated, in sorted order."""
    cfg = cfg or WalkConfig()
    result = Walk()
    seen: set[Path] = set()
    for raw in paths:
        given = Path(raw).expanduser()
        try:
            mode = given.stat().st_mode
        except FileNotFoundError:
            kind = "broken symlink" if given.is_symlink() else "no such file or folder"
            result.failed.append((str(given.absolute()), kind))
            continue
        except OSError as e:  # symlink loop, permission on a parent, ...
            result.failed.append((str(given.absolute()), f"cannot access: {e.strerror or e}"))
            continue
        if stat.S_ISDIR(mode):
            _walk_folder(given.resolve(), cfg, result, seen)
        elif stat.S_ISREG(mode):
            path = given.resolve()
            if path not in seen:
                seen.add(path)
                result.files.append(FoundFile(path, None))
        else:
            result.failed.append((str(given.absolute()), "not a regular file or folder"))
    result.files.sort(key=lambda f: str(f.path))
    return result


def iter_files(
    paths: Iterable[str | os.PathLike[str]], cfg: WalkConfig | None = None
) -> list[Path]:
    """The files :func:`walk` finds; raises :class:`FileNotFoundError` for a path that
    does not exist (a convenience for scripts; ingest uses :func:`walk`)."""
    found = walk(paths, cfg)
    for path, reason in found.failed:
        if reason == "no such file or folder":
            raise FileNotFoundError(f"no such file or folder: {path}")
    return [f.path for f in found.files]


def _walk_folder(root: Path, cfg: WalkConfig, result: Walk, seen: set[Path]) -> None:
    from lateseg.ingest.repo import RepoFilter  # pathspec is only needed for folders

    rules = RepoFilter(
        root,
        max_bytes=cfg.max_bytes,
        skip_vendored=cfg.skip_vendored,
        skip_generated=cfg.skip_generated,
        honour_gitignore=cfg.honour_gitignore,
    )
    for dirpath, dirnames, filenames in os.walk(root, onerror=_record(result)):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            sub = here / d
            if d.startswith(".") and not cfg.include_hidden:
                continue
            reason = rules.skip_dir(sub)
            if reason is None and sub.is_symlink():
                reason = "symlinked folder (not followed)"
            if reason is None:
                keep.append(d)
            else:
                result.skipped.append((str(sub), reason))
        dirnames[:] = keep
        for name in sorted(filenames):
            _consider(here / name, root, cfg, rules, result, seen)


def _consider(
    p: Path, root: Path, cfg: WalkConfig, rules: RepoFilter, result: Walk, seen: set[Path]
) -> None:
    if p.name.startswith(".") and not cfg.include_hidden:
        return
    try:
        target = p.resolve(strict=True)
        mode = target.stat().st_mode
    except (OSError, RuntimeError):
        result.skipped.append((str(p), "broken symlink or symlink loop"))
        return
    if p.is_symlink() and not target.is_relative_to(root):
        result.skipped.append((str(p), "symlink leaves the folder"))
        return
    if not stat.S_ISREG(mode):
        result.skipped.append((str(p), "not a regular file"))
        return
    if target in seen:
        return
    reason = rules.skip_file(p)
    if reason is None and not (p.suffix.lower() in cfg.suffixes or looks_like_text(p)):
        reason = f"unsupported type {p.suffix or '(no suffix)'}"
    if reason is not None:
        result.skipped.append((str(p), reason))
        return
    seen.add(target)
    result.files.append(FoundFile(target, root))


def _record(result: Walk) -> Callable[[OSError], None]:
    def onerror(err: OSError) -> None:
        result.failed.append((str(err.filename), f"cannot list folder: {err.strerror or err}"))

    return onerror
