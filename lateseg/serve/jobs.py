"""Uploads into a folder the server manages, and ingest jobs over them.

An upload is streamed to disk under a size cap (the HTTP layer also refuses a body over
it before reading). A file's name is reduced to its last part and must have an allowed
type; anything else is refused with the reason. A zip is checked before anything is
extracted: entry count, total unpacked size, each large entry's compression ratio,
names that climb out (``..``, absolute, drive letters), links and encrypted entries;
then each entry is copied with a byte count, so an entry that unpacks past its declared
size stops the extraction.

Jobs run one at a time in one thread, each file ingested on its own (a failure is
listed with its reason and the other files go on), through a writable Pipeline of the
job thread's own: the serving pipeline reads only, and sees each commit before its next
search, as any reader of the index does.
"""

from __future__ import annotations

import logging
import queue
import stat
import threading
import time
import uuid
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from lateseg.errors import LatesegError
from lateseg.types import IngestReport

log = logging.getLogger(__name__)

DEFAULT_TYPES = (".pdf", ".docx", ".txt", ".md", ".markdown", ".html", ".htm", ".rst", ".zip")
MAX_ZIP_ENTRIES = 10_000
MAX_RATIO = 100  # unpacked / packed, for entries over RATIO_FROM bytes
RATIO_FROM = 1 << 20
_COPY = 1 << 16


class UploadError(LatesegError):
    """An upload refused: the message says what was given and what is allowed."""


@dataclass
class Limits:
    """What an upload may be: ``max_bytes`` per request, ``max_unzipped`` bytes unpacked
    from one zip, and the allowed file ``types`` (suffixes, lower case)."""

    max_bytes: int = 50 << 20
    max_unzipped: int = 500 << 20
    types: tuple[str, ...] = DEFAULT_TYPES

    def check_name(self, name: str) -> str:
        """The file's own name (its last part), if it is one lateseg accepts."""
        base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
        if not base or base in (".", "..") or base.startswith("."):
            raise UploadError(f"file name {name!r}: give a plain name (no hidden or empty names)")
        if len(base) > 200 or any(ord(c) < 32 for c in base) or ":" in base:
            raise UploadError(f"file name {name!r}: at most 200 characters, no control or ':'")
        suffix = Path(base).suffix.lower()
        if suffix not in self.types:
            raise UploadError(
                f"{base}: type {suffix or '(none)'!r} is not accepted; allowed: "
                f"{', '.join(self.types)}"
            )
        return base


@dataclass
class Job:
    """One ingest job: its files, progress and results, and the events a page streams."""

    id: str
    folder: Path
    files: list[Path] = field(default_factory=list)
    state: str = "queued"  # queued, running, done, failed
    done: int = 0
    report: IngestReport = field(default_factory=IngestReport)  # summed over the files
    refused: list[tuple[str, str]] = field(default_factory=list)
    error: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    def event(self, kind: str, **data: Any) -> None:
        self.events.append({"seq": len(self.events), "event": kind, "time": time.time(), **data})

    def to_dict(self) -> dict[str, Any]:
        """The job for the API: files by their names (the upload folder stays private)."""
        r = self.report
        return {
            "job": self.id,
            "state": self.state,
            "files": len(self.files),
            "done": self.done,
            "added": [Path(p).name for p in r.added],
            "updated": [Path(p).name for p in r.updated],
            "unchanged": [Path(p).name for p in r.unchanged],
            "failed": [{"file": Path(p).name, "reason": why} for p, why in r.failed],
            "refused": [{"file": n, "reason": why} for n, why in self.refused],
            "chunks": r.chunks,
            "error": self.error,
        }


def save_stream(src: IO[bytes], dest: Path, limit: int) -> int:
    """Copy ``src`` to ``dest`` in pieces, refusing (and removing ``dest``) past
    ``limit`` bytes; the bytes written."""
    total = 0
    try:
        with dest.open("xb") as out:
            while piece := src.read(_COPY):
                total += len(piece)
                if total > limit:
                    raise UploadError(f"{dest.name}: over the upload limit of {limit} bytes")
                out.write(piece)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return total


def check_zip(path: Path, limits: Limits) -> list[zipfile.ZipInfo]:
    """The entries of the zip at ``path`` to extract (files of allowed types), after
    checking the whole archive; :class:`UploadError` says what is wrong."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise UploadError(f"{path.name}: not a readable zip ({e})") from None
    with zf:
        infos = zf.infolist()
    if len(infos) > MAX_ZIP_ENTRIES:
        raise UploadError(f"{path.name}: {len(infos)} entries; at most {MAX_ZIP_ENTRIES}")
    total = 0
    keep = []
    for info in infos:
        name = info.filename
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise UploadError(f"{path.name}: entry {name!r} would land outside its folder")
        if "\0" in name:
            raise UploadError(f"{path.name}: entry name with a NUL byte")
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UploadError(f"{path.name}: entry {name!r} is a symbolic link")
        if info.flag_bits & 0x1:
            raise UploadError(f"{path.name}: entry {name!r} is encrypted")
        if info.is_dir():
            continue
        total += info.file_size
        if total > limits.max_unzipped:
            raise UploadError(
                f"{path.name}: unpacks to more than {limits.max_unzipped} bytes (a zip bomb?)"
            )
        if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(1, info.compress_size):
            raise UploadError(
                f"{path.name}: entry {name!r} would unpack {info.file_size} bytes from "
                f"{info.compress_size} (ratio over {MAX_RATIO}: a zip bomb?)"
            )
        keep.append(info)
    return keep


def extract(path: Path, folder: Path, limits: Limits) -> tuple[list[Path], list[tuple[str, str]]]:
    """Extract the checked zip ``path`` into ``folder``: the files written, and the
    entries refused with their reasons (types lateseg does not take, nested zips)."""
    infos = check_zip(path, limits)
    files: list[Path] = []
    refused: list[tuple[str, str]] = []
    with zipfile.ZipFile(path) as zf:
        for info in infos:
            try:
                name = limits.check_name(info.filename)
                if name.lower().endswith(".zip"):
                    raise UploadError(f"{name}: a zip inside a zip is not unpacked")
            except UploadError as e:
                refused.append((info.filename, str(e)))
                continue
            rel = PurePosixPath(info.filename.replace("\\", "/")).parts[:-1]
            dest_dir = folder.joinpath(*[_plain(p) for p in rel])
            dest_dir.mkdir(parents=True, exist_ok=True)
            dest = _free(dest_dir / name)
            with zf.open(info) as src:
                # the header's size is a claim: stop one byte past it
                save_stream(src, dest, info.file_size)
            files.append(dest)
    return files, refused


def _plain(part: str) -> str:
    """A folder name from a zip entry, safe on this file system."""
    clean = "".join(c if c.isalnum() or c in "-_. " else "_" for c in part).strip(". ")
    return clean[:100] or "_"


def _free(path: Path) -> Path:
    """``path``, or ``name (2).ext`` ... when it exists."""
    n = 2
    out = path
    while out.exists():
        out = path.with_name(f"{path.stem} ({n}){path.suffix}")
        n += 1
    return out


class Jobs:
    """Ingest jobs over uploads in ``folder``, one at a time in a thread of their own."""

    def __init__(
        self, folder: Path, index: Path, limits: Limits, open_writer: Any | None = None
    ) -> None:
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.index = index
        self.limits = limits
        self._open_writer = open_writer
        self._writer: Any = None
        self.jobs: dict[str, Job] = {}
        self._queue: queue.Queue[Job] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="lateseg-ingest", daemon=True)
        self._thread.start()

    def new_job(self) -> Job:
        job_id = uuid.uuid4().hex[:12]
        folder = self.folder / job_id
        folder.mkdir()
        job = Job(job_id, folder)
        self.jobs[job_id] = job
        return job

    def add_file(self, job: Job, name: str, src: IO[bytes]) -> None:
        """Save one uploaded file into ``job`` (a zip: checked, then its entries); a
        refused file is recorded with its reason and the others go on."""
        try:
            base = self.limits.check_name(name)
            dest = _free(job.folder / base)
            save_stream(src, dest, self.limits.max_bytes)
            if dest.suffix.lower() == ".zip":
                try:
                    files, refused = extract(dest, job.folder / dest.stem, self.limits)
                finally:
                    dest.unlink(missing_ok=True)
                job.files += files
                job.refused += refused
            else:
                job.files.append(dest)
        except UploadError as e:
            job.refused.append((name, str(e)))
            job.event("refused", file=name, reason=str(e))

    def submit(self, job: Job) -> Job:
        job.event("queued", files=[p.name for p in job.files])
        self._queue.put(job)
        return job

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            try:
                self._ingest(job)
            except Exception as e:  # the job fails; the thread goes on with the next
                log.exception("ingest job %s failed", job.id)
                job.state, job.error = "failed", f"{type(e).__name__}: {e}"
                job.event("failed", error=job.error)

    def _ingest(self, job: Job) -> None:
        job.state = "running"
        job.event("running", files=len(job.files))
        if self._writer is None:
            from lateseg.pipeline import Pipeline

            opener = self._open_writer or (lambda: Pipeline.open(self.index))
            self._writer = opener()
        for path in job.files:
            report = self._writer.ingest([path], progress=False, workers=0)
            total = job.report
            total.added += report.added
            total.updated += report.updated
            total.unchanged += report.unchanged
            total.failed += report.failed
            total.skipped += report.skipped
            total.chunks += report.chunks
            job.done += 1
            why = [r for _, r in report.failed + report.skipped]
            job.event(
                "file",
                file=path.name,
                done=job.done,
                total=len(job.files),
                ok=not report.failed and not report.skipped,
                reason="; ".join(why) or None,
            )
        job.state = "done"
        job.event("done", **job.to_dict())
