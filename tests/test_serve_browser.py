"""The page in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
ask the demo question, see its answer phrase first, click [1], and check that the page
shown is msa.pdf p. 4 with the highlight over the clause's first line, the truth taken
from PyMuPDF's own ``search_for`` on that page.

``LATESEG_SCREENSHOT=path`` also saves the screenshot there (the README's is made so).
"""

from __future__ import annotations

import os
import shutil

import pymupdf
import pytest

pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")
pytest.importorskip("playwright.sync_api", reason="needs playwright (lateseg[dev])")

from conftest import DATA, DEMO_QUESTION, serving
from playwright import sync_api

from lateseg.serve.app import create_app
from lateseg.serve.service import Service

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]


@pytest.fixture(scope="module")
def server(sample_index, encoder):
    service = Service(sample_index.folder, encoder=encoder)
    with serving(create_app(service)) as url:
        yield url
    service.close()


def test_ask_click_the_citation_and_see_the_clause_highlighted_on_its_page(server, tmp_path):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(server)
            page.fill("#question", DEMO_QUESTION)
            page.click("#ask-button")
            # the answer phrase first, then its sentence quoted with its citation as a button
            cite = page.locator('#phrase-box button.cite[data-n="1"]').first
            cite.wait_for(timeout=180_000)
            assert page.inner_text("#phrase") == "sixty (60) days"
            assert "Client may terminate" in page.inner_text("#phrase-quote")
            assert "msa.pdf, p. 4" in page.inner_text("#phrase-where")
            cite.click()
            page.wait_for_selector("#pagebox .hl.strong", timeout=30_000)
            page.wait_for_function("document.getElementById('page-image').complete")
            assert page.inner_text("#viewer-name") == "msa.pdf"
            assert page.inner_text("#page-number") == "4"
            assert page.get_attribute("#pagebox", "data-page") == "4"
            assert "5.2 Termination for Convenience" in page.inner_text("#crumbs")
            marks = (
                "els => els.map(e => ({page: +e.dataset.page, x0: +e.dataset.x0, "
                "y0: +e.dataset.y0, x1: +e.dataset.x1, y1: +e.dataset.y1, "
                "box: e.getBoundingClientRect().toJSON()}))"
            )
            rects = page.eval_on_selector_all("#pagebox .hl:not(.strong)", marks)
            strong = page.eval_on_selector_all("#pagebox .hl.strong", marks)
            image = page.locator("#page-image").bounding_box()
            shot = tmp_path / "serve.png"
            page.screenshot(path=str(shot))
            if os.environ.get("LATESEG_SCREENSHOT"):
                shutil.copy(shot, os.environ["LATESEG_SCREENSHOT"])
        finally:
            browser.close()
    # The truth, from PyMuPDF alone: the clause's opening words on page 4.
    pdf = pymupdf.open(DATA / "contracts" / "msa.pdf")
    (truth,) = pdf[3].search_for("Client may terminate this Agreement or any Statement")
    width = pdf[3].rect.width
    first = [
        r for r in rects if r["page"] == 4 and r["y0"] <= truth.y0 + 1 and r["y1"] >= truth.y1 - 1
    ]
    assert first, f"no highlight on the clause's first line: {rects}"
    assert min(r["x0"] for r in first) <= truth.x0 + 1 and max(r["x1"] for r in first) >= truth.x1
    # ... and drawn there on screen: the overlay sits over those words of the image
    scale = image["width"] / width
    box = first[0]["box"]
    assert box["x"] == pytest.approx(image["x"] + first[0]["x0"] * scale, abs=2)
    assert box["y"] == pytest.approx(image["y"] + first[0]["y0"] * scale, abs=2)
    # the phrase inside the clause, marked more strongly: over "sixty (60) days" alone
    (value,) = pdf[3].search_for("sixty (60) days")
    assert strong and all(r["page"] == 4 for r in strong)
    assert min(r["x0"] for r in strong) == pytest.approx(value.x0, abs=1.5)
    assert max(r["x1"] for r in strong) == pytest.approx(value.x1, abs=1.5)
    assert all(value.y0 - 1 <= r["y0"] and r["y1"] <= value.y1 + 1 for r in strong)
    assert shot.stat().st_size > 20_000
