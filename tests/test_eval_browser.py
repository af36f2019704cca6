"""The ``lateseg eval --report`` page in a real headless Chromium (Debian's ``chromium``,
driven by Playwright): the summary table has a row per variant, both plots are drawn,
every graded question has its row, and a citation link opens the cited page, with the
span highlighted, in a running ``lateseg serve``'s viewer.

``LATESEG_SCREENSHOTS=folder`` also saves the screenshot there
(``bench/results/eval_report.png`` is made so).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")
pytest.importorskip("playwright.sync_api", reason="needs playwright (lateseg[dev])")

from conftest import DATA, serving
from playwright import sync_api

from lateseg.eval import evaluate
from lateseg.eval.html import write_report
from lateseg.eval.variant import Variant
from lateseg.serve.app import create_app
from lateseg.serve.service import Service

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync"]  # fmt: skip
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make test installs it)"),
]


def test_the_report_page_shows_tables_plots_rows_and_links_to_the_viewer(
    sample_index, encoder, tmp_path
):
    contracts = [
        line
        for line in (DATA / "eval" / "sample_qa.jsonl").read_text(encoding="utf-8").splitlines()
        if '"contracts/' in line
    ][:8]
    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(contracts) + "\n", encoding="utf-8")
    base = Variant()
    report = evaluate(questions, sample_index, [base, Variant("mode=lexical", mode="lexical")])
    service = Service(sample_index.folder, encoder=encoder)
    try:
        with (
            serving(create_app(service)) as url,
            sync_api.sync_playwright() as p,
        ):
            write_report(report, tmp_path / "out", viewer=url)
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto((tmp_path / "out" / "report.html").as_uri())
                summary = page.locator("#summary tr")
                assert summary.count() == 3  # the header and a row per variant
                assert page.locator("#summary tr").nth(2).locator("td").first.inner_text() == (
                    "mode=lexical"
                )
                for svg in page.locator("svg").all():
                    box = svg.bounding_box()
                    assert box is not None and box["width"] > 200 and box["height"] > 200
                # the reliability diagram has a point per non-empty bin of each variant
                bins = sum(len(r.summary["reliability"]) for r in report.variants)
                assert page.locator("svg").first.locator("circle").count() == bins
                assert page.locator("table.rows").first.locator("tr").count() == 1 + 8
                shot = tmp_path / "eval_report.png"
                page.screenshot(path=str(shot), full_page=False)
                if os.environ.get("LATESEG_SCREENSHOTS"):
                    shutil.copy(shot, Path(os.environ["LATESEG_SCREENSHOTS"]) / shot.name)
                link = page.locator("table.rows a").first
                href = link.get_attribute("href")
                assert href is not None and href.startswith(url.rstrip("/") + "/#open=")
                cited = report.variants[0].rows[0]["answer"]["citations"][0]
                link.click()  # serve's page opens the cited span in its viewer
                page.wait_for_selector("#pagebox .hl", timeout=60_000)
                assert page.locator("#pagebox").get_attribute("data-page") == str(cited["page"])
                assert page.locator("#viewer-name").inner_text() == Path(cited["source"]).name
                opened = tmp_path / "eval_viewer.png"
                page.screenshot(path=str(opened))
                if os.environ.get("LATESEG_SCREENSHOTS"):
                    shutil.copy(opened, Path(os.environ["LATESEG_SCREENSHOTS"]) / opened.name)
            finally:
                browser.close()
    finally:
        service.close()
