"""OCR for pages without a usable text layer: words with boxes, cached by the page image.

A scanned page becomes text the way a born-digital one does (:mod:`lateseg.ingest.pdf.reader`):
lines of words with boxes, so offsets, clause paths, citations and highlights work the
same. A page skewed by more than :data:`MIN_SKEW` degrees is levelled first
(:func:`skew`): Tesseract read 70 of some 700 words of a page skewed by 3 degrees.

This module renders one page to a grey image, reads it with Tesseract and returns
:class:`~lateseg.ingest.layout.Line` objects in Tesseract's reading order, each word
its own :class:`~lateseg.ingest.layout.Frag` (a cited word is highlighted on its own
box), in the unrotated page coordinates that PyMuPDF gives text in (Tesseract's words
become lines in :mod:`lateseg.ingest.ocr.words`). Whether a page needs OCR at all is
:mod:`lateseg.ingest.pdf.text_layer`'s question.

Why Tesseract (``bench/results/ocr.md``): on the sample contracts rendered at 200 dpi it
keeps the spaces between words and reads the numbers; RapidOCR's packaged models (trained
for Chinese) run words together. Tesseract runs as its own processes (``tesseract`` from
Debian's ``tesseract-ocr`` with ``tesseract-ocr-eng``), one page each, :func:`workers` at
once. A page is read as it lies (``--psm 3``), its dot leaders whited out first (read,
they turn a contents page's numbers into letters), and a reading Tesseract trusts little
again with orientation detection (``--psm 1``), so pages scanned at 90 or 180 degrees
read right without every page paying for the detection (without ``osd.traineddata``:
``--psm 3`` only, and a warning).

Bounds, for hostile files: an image over :data:`MAX_IMAGE_PIXELS` is refused before it
is decoded, and so is a page whose images add up to twice that; a page is rendered at
:data:`DPI` or at the smaller scale that keeps it under :data:`MAX_RENDER_PIXELS` (about
40 MB of grey pixels; a levelled page's corners add up to a fifth), one page at a time,
and at most two page images per Tesseract process wait (uncompressed: 3.7 MB a letter
page at 200 dpi, 40 MB at the render ceiling): that bounds an OCR ingest's memory
whatever the page count. Looking for what Tesseract's reading lost (:mod:`.missed`)
holds up to some 12 bytes a rendered pixel at once, per Tesseract process (about 500 MB
at the render ceiling, 45 MB for a letter page at 200 dpi). A page that Tesseract has not read
in :data:`PAGE_TIMEOUT` seconds is reported, not waited for; the second readings share
what is left of that time, and when they fail the first reading stands.

Results are cached under ``$LATESEG_HOME/ocr`` by the SHA-256 of the engine, its
settings and the rendered pixels, so a re-ingest, a renamed or re-ordered file does not
OCR again; the folder is kept under ``$LATESEG_OCR_CACHE_MB`` (:mod:`.cache`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lateseg.errors import IngestError
from lateseg.ingest.layout import Line
from lateseg.ingest.ocr import cache as ocr_cache
from lateseg.ingest.ocr import contents as ocr_contents
from lateseg.ingest.ocr import missed as ocr_missed
from lateseg.ingest.ocr.modes import OCR_MODES as OCR_MODES  # re-exported: its old home
from lateseg.ingest.ocr.modes import check_mode as check_mode
from lateseg.ingest.ocr.tables import Grid, find_grids, table_lines
from lateseg.ingest.ocr.words import mapped, parse_tsv, word_lines

log = logging.getLogger(__name__)

DPI = 200
MAX_IMAGE_PIXELS = 100_000_000
MAX_RENDER_PIXELS = 40_000_000
PAGE_TIMEOUT = 300.0
INSTALL_HINT = (
    "install lateseg[ocr] and Tesseract (Debian: apt-get install tesseract-ocr "
    "tesseract-ocr-eng; or `make ocr`), or set TESSDATA_PREFIX to a folder holding "
    "eng.traineddata"
)


#: Where set (serve's ingest jobs): called as ``(file name, page, pages)`` after OCR has
#: read ``page`` (1-based) of a file of ``pages`` pages, in the thread that set it.
page_progress: ContextVar[Callable[[str, int, int], None] | None] = ContextVar(
    "lateseg_ocr_page_progress", default=None
)


def report_page(name: str, page: int, pages: int) -> None:
    """Tell :data:`page_progress` (where set) that OCR read ``page`` of ``pages``; a
    failing listener is logged, never the ingest's problem."""
    listener = page_progress.get()
    if listener is None:
        return
    try:
        listener(name, page, pages)
    except Exception:
        log.exception("OCR page progress listener failed")


class OcrUnavailable(IngestError):
    """OCR was needed and cannot run here; the message says why and how to fix it."""


@dataclass(frozen=True)
class OcrPage:
    """One page read by OCR: its lines (page points, unrotated, Tesseract's reading order,
    ``para`` set where Tesseract starts a paragraph), the mean word confidence (0-1) and
    the engine that read it."""

    lines: list[Line]
    confidence: float
    engine: str
    #: Ruled tables found on the page image, as ``table`` lines (:mod:`.tables`).
    tables: list[Line] = field(default_factory=list)


@functools.lru_cache(maxsize=1)
def _tesseract() -> tuple[str, str, str]:
    """(binary, tessdata folder, version) of the Tesseract found here, or OcrUnavailable.
    The version names the models too (their sizes and times), so a cache entry is never
    read for another model."""
    binary = os.environ.get("LATESEG_TESSERACT") or shutil.which("tesseract")
    if not binary:
        raise OcrUnavailable(f"OCR needs Tesseract, which is not installed: {INSTALL_HINT}")
    folder = _tessdata()
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, timeout=30, check=False
        ).stdout.decode(errors="replace")
    except (OSError, subprocess.SubprocessError) as e:
        raise OcrUnavailable(f"Tesseract ({binary}) does not run: {e}; {INSTALL_HINT}") from None
    version = out.split("\n", 1)[0].strip() or "tesseract"
    models = []
    for name in ("eng", "osd"):
        try:
            st = (Path(folder) / f"{name}.traineddata").stat()
            models.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            pass
    return binary, folder, f"{version} ({' '.join(models)})"


def _tessdata() -> str:
    """The folder holding ``eng.traineddata``: ``$TESSDATA_PREFIX`` or Debian's."""
    candidates = [os.environ.get("TESSDATA_PREFIX", "")]
    candidates += sorted(str(p) for p in Path("/usr/share/tesseract-ocr").glob("*/tessdata"))
    candidates += ["/usr/share/tessdata", "/usr/local/share/tessdata"]
    for folder in candidates:
        if folder and (Path(folder) / "eng.traineddata").is_file():
            return folder
    raise OcrUnavailable(f"Tesseract has no English model (eng.traineddata): {INSTALL_HINT}")


def available() -> str | None:
    """None when OCR can run here, else the reason (with the fix)."""
    try:
        _tesseract()
    except OcrUnavailable as e:
        return str(e)
    return None


def engine_name() -> str:
    """The engine and version that reads pages here (``tesseract 5.3.0``)."""
    return _tesseract()[2].split(" (", 1)[0]


def _psm(tessdata: str) -> str:
    """How pages are read, for the cache key: ``3/1`` (as they lie, then with orientation
    detection when the first reading is below :data:`REREAD_CONFIDENCE`) where the orientation model
    ``osd.traineddata`` is installed, else ``3`` (pages read as they lie), said once."""
    if (Path(tessdata) / "osd.traineddata").is_file():
        return "3/1"
    _warn_no_osd(tessdata)
    return "3"


#: A page read as it lies whose words Tesseract trusts less than this on average (0-100)
#: is read again with orientation detection (``--psm 1``). Upright pages, nearly all,
#: skip the detection, some 15 % of a page's CPU time (2.4 against 2.8 s on 3 contract
#: pages); a page turned by 90 or 180 degrees reads at some 36 (upright: 96).
REREAD_CONFIDENCE = 70.0


def _mean_confidence(words: list[dict[str, Any]]) -> float:
    """Tesseract's mean word confidence (0-100; -1 without a word)."""
    confs = [w["conf"] for w in words if w["conf"] >= 0]
    return sum(confs) / len(confs) if confs else -1.0


@functools.lru_cache(maxsize=4)
def _warn_no_osd(tessdata: str) -> None:
    log.warning(
        "Tesseract has no orientation model (osd.traineddata in %s): pages scanned "
        "sideways or upside down will read badly; install tesseract-ocr-osd",
        tessdata,
    )


# -- reading one page ------------------------------------------------------------------


def page_scale(width: float, height: float, zoom: float = DPI / 72.0) -> float:
    """Pixels per point to render a ``width`` x ``height`` (points) page at ``zoom``, or
    less so that it stays under :data:`MAX_RENDER_PIXELS`."""
    area = max(width, 1.0) * max(height, 1.0)
    return min(zoom, (MAX_RENDER_PIXELS / area) ** 0.5)


@dataclass(frozen=True)
class Rendered:
    """A page rendered for OCR: its cache key, the image to read (None when the cache has
    its words; a PGM: uncompressed, as a noisy scan costs PNG's compressor 0.3 s a page
    where Tesseract reads either the same), the resolution Tesseract is told (``dpi``)
    and the matrix ``(a, b, c, d, e, f)`` from pixels to page points."""

    number: int
    digest: str
    image: bytes | None
    words: list[dict[str, Any]] | None
    to_page: tuple[float, float, float, float, float, float]
    #: Ruled tables on the image (:func:`lateseg.ingest.ocr.tables.find_grids`).
    grids: tuple[Grid, ...] = ()
    dpi: int | None = None


def ocr_page(page: Any, number: int, zoom: float | None = None) -> OcrPage:
    """Read PyMuPDF page ``page`` (1-based ``number``, for messages) by OCR, rendered at
    ``zoom`` pixels a point (None: :data:`DPI`): :func:`render` then :func:`read`.

    Raises :class:`OcrUnavailable` when Tesseract is missing and :class:`IngestError`
    when the page cannot be rendered or read (too large, Tesseract failed or timed out).
    """
    return read(render(page, number, zoom))


def render(page: Any, number: int, zoom: float | None = None) -> Rendered:
    """Render ``page`` grey for OCR (in the thread that owns the PyMuPDF document) and
    look its words up in the cache."""
    import pymupdf

    big, total = _images(page)  # refused whether or not OCR could run
    if big is not None and big[0] * big[1] > MAX_IMAGE_PIXELS:
        raise IngestError(
            f"page {number} embeds a {big[0]} x {big[1]} pixel image "
            f"({big[0] * big[1] / 1e6:.0f} MP), over the {MAX_IMAGE_PIXELS // 1_000_000} MP "
            "lateseg decodes for OCR"
        )
    if total > 2 * MAX_IMAGE_PIXELS:
        raise IngestError(
            f"page {number} embeds images of {total / 1e6:.0f} MP in all, over the "
            f"{2 * MAX_IMAGE_PIXELS // 1_000_000} MP lateseg decodes for OCR of one page"
        )
    _, tessdata, version = _tesseract()
    # pixels = unrotated page point * rotation (as displayed) * zoom [* deskew], less the
    # pixmap's origin
    zoom = page_scale(page.rect.width, page.rect.height, zoom or DPI / 72.0)
    matrix = page.rotation_matrix * pymupdf.Matrix(zoom, zoom)
    try:
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY)
        angle = skew(_grey(pix))
        if angle:  # Tesseract loses most lines of a page skewed by 3 degrees: level it
            pix = page.get_pixmap(
                matrix=pymupdf.Matrix(zoom, zoom) * pymupdf.Matrix(angle),
                colorspace=pymupdf.csGRAY,
            )
            matrix = matrix * pymupdf.Matrix(angle)
    except Exception as e:  # damaged image streams
        raise IngestError(f"page {number} cannot be rendered for OCR: {e}") from None
    m = pymupdf.Matrix(1, 0, 0, 1, pix.x, pix.y) * ~matrix
    grids = tuple(find_grids(_grey(pix), zoom))
    psm = _psm(tessdata)
    # the resolution the PNG this replaced declared (PyMuPDF's 96, not the render's): told
    # 200, Tesseract parted 3 of 8 pages of a scanned contract into other paragraphs
    dpi = int(pix.xres)
    key = hashlib.sha256(
        f"{version}|psm{psm}|eng|{pix.width}x{pix.height}|v{ocr_cache.VERSION}"
        f"|missed{int(ocr_missed.available())}|dpi{dpi}".encode()
    )
    key.update(pix.samples_mv)
    digest = key.hexdigest()
    words = ocr_cache.cached(digest)
    image = pix.tobytes("pnm") if words is None else None
    return Rendered(number, digest, image, words, (m.a, m.b, m.c, m.d, m.e, m.f), grids, dpi)


def _grey(pix: Any) -> Any:
    """A one-channel pixmap's pixels as a 2-D numpy array (no copy)."""
    import numpy as np

    rows = np.frombuffer(pix.samples_mv, dtype=np.uint8).reshape(pix.height, pix.stride)
    return rows[:, : pix.width]


def read(page: Rendered) -> OcrPage:
    """The words of a rendered page, from the cache or Tesseract (any thread)."""
    binary, tessdata, version = _tesseract()
    words = page.words
    if words is None:
        assert page.image is not None  # render() leaves one of the two
        words, whole = _run(binary, tessdata, page.image, page.number, page.dpi)
        if whole:
            ocr_cache.store(page.digest, words)
    tables, rest = table_lines(page.grids, words, lambda box: mapped(box, page.to_page))
    lines = word_lines(rest, page.to_page)
    confidence = max(_mean_confidence(words), 0.0) / 100.0
    return OcrPage(lines, round(confidence, 4), version, tables)


#: Skew below this (degrees) is left to Tesseract; the search covers +-MAX_SKEW.
MIN_SKEW = 0.4
MAX_SKEW = 5.0


def skew(grey: Any) -> float:
    """The rotation (degrees, PyMuPDF's sense) that levels the text lines of a grey
    page image (a 2-D uint8 array), or 0.0 when it is level within :data:`MIN_SKEW` or
    shows no clear lines.

    A projection profile: dark pixels of a 1-in-4 sample are projected onto rows along
    each candidate slope; level lines make the sharpest profile (the largest sum of
    squared row counts), searched in quarter degrees, then twentieths."""
    import numpy as np

    ys, xs = np.nonzero(grey[::4, ::4] < 128)
    if len(ys) < 200:
        return 0.0
    xs = xs - xs.mean()

    def sharpness(deg: float) -> float:
        rows = np.round(ys + xs * np.tan(np.radians(deg))).astype(np.int64)
        counts = np.bincount(rows - rows.min()).astype(np.float64)
        return float((counts * counts).sum())

    coarse = np.arange(-MAX_SKEW, MAX_SKEW + 1e-9, 0.25)
    best = max(coarse, key=sharpness)
    fine = np.arange(best - 0.25, best + 0.25 + 1e-9, 0.05)
    best = float(max(fine, key=sharpness))
    if abs(best) < MIN_SKEW or sharpness(best) < 1.1 * sharpness(0.0):
        return 0.0
    return round(best, 2)


def workers() -> int:
    """Tesseract processes run at once: ``$LATESEG_OCR_WORKERS``, else one per core (each
    runs one thread), at most 8."""
    given = os.environ.get("LATESEG_OCR_WORKERS", "")
    if given.isdigit() and int(given) > 0:
        return min(int(given), 64)
    return max(1, min(8, os.cpu_count() or 1))


def _images(page: Any) -> tuple[tuple[int, int] | None, int]:
    """Width and height in pixels of the largest image drawn on ``page`` (None: none),
    and the pixels of all its images, inline ones too (``get_images`` lists only image
    objects), from their headers: nothing decoded."""
    best: tuple[int, int] | None = None
    total = 0
    try:
        images = page.get_image_info()
    except Exception:
        return None, 0
    for info in images:
        w, h = max(0, int(info.get("width") or 0)), max(0, int(info.get("height") or 0))
        total += w * h
        if best is None or w * h > best[0] * best[1]:
            best = (w, h)
    return best, total


def _run(
    binary: str, tessdata: str, image: bytes, number: int, dpi: int | None = None
) -> tuple[list[dict[str, Any]], bool]:
    """Tesseract's words of one page image (text, pixel box, confidence, line key), and
    whether to cache them. The page is read as it lies, and again with orientation
    detection (where installed) when Tesseract trusts the first reading less than
    :data:`REREAD_CONFIDENCE`; the more confident reading wins. Where an upright reading
    left ink unread, :func:`_second_readings` adds what it finds. The readings after the
    first share what is left of :data:`PAGE_TIMEOUT`; when one fails, the first reading
    stands: cached when the time ran out (the page would run out again), not cached when
    something else failed (memory, say), so a later ingest tries again."""
    started = time.monotonic()
    read = functools.partial(_tesseract_tsv, binary, tessdata, number=number, dpi=dpi)

    def left_s() -> float:
        return PAGE_TIMEOUT - (time.monotonic() - started)

    unled, whole = ocr_contents.whiten_leaders(image, number)
    raw, image = image, unled.image if unled is not None else image
    strip: dict[str, Any] = {}  # a contents page's page numbers, read once
    page = functools.partial(ocr_contents.read_led, read, unled, left_s=left_s, strip=strip)
    words = page(image, psm="3", timeout=left_s())
    whole = whole and not strip.get("failed")  # a contents page's strip failed: read again
    try:
        if _psm(tessdata) != "3" and _mean_confidence(words) < REREAD_CONFIDENCE:
            # as scanned: on a turned page, leaders run down it and a column of decimal
            # points can look like one
            turned = read(raw, psm="1", timeout=left_s())
            if _mean_confidence(turned) > _mean_confidence(words):
                return turned, whole  # a turned page: its leftover is not read again
        if not ocr_missed.available():
            return words, whole  # the cache key says so (:func:`render`)
        return _second_readings(page, image, words, left_s), whole
    except IngestError as e:  # out of time, or Tesseract failed: the first reading stands
        log.warning("page %d: %s; its first reading is kept", number, e)
        return words, whole
    except Exception:  # optional readings: the first stands, read again next time
        log.warning(
            "page %d: OCR's second reading failed; the first is kept", number, exc_info=True
        )
        return words, False


def _second_readings(
    read: Callable[..., list[dict[str, Any]]],
    image: bytes,
    words: list[dict[str, Any]],
    left_s: Callable[[], float],
) -> list[dict[str, Any]]:
    """``words`` (the first reading of page image ``image``) with what :mod:`.missed`
    finds in the ink they left: where lines of ink were left, the page is read again
    darkened (the surer reading kept); the ink the kept reading left is read again as one
    block (``--psm 6``) and its words joined to their lines. These readings (``read``:
    :func:`_tesseract_tsv` for this page; their images carry no resolution, which
    Tesseract estimates) have ``left_s()`` seconds."""

    words = ocr_missed.in_lines(words)
    left = ocr_missed.leftover(image, words)
    if left is None:
        return words
    if left.ink >= ocr_missed.LOST_TEXT:  # lines lost: grey print beside black?
        darker = ocr_missed.darkened(image)
        again = ocr_missed.in_lines(read(darker, psm="3", timeout=left_s(), dpi=None))
        if ocr_missed.count_trusted(again) > ocr_missed.count_trusted(words):
            image, words = darker, again
            left = ocr_missed.leftover(image, words)
            if left is None:
                return words
    extra = read(left.image, psm="6", timeout=left_s(), dpi=None)
    return ocr_missed.merge(words, [w for w in extra if ocr_missed.is_kept(w)])


def _tesseract_tsv(
    binary: str,
    tessdata: str,
    image: bytes,
    number: int,
    psm: str,
    timeout: float = PAGE_TIMEOUT,
    dpi: int | None = None,
    digits: bool = False,
) -> list[dict[str, Any]]:
    """Tesseract's words of page ``image`` (any format Leptonica reads: PGM, PNG) read
    with page segmentation ``psm``, told it has ``dpi`` pixels an inch (None: Tesseract
    estimates it), in at most ``timeout`` seconds; ``digits``: as digits only."""
    if timeout <= 0:
        raise IngestError(f"page {number}: no time left of OCR's {PAGE_TIMEOUT:.0f} s")
    env = dict(os.environ, OMP_THREAD_LIMIT="1", TESSDATA_PREFIX=tessdata)
    told = ["--dpi", str(dpi)] if dpi else []
    if digits:
        told += ["-c", "tessedit_char_whitelist=0123456789"]
    cmd = [binary, "stdin", "stdout", "-l", "eng", "--psm", psm, *told, "tsv"]
    try:
        done = subprocess.run(
            cmd, input=image, capture_output=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        raise IngestError(f"page {number}: OCR did not finish in {max(timeout, 1):.0f} s") from None
    except OSError as e:
        raise OcrUnavailable(f"Tesseract ({binary}) does not run: {e}; {INSTALL_HINT}") from None
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise IngestError(f"page {number}: Tesseract failed ({done.returncode}): {why[0]}")
    return parse_tsv(done.stdout.decode("utf-8", errors="replace"))
