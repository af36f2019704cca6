"""The page in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
ask the demo question, see its answer phrase first, click [1], and check that the page
shown is msa.pdf p. 4 with the highlight over the clause's first line, the truth taken
from PyMuPDF's own ``search_for`` on that page.

Then the page as a reader meets it: at phone width (390×844) the cited page is in view
after [1]; a whole ask → cite → next page run from the keyboard alone; the dark theme
with its colours' contrast measured; a generated draft shown as provisional until checked;
a new question clearing the viewer; an empty question answered in plain words.

``LATESEG_SCREENSHOTS=folder`` also saves each test's screenshot there
(``bench/results/serve*.png`` are made so).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


def keep(page, tmp_path, name: str) -> Path:
    """Screenshot ``page`` as ``name`` (copied to $LATESEG_SCREENSHOTS when set)."""
    shot = tmp_path / name
    page.screenshot(path=str(shot))
    if os.environ.get("LATESEG_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["LATESEG_SCREENSHOTS"]) / name)
    return shot


def ask(page, question: str = DEMO_QUESTION):
    """Ask from the page and wait for the phrase's [1]."""
    page.fill("#question", question)
    page.click("#ask-button")
    cite = page.locator('#phrase-box button.cite[data-n="1"]').first
    cite.wait_for(timeout=180_000)
    return cite


# The highlight marks on the page, with their page-point boxes and where they are drawn.
MARKS = (
    "els => els.map(e => ({page: +e.dataset.page, x0: +e.dataset.x0, "
    "y0: +e.dataset.y0, x1: +e.dataset.x1, y1: +e.dataset.y1, "
    "box: e.getBoundingClientRect().toJSON()}))"
)


def open_cited_page(page, cite) -> None:
    """Click a citation and wait until its page is shown with the highlight on it."""
    cite.click()
    page.wait_for_selector("#pagebox .hl.strong", timeout=30_000)
    page.wait_for_function("document.getElementById('page-image').complete")


def in_view(page, selector: str) -> bool:
    return page.evaluate(
        """sel => { const r = document.querySelector(sel).getBoundingClientRect();
        return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0
               && r.right <= innerWidth; }""",
        selector,
    )


def test_ask_click_the_citation_and_see_the_clause_highlighted_on_its_page(
    server, browser, tmp_path
):
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    try:
        page.goto(server)
        # the answer phrase first, then its sentence quoted with its citation as a button
        cite = ask(page)
        assert page.inner_text("#phrase") == "sixty (60) days"
        assert "Client may terminate" in page.inner_text("#phrase-quote")
        assert "msa.pdf, p. 4" in page.inner_text("#phrase-where")
        open_cited_page(page, cite)
        assert page.inner_text("#viewer-name") == "msa.pdf"
        assert page.inner_text("#page-number") == "4"
        assert page.get_attribute("#pagebox", "data-page") == "4"
        assert "5.2 Termination for Convenience" in page.inner_text("#crumbs")
        rects = page.eval_on_selector_all("#pagebox .hl:not(.strong)", MARKS)
        strong = page.eval_on_selector_all("#pagebox .hl.strong", MARKS)
        image = page.locator("#page-image").bounding_box()
        shot = keep(page, tmp_path, "serve.png")
    finally:
        page.close()
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


def test_at_phone_width_the_cited_page_is_in_view_under_its_sticky_name(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        page.goto(server)
        cite = ask(page)
        # stacked: the answer spans the screen instead of sharing it with the viewer
        assert page.locator("#left").bounding_box()["width"] > 330
        open_cited_page(page, cite)
        page.wait_for_timeout(300)  # scrolling settles
        assert page.locator("#page-image").bounding_box()["width"] > 300  # not squeezed
        assert in_view(page, "#pagebox .hl.strong"), "the highlighted phrase is off screen"
        assert in_view(page, "#viewer-name") and in_view(page, "#viewer-cite")
        assert page.inner_text("#viewer-name") == "msa.pdf"
        keep(page, tmp_path, "serve-phone.png")
        # Esc closes the viewer and gives focus back to the [1] that opened it
        page.keyboard.press("Escape")
        assert page.locator("#viewer").is_hidden()
        assert page.evaluate("document.activeElement.dataset.n") == "1"
    finally:
        page.close()


def test_on_a_desktop_the_viewer_keeps_its_name_in_sight_at_the_highlight(server, browser):
    """Issue 62: jumping to a highlight scrolled the viewer's header out of sight."""
    page = browser.new_page(viewport={"width": 1280, "height": 460})
    try:
        page.goto(server)
        open_cited_page(page, ask(page))
        page.wait_for_timeout(300)  # scrolling settles
        assert in_view(page, "#pagebox .hl.strong"), "the highlighted phrase is off screen"
        scrolled = page.evaluate(
            """() => { let n = document.querySelector('#pagebox .hl.strong'), s = scrollY;
            for (; n; n = n.parentElement) s += n.scrollTop || 0; return s; }"""
        )
        assert scrolled > 0, "the highlight needed no scrolling: this test shows nothing"
        assert in_view(page, "#viewer-name") and in_view(page, "#viewer-cite")
    finally:
        page.close()


def test_a_whole_ask_cite_next_page_run_from_the_keyboard_alone(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server)
        page.keyboard.press("/")
        assert page.evaluate("document.activeElement.id") == "question"
        page.keyboard.type(DEMO_QUESTION)
        page.keyboard.press("Control+Enter")
        page.locator('#phrase-box button.cite[data-n="1"]').wait_for(timeout=180_000)

        def tab_to(test: str, most: int = 40) -> list[str]:
            """Press Tab until the focused element passes ``test``: what it passed."""
            passed = []
            for _ in range(most):
                page.keyboard.press("Tab")
                if page.evaluate(f"(e => {test})(document.activeElement)"):
                    return passed
                passed.append(page.evaluate("document.activeElement.className"))
            raise AssertionError(f"never reached {test}; passed {passed}")

        tab_to("e.matches('#phrase-box button.cite')")
        ring = page.evaluate(
            "(s => [s.outlineStyle, parseFloat(s.outlineWidth)])"
            "(getComputedStyle(document.activeElement))"
        )
        assert ring[0] != "none" and ring[1] >= 2, f"no visible focus ring: {ring}"
        page.keyboard.press("Enter")
        page.wait_for_selector("#pagebox .hl.strong", timeout=30_000)
        assert page.inner_text("#page-number") == "4"
        # on the way to the page bar, every source is a stop of its own
        passed = tab_to("e.id === 'next'")
        assert passed.count("link") == page.locator("#sources button.link").count() >= 1
        page.keyboard.press("Enter")
        page.wait_for_function("document.getElementById('pagebox').dataset.page === '5'")
        assert page.inner_text("#page-number") == "5"
        keep(page, tmp_path, "serve-keyboard.png")
    finally:
        page.close()


CONTRAST = """() => {
  const probe = (css) => { const d = document.createElement("div"); d.style.cssText = css;
    document.body.append(d); const s = getComputedStyle(d);
    const out = [s.color, s.backgroundColor]; d.remove(); return out; };
  const body = getComputedStyle(document.body);
  const hl = (cls) => { const d = document.createElement("div"); d.className = cls;
    document.getElementById("pagebox").append(d);
    const c = getComputedStyle(d).backgroundColor; d.remove(); return c; };
  return {
    text: [body.color, body.backgroundColor],
    muted: probe("color:var(--muted); background:var(--panel)"),
    cite: probe("color:var(--accent); background:var(--cite-bg)"),
    note: probe("color:var(--note-ink); background:var(--note-bg)"),
    mark: probe("color:var(--mark-ink); background:var(--mark)"),
    hl: hl("hl"), strong: hl("hl strong"),
  };
}"""


def _rgba(css: str) -> tuple[float, float, float, float]:
    parts = [float(x) for x in css[css.index("(") + 1 : -1].split(",")]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) == 4 else 1.0)


def _luminance(rgb) -> float:
    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """WCAG 2 contrast ratio of two colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def over_white(css: str) -> tuple[float, float, float]:
    """A translucent highlight as it lands on a (white) PDF page."""
    r, g, b, a = _rgba(css)
    return (255 * (1 - a) + r * a, 255 * (1 - a) + g * a, 255 * (1 - a) + b * a)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_both_themes_keep_text_and_highlights_readable(server, browser, tmp_path, scheme):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        page.goto(server)
        ask(page).click()
        page.wait_for_selector("#pagebox .hl.strong", timeout=30_000)
        colours = page.evaluate(CONTRAST)
        background = _luminance(_rgba(colours["text"][1]))
        assert (background < 0.1) == (scheme == "dark"), colours["text"]
        for name in ("text", "muted", "cite", "note", "mark"):
            ink, ground = (_rgba(c) for c in colours[name])
            assert contrast(ink, ground) >= 4.5, (scheme, name, colours[name])
        # the page image stays a white page in both themes: its black glyphs stay readable
        # under either highlight, and the strong mark is told apart from the plain one
        black = (0, 0, 0)
        plain, strong = over_white(colours["hl"]), over_white(colours["strong"])
        assert contrast(black, plain) >= 4.5 and contrast(black, strong) >= 4.5
        assert contrast(plain, strong) >= 1.2 and contrast(plain, (255, 255, 255)) >= 1.1
        keep(page, tmp_path, f"serve-{scheme}.png")
    finally:
        page.close()


WATCH = """() => {
  window.seen = {draft: false, checking: false, clock: false};
  new MutationObserver(() => {
    const a = document.getElementById("answer"), w = document.getElementById("working");
    if (a.classList.contains("draft") && a.textContent.trim()) window.seen.draft = true;
    const text = document.getElementById("working-text").textContent;
    if (!w.classList.contains("hidden") && /checking/.test(text)) window.seen.checking = true;
    if (!w.classList.contains("hidden") && /\\d+ s$/.test(text)) window.seen.clock = true;
  }).observe(document.body, {subtree: true, childList: true, characterData: true,
                             attributes: true});
}"""


def test_a_generated_draft_is_provisional_until_checked(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server)
        page.select_option("#answer-mode", "generate")
        page.fill("#ask-k", "2")
        page.evaluate(WATCH)
        page.fill("#question", DEMO_QUESTION)
        page.click("#ask-button")
        page.wait_for_function(
            "document.getElementById('ask-button').disabled === false"
            " && document.getElementById('sources').children.length > 0",
            timeout=240_000,
        )
        seen = page.evaluate("window.seen")
        assert seen == {"draft": True, "checking": True, "clock": True}, seen
        # once checked: no longer provisional; confirmed, or replaced with the note
        assert "draft" not in (page.get_attribute("#answer", "class") or "")
        assert page.locator("#working").is_hidden()
        notes = page.inner_text("#answer-notes")
        assert "Checked" in notes or "not supported" in notes, notes
        assert page.locator("#answer button.cite, #phrase-box button.cite").count() >= 1
        keep(page, tmp_path, "serve-draft.png")
    finally:
        page.close()


def test_a_new_question_clears_the_viewer(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server)
        ask(page).click()
        page.wait_for_selector("#pagebox .hl", timeout=30_000)
        page.fill("#question", "Which state's law governs the Master Services Agreement?")
        page.click("#ask-button")
        # at once, before the new answer: the last answer's document is gone
        assert page.locator("#viewer-body").is_hidden()
        assert page.locator("#viewer-empty").is_visible()
        page.wait_for_function(
            "document.getElementById('ask-button').disabled === false", timeout=180_000
        )
        assert page.locator("#viewer-body").is_hidden()
        keep(page, tmp_path, "serve-cleared.png")
    finally:
        page.close()


def test_empty_inputs_are_answered_in_plain_words(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server)
        page.click("#ask-button")
        said = page.inner_text("#answer")
        assert "Type a question first" in said and "(q)" not in said
        assert page.evaluate("document.activeElement.id") == "question"
        page.fill("#question", "   ")
        page.keyboard.press("Enter")
        assert "Type a question first" in page.inner_text("#answer")
        keep(page, tmp_path, "serve-empty.png")
        page.click("nav button[data-tab=search]")
        page.click("#search-form button")
        assert page.inner_text("#hits") == "Type something to search for."
    finally:
        page.close()


@pytest.fixture(scope="module")
def scanned_server(tmp_path_factory, encoder):
    """A server over an image-only copy of msa.pdf (200 dpi grey), read by OCR."""
    from lateseg.ingest.ocr import engine as ocr
    from lateseg.pipeline import Pipeline

    if ocr.available() is not None:
        pytest.skip(f"Tesseract is not installed here ({ocr.available()})")
    folder = tmp_path_factory.mktemp("scanned")
    src = pymupdf.open(DATA / "contracts" / "msa.pdf")
    out = pymupdf.open()
    for page in src:
        pix = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
        new = out.new_page(width=page.rect.width, height=page.rect.height)
        new.insert_image(new.rect, stream=pix.tobytes("png"))
    out.save(folder / "msa_scanned.pdf", garbage=3, deflate=True)
    with Pipeline.open(folder / "index") as pipe:
        pipe.encoder = encoder
        report = pipe.ingest([folder / "msa_scanned.pdf"], progress=False)
        assert report.ocr_pages == 8, report
    service = Service(folder / "index", encoder=encoder)
    with serving(create_app(service)) as url:
        yield url, folder / "msa_scanned.pdf"
    service.close()


def test_a_citation_on_a_scanned_page_highlights_the_ocr_boxes_of_its_words(
    scanned_server, browser, tmp_path
):
    """The demo question over the scan: the phrase is highlighted on the scan's own
    words, the boxes Tesseract gives for "sixty (60) days" on p. 4, and the page says
    it was read by OCR."""
    from lateseg.ingest.ocr.engine import ocr_page

    url, scan = scanned_server
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    try:
        page.goto(url)
        cite = ask(page)
        assert page.inner_text("#phrase") == "sixty (60) days"
        assert "msa_scanned.pdf, p. 4 (OCR)" in page.inner_text("#phrase-where")
        open_cited_page(page, cite)
        assert page.inner_text("#page-number") == "4"
        strong = page.eval_on_selector_all("#pagebox .hl.strong", MARKS)
        keep(page, tmp_path, "serve-ocr.png")
    finally:
        page.close()
    # The truth: Tesseract's own boxes of the three words on that page of the scan.
    read = ocr_page(pymupdf.open(scan)[3], 4)
    words = [(ln.text[f.start : f.end], f.box) for ln in read.lines for f in ln.fragments()]
    at = next(
        i for i in range(len(words) - 2)
        if [w for w, _ in words[i : i + 3]] == ["sixty", "(60)", "days'"]
    )  # fmt: skip
    boxes = [box for _, box in words[at : at + 3]]
    assert strong and all(r["page"] == 4 for r in strong)
    # each word's box is covered by a highlight, and the highlight is no wider than them
    for x0, y0, x1, y1 in boxes[:2]:
        assert any(
            r["x0"] <= x0 + 0.5 and r["x1"] >= x1 - 0.5 and r["y0"] <= y0 + 0.5
            and r["y1"] >= y1 - 0.5
            for r in strong
        ), (boxes, strong)  # fmt: skip
    assert min(r["x0"] for r in strong) == pytest.approx(boxes[0][0], abs=0.5)
    assert max(r["x1"] for r in strong) <= boxes[2][2] + 0.5


def test_a_code_answer_opens_its_file_with_the_quoted_line_marked_under_its_name(
    server, browser, tmp_path
):
    """Issue 63: the quoted line is marked apart from the cited function, scrolled to
    under the viewer's name, and code keeps its lines (a long one scrolls, never wraps
    under the line numbers)."""
    page = browser.new_page(viewport={"width": 1280, "height": 460})
    try:
        page.goto(server)
        cite = ask(page, "Which exception is raised when a currency is unsupported?")
        assert page.inner_text("#phrase") == "UnknownCurrencyError"
        assert page.locator("#phrase-quote pre").count() == 1  # quoted as code
        # cited with the function it stands in (its chunk starts in the class above)
        assert "billing.currency.currency_places" in page.inner_text("#phrase-where")
        cite.click()
        page.wait_for_selector("#text-view .code .hll.strong", timeout=30_000)
        page.wait_for_timeout(300)  # scrolling settles
        strong = page.locator("#text-view .code .hll.strong")
        assert strong.count() == 1 and "raise UnknownCurrencyError" in strong.inner_text()
        line = strong.locator(".linenos").inner_text().strip()
        source = (DATA / "sample_repo" / "billing" / "currency.py").read_text("utf-8")
        want = next(
            i for i, s in enumerate(source.splitlines(), 1) if "raise UnknownCurrencyError" in s
        )
        assert line == str(want)
        assert page.locator("#text-view .code .hll").count() > 1  # the passage, marked too
        assert in_view(page, "#quote") and in_view(page, "#viewer-name")
        assert (
            page.evaluate(
                "getComputedStyle(document.querySelector('#text-view .code pre')).whiteSpace"
            )
            == "pre"
        )
        keep(page, tmp_path, "serve-code.png")
    finally:
        page.close()
