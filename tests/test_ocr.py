"""OCR: scanned pages, image files and hostile input, read with the real Tesseract.

Scans are made here from the bundled born-digital contracts (rendered grey at 200 dpi,
as a scanner would), so each has a twin whose text is known. Tests that need Tesseract
skip, saying why, where it is not installed (``make ocr`` installs it).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pymupdf
import pytest
from conftest import DATA

from lateseg.errors import ConfigError, IngestError
from lateseg.ingest.formats import load_document
from lateseg.ingest.images import read_image_layout
from lateseg.ingest.ocr import engine as ocr
from lateseg.ingest.pdf.reader import read_pdf_layout

MSA = DATA / "contracts" / "msa.pdf"
# msa.pdf p. 4 holds § 5.2, the demo question's answer.
NOTICE = "upon sixty (60) days' prior written notice to Provider"


def _needs_tesseract() -> None:
    why = ocr.available()
    if why is not None:
        pytest.skip(f"Tesseract is not installed here ({why})")


@pytest.fixture(autouse=True)
def ocr_home(tmp_path_factory, monkeypatch):
    """Each module run caches OCR in a folder of its own, never in the user's home."""
    home = tmp_path_factory.getbasetemp() / "ocr-home"
    monkeypatch.setenv("LATESEG_HOME", str(home))
    ocr._tesseract.cache_clear()
    yield home
    ocr._tesseract.cache_clear()


def _squash(text: str) -> str:
    """Whitespace collapsed; a curly apostrophe read for a straight one (Tesseract's
    reading of a 1-bit fax) counts as the same."""
    return " ".join(text.replace("\u2019", "'").split())


def _render(page: pymupdf.Page, rotate: float = 0.0, dpi: int = 200) -> bytes:
    """A grey PNG of ``page`` as a scanner would give it, turned by ``rotate`` degrees."""
    m = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(rotate)
    return page.get_pixmap(matrix=m, colorspace=pymupdf.csGRAY).tobytes("png")


def scan(
    src: Path, dst: Path, pages: list[int] | None = None, every: int = 1, rotate: float = 0.0
) -> Path:
    """An image-only copy of ``src`` (its ``pages``, 0-based; all by default): every
    ``every``-th page a scan, the others kept born-digital."""
    doc = pymupdf.open(src)
    out = pymupdf.open()
    for n, i in enumerate(pages if pages is not None else range(doc.page_count)):
        page = doc[i]
        if n % every:
            out.insert_pdf(doc, from_page=i, to_page=i)
            continue
        sideways = round(rotate) % 180 == 90
        w, h = page.rect.width, page.rect.height
        new = out.new_page(width=h if sideways else w, height=w if sideways else h)
        new.insert_image(new.rect, stream=_render(page, rotate))
    out.save(dst, garbage=3, deflate=True)
    return dst


@pytest.fixture(scope="module")
def scans(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("scans")
    scan(MSA, folder / "mixed.pdf", every=2)  # pages 1, 3, 5, 7 scanned
    return folder


def test_modes_are_checked():
    with pytest.raises(ConfigError, match="one of auto, off, force"):
        ocr.check_mode("yes")
    with pytest.raises(ConfigError):
        read_pdf_layout(MSA, ocr="sometimes")


@pytest.mark.slow
def test_a_mixed_pdf_reads_every_page_as_its_born_digital_twin(scans):
    """Every other page a scan: all 8 pages are read, the scanned ones by OCR, and the
    text is the born-digital text but for a few characters."""
    _needs_tesseract()
    text, spans, meta, boxes = read_pdf_layout(scans / "mixed.pdf")
    twin = read_pdf_layout(MSA)[0]
    assert meta["ocr_pages"] == [1, 3, 5, 7]
    assert 0.8 < meta["ocr_confidence"] <= 1.0
    assert meta["ocr_engine"].startswith("tesseract")
    assert [s.label for s in spans if s.kind == "page"] == [str(n) for n in range(1, 9)]
    ocr_spans = [s for s in spans if s.kind == "ocr"]
    assert len(ocr_spans) == 4
    import difflib

    ratio = difflib.SequenceMatcher(None, _squash(text), _squash(twin), autojunk=False).ratio()
    assert ratio > 0.99, ratio
    # every character of an OCR'd page has its word's box: no box spans two words
    on_scans = [b for b in boxes if any(s.start <= b.start < s.end for s in ocr_spans)]
    assert on_scans and all(" " not in text[b.start : b.end] for b in on_scans)


@pytest.mark.slow
def test_ocr_progress_names_each_page_read(scans):
    """A listener set in :data:`ocr.page_progress` hears each page OCR reads (serve's
    ingest page shows it), the born-digital pages not."""
    _needs_tesseract()
    heard: list[tuple[str, int, int]] = []
    token = ocr.page_progress.set(lambda *a: heard.append(a))
    try:
        read_pdf_layout(scans / "mixed.pdf")
    finally:
        ocr.page_progress.reset(token)
    assert heard == [("mixed.pdf", n, 8) for n in (1, 3, 5, 7)]
    read_pdf_layout(scans / "mixed.pdf")  # unset again: nobody is told


@pytest.mark.slow
def test_a_scanned_contract_is_answered_and_cited_like_its_twin(tmp_path, encoder):
    """The demo question on an image-only MSA: the same clause, page and span, and the
    citation says the page was read by OCR."""
    _needs_tesseract()
    from lateseg.pipeline import Pipeline

    scanned = scan(MSA, tmp_path / "msa_scanned.pdf")
    with Pipeline.open(tmp_path / "index") as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([scanned], progress=False)
        assert report.ok and report.ocr_pages == 8 and not report.unread
        hits = pipe.search("How many days' notice to terminate for convenience?", k=3)
        top = next(h for h in hits if "sixty (60) days" in h.text)
        assert top.page == 4 and "5.2" in (top.section or "")
        assert top.ocr and top.to_dict()["ocr"] is True
        stats = pipe.stats()["ocr"]
        assert stats["pages"] == 8 and stats["documents"] == 1
        assert 0.8 < stats["mean_confidence"] <= 1.0
        # the highlight of the cited words lies on their own boxes on the scan
        from lateseg.serve.viewer import PdfPages

        doc = pipe.retriever.document_by_id(top.doc_id)
        assert doc is not None
        at = doc.text.index("sixty (60) days")
        digest = pipe.index.file_hash(doc.source)
        rects, method = PdfPages(lambda _: digest).rects(doc, at, at + len("sixty"))
        assert method == "geometry" and len(rects) == 1 and rects[0].page == 4
        word = next(b for b in doc.lines if b.start == at)
        assert (rects[0].x0, rects[0].x1) == pytest.approx((word.x0, word.x1), abs=0.01)
        # ... and on ink: the scan is darker inside the box than the page is on average
        page = pymupdf.open(scanned)[3]
        r = rects[0]
        clip = pymupdf.Rect(r.x0, r.y0, r.x1, r.y1)
        ink = page.get_pixmap(clip=clip, colorspace=pymupdf.csGRAY, dpi=100)
        whole = page.get_pixmap(colorspace=pymupdf.csGRAY, dpi=50)
        assert _mean(ink) < _mean(whole) - 20
        assert r.x1 - r.x0 < 60  # one word, not the line


def _mean(pix: pymupdf.Pixmap) -> float:
    data = pix.samples
    return sum(data) / len(data)


@pytest.mark.parametrize("rotate", [90, 180, 3, -3])
def test_turned_and_skewed_scans_read_right(tmp_path, rotate):
    """A page fed sideways or upside down, or skewed 3 degrees, reads in order."""
    _needs_tesseract()
    path = scan(MSA, tmp_path / f"turned{rotate}.pdf", pages=[3], rotate=rotate)
    text, _, meta, boxes = read_pdf_layout(path)
    assert meta["ocr_pages"] == [1]
    assert NOTICE in _squash(text)
    page = pymupdf.open(path)[0]
    # every word's box lies on the page
    assert all(
        -1 <= b.x0 < b.x1 <= page.rect.width + 1 and -1 <= b.y0 < b.y1 <= page.rect.height + 1
        for b in boxes
    )


def test_off_reports_scanned_pages_and_keeps_the_rest(scans):
    text, _, meta, _ = read_pdf_layout(scans / "mixed.pdf", ocr="off")
    assert [u["page"] for u in meta["unread_pages"]] == [1, 3, 5, 7]
    assert all("OCR is off" in u["reason"] for u in meta["unread_pages"])
    assert "ocr_pages" not in meta and "5.2" in text  # p. 4 is born-digital


def test_without_tesseract_a_scanned_page_is_reported_with_the_fix(scans, monkeypatch):
    monkeypatch.setenv("LATESEG_TESSERACT", "/nonexistent/tesseract")
    ocr._tesseract.cache_clear()
    assert "install lateseg[ocr]" in (ocr.available() or "")
    text, _, meta, _ = read_pdf_layout(scans / "mixed.pdf")
    assert [u["page"] for u in meta["unread_pages"]] == [1, 3, 5, 7]
    assert all("install lateseg[ocr]" in u["reason"] for u in meta["unread_pages"])
    assert "5.2" in text
    one = scan(MSA, scans / "all_scanned_1p.pdf", pages=[3])
    with pytest.raises(IngestError, match=r"no text layer \(scanned\?\).*install lateseg\[ocr\]"):
        read_pdf_layout(one)


def test_force_reads_born_digital_pages_by_ocr_too(tmp_path):
    _needs_tesseract()
    one = pymupdf.open(MSA)
    out = pymupdf.open()
    out.insert_pdf(one, from_page=3, to_page=3)
    out.save(tmp_path / "p4.pdf")
    text, _, meta, _ = read_pdf_layout(tmp_path / "p4.pdf", ocr="force")
    assert meta["ocr_pages"] == [1] and NOTICE in _squash(text)


def test_a_garbage_text_layer_over_a_scan_is_read_by_ocr(tmp_path):
    """A scan with a hidden text layer of nonsense (a broken scanner OCR, fonts without a
    Unicode map) is read from its image."""
    _needs_tesseract()
    path = scan(MSA, tmp_path / "bad_layer.pdf", pages=[3])
    doc = pymupdf.open(path)
    nonsense = " ".join(["xqzt vbnm kjhg wrtp"] * 12)
    doc[0].insert_textbox(doc[0].rect, nonsense, fontsize=11, render_mode=3)
    doc.save(tmp_path / "bad_layer2.pdf")
    text, _, meta, _ = read_pdf_layout(tmp_path / "bad_layer2.pdf")
    assert meta["ocr_pages"] == [1]
    assert NOTICE in _squash(text) and "xqzt" not in text
    # the same nonsense on a page without a scan is that page's text (a code listing,
    # a table of part numbers): kept
    plain = pymupdf.open()
    plain.new_page().insert_textbox(pymupdf.Rect(36, 36, 560, 760), nonsense, fontsize=11)
    plain.save(tmp_path / "listing.pdf")
    text, _, meta, _ = read_pdf_layout(tmp_path / "listing.pdf", ocr="off")
    assert "xqzt" in text and "unread_pages" not in meta
    # ... and so is visible text over a page-sized background image (a letterhead, a
    # price list on a photo): only a hidden layer over a scan is not the page's text
    backed = pymupdf.open()
    page = backed.new_page()
    page.insert_image(page.rect, stream=_render(pymupdf.open(MSA)[3], dpi=30))
    page.insert_textbox(pymupdf.Rect(36, 36, 560, 760), nonsense, fontsize=11)
    backed.save(tmp_path / "backed.pdf")
    for mode in ("auto", "off"):
        text, _, meta, _ = read_pdf_layout(tmp_path / "backed.pdf", ocr=mode)
        assert "xqzt" in text and "ocr_pages" not in meta and "unread_pages" not in meta


@pytest.mark.slow
def test_the_ocr_cache_reads_each_page_image_once(tmp_path, monkeypatch):
    """A second read of the same scan, and of a copy with its pages in another order,
    runs Tesseract on no page again (a wrapper counts the real program's runs)."""
    _needs_tesseract()
    real = ocr._tesseract()[0]
    calls = tmp_path / "calls"
    wrapper = tmp_path / "tesseract"
    wrapper.write_text(f'#!/bin/sh\necho run >> "{calls}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("LATESEG_TESSERACT", str(wrapper))
    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    ocr._tesseract.cache_clear()
    two = scan(MSA, tmp_path / "two.pdf", pages=[3, 4])
    swapped = scan(MSA, tmp_path / "swapped.pdf", pages=[4, 3])

    def runs() -> int:  # the --version probe is one line too
        return len(calls.read_text().splitlines()) if calls.exists() else 0

    first = read_pdf_layout(two)[0]
    assert runs() == 3  # --version, two pages
    assert read_pdf_layout(two)[0] == first
    read_pdf_layout(swapped)
    assert runs() == 3
    cached = list((tmp_path / "home" / "ocr").rglob("*.json"))
    assert len(cached) == 2
    # a damaged cache entry is read again, not trusted
    cached[0].write_text(json.dumps({"version": 1, "words": [{"text": 1}]}))
    assert read_pdf_layout(two)[0] == first
    assert runs() == 4


# -- image files -------------------------------------------------------------------------


def _page_image(rotate: float = 0.0, mode: str = "L"):
    from PIL import Image

    img = Image.open(io.BytesIO(_render(pymupdf.open(MSA)[3], rotate)))
    return img.convert(mode)


@pytest.mark.parametrize(
    ("name", "save"),
    [
        ("page.png", {"format": "PNG"}),
        ("page.jpg", {"format": "JPEG", "quality": 80}),
        ("fax.tif", {"format": "TIFF", "compression": "group4", "mode": "1"}),
    ],
)
def test_image_files_are_documents(tmp_path, encoder, name, save):
    _needs_tesseract()
    save = dict(save)
    img = _page_image(mode=save.pop("mode", "L"))
    img.save(tmp_path / name, dpi=(200, 200), **save)
    doc = load_document(tmp_path / name)
    assert doc.kind == "image" and doc.meta["ocr_pages"] == [1]
    assert NOTICE in _squash(doc.text)
    assert doc.lines and [s.label for s in doc.spans("page")] == ["1"]


def test_a_multi_page_tiff_is_read_page_by_page(tmp_path):
    _needs_tesseract()
    doc = pymupdf.open(MSA)
    from PIL import Image

    frames = [Image.open(io.BytesIO(_render(doc[i]))) for i in (3, 4)]
    frames[0].save(tmp_path / "two.tiff", save_all=True, append_images=frames[1:], dpi=(200, 200))
    text, spans, meta, _ = read_image_layout(tmp_path / "two.tiff")
    assert meta["pages"] == 2 and meta["ocr_pages"] == [1, 2]
    pages = [s for s in spans if s.kind == "page"]
    assert NOTICE in _squash(text[pages[0].start : pages[0].end])
    twin = read_pdf_layout(MSA)
    p5 = next(s for s in twin[1] if s.kind == "page" and s.label == "5")
    first_words = twin[0][p5.start : p5.end].split()[:6]
    assert " ".join(first_words) in _squash(text[pages[1].start : pages[1].end])


def test_uploads_and_walks_take_page_images_and_pass_over_icons(tmp_path):
    from PIL import Image

    from lateseg.ingest.folder import walk

    Image.new("L", (64, 64), 255).save(tmp_path / "icon.png")
    _page_image().save(tmp_path / "scan.png")
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    found = walk([tmp_path])
    assert [f.path.name for f in found.files] == ["scan.png"]
    reasons = dict((Path(p).name, r) for p, r in found.skipped)
    assert reasons["icon.png"] == "image too small to be a page (64 x 64 px)"
    assert reasons["broken.png"] == "binary"


# -- hostile input -----------------------------------------------------------------------


def _in_a_process(code: str) -> tuple[str, int]:
    """Run ``code`` in a new Python process: what it printed, and its peak resident
    memory in MB (VmHWM: this process's own, not inherited from the test's)."""
    code = textwrap.dedent(code) + (
        '\nprint("peak", open("/proc/self/status").read().split("VmHWM:")[1].split()[0])\n'
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ)
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout, int(re.search(r"peak (\d+)", out.stdout).group(1)) // 1024


def test_a_huge_image_is_refused_before_it_is_decoded(tmp_path):
    """20,000 x 20,000 pixels (400 MP): refused from its header, as a file and inside a
    PDF page; a subprocess shows the refusal costs no decode (peak memory stays low)."""
    from PIL import Image

    big = tmp_path / "huge.png"
    Image.new("1", (20_000, 20_000), 1).save(big)
    assert big.stat().st_size < 5_000_000
    with pytest.raises(IngestError, match=r"image too large: .*20000 x 20000.*400 MP"):
        read_image_layout(big)
    # a PDF page that embeds an image of that size (written by hand: making the test
    # decodes nothing either)
    raw = (
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
        b"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >> endobj\n"
        b"4 0 obj << /Type /XObject /Subtype /Image /Width 20000 /Height 20000 "
        b"/ColorSpace /DeviceGray /BitsPerComponent 8 /Length 8 >> stream\n"
        b"\x00\x00\x00\x00\x00\x00\x00\x00\nendstream endobj\n"
        b"5 0 obj << /Length 30 >> stream\nq 612 0 0 792 0 0 cm /Im0 Do Q\nendstream endobj\n"
        b"trailer << /Root 1 0 R >>\n%%EOF\n"
    )
    fixed = pymupdf.open(stream=raw, filetype="pdf")
    fixed.save(tmp_path / "huge_page.pdf")
    out, peak = _in_a_process(
        f"""
        from lateseg.ingest.pdf.reader import read_pdf_layout
        from lateseg.errors import IngestError
        try:
            read_pdf_layout({str(tmp_path / "huge_page.pdf")!r})
        except IngestError as e:
            print("refused:", e)
        """
    )
    assert "20000 x 20000 pixel image (400 MP)" in out
    assert peak < 500  # MB


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "empty file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "corrupt or truncated PNG"),
        (b"not an image at all", "corrupt or truncated PNG"),
    ],
)
def test_empty_and_truncated_images_are_named(tmp_path, data, why):
    (tmp_path / "x.png").write_bytes(data)
    with pytest.raises(IngestError, match=why):
        read_image_layout(tmp_path / "x.png")


def test_a_truncated_scan_image_is_refused_or_read_never_hangs(tmp_path):
    _needs_tesseract()
    png = io.BytesIO()
    _page_image().save(png, format="PNG")
    data = png.getvalue()
    (tmp_path / "half.png").write_bytes(data[: len(data) // 2])
    try:
        doc = load_document(tmp_path / "half.png")
    except IngestError as e:
        assert "PNG" in str(e) or "no text" in str(e)
    else:  # the top half decodes: what it holds is read
        assert doc.kind == "image"


def test_a_tiff_of_1000_frames_is_refused_from_its_header(tmp_path):
    from PIL import Image

    frame = Image.new("1", (8, 8), 1)
    frame.save(tmp_path / "many.tif", save_all=True, append_images=[frame] * 999)
    with pytest.raises(IngestError, match="more than 500 frames; lateseg reads at most 500"):
        read_image_layout(tmp_path / "many.tif")


def test_an_encrypted_scan_needs_its_password(tmp_path):
    _needs_tesseract()
    plain = scan(MSA, tmp_path / "p.pdf", pages=[3])
    doc = pymupdf.open(plain)
    doc.save(
        tmp_path / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o"
    )
    with pytest.raises(IngestError, match=r"encrypted PDF \(give the password\)"):
        read_pdf_layout(tmp_path / "locked.pdf")
    text, _, meta, _ = read_pdf_layout(tmp_path / "locked.pdf", password="u")
    assert meta["ocr_pages"] == [1] and NOTICE in _squash(text)


@pytest.mark.slow
def test_a_500_page_scan_holds_a_few_pages_in_memory_at_once(tmp_path):
    """500 scanned pages (the same page image, so Tesseract reads it once and the cache
    the rest: this test measures what stays in memory, not Tesseract's speed): the peak
    is the 50-page scan's plus the longer text, never the 450 more page images (1.7 GB
    of grey pixels at 200 dpi)."""
    _needs_tesseract()
    src = pymupdf.open(MSA)
    image = _render(src[3], dpi=200)
    for n in (50, 500):
        out = pymupdf.open()
        for _ in range(n):
            page = out.new_page(width=612, height=792)
            page.insert_image(page.rect, stream=image)
        out.save(tmp_path / f"scan{n}.pdf", garbage=3, deflate=True)
    peaks = {}
    for n in (50, 500):
        _, peaks[n] = _in_a_process(
            f"""
            from lateseg.ingest.pdf.reader import read_pdf_layout
            text, spans, meta, boxes = read_pdf_layout({str(tmp_path / f"scan{n}.pdf")!r})
            assert len(meta["ocr_pages"]) == {n}, meta.get("unread_pages")
            """
        )
    assert peaks[500] - peaks[50] < 300, peaks  # MB


def test_a_page_that_is_only_a_photo_has_no_words_and_the_rest_is_read(tmp_path):
    """A photograph (a smooth gradient: no text) as the only page is refused with the
    reason; beside a scanned contract page it is read as an empty page."""
    _needs_tesseract()
    import numpy as np
    from PIL import Image

    ramp = np.tile(np.linspace(40, 220, 1200, dtype=np.uint8), (900, 1))
    photo = io.BytesIO()
    Image.fromarray(ramp).save(photo, format="PNG")
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(page.rect, stream=photo.getvalue())
    doc.save(tmp_path / "photo.pdf")
    with pytest.raises(IngestError, match="OCR found no words"):
        read_pdf_layout(tmp_path / "photo.pdf")
    scan(MSA, tmp_path / "p4.pdf", pages=[3])
    both = pymupdf.open(tmp_path / "p4.pdf")
    both.insert_pdf(pymupdf.open(tmp_path / "photo.pdf"))
    both.save(tmp_path / "both.pdf")
    text, spans, meta, _ = read_pdf_layout(tmp_path / "both.pdf")
    assert meta["ocr_pages"] == [1, 2] and NOTICE in _squash(text)
    assert [s.label for s in spans if s.kind == "page"] == ["1", "2"]


def test_images_in_folders_are_skipped_with_the_reason_when_ocr_cannot_run(
    tmp_path, encoder, monkeypatch
):
    """With --ocr off, or without Tesseract, a page image found in a folder is skipped
    with the reason (as other files lateseg cannot read are), not a failure; the PDFs
    beside it are indexed."""
    from lateseg.pipeline import Pipeline

    folder = tmp_path / "docs"
    folder.mkdir()
    _page_image().save(folder / "scan.png")
    (folder / "msa.pdf").write_bytes(MSA.read_bytes())
    with Pipeline.open(tmp_path / "index") as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([folder], progress=False, ocr="off")
        assert report.ok and [Path(p).name for p in report.added] == ["msa.pdf"]
        assert [(Path(p).name, r) for p, r in report.skipped] == [("scan.png", "image: --ocr off")]
        monkeypatch.setenv("LATESEG_TESSERACT", "/nonexistent/tesseract")
        ocr._tesseract.cache_clear()
        report = pipe.ingest([folder], progress=False)
        assert report.ok and [Path(p).name for p in report.unchanged] == ["msa.pdf"]
        ((name, reason),) = [(Path(p).name, r) for p, r in report.skipped]
        assert name == "scan.png" and "install lateseg[ocr]" in reason
        # an image indexed by a run that had OCR stays indexed through a --prune that cannot
        # read it
        monkeypatch.delenv("LATESEG_TESSERACT")
        ocr._tesseract.cache_clear()
        if ocr.available() is None:
            assert [Path(p).name for p in pipe.ingest([folder], progress=False).added] == [
                "scan.png"
            ]
            report = pipe.ingest([folder], progress=False, ocr="off", prune=True)
            assert not report.removed and any(s.endswith("scan.png") for s in pipe.sources())
