"""A code repository ingests quietly: an empty file is skipped with its reason (not
failed), images are not read by OCR unless asked, SVG is not text, and two files of one
name are told apart by their path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lateseg.pipeline import Pipeline
from lateseg.types import Scope, short_names

os.environ["HF_HUB_OFFLINE"] = "1"

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24">'
    '<path d="M12 2L2 7l10 5 10-5-10-5z"/></svg>\n'
)


def _screenshot(path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (1200, 900), "white").save(path)


def _project(root: Path, marker: str | None) -> Path:
    pkg = root / "pkg"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "ui").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "cli" / "__init__.py").write_text("\n\n")
    (pkg / "cli" / "termui.py").write_text('def prompt(text):\n    """Ask the user."""\n')
    (pkg / "ui" / "termui.py").write_text('def echo(text):\n    """Print a line."""\n')
    (root / "logo.svg").write_text(SVG)
    _screenshot(root / "screenshot.png")
    if marker == ".git":
        (root / ".git").mkdir()
    elif marker is not None:
        (root / marker).write_text('[project]\nname = "pkg"\n')
    return root


@pytest.mark.parametrize("marker", [".git", "pyproject.toml"])
def test_a_repository_ingests_quietly(tmp_path, encoder, marker):
    repo = _project(tmp_path / "repo", marker)
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([repo], progress=False)
    assert not report.failed, report.failed  # an empty __init__.py is no failure
    skipped = {Path(p).relative_to(repo).as_posix(): why for p, why in report.skipped}
    assert skipped["pkg/__init__.py"].startswith("empty")
    assert skipped["pkg/cli/__init__.py"].startswith("empty")
    assert "drawing" in skipped["logo.svg"]
    assert (
        "code repository" in skipped["screenshot.png"]
        and "--ocr force" in skipped["screenshot.png"]
    )
    added = {Path(p).relative_to(repo).as_posix() for p in report.added}
    assert {"pkg/cli/termui.py", "pkg/ui/termui.py"} <= added
    assert "0 failed" in report.summary() and "empty 2" in report.summary()


def test_images_outside_a_repository_are_not_skipped_for_being_in_one(tmp_path, encoder):
    folder = _project(tmp_path / "scans", None)
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([folder], progress=False, ocr="off")
    skipped = {Path(p).name: why for p, why in report.skipped}
    assert "code repository" not in skipped.get("screenshot.png", "")
    assert "--ocr off" in skipped["screenshot.png"]  # off says so, as before


def test_two_files_of_one_name_are_told_apart_by_their_path():
    paths = ["/r/pkg/cli/termui.py", "/r/pkg/ui/termui.py", "/r/pkg/core.py"]
    assert short_names(paths) == ["cli/termui.py", "ui/termui.py", "core.py"]
    assert short_names(["/a/x/b.md", "/c/x/b.md"]) == ["a/x/b.md", "c/x/b.md"]
    scope = Scope(tuple(paths[:2]), ("termui",))
    assert scope.describe().startswith("answered from cli/termui.py, ui/termui.py")


def test_a_file_emptied_since_it_was_indexed_leaves_the_index(tmp_path, encoder):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("Payment is due within thirty days of the invoice.\n")
    (folder / "b.txt").write_text("Rent is payable monthly in advance.\n")
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = encoder
        pipe.ingest([folder], progress=False)
        (folder / "a.txt").write_text("\n")
        report = pipe.ingest([folder], progress=False)
        skipped = {Path(p).name: why for p, why in report.skipped}
        assert "removed" in skipped["a.txt"] and not report.failed
        assert [Path(s).name for s in pipe.sources()] == ["b.txt"]


def test_images_in_a_repository_inside_the_walked_folder_are_not_read(tmp_path, encoder):
    """The folder given holds several projects: an image inside one of them is skipped."""
    root = tmp_path / "work"
    _project(root / "tool", ".git")
    _screenshot(root / "scan.png")  # beside the projects, not in one
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([root], progress=False, ocr="off")
    skipped = {Path(p).relative_to(root).as_posix(): why for p, why in report.skipped}
    assert "code repository" in skipped["tool/screenshot.png"]
    assert "--ocr off" in skipped["scan.png"]
