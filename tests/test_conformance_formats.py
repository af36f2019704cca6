"""Every registered file format through one matrix (issue 61): a real file of the format
is read into a Document of its kind, deterministically, the same from its path and from
its bytes; the walk takes it; a paged format's documents have pages and line boxes; the
upload list and the kinds search filters by follow the format's own words. A new format
gets this whole test by registering, and one sample file below (a format without one
fails, saying so).
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from conftest import DATA, LICENSES

from lateseg.ingest.folder import WalkConfig, walk
from lateseg.ingest.formats import (
    FORMATS,
    Format,
    ReadOptions,
    document_kinds,
    format_of,
    is_paged,
    load_document,
    read_suffixes,
    upload_suffixes,
)
from lateseg.types import Document


def _copy(src: Path):
    def make(folder: Path) -> Path:
        return Path(shutil.copy(src, folder / src.name))

    return make


def _license_text(folder: Path) -> Path:
    src = LICENSES / "Apache-2.0"
    if not src.exists():
        pytest.skip(f"{src} missing (Debian base-files)")
    out = folder / "apache.txt"
    out.write_bytes(src.read_bytes())
    return out


def _scanned_page(folder: Path) -> Path:
    """Page 4 of the sample MSA rendered to a PNG: a real scan-like page for OCR."""
    import pymupdf

    if shutil.which("tesseract") is None:
        pytest.skip("tesseract is not installed (make ocr)")
    pix = pymupdf.open(DATA / "contracts" / "msa.pdf")[3].get_pixmap(dpi=150, alpha=False)
    out = folder / "page.png"
    out.write_bytes(pix.tobytes("png"))
    return out


#: A real file of each format, made in a folder.
SAMPLES = {
    "pdf": _copy(DATA / "contracts" / "msa.pdf"),
    "docx": _copy(DATA / "tables" / "fees.docx"),
    "image": _scanned_page,
    "html": _copy(DATA / "tables" / "rates.html"),
    "markdown": _copy(DATA / "sample_repo" / "README.md"),
    "text": _license_text,
    "code": _copy(next((DATA / "sample_repo").rglob("*.py"))),
}


def _sample(name: str, folder: Path) -> Path:
    assert name in SAMPLES, f"format {name!r} has no sample file: add one to SAMPLES"
    return SAMPLES[name](folder)


def _well_formed(doc: Document) -> None:
    assert doc.text.strip()
    for span in doc.structure:
        assert 0 <= span.start <= span.end <= len(doc.text), span


@pytest.mark.parametrize("name", list(FORMATS))
def test_a_format_reads_its_files_into_documents_of_its_kind(name, tmp_path):
    fmt = FORMATS[name]
    path = _sample(name, tmp_path)
    assert format_of(path) is fmt
    doc = load_document(path)
    assert doc.kind == name
    _well_formed(doc)
    # deterministic, and the same from the bytes ingest read once as from the path
    again = load_document(path)
    assert (again.text, again.structure) == (doc.text, doc.structure)
    from_bytes = load_document(path, data=path.read_bytes())
    assert (from_bytes.text, from_bytes.structure) == (doc.text, doc.structure)
    # a paged format's documents are pages, each with line boxes for the viewer
    assert is_paged(name) == fmt.paged
    if fmt.paged:
        assert doc.spans("page") and doc.lines


@pytest.mark.parametrize("name", list(FORMATS))
def test_the_walk_uploads_and_kind_filter_follow_the_format(name, tmp_path):
    fmt = FORMATS[name]
    _sample(name, tmp_path)
    found = walk([tmp_path], WalkConfig())
    assert [f.path.name for f in found.files] and not found.skipped, found.skipped
    assert set(fmt.suffixes) <= read_suffixes()
    assert name in document_kinds()
    assert all((s in upload_suffixes()) == fmt.upload for s in fmt.suffixes)


def test_a_new_format_is_one_class_and_one_registry_line(tmp_path, encoder):
    """A toy format (records of ``key=value`` lines behind a binary header, so it is not
    read as text by sniffing) is read, walked and searched by kind once registered."""

    class Records(Format):
        name, summary, suffixes, extracted = "records", "key=value records", (".rec",), True

        @classmethod
        def read(cls, p, source, data, root, o: ReadOptions) -> Document:
            raw = (p.read_bytes() if data is None else data).split(b"\0", 1)[1]
            return Document(source, raw.decode("utf-8"), "records")

    (tmp_path / "docs").mkdir()
    path = tmp_path / "docs" / "notice.rec"
    path.write_bytes(b"REC\0term=ninety days' written notice\nparty=Client\n")
    assert format_of(path) is None
    FORMATS.register(Records)
    try:
        assert load_document(path).text.startswith("term=ninety days")
        assert [f.path for f in walk([tmp_path / "docs"], WalkConfig()).files] == [path]
        from lateseg.pipeline import Pipeline

        pipe = Pipeline.open(tmp_path / "index")
        pipe.encoder = encoder
        report = pipe.ingest([tmp_path / "docs"], progress=False)
        assert not report.failed, report.failed
        hits = pipe.search("notice period", k=3, kind="records")
        assert hits and all(h.source.endswith("notice.rec") for h in hits)
        pipe.close()
        # the server's kind filter and upload list read the registry too
        from lateseg.serve.jobs import Limits
        from lateseg.serve.service import Service

        served = Service(tmp_path / "index", encoder=encoder, create=False)
        found = served.search("notice period", 3, kind="records")
        assert found and all(h.source.endswith("notice.rec") for h in found)
        served.close()
        assert ".rec" in Limits().types
    finally:
        FORMATS.unregister("records")
    assert format_of(path) is None


def test_an_image_sample_is_a_real_scan(tmp_path):
    """The image sample is a rendered contract page (OCR reads its words), not a blank."""
    from PIL import Image

    path = _sample("image", tmp_path)
    with Image.open(io.BytesIO(path.read_bytes())) as img:
        assert img.size[0] > 600 and img.getextrema() != (255, 255)
