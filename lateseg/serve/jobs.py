"""Uploads into a folder the server manages, and ingest jobs over them.

An upload is streamed to disk under a size cap (the HTTP layer also refuses a body over
it before reading) and within the upload folder's disk quota. A file's name is reduced
to its last part and must have an allowed type; a file whose content (SHA-256) is
already indexed, or already in the same upload, is reported as a duplicate and not
indexed twice; anything else is refused with the reason. A zip is checked before anything
is extracted: entry count and total unpacked size (per request, over all its zips),
each entry's compression ratio, names that climb out (``..``, absolute, drive letters),
links and encrypted entries; then each entry is copied with a byte count, so an entry
that unpacks past its declared size stops the extraction, and a damaged archive (bad
CRC, corrupt data, an unknown method) is refused with the reason. A request that brings
nothing to ingest leaves nothing behind; finished jobs are forgotten by count and age.

Jobs run one at a time in one thread, each file ingested on its own (a failure is
listed with its reason and the other files go on), through a writable Pipeline of the
job thread's own: the serving pipeline reads only, and sees each commit before its next
search, as any reader of the index does.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import shutil
import stat
import threading
import time
import uuid
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from lateseg.errors import LatesegError
from lateseg.ingest.formats import UPLOAD_SUFFIXES, upload_suffixes
from lateseg.ingest.report import IngestReport
from lateseg.serve.limits import JOBS_KEPT, JOBS_SECONDS, MAX_FILES

log = logging.getLogger(__name__)

DEFAULT_TYPES = UPLOAD_SUFFIXES  # the built-in formats' (Limits reads the registry)
MAX_RATIO = 100  # unpacked / packed, for every entry over RATIO_FROM bytes
RATIO_FROM = 4 << 10
_COPY = 1 << 16


class UploadError(LatesegError):
    """An upload refused: the message says what was given and what is allowed."""


@dataclass
class Limits:
    """What an upload may be: ``max_bytes`` per request, ``max_unzipped`` bytes unpacked
    from all the zips of one request, ``max_files`` files in one request (uploads and
    zip entries), the allowed file ``types`` (suffixes, lower case) and ``quota``: the
    most bytes the upload folder may hold."""

    max_bytes: int = 50 << 20
    max_unzipped: int = 500 << 20
    types: tuple[str, ...] = field(default_factory=upload_suffixes)
    max_files: int = MAX_FILES
    quota: int = 2 << 30

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
    unpacked: int = 0  # bytes its zips unpacked to, over all of them
    entries: int = 0  # files it brought: uploads and zip entries
    hashes: dict[str, str] = field(default_factory=dict)  # SHA-256 -> file name
    finished: float | None = None  # when it ended (done or failed)
    ocr: str = "auto"  # how scans and images are read (lateseg.ingest.ocr.modes.OCR_MODES)

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
            "ocr": self.ocr,
            "ocr_pages": r.ocr_pages,
            "unread_pages": [{"file": Path(p).name, "reason": why} for p, why in r.unread],
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


def check_zip(
    path: Path, limits: Limits, unpacked: int = 0, entries: int = 0
) -> list[zipfile.ZipInfo]:
    """The entries of the zip at ``path`` to extract (files of allowed types), after
    checking the whole archive against what is left of the request's budgets (it has
    already ``unpacked`` bytes and ``entries`` files); :class:`UploadError` says what is
    wrong."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as e:
        raise UploadError(f"{path.name}: not a readable zip ({e})") from None
    with zf:
        infos = zf.infolist()
    files = [i for i in infos if not i.is_dir()]
    if entries + len(files) > limits.max_files:
        raise UploadError(
            f"{path.name}: {len(files)} entries would bring this upload to "
            f"{entries + len(files)} files; at most {limits.max_files}"
        )
    total = unpacked
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
                f"{path.name}: with this upload's other zips it unpacks to more than "
                f"{limits.max_unzipped} bytes (a zip bomb?)"
            )
        if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(1, info.compress_size):
            raise UploadError(
                f"{path.name}: entry {name!r} would unpack {info.file_size} bytes from "
                f"{info.compress_size} (ratio over {MAX_RATIO}: a zip bomb?)"
            )
        keep.append(info)
    return keep


def extract(
    path: Path, folder: Path, limits: Limits, unpacked: int = 0, entries: int = 0
) -> tuple[list[Path], list[tuple[str, str]]]:
    """Extract the checked zip ``path`` into ``folder``: the files written, and the
    entries refused with their reasons (types lateseg does not take, nested zips). A
    damaged archive is refused whole (:class:`UploadError`), its partial files removed."""
    infos = check_zip(path, limits, unpacked, entries)
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
            try:
                with zf.open(info) as src:
                    # the header's size is a claim: stop one byte past it
                    save_stream(src, dest, info.file_size)
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, EOFError, ValueError) as e:
                for f in files:
                    f.unlink(missing_ok=True)
                raise UploadError(
                    f"{path.name}: entry {info.filename!r} is damaged ({e})"
                ) from None
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
        self,
        folder: Path,
        index: Path | str,
        limits: Limits,
        open_writer: Any | None = None,
        indexed_as: Callable[[str], str | None] | None = None,
        cache_dir: str | None = None,
    ) -> None:
        """``index``: the folder or ``postgresql://`` URL uploads are ingested into
        (``cache_dir``: that server index's cache folder here); ``indexed_as(sha256)``:
        the source of an indexed file with that content, or None (uploads of it are
        duplicates)."""
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.index = index
        self.cache_dir = cache_dir
        self.limits = limits
        self.indexed_as = indexed_as or (lambda _: None)
        self._open_writer = open_writer
        self._writer: Any = None
        self.jobs: dict[str, Job] = {}
        self._queue: queue.Queue[Job] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="lateseg-ingest", daemon=True)
        self._thread.start()

    def new_job(self, ocr: str = "auto") -> Job:
        """A new job; ``ocr``: how its scans and images are read (ConfigError if not one
        of ``auto``, ``off``, ``force``)."""
        from lateseg.ingest.ocr.modes import check_mode

        check_mode(ocr)
        self.trim()
        job_id = uuid.uuid4().hex[:12]
        folder = self.folder / job_id
        folder.mkdir()
        job = Job(job_id, folder, ocr=ocr)
        self.jobs[job_id] = job
        return job

    def discard(self, job: Job) -> None:
        """Forget ``job`` and remove its files (an upload that brought nothing)."""
        self.jobs.pop(job.id, None)
        shutil.rmtree(job.folder, ignore_errors=True)

    def trim(self) -> None:
        """Forget finished jobs past the newest :data:`JOBS_KEPT` or older than
        :data:`JOBS_SECONDS`, and remove their folders."""
        done = sorted(
            (j for j in self.jobs.values() if j.finished is not None),
            key=lambda j: j.finished or 0.0,
            reverse=True,
        )
        now = time.time()
        for n, job in enumerate(done):
            if n >= JOBS_KEPT or now - (job.finished or now) > JOBS_SECONDS:
                self.discard(job)

    def used(self) -> int:
        """Bytes the upload folder holds now."""
        return sum(f.stat().st_size for f in self.folder.rglob("*") if f.is_file())

    def add_file(self, job: Job, name: str, src: IO[bytes]) -> None:
        """Save one uploaded file into ``job`` (a zip: checked against what is left of
        the request's budgets, then its entries); a refused or duplicate file is
        recorded with its reason and the others go on."""
        try:
            base = self.limits.check_name(name)
            if job.entries >= self.limits.max_files:
                raise UploadError(f"{base}: this upload already has {job.entries} files")
            room = self.limits.quota - self.used()
            if room <= 0:
                raise UploadError(f"{base}: the upload folder is full ({self.limits.quota} bytes)")
            dest = _free(job.folder / base)
            save_stream(src, dest, min(self.limits.max_bytes, room))
            if dest.suffix.lower() == ".zip":
                try:
                    files, refused = extract(
                        dest, job.folder / dest.stem, self.limits, job.unpacked, job.entries
                    )
                finally:
                    dest.unlink(missing_ok=True)
                job.unpacked += sum(f.stat().st_size for f in files)
                job.refused += refused
            else:
                files = [dest]
            for f in files:
                job.entries += 1
                self._keep(job, f)
        except UploadError as e:
            job.refused.append((name, str(e)))
            job.event("refused", file=name, reason=str(e))

    def _keep(self, job: Job, path: Path) -> None:
        """Add ``path`` to the job unless its content is indexed or in the job already
        (then it is removed and reported as a duplicate)."""
        digest = _sha256(path)
        same = self.indexed_as(digest)
        twin = job.hashes.get(digest)
        if same is None and twin is None:
            job.hashes[digest] = path.name
            job.files.append(path)
            return
        path.unlink(missing_ok=True)
        what = f"already indexed as {Path(same).name}" if same else f"the same as {twin}"
        why = f"duplicate: {path.name} is {what} (same content)"
        job.refused.append((path.name, why))
        job.event("refused", file=path.name, reason=why)

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
            finally:
                job.finished = time.time()

    def _ingest(self, job: Job) -> None:
        from lateseg.options import IngestOptions, OpenOptions

        job.state = "running"
        job.event("running", files=len(job.files))
        if self._writer is None:
            from lateseg.pipeline import Pipeline

            job.event("loading", message="loading the model…")
            opener = self._open_writer or (
                lambda: Pipeline.open(self.index, options=OpenOptions(cache_dir=self.cache_dir))
            )
            self._writer = opener()
        from lateseg.ingest.ocr.engine import page_progress

        # parsing runs in this thread (workers=0), so that OCR can tell its pages
        options = IngestOptions(progress=False, workers=0, ocr=job.ocr)

        def page(name: str, number: int, pages: int) -> None:
            job.event("page", file=name, page=number, pages=pages)

        for path in job.files:
            token = page_progress.set(page)
            try:
                report = self._writer.ingest([path], options=options)
            finally:
                page_progress.reset(token)
            total = job.report
            total.added += report.added
            total.updated += report.updated
            total.unchanged += report.unchanged
            total.failed += report.failed
            total.skipped += report.skipped
            total.chunks += report.chunks
            total.pages += report.pages
            total.ocr_pages += report.ocr_pages
            total.unread += report.unread
            job.done += 1
            why = [r for _, r in report.failed + report.skipped + report.unread]
            job.event(
                "file",
                file=path.name,
                done=job.done,
                total=len(job.files),
                ok=not report.failed and not report.skipped,
                reason="; ".join(why) or None,
                pages=report.pages or None,  # None for kinds without pages
                ocr_pages=report.ocr_pages,
                chunks=report.chunks,
            )
        job.state = "done"
        job.event("done", **job.to_dict())


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while piece := f.read(1 << 20):
            h.update(piece)
    return h.hexdigest()
