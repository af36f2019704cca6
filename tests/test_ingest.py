from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest
from conftest import DATA, LICENSES, license_file, squash

from lateseg.errors import IngestError, UnsupportedFormatError
from lateseg.ingest import iter_files, load_document


def _pdf(path: Path, pages: list[str], **save) -> Path:
    doc = pymupdf.open()
    for body in pages:
        page = doc.new_page()
        if body:
            page.insert_text((72, 72), body)
    doc.save(path, **save)
    doc.close()
    return path


def test_text_is_verbatim_so_offsets_are_file_offsets(tmp_path):
    raw = "Line one.\r\n\r\n  Indented — non-ASCII ✓\n"
    p = tmp_path / "a.txt"
    p.write_bytes(raw.encode("utf-8"))
    doc = load_document(p)
    assert doc.text == raw and doc.source == str(p.resolve())


def test_non_utf8_text_is_decoded_not_crashed_on(tmp_path):
    p = tmp_path / "latin.txt"
    p.write_bytes("Caf\xe9 d\xe9j\xe0 vu".encode("cp1252"))
    assert load_document(p).text == "Café déjà vu"


def test_binary_file_is_refused_with_a_reason(tmp_path):
    p = tmp_path / "blob.dat"
    p.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(UnsupportedFormatError):
        load_document(p)
    p2 = tmp_path / "x.txt"
    p2.write_bytes(b"abc\x00def")
    with pytest.raises(IngestError, match="binary"):
        load_document(p2)


def test_markdown_headings_become_paths(tmp_path):
    p = tmp_path / "g.md"
    p.write_text("# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n## Use\n\nCall it.\n")
    doc = load_document(p)
    labels = [s.label for s in doc.spans("heading")]
    assert labels == ["Guide", "Guide > Install", "Guide > Use"]
    install = doc.spans("heading")[1]
    assert doc.text[install.start : install.end].startswith("Install\n\nRun it.")
    assert "Call it" not in doc.text[install.start : install.end]


def test_python_units_have_qualified_names_and_exact_spans():
    path = DATA / "sample_repo"
    files = [p for p in iter_files([path]) if p.suffix == ".py"]
    assert files
    units = 0
    for f in files:
        doc = load_document(f)
        assert doc.text == f.read_text("utf-8")
        for s in doc.spans("function", "method", "class"):
            body = doc.text[s.start : s.end]
            name = s.label.rsplit(".", 1)[-1]
            assert body.lstrip().startswith(("def ", "async def ", "class ", "@")), s
            assert f" {name}" in body.splitlines()[0] or body.lstrip().startswith("@"), s
            assert s.label.startswith(f.stem + "."), s.label
            units += 1
    assert units >= 5


def test_pdf_pages_are_spans_of_the_extracted_text(tmp_path):
    p = _pdf(tmp_path / "two.pdf", ["First page text.", "Second page text."])
    doc = load_document(p)
    pages = doc.spans("page")
    assert [s.label for s in pages] == ["1", "2"]
    assert doc.text[pages[0].start : pages[0].end] == "First page text."
    assert doc.text[pages[1].start : pages[1].end] == "Second page text."


def test_sample_contract_pdf_keeps_the_source_text_and_clause_paths():
    doc = load_document(DATA / "contracts" / "msa.pdf")
    source = (DATA / "sources" / "contracts" / "msa.md").read_text("utf-8")
    first_para = next(p for p in source.split("\n\n") if p.startswith("WHEREAS"))
    assert squash(first_para) in squash(doc.text)
    assert len(doc.spans("page")) >= 5
    clauses = doc.spans("clause")
    assert any(" > " in c.label for c in clauses)
    for c in clauses:
        number = c.label.split(" > ")[-1].split(" ")[0]
        assert number.split(".")[0] in doc.text[c.start : c.start + 40], c
    assert doc.spans("definition")


def test_pdf_failures_are_named(tmp_path):
    enc = _pdf(
        tmp_path / "enc.pdf",
        ["secret"],
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        owner_pw="o",
        user_pw="u",
    )
    with pytest.raises(IngestError, match="encrypted"):
        load_document(enc)
    assert "secret" in load_document(enc, password="u").text
    blank = _pdf(tmp_path / "scan.pdf", ["", ""])
    with pytest.raises(IngestError, match="no text layer"):
        load_document(blank)
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + os.urandom(2000))
    with pytest.raises(IngestError, match="PDF"):
        load_document(bad)


def test_folder_walk_is_sorted_and_skips_junk(tmp_path):
    for rel in [
        "b.md",
        "a/z.txt",
        "a/y.py",
        "node_modules/m.js",
        ".git/HEAD",
        "a/.hidden.txt",
        "a/__pycache__/c.py",
        "img.png",
    ]:
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"\x89PNG\x00\x00" if rel.endswith(".png") else b"text\n")
    (tmp_path / "link.md").symlink_to(tmp_path / "b.md")
    got = [p.relative_to(tmp_path).as_posix() for p in iter_files([tmp_path])]
    assert got == ["a/y.py", "a/z.txt", "b.md"]
    with pytest.raises(FileNotFoundError):
        iter_files([tmp_path / "missing"])


@pytest.mark.skipif(not LICENSES.is_dir(), reason="no /usr/share/common-licenses")
def test_license_files_without_suffix_are_text():
    files = iter_files([LICENSES])
    names = {p.name for p in files}
    assert {"GPL-3", "Apache-2.0"} <= names
    assert len(files) == len({p.resolve() for p in files})  # symlinks counted once
    doc = load_document(license_file("GPL-3"))
    assert any(c.label.startswith("14 ") for c in doc.spans("clause"))


def test_one_format_table_feeds_the_walk_the_uploads_the_kinds_and_the_reader(tmp_path):
    from lateseg.ingest.folder import WalkConfig
    from lateseg.ingest.formats import BY_SUFFIX, DOCUMENT_KINDS, FORMATS
    from lateseg.serve.limits import DOCUMENT_KINDS as SERVED_KINDS

    jobs = pytest.importorskip("lateseg.serve.jobs")
    assert DOCUMENT_KINDS == SERVED_KINDS == tuple(f.name for f in FORMATS.values())
    assert WalkConfig().suffixes == frozenset(BY_SUFFIX)
    assert set(jobs.DEFAULT_TYPES) == {
        s for f in FORMATS.values() if f.name != "code" for s in f.suffixes
    } | {".zip"}
    # each suffix is read as its row says
    samples = {
        ".md": "# Title\n\nBody.",
        ".rst": "Title\n=====\n\nBody.",
        ".py": "def f():\n    pass\n",
    }
    for suffix, text in samples.items():
        path = tmp_path / f"sample{suffix}"
        path.write_text(text)
        assert load_document(path).kind == BY_SUFFIX[suffix].name
