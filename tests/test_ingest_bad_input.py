"""The issue-3 bad-input folder: every good file indexed, every bad one reported."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pymupdf
import pytest
from conftest import DATA, license_file

from lateseg.ingest.parallel import ParseJob, parse
from lateseg.pipeline import Pipeline


def _pdf(path: Path, text: str | None, **save) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    if text:
        page.insert_text((72, 72), text)
    else:  # an image only, like a scan (of a dark patch: no words)
        pix = pymupdf.Pixmap(pymupdf.csRGB, (0, 0, 64, 64), 0)
        pix.clear_with(0)  # a new Pixmap's samples are whatever memory held: OCR read words
        page.insert_image(pymupdf.Rect(72, 72, 200, 200), pixmap=pix)
    doc.save(path, **save)
    doc.close()


@pytest.fixture
def bad_folder(tmp_path: Path) -> tuple[Path, dict[str, str], list[Path]]:
    """A folder of good and bad files; returns it, {bad name: expected reason words},
    and the paths given beside it that are neither files nor folders."""
    root = tmp_path / "inbox"
    root.mkdir()
    shutil.copy(license_file("BSD"), root / "good-license.txt")
    shutil.copy(DATA / "contracts" / "nda.pdf", root / "good-contract.pdf")
    (root / "good-notes.md").write_text("# Notes\n\nPayment is due in thirty days.\n")
    (root / "latin1.txt").write_bytes("Loyer payé à l'échéance, déjà réglé.".encode("latin-1"))
    (root / "utf16.txt").write_bytes("Rent is payable monthly in advance.".encode("utf-16"))
    bad = {
        "random.pdf": "pdf",
        "truncated.pdf": "pdf",
        "encrypted.pdf": "encrypted",
        "scanned.pdf": "no text layer",
    }
    (root / "empty.txt").write_bytes(b"")
    (root / "random.pdf").write_bytes(os.urandom(4096))
    whole = (DATA / "contracts" / "msa.pdf").read_bytes()
    (root / "truncated.pdf").write_bytes(whole[: len(whole) // 3])
    _pdf(
        root / "encrypted.pdf",
        "secret terms",
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        owner_pw="o",
        user_pw="u",
    )
    _pdf(root / "scanned.pdf", None)
    with open(root / "huge-line.txt", "wb") as f:  # 50 MB on one line
        f.write(b"x" * (50 * 1024 * 1024))
    (root / "loop-a.txt").symlink_to(root / "loop-b.txt")
    (root / "loop-b.txt").symlink_to(root / "loop-a.txt")
    os.mkfifo(root / "pipe.txt")
    (root / "escape.txt").symlink_to(license_file("GPL-3"))  # leaves the folder
    (root / "inside.txt").symlink_to(root / "good-license.txt")  # same file, counted once
    fifo = tmp_path / "a-fifo"
    os.mkfifo(fifo)
    return root, bad, [fifo, tmp_path / "does-not-exist"]


def test_bad_input_folder(tmp_path, bad_folder, encoder):
    root, bad, odd_paths = bad_folder
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([root, *odd_paths], progress=False, workers=2)
    added = {Path(p).name for p in report.added}
    assert added == {
        "good-license.txt",
        "good-contract.pdf",
        "good-notes.md",
        "latin1.txt",
        "utf16.txt",
    }
    failed = {Path(p).name: reason.lower() for p, reason in report.failed}
    skipped = {Path(p).name: reason.lower() for p, reason in report.skipped}
    for name, words in bad.items():
        assert words in failed.get(name, ""), (name, failed.get(name))
    assert "too large" in skipped["huge-line.txt"]
    # an empty file is not a failure: there is nothing in it to lose (an empty
    # __init__.py in every package of a repository)
    assert "empty" in skipped["empty.txt"] and "empty.txt" not in failed
    assert "loop" in skipped["loop-a.txt"] and "loop" in skipped["loop-b.txt"]
    assert "not a regular file" in skipped["pipe.txt"]
    assert "leaves the folder" in skipped["escape.txt"]
    assert "inside.txt" not in skipped and "inside.txt" not in failed
    assert "not a regular file" in failed["a-fifo"]
    assert "no such file" in failed["does-not-exist"]
    assert "failed by reason" in report.summary()
    with Pipeline.open(tmp_path / "idx") as pipe:
        doc = pipe.document(root / "latin1.txt")
        assert "déjà réglé" in doc.text
        assert pipe.document(root / "utf16.txt").text == "Rent is payable monthly in advance."


def test_file_deleted_between_listing_and_reading(tmp_path):
    gone = tmp_path / "gone.txt"
    result = parse(ParseJob(str(gone)))
    assert result.doc is None and "cannot read" in (result.error or "")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files without read permission")
def test_unreadable_file_is_reported(tmp_path):
    p = tmp_path / "secret.txt"
    p.write_text("hidden")
    p.chmod(0)
    result = parse(ParseJob(str(p)))
    assert result.doc is None and "permission" in (result.error or "").lower()
