"""Walk the paths a user gives: files in a deterministic order, each skip with a reason.

Folders are walked in sorted order, iteratively (any depth), without following directory
symlinks; file symlinks are followed only when their target stays inside the folder
being walked. Each file's identity (device, inode) is kept for the read to check. Hidden entries
are passed over silently. Caches, virtualenvs, ``node_modules``, gitignored, vendored,
generated and minified files and binaries are skipped with a reason (see
:class:`~lateseg.ingest.repo.RepoFilter`); unusable paths are reported, never raised.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lateseg.errors import ConfigError
from lateseg.ingest.formats import read_suffixes
from lateseg.ingest.paths import identity, source_name
from lateseg.ingest.text import looks_like_text

if TYPE_CHECKING:
    from lateseg.ingest.repo import RepoFilter


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
    suffixes: frozenset[str] = field(default_factory=read_suffixes)

    def __post_init__(self) -> None:
        if self.max_bytes <= 0:
            raise ConfigError(f"max_bytes={self.max_bytes} must be positive")


#: Suffixes of drawings written as XML: text to a byte test, paths and coordinates to a
#: reader, so a walk skips them.
DRAWINGS = frozenset([".svg", ".svgz"])


@dataclass(frozen=True)
class FoundFile:
    """A file to ingest, the folder it was found under (None: named directly), and its
    identity (device, inode) when walked, which the read checks again."""

    path: Path
    root: Path | None
    identity: tuple[int, int] | None = None


@dataclass
class Walk:
    """What a walk found: files to ingest, skipped paths and unusable paths, with
    reasons (paths as :func:`~lateseg.ingest.paths.source_name` shows them).

    ``roots`` are the folders walked; ``unlisted`` the folders that could not be listed
    (so nothing is known of what is under them); ``skip_reasons`` the reason of every
    skipped path, by its real name.
    """

    files: list[FoundFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)
    unlisted: list[Path] = field(default_factory=list)
    skip_reasons: dict[str, str] = field(default_factory=dict)

    def skip(self, path: Path, reason: str) -> None:
        self.skipped.append((source_name(path), reason))
        self.skip_reasons[str(path)] = reason

    def fail(self, path: Path, reason: str) -> None:
        self.failed.append((source_name(path), reason))


def walk(paths: Iterable[str | os.PathLike[str]], cfg: WalkConfig | None = None) -> Walk:
    """Find the files under ``paths`` (files or folders), de-duplicated, in sorted order."""
    cfg = cfg or WalkConfig()
    result = Walk()
    seen: set[Path] = set()
    for raw in paths:
        given = Path(raw).expanduser()
        try:
            st = given.stat()
        except FileNotFoundError:
            kind = "broken symlink" if given.is_symlink() else "no such file or folder"
            result.fail(given.absolute(), kind)
            continue
        except OSError as e:  # symlink loop, permission on a parent, name too long ...
            result.fail(given.absolute(), f"cannot access: {e.strerror or e}")
            continue
        if stat.S_ISDIR(st.st_mode):
            root = given.resolve()
            result.roots.append(root)
            _walk_folder(root, cfg, result, seen)
        elif stat.S_ISREG(st.st_mode):
            path = given.resolve()
            if path not in seen:
                seen.add(path)
                result.files.append(FoundFile(path, None, identity(st)))
        else:
            result.fail(given.absolute(), "not a regular file or folder")
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
    """Walk ``root`` with an explicit stack (no recursion limit, however deep)."""
    from lateseg.ingest.repo import RepoFilter  # pathspec is only needed for folders

    rules = RepoFilter(
        root,
        max_bytes=cfg.max_bytes,
        skip_vendored=cfg.skip_vendored,
        skip_generated=cfg.skip_generated,
        honour_gitignore=cfg.honour_gitignore,
    )
    stack = [root]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            result.fail(here, f"cannot list folder: {e.strerror or e}")
            result.unlisted.append(here)
            continue
        folders = []
        for entry in entries:
            if entry.name.startswith(".") and not cfg.include_hidden:
                continue
            path = here / entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                _consider(entry, path, root, cfg, rules, result, seen)
                continue
            reason = rules.skip_dir(path)
            if reason is None and entry.is_symlink():
                reason = "symlinked folder (not followed)"
            if reason is None:
                folders.append(path)
            else:
                result.skip(path, reason)
        stack.extend(reversed(folders))


def _consider(
    entry: os.DirEntry[str],
    p: Path,
    root: Path,
    cfg: WalkConfig,
    rules: RepoFilter,
    result: Walk,
    seen: set[Path],
) -> None:
    try:
        if entry.is_symlink():
            target = p.resolve(strict=True)
            if not target.is_relative_to(root):
                result.skip(p, "symlink leaves the folder")
                return
            st = target.stat()
        else:
            target, st = p, entry.stat(follow_symlinks=False)
    except (OSError, RuntimeError):
        result.skip(p, "broken symlink or symlink loop")
        return
    if not stat.S_ISREG(st.st_mode):
        result.skip(p, "not a regular file")
        return
    if target in seen:
        return
    reason = rules.skip_file(p)
    if reason is None and p.suffix.lower() in DRAWINGS:
        reason = f"a drawing ({p.suffix.lower()}), not text"
    elif reason is None and not (p.suffix.lower() in cfg.suffixes or looks_like_text(p)):
        reason = f"unsupported type {p.suffix or '(no suffix)'}"
    if reason is not None:
        result.skip(p, reason)
        return
    seen.add(target)
    result.files.append(FoundFile(target, root, identity(st)))


def why_not_walked(path: Path, found: Walk) -> str | None:
    """Why an indexed file under a walked folder is no longer among the walk's files:
    ``file gone``, ``now a folder``, ``no longer a regular file``, the walk's reason for
    skipping it or a folder above it (``gitignored`` ...), else ``no longer walked``
    (hidden, or of a type no longer read). None when that cannot be told (an error)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "file gone"
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        return "now a folder"
    if stat.S_ISLNK(st.st_mode):
        return "now a symlink"
    if not stat.S_ISREG(st.st_mode):
        return "no longer a regular file"
    for at in (path, *path.parents):
        if (reason := found.skip_reasons.get(str(at))) is not None:
            return f"now {reason}" if reason in ("gitignored", "vendored") else reason
        if at in found.roots:
            break
    return "no longer walked (hidden or unsupported)"
