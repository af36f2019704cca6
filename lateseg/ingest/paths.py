"""File names as the index shows them, and reading a walked file exactly once.

A file name is bytes. Python hands names that are not valid UTF-8 over as ``str`` with
lone surrogates (PEP 383), which SQLite, tokenizers and a UTF-8 terminal all refuse.
:func:`source_name` gives the text the index stores and shows (invalid bytes escaped
as ``\\xNN``); the exact bytes are kept beside it (``documents.path``), so the file can
be found again and two names can never be mixed up.

:func:`read_walked` opens a file once, refusing a symlink in its place (``O_NOFOLLOW``)
and checking that the descriptor is the very file the walk saw (device and inode), so
a file swapped for a link to somewhere else between walking and reading is reported,
not indexed.
"""

from __future__ import annotations

import errno
import os
import stat

from lateseg.errors import IngestError

# Reading a FIFO would block, and O_NOFOLLOW refuses a final symlink.
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def source_name(path: str | os.PathLike[str]) -> str:
    """The text of ``path`` as the index stores it: itself when it is valid UTF-8,
    else with each invalid byte written ``\\xNN``."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    return text


def identity(st: os.stat_result) -> tuple[int, int]:
    """What tells one file from another: device and inode."""
    return (st.st_dev, st.st_ino)


def read_walked(path: str | os.PathLike[str], expect: tuple[int, int] | None) -> bytes:
    """The bytes of the regular file ``path``, opened once without following a symlink
    in its place; with ``expect``, only if it is still the file (device, inode) the walk
    found. Raises :class:`IngestError` with the reason."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as e:
        if e.errno == errno.ELOOP:  # the name is now a symlink
            raise IngestError("replaced by a symlink after the folder was walked") from None
        raise IngestError(f"cannot read: {e.strerror or e}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise IngestError("not a regular file")
        if expect is not None and identity(st) != expect:
            raise IngestError(
                "replaced by another file after the folder was walked; ingest it again"
            )
        try:
            return f.read()
        except OSError as e:
            raise IngestError(f"cannot read: {e.strerror or e}") from None
