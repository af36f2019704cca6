"""Image files (PNG, JPEG, TIFF) as documents of pages read by OCR, and what their
headers say before anything is decoded: file type, frames, size, and whether a folder
walk reads the file at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lateseg.errors import IngestError
from lateseg.ingest.ocr import engine as ocr_mod
from lateseg.ingest.ocr.engine import MAX_IMAGE_PIXELS, OcrUnavailable
from lateseg.ingest.ocr.modes import check_mode
from lateseg.ingest.pdf.reader import finish_pages, ocr_bar, read_by_ocr
from lateseg.ingest.pdf.text import PageLines
from lateseg.types import LineBox, Span

IMAGE_FILETYPES = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".tif": "tiff", ".tiff": "tiff"}
#: An image file of more frames than this is refused (a longer scan is a PDF's job).
MAX_IMAGE_FRAMES = 500


def read_image_layout(
    path: Path, data: bytes | None = None, ocr: str = "auto"
) -> tuple[str, list[Span], dict, list[LineBox]]:
    """A PNG, JPEG or TIFF file (every frame of a TIFF a page) read by OCR, as
    :func:`~lateseg.ingest.pdf.reader.read_pdf_layout` returns it. Its size and frames are
    checked from the file's header before anything is decoded: over
    :data:`~lateseg.ingest.ocr.engine.MAX_IMAGE_PIXELS` a frame, or over
    :data:`MAX_IMAGE_FRAMES` frames, it is refused."""
    check_mode(ocr)
    path = Path(path)
    if ocr == "off":
        raise IngestError("an image has no text layer, and OCR is off (--ocr auto reads it)")
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as e:
            raise IngestError(f"cannot read image: {e}") from None
    filetype = image_filetype(data, path)
    sizes = image_frames(data, filetype)
    import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype=filetype)
    except Exception as e:
        raise IngestError(f"corrupt {filetype.upper()} image, unreadable: {e}") from None
    pages: list[PageLines] = []
    unread: list[tuple[int, str]] = []
    bar = ocr_bar(len(sizes), path.name)
    try:
        if doc.page_count != len(sizes):
            raise IngestError(
                f"{filetype.upper()} image: {len(sizes)} frames in its header, "
                f"{doc.page_count} readable"
            )
        for i, (w, _) in enumerate(sizes):
            page = doc.load_page(i)
            rect = page.rect
            blank = PageLines(i + 1, rect.y0, rect.y1, rect.width, [])
            try:  # each frame at its own resolution (not scaled from a missing dpi)
                read = ocr_mod.ocr_page(page, i + 1, zoom=w / max(rect.width, 1.0))
                pages.append(read_by_ocr(blank, read))
            except OcrUnavailable:
                raise
            except IngestError as e:
                unread.append((i + 1, str(e)))
                pages.append(blank)
            if bar is not None:
                bar.update(1)
            ocr_mod.report_page(path.name, i + 1, len(sizes))
        meta: dict[str, Any] = {"pages": doc.page_count, "title": None, "image": filetype}
    except IngestError:
        raise
    except Exception as e:  # damaged frames
        raise IngestError(f"corrupt {filetype.upper()} image: {e}") from None
    finally:
        doc.close()
        if bar is not None:
            bar.close()
    return finish_pages(pages, unread, meta)


#: Images smaller than this (shorter side, longer side; pixels) are icons and logos, not
#: pages: a walk passes over them.
MIN_PAGE_PIXELS = (300, 500)


def image_skip_reason(path: Path) -> str | None:
    """Why a walk passes over the image file ``path`` (its header unreadable: ``binary``;
    too small to be a page), or None to read it."""
    try:
        with path.open("rb") as f:
            img = _image_file(f)
            w, h = img.size
    except ImportError:
        return None  # the reader says what to install
    except Exception:
        return "binary"  # not an image a reader could open
    if min(w, h) < MIN_PAGE_PIXELS[0] or max(w, h) < MIN_PAGE_PIXELS[1]:
        return f"image too small to be a page ({w} x {h} px)"
    return None


#: Image files by their first bytes: PyMuPDF's file type and Pillow's plugin class.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png", "PngImagePlugin", "PngImageFile"),
    (b"\xff\xd8\xff", "jpeg", "JpegImagePlugin", "JpegImageFile"),
    (b"II*\x00", "tiff", "TiffImagePlugin", "TiffImageFile"),
    (b"MM\x00*", "tiff", "TiffImagePlugin", "TiffImageFile"),
    (b"II+\x00", "tiff", "TiffImagePlugin", "TiffImageFile"),  # BigTIFF
    (b"MM\x00+", "tiff", "TiffImagePlugin", "TiffImageFile"),
)


def image_filetype(data: bytes, path: str | Path) -> str:
    """How PyMuPDF opens an image file: ``png``, ``jpeg`` or ``tiff`` by its first bytes,
    else by its suffix (the reader then says what is wrong with it). Ingest and the page
    viewer open the same bytes the same way."""
    kind = next((kind for magic, kind, _, _ in _MAGIC if data.startswith(magic)), None)
    return kind or IMAGE_FILETYPES.get(Path(path).suffix.lower(), "png")


def _image_file(f: Any) -> Any:
    """The Pillow image of open file ``f`` by its first bytes, its header read and
    nothing decoded. Pillow's plugin class is used directly: ``Image.open`` would refuse
    a large image by its process-wide limit, which lateseg leaves alone and checks its own
    (:data:`~lateseg.ingest.ocr.engine.MAX_IMAGE_PIXELS`) instead. ImportError without Pillow;
    ValueError for anything else."""
    import importlib

    head = f.read(8)
    f.seek(0)
    for magic, _, module, name in _MAGIC:
        if head.startswith(magic):
            plugin = importlib.import_module(f"PIL.{module}")
            return getattr(plugin, name)(f)
    raise ValueError("not a PNG, JPEG or TIFF image")


def image_frames(data: bytes, filetype: str) -> list[tuple[int, int]]:
    """Width and height in pixels of every frame of an image file, from its header(s),
    nothing decoded; IngestError for an empty, truncated or oversized file, or one of more
    than :data:`MAX_IMAGE_FRAMES` frames (counted up to that, never all)."""
    if not data:
        raise IngestError("empty file (0 bytes): not an image")
    import io

    try:
        img = _image_file(io.BytesIO(data))
    except ImportError:
        raise OcrUnavailable("reading images needs Pillow: install lateseg[ocr]") from None
    except Exception as e:  # not an image, a truncated header
        raise IngestError(f"corrupt or truncated {filetype.upper()} image: {e}") from None
    sizes: list[tuple[int, int]] = [img.size]
    try:  # the frames of a TIFF are pages; a PNG or JPEG is one page (an animation's first)
        while filetype == "tiff" and len(sizes) <= MAX_IMAGE_FRAMES:
            try:
                img.seek(len(sizes))
            except EOFError:
                break
            sizes.append(img.size)
    except Exception as e:  # a damaged frame directory
        raise IngestError(
            f"corrupt {filetype.upper()} image: frame {len(sizes) + 1}: {e}"
        ) from None
    if len(sizes) > MAX_IMAGE_FRAMES:
        raise IngestError(
            f"{filetype.upper()} image of more than {MAX_IMAGE_FRAMES} frames; lateseg reads "
            f"at most {MAX_IMAGE_FRAMES} (make a PDF of a longer scan)"
        )
    for n, (w, h) in enumerate(sizes, 1):
        if w * h > MAX_IMAGE_PIXELS:
            where = f"frame {n} is" if len(sizes) > 1 else "it is"
            raise IngestError(
                f"image too large: {where} {w} x {h} pixels ({w * h / 1e6:.0f} MP); lateseg "
                f"reads at most {MAX_IMAGE_PIXELS // 1_000_000} MP a page (scale it down)"
            )
        if w < 1 or h < 1:
            raise IngestError(f"image of {w} x {h} pixels: nothing to read")
    return sizes
