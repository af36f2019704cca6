"""The OCR cache: a page image's words, kept on disk by the image's hash, within a size.

One concern: where OCR results live between ingests, how they are read back (like any
file from disk: validated, size-bounded) and how the folder is kept under
:func:`limit_bytes`. An entry is ``$LATESEG_HOME/ocr/<2 hex>/<sha256>.json``; reading
one touches its modification time, so the entries evicted first are the ones least
recently used. The folder is measured after the first write of a process and then each
time the process has written a sixteenth of the limit, so a 500-page scan walks it a
handful of times, not once a page.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from lateseg.ingest.ocr.words import clean_word

log = logging.getLogger(__name__)

#: Of the readings (a cached page read by older code is read again): 4 since a contents
#: page's page numbers are read again as digits (:func:`.contents.page_numbers`).
VERSION = 4
#: A cache entry larger than this is not read (a page holds some 20-60 KB of words).
MAX_ENTRY_BYTES = 8 << 20
#: The folder's size without ``$LATESEG_OCR_CACHE_MB``: some 20,000 pages of words.
DEFAULT_LIMIT_MB = 512
#: Entries a prune looks at, at most (a hostile or shared folder bounds the walk).
MAX_ENTRIES = 1_000_000
#: A temporary file older than this is a write that was interrupted.
STALE_TMP_SECONDS = 3600.0

_lock = threading.Lock()
_written_since_prune: int | None = None  # None: not measured yet in this process


def cache_dir() -> Path:
    from lateseg.home import lateseg_home

    return lateseg_home() / "ocr"


def limit_bytes() -> int:
    """The cache folder's size limit: ``$LATESEG_OCR_CACHE_MB`` megabytes (0: nothing is
    cached), else :data:`DEFAULT_LIMIT_MB`."""
    given = os.environ.get("LATESEG_OCR_CACHE_MB", "").strip()
    if given.isdigit():
        return int(given) << 20
    if given:
        log.warning(
            "LATESEG_OCR_CACHE_MB=%r is not a whole number of MB; using %d",
            given,
            DEFAULT_LIMIT_MB,
        )
    return DEFAULT_LIMIT_MB << 20


def _path(digest: str) -> Path:
    return cache_dir() / digest[:2] / f"{digest}.json"


def cached(digest: str) -> list[dict[str, Any]] | None:
    """The words cached for ``digest``, or None (missing, over :data:`MAX_ENTRY_BYTES`, or
    not what this version writes: the cache folder is read like any file)."""
    if limit_bytes() == 0:
        return None
    path = _path(digest)
    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        words = data["words"]
        if data.get("version") != VERSION or not isinstance(words, list):
            return None
        if not all(_valid_word(w) for w in words):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # used now: evicted last
    return words


def _valid_word(w: Any) -> bool:
    return (
        isinstance(w["text"], str)
        and bool(w["text"])
        and w["text"] == clean_word(w["text"])
        and len(w["box"]) == 4
        and all(_number(v) for v in w["box"])
        and _number(w["conf"])
        and len(w["line"]) == 3
        and all(isinstance(v, int) for v in w["line"])
    )


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def store(digest: str, words: list[dict[str, Any]]) -> None:
    """Cache ``words`` (best effort: a read-only home costs a re-OCR, nothing else), then
    prune the folder when this process has written enough to need a look."""
    global _written_since_prune
    limit = limit_bytes()
    if limit == 0:
        return
    path = _path(digest)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".ocr-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": VERSION, "words": words}, f)
                size = f.tell()
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        log.debug("OCR cache not written (%s): %s", path, e)
        return
    with _lock:
        due = _written_since_prune is None or _written_since_prune + size > limit // 16
        _written_since_prune = 0 if due else (_written_since_prune or 0) + size
        if due:
            prune(limit, keep=path)


def prune(limit: int | None = None, keep: Path | None = None) -> int:
    """Remove the least recently used entries until the folder holds at most ``limit``
    bytes (None: :func:`limit_bytes`), and temporary files of interrupted writes; ``keep``
    is never removed. Returns how many files were removed."""
    limit = limit_bytes() if limit is None else limit
    entries: list[tuple[float, int, Path]] = []
    removed = 0
    now = time.time()
    try:
        shards = [e for e in os.scandir(cache_dir()) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return 0
    for shard in itertools.islice(shards, 256):
        try:
            with os.scandir(shard.path) as found:
                for entry in itertools.islice(found, MAX_ENTRIES - len(entries)):
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    st = entry.stat(follow_symlinks=False)
                    if entry.name.startswith(".ocr-"):
                        if now - st.st_mtime > STALE_TMP_SECONDS:
                            removed += _unlink(Path(entry.path))
                    elif entry.name.endswith(".json"):
                        entries.append((st.st_mtime, st.st_size, Path(entry.path)))
        except OSError:
            continue
    total = sum(size for _, size, _ in entries)
    if total > limit:
        for _, size, path in sorted(entries, key=lambda e: e[0]):
            if total <= limit:
                break
            if path != keep:
                removed += _unlink(path)
                total -= size
        log.info("OCR cache over %d MB: least recently used pages removed", limit >> 20)
    return removed


def _unlink(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except OSError:
        return 0
