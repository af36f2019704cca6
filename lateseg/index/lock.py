"""The single-writer lock of an index folder: ``write.lock``, held (an ``flock``, through
the filelock package) by the one process writing the folder's SQLite store. Readers never
take it and never create the file; ``lateseg index verify`` only probes it."""

from __future__ import annotations

import os
from pathlib import Path

from filelock import BaseFileLock, FileLock, Timeout, lock_descriptor, unlock_descriptor

from lateseg.errors import IndexStoreError

LOCK_FILE = "write.lock"


class WriteLock:
    """The lock held by this process from :func:`take_write_lock` to :meth:`release`; a
    store that orders concurrent writers itself holds one with no file (``file`` None)."""

    def __init__(self, file: BaseFileLock | None = None) -> None:
        self._file = file

    def release(self) -> None:
        if self._file is not None:
            self._file.release()
            self._file = None


def take_write_lock(folder: Path) -> WriteLock:
    """Take ``folder``'s lock at once, or raise :class:`IndexStoreError` when another
    process (or another index open in this one) holds it or the folder cannot be written.

    Shared by the threads of this process (one index writes from whichever thread runs
    its writer), and an ``flock`` only, never the soft fallback, so :func:`writer_at_work`
    can probe it and the file's mode is the umask's."""
    file = FileLock(folder / LOCK_FILE, blocking=False, thread_local=False, fallback_to_soft=False)
    try:
        file.acquire()
    except Timeout:
        raise IndexStoreError(
            f"{folder} is being written by another process; wait for it to finish"
        ) from None
    except OSError as e:
        raise IndexStoreError(f"{folder} cannot be written: {e.strerror or e}") from None
    return WriteLock(file)


def writer_at_work(folder: Path) -> bool:
    """Whether some process holds ``folder``'s lock: tried on a read-only descriptor, so
    a reader creates and changes nothing (no lock file: no writer ever ran here). A lock
    that cannot be tried counts as held."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        if not lock_descriptor(fd, blocking=False):
            return True
        unlock_descriptor(fd)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)
