"""`lateseg serve`'s HTTP API over a real index (the sample contracts and codebase),
through FastAPI's test client: every endpoint, JSON errors, the token, traversal
attempts, uploads (a zip bomb among them) and the generation queue."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import time
import zipfile
from pathlib import Path

import pymupdf
import pytest

pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")

from conftest import DATA, DEMO_QUESTION
from fastapi.testclient import TestClient

from lateseg.serve.app import create_app
from lateseg.serve.jobs import Jobs, Limits
from lateseg.serve.service import Service
from lateseg.serve.viewer import NotServable, PdfPages
from lateseg.types import Document

MSA = str((DATA / "contracts" / "msa.pdf").resolve())
SHOWN = "contracts/msa.pdf"  # how the server names it: under the folder it was ingested from


def local(app) -> TestClient:
    """A client addressing the server as a browser on this machine would."""
    return TestClient(app, base_url="http://127.0.0.1:8765")


CLAUSE_OPENING = "Client may terminate this Agreement or any Statement"


@pytest.fixture(scope="module")
def service(sample_index, encoder):
    svc = Service(sample_index.folder, encoder=encoder, queue=0)
    yield svc
    svc.close()


@pytest.fixture(scope="module")
def client(service):
    return local(create_app(service))


def _clause_hit(client) -> dict:
    hits = client.get("/api/search", params={"q": DEMO_QUESTION, "k": 5}).json()["hits"]
    return next(h for h in hits if h["source"] == SHOWN and CLAUSE_OPENING in h["text"])


def test_health_search_and_document(client):
    health = client.get("/api/health").json()
    assert health["status"] == "ready" and health["documents"] >= 10 and health["chunks"] > 100
    hit = _clause_hit(client)
    assert hit["page"] == 4 and "5.2 Termination for Convenience" in hit["section"]
    doc = client.get(f"/api/documents/{hit['doc_id']}").json()
    assert doc == {**doc, "kind": "pdf", "name": "msa.pdf", "pages": 8, "geometry": True}
    assert "text" not in doc  # documents are described, not dumped
    code = client.get("/api/search", params={"q": "invoice total", "kind": "code"}).json()
    assert code["hits"] and all(h["kind"] == "code" for h in code["hits"])
    # a question about code returns each code hit as its whole function; chunks on request
    asked = {"q": "Which function computes the invoice total?", "kind": "code", "k": 3}
    units = client.get("/api/search", params=asked).json()["hits"]
    chunks = client.get("/api/search", params={**asked, "passages": "chunks"}).json()["hits"]
    assert units and chunks
    assert sum(len(h["text"]) for h in units) > sum(len(h["text"]) for h in chunks)


def test_the_highlight_starts_and_ends_at_the_span_s_characters(client):
    hit = _clause_hit(client)
    start = hit["start"] + hit["text"].index(CLAUSE_OPENING)
    sentence_end = hit["text"].index("to Provider.") + len("to Provider.")
    end = hit["start"] + sentence_end
    got = client.get(
        f"/api/documents/{hit['doc_id']}/highlight", params={"start": start, "end": end}
    ).json()
    assert got["method"] == "geometry" and got["pages"] == [4] and got["note"] is None
    rects = got["rects"]
    page = pymupdf.open(MSA)[3]
    (first,) = page.search_for(CLAUSE_OPENING)  # the truth, from PyMuPDF alone
    (last,) = page.search_for("prior written notice to Provider.")
    assert len(rects) == 2  # the sentence's two lines
    top, bottom = sorted(rects, key=lambda r: r["y0"])
    assert top["x0"] == pytest.approx(first.x0, abs=0.5) and top["x1"] > first.x1
    assert bottom["x1"] == pytest.approx(last.x1, abs=0.5)
    assert bottom["x0"] < last.x0  # the line starts before the searched words
    # "5.2 Termination for Convenience." before it on the first line is not highlighted
    (head,) = page.search_for("Termination for Convenience.")
    assert head.x1 <= top["x0"] + 0.5


def test_page_images_carry_the_highlight(client):
    hit = _clause_hit(client)
    base = f"/api/documents/{hit['doc_id']}/pages/4.png"
    plain = client.get(base)
    marked = client.get(base, params={"highlight": f"{hit['start']}-{hit['end']}"})
    assert plain.status_code == marked.status_code == 200
    assert plain.headers["content-type"] == "image/png" and plain.content[:4] == b"\x89PNG"
    assert marked.content != plain.content
    from PIL import Image

    a = Image.open(io.BytesIO(plain.content)).convert("RGB")
    b = Image.open(io.BytesIO(marked.content)).convert("RGB")
    assert a.size == b.size == (918, 1188)  # 612 x 792 points at zoom 1.5
    page = pymupdf.open(MSA)[3]
    (first,) = page.search_for(CLAUSE_OPENING)
    x, y = int((first.x0 + 2) * 1.5), int((first.y0 + first.y1) / 2 * 1.5)
    pixel, dot = a.getpixel((x - 3, y)), b.getpixel((x - 3, y))  # between letters: paper
    assert pixel != dot and dot[2] < dot[0]  # yellow over the clause
    assert client.get(base.replace("4.png", "9.png")).status_code == 404
    assert client.get(base, params={"zoom": 40}).status_code == 422


def test_views_of_code_and_text_and_the_definitions(client):
    code = client.get("/api/search", params={"q": "invoice total", "kind": "code"}).json()
    h = code["hits"][0]
    span = {"start": h["start"], "end": h["end"]}
    v = client.get(f"/api/documents/{h['doc_id']}/view", params=span).json()
    assert v["line"] == h["line"] and v["line_end"] == h["line_end"]
    assert 'class="hll"' in v["html"] and v["css"] and v["document"]["kind"] == "code"
    hit = _clause_hit(client)
    span = {"start": hit["start"], "end": hit["end"]}
    text = client.get(f"/api/documents/{hit['doc_id']}/view", params=span).json()
    assert '<mark id="cited">' in text["html"] and "5.2 Termination" in text["html"]
    # the answer's sentence inside the passage is marked apart: the viewer scrolls to it,
    # not to the passage's first line (issue 62: three lines early)
    at = hit["text"].index(CLAUSE_OPENING)
    strong = {"strong_start": hit["start"] + at, "strong_end": hit["start"] + at + 20}
    marked = client.get(f"/api/documents/{hit['doc_id']}/view", params=span | strong).json()
    quote = marked["html"].split('<mark id="quote" class="strong">', 1)[1].split("</mark>", 1)[0]
    assert quote == CLAUSE_OPENING[:20].replace("&", "&amp;")
    outside = {"strong_start": hit["end"], "strong_end": hit["end"] + 5}
    assert client.get(f"/api/documents/{hit['doc_id']}/view", params=span | outside).is_error
    terms = client.get(f"/api/documents/{hit['doc_id']}/definitions", params=span).json()
    assert "Provider" in terms["definitions"] and "Client" in terms["definitions"]


def test_the_routes_send_the_service_s_json_byte_for_byte(client, service):
    """A route's response model neither drops, adds nor reorders a key of the JSON the
    service shapes (the page and the MCP tools read the same dicts)."""

    def sent(data) -> str:  # as a plain JSONResponse sends it
        return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    docs = service.documents
    q = {"q": DEMO_QUESTION, "k": 5}
    hits = service.search(DEMO_QUESTION, 5)
    want = {"query": DEMO_QUESTION, "hits": [service.hit_json(h) for h in hits]}
    assert client.get("/api/search", params=q).text == sent(want)
    code = service.search("invoice total", 3, kind="code")[0]
    assert hits[0].kind == "pdf" and code.kind == "code"
    for h in (hits[0], code):  # pages, geometry and a highlight; lines and no pages
        doc = docs.document(h.doc_id)
        base, span = f"/api/documents/{h.doc_id}", {"start": h.start, "end": h.end}
        assert client.get(base).text == sent(docs.describe(doc))
        view = {**docs.view(doc, h.start, h.end), "document": docs.describe(doc)}
        assert client.get(base + "/view", params=span).text == sent(view)
        terms = {"definitions": docs.definitions(doc, h.start, h.end)}
        assert client.get(base + "/definitions", params=span).text == sent(terms)
        if doc.kind == "pdf":
            marked = docs.highlight(doc, h.start, h.end)
            assert client.get(base + "/highlight", params=span).text == sent(marked)
    answer = service.answer_json(service.ask(DEMO_QUESTION, answer="quote"))
    asked = client.post("/api/ask", json={"question": DEMO_QUESTION, "answer": "quote"})
    assert asked.text == sent(answer)
    health = client.get("/api/health").json()
    assert list(health) == list(service.status())


def test_ask_as_json_and_as_server_sent_events(client):
    body = {"question": DEMO_QUESTION, "extractive": True}
    a = client.post("/api/ask", json=body).json()
    assert a["mode"] == "quote" and "sixty (60) days" in a["text"]
    assert a["citations"][0]["doc_id"] and a["citations"][0]["page"] == 4
    # the phrase first: its document offsets, its sentence as a hit the viewer opens
    phrase = a["phrase"]
    assert phrase["text"] == "sixty (60) days" and phrase["kind"] == "duration"
    sentence = phrase["sentence"]
    assert sentence["doc_id"] == a["citations"][0]["doc_id"] and sentence["page"] == 4
    assert sentence["start"] <= phrase["start"] < phrase["end"] <= sentence["end"]
    rects = client.get(
        f"/api/documents/{sentence['doc_id']}/highlight",
        params={"start": phrase["start"], "end": phrase["end"]},
    ).json()
    assert rects["pages"] == [4] and rects["rects"]
    events = []
    with client.stream("POST", "/api/ask", json={**body, "stream": True}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in r.iter_lines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                events.append((name, json.loads(line[5:])))
    assert [n for n, _ in events] == ["hits", "answer"]
    assert events[1][1]["text"] == a["text"] and events[0][1][0]["doc_id"]


def test_ask_many_answers_every_question_from_one_compressed_document(client, service):
    doc_id = _clause_hit(client)["doc_id"]
    questions = [DEMO_QUESTION, "Which state's law governs this agreement?"]
    body = {"questions": questions, "doc_id": doc_id, "kv_budget": 0.5, "kv_method": "lateseg"}
    r = client.post("/api/ask_many", json=body)
    assert r.status_code == 200, r.text
    answers = r.json()["answers"]
    assert len(answers) == 2
    shown = {h["doc_id"] for a in answers for h in a["context"]}
    assert shown == {doc_id}  # the document, and nothing else, was the context
    for a in answers:
        made = a["generated"] or a
        stats = made["kv_stats"]
        # one prefill, compressed once to half its slots, reused for each question
        assert stats["reused"] and stats["kept_tokens"] == round(0.5 * stats["prompt_tokens"])
        assert stats["method"] == "lateseg"
    # the same prefill's numbers for both: it was made once
    first, second = ((a["generated"] or a)["kv_stats"] for a in answers)
    assert first["prefill_ms"] == second["prefill_ms"]
    # refused, with the reason, before any work
    for bad, why in (
        ({"questions": []}, "at least 1"),
        ({"questions": ["q"] * 9}, "at most 8"),
        ({"questions": ["q"], "doc_id": "0" * 16, "kind": "pdf"}, "without it"),
        ({"questions": ["q"], "context": 3}, "Extra inputs"),
        ({"questions": ["   "]}, "1 to 2000 characters"),
        ({"questions": ["q"], "doc_id": "../etc/passwd"}, "16 hex digits"),
    ):
        r = client.post("/api/ask_many", json=bad)
        assert r.status_code in (404, 422) and why in r.text, (bad, r.text)
    service.generates = False  # as `lateseg serve --no-generate`
    try:
        r = client.post("/api/ask_many", json={"questions": ["q"]})
        assert r.status_code == 400 and "quoting only" in r.text
    finally:
        service.generates = True


def test_errors_are_json_with_a_status_never_a_trace(client):
    cases = {
        ("GET", "/api/nothing-here"): 404,
        ("GET", "/api/search?q=x&k=0"): 422,
        ("GET", "/api/search?q=x&passages=lines"): 422,
        ("GET", "/api/search?q=%20"): 400,
        ("GET", "/api/search?q=x&kind=spreadsheet"): 400,
        ("GET", "/api/documents/0123456789abcdef"): 404,
        ("POST", "/api/ask"): 422,
        ("GET", "/api/ingest/nojob"): 404,
        ("POST", "/api/ingest"): 404,  # this server takes no uploads
    }
    for (method, url), status in cases.items():
        r = client.request(method, url)
        assert r.status_code == status, url
        body = r.json()
        assert body["status"] == status and body["error"] and "Traceback" not in r.text
    hit = _clause_hit(client)
    r = client.get(f"/api/documents/{hit['doc_id']}/highlight", params={"start": 5, "end": 10**9})
    assert r.status_code == 400 and "outside the document" in r.json()["error"]


@pytest.mark.parametrize(
    "doc_id",
    [
        "../../../../etc/passwd",
        "..%2F..%2F..%2Fetc%2Fpasswd",
        "%2Fetc%2Fpasswd",
        "..%252F..%252Fetc%252Fpasswd",
        "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "C:%5CWindows%5Cwin.ini",
        "0123456789abcdef%00",
        "/etc/passwd",
    ],
)
def test_documents_are_reached_by_id_only(client, doc_id):
    for tail in ("", "/pages/1.png", "/highlight?start=0&end=5", "/view?start=0&end=5"):
        r = client.get(f"/api/documents/{doc_id}{tail}")
        assert r.status_code in (400, 404), (doc_id, tail, r.status_code)
        assert "root:" not in r.text


def test_only_the_file_the_index_holds_is_opened(tmp_path):
    pdf = tmp_path / "a.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Hello there.")
    doc.save(pdf)
    digest = __import__("hashlib").sha256(pdf.read_bytes()).hexdigest()
    pages = PdfPages(lambda source: digest)
    d = Document(str(pdf), "Hello there.", "pdf")
    assert pages.path(d) == pdf
    link = tmp_path / "link.pdf"
    link.symlink_to(pdf)
    with pytest.raises(NotServable, match="link"):
        pages.path(Document(str(link), "Hello there.", "pdf"))
    with pytest.raises(NotServable, match="plain absolute path"):
        pages.path(Document("a.pdf", "Hello there.", "pdf"))
    other = tmp_path / "secret.pdf"
    other.write_bytes(b"%PDF-1.4 not the indexed file")
    with pytest.raises(NotServable, match="changed since it was indexed"):
        pages.path(Document(str(other), "x", "pdf"))
    with pytest.raises(NotServable, match="no longer there"):
        pages.path(Document(str(tmp_path / "gone.pdf"), "x", "pdf"))


def test_a_token_guards_every_request_and_the_page(service):
    token = "s3cret-token-of-some-length"
    guarded = local(create_app(service, token=token))
    for url in ("/api/health", "/api/search?q=notice", "/openapi.json", "/docs"):
        assert guarded.get(url).status_code == 401
        wrong = guarded.get(url, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
    r = guarded.get("/api/health")
    assert r.json()["status"] == 401 and r.headers["www-authenticate"] == "Bearer"
    page = guarded.get("/")
    assert page.status_code == 401 and "token" in page.text and "sources" not in page.text
    ok = {"Authorization": f"Bearer {token}"}
    assert guarded.get("/api/health", headers=ok).status_code == 200
    assert 'id="question"' in guarded.get("/", headers=ok).text


def test_serving_off_loopback_needs_a_token(sample_index, capsys, monkeypatch):
    from lateseg.cli import main
    from lateseg.cli.serve import is_loopback

    monkeypatch.delenv("LATESEG_SERVE_TOKEN", raising=False)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20")
    code = main(["serve", "--index", str(sample_index.folder), "--host", "0.0.0.0"])
    assert code == 1 and "give a token" in capsys.readouterr().err


def test_a_full_generation_queue_answers_503_while_search_goes_on(client, service):
    with service._generation_slot():  # an answer being made; the queue holds 0 more
        for how in ("generate", "copy"):
            r = client.post("/api/ask", json={"question": DEMO_QUESTION, "answer": how})
            assert r.status_code == 503 and int(r.headers["retry-after"]) > 0
            assert "queue" in r.json()["error"]
        assert client.get("/api/search", params={"q": "governing law"}).status_code == 200
        # quotes need no generator; "extractive" is the old name of "quote"
        for body in ({"extractive": True}, {}, {"answer": "quote"}, {"answer": "extractive"}):
            quoted = client.post("/api/ask", json={"question": DEMO_QUESTION, **body}).json()
            assert quoted["phrase"]["text"] == "sixty (60) days" and quoted["mode"] == "quote"


def _zip(entries: dict[str, bytes], **kw) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data, **kw)
    return out.getvalue()


@pytest.fixture
def upload_client(tmp_path, encoder):
    """A server over a fresh index of its own, taking uploads (small limits)."""
    from lateseg.pipeline import Pipeline

    folder = tmp_path / "index"
    Pipeline.open(folder).close()
    svc = Service(folder, encoder=encoder, uploads=tmp_path / "uploads")
    writer = Pipeline.open(folder)
    writer.encoder = encoder
    jobs = Jobs(
        tmp_path / "uploads", svc.folder, Limits(2 << 20, 8 << 20), lambda: writer, svc.indexed_as
    )
    yield local(create_app(svc, jobs)), jobs
    svc.close()
    writer.close()


def _wait(client, job: str, polls: int = 600) -> dict:
    for _ in range(polls):
        state = client.get(f"/api/ingest/{job}").json()
        if state["state"] in ("done", "failed"):
            return state
        time.sleep(0.1)
    raise AssertionError("the ingest job did not finish")


def test_uploads_are_ingested_failures_listed_and_search_sees_them(upload_client):
    client, jobs = upload_client
    files = [
        ("files", ("escrow.txt", b"The Escrow Agent shall release the deposit within nine days.")),
        ("files", ("broken.pdf", b"%PDF-1.7\nthis is not really a pdf")),
        ("files", ("../../evil.txt", b"Quartermaster rules apply to every berth.")),
        ("files", ("run.sh", b"rm -rf /")),
        ("files", ("bundle.zip", _zip({"docs/lease.md": b"# Lease\n\nRent is due monthly."}))),
    ]
    r = client.post("/api/ingest", files=files)
    assert r.status_code == 202, r.text
    job = r.json()
    assert [x["file"] for x in job["refused"]] == ["run.sh"]
    done = _wait(client, job["job"])
    assert sorted(done["added"]) == ["escrow.txt", "evil.txt", "lease.md"]
    assert [f["file"] for f in done["failed"]] == ["broken.pdf"]
    assert "PDF" in done["failed"][0]["reason"]
    # the name was reduced to its last part: the file landed in the job's folder
    assert (jobs.folder / job["job"] / "evil.txt").is_file()
    assert not (jobs.folder.parent / "evil.txt").exists()
    hits = client.get("/api/search", params={"q": "when does the escrow agent release"})
    assert hits.json()["hits"][0]["name"] == "escrow.txt"
    with client.stream("GET", f"/api/ingest/{job['job']}/events") as ev:
        lines = list(ev.iter_lines())
    names = [line[6:].strip() for line in lines if line.startswith("event:")]
    # the model's loading is said before the first file; each file counts its chunks
    assert names == [
        "refused", "queued", "running", "loading", "file", "file", "file", "file", "done"
    ]  # fmt: skip
    data = [json.loads(line[5:]) for line in lines if line.startswith("data:")]
    files = {d["file"]: d for d, name in zip(data, names, strict=True) if name == "file"}
    assert files["escrow.txt"]["chunks"] >= 1 and files["broken.pdf"]["chunks"] == 0


def test_uploaded_scans_are_read_by_ocr_as_the_form_asks(upload_client, monkeypatch, tmp_path):
    """A scanned page uploaded as a PNG: read by OCR by default (the job counts it), not
    read with ``ocr=off`` (the reason says so), and a mode that does not exist is refused
    before anything is kept."""
    from lateseg.ingest.ocr import engine as ocr

    if ocr.available() is not None:
        pytest.skip(f"Tesseract is not installed here ({ocr.available()})")
    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    client, _ = upload_client
    page = pymupdf.open(DATA / "contracts" / "msa.pdf")[3]
    png = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).tobytes("png")
    r = client.post("/api/ingest", files=[("files", ("scan.png", png))], data={"ocr": "maybe"})
    assert r.status_code == 400 and "one of auto, off, force" in r.json()["error"]
    r = client.post("/api/ingest", files=[("files", ("off.png", png))], data={"ocr": "off"})
    done = _wait(client, r.json()["job"], 6000)
    assert [f["file"] for f in done["failed"]] == ["off.png"]
    assert "OCR is off" in done["failed"][0]["reason"]
    r = client.post("/api/ingest", files=[("files", ("scan.png", png))])
    done = _wait(client, r.json()["job"], 6000)
    assert done["added"] == ["scan.png"] and done["ocr"] == "auto" and done["ocr_pages"] == 1
    # the page's progress counts the pages OCR reads, before the file is done
    with client.stream("GET", f"/api/ingest/{r.json()['job']}/events") as ev:
        lines = list(ev.iter_lines())
    names = [line[6:].strip() for line in lines if line.startswith("event:")]
    data = [json.loads(line[5:]) for line in lines if line.startswith("data:")]
    assert names.index("page") < names.index("file")
    page = data[names.index("page")]
    assert (page["file"], page["page"], page["pages"]) == ("scan.png", 1, 1)
    hits = client.get("/api/search", params={"q": "terminate for convenience notice"}).json()
    top = hits["hits"][0]
    assert top["name"] == "scan.png" and top["ocr"] is True


@pytest.mark.parametrize(
    ("entries", "why"),
    [
        ({"bomb.txt": b"\0" * (20 << 20)}, "zip bomb"),
        ({"../../outside.txt": b"x"}, "outside its folder"),
        ({"/etc/cron.d/job.txt": b"x"}, "outside its folder"),
    ],
)
def test_hostile_zips_are_refused_before_extraction(upload_client, entries, why):
    client, jobs = upload_client
    r = client.post("/api/ingest", files=[("files", ("a.zip", _zip(entries)))])
    assert r.status_code == 400 and why in r.json()["error"]
    assert not any(p.is_file() for p in jobs.folder.rglob("*"))


def test_a_zip_with_a_link_and_an_oversized_upload_are_refused(upload_client):
    client, jobs = upload_client
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        info = zipfile.ZipInfo("link.txt")
        info.external_attr = (0o120777) << 16
        zf.writestr(info, "/etc/passwd")
    r = client.post("/api/ingest", files=[("files", ("l.zip", out.getvalue()))])
    assert r.status_code == 400 and "symbolic link" in r.json()["error"]
    big = client.post("/api/ingest", files=[("files", ("big.txt", b"x" * (4 << 20)))])
    assert big.status_code == 413 and "limit" in big.json()["error"]
    assert not any(p.is_file() for p in jobs.folder.rglob("*"))


def test_an_index_without_line_boxes_is_highlighted_by_search_and_says_so(tmp_path, encoder):
    from lateseg.pipeline import Pipeline

    pdf = tmp_path / "memo.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Section 1. The Tenant shall pay rent monthly.")
    page.insert_text((72, 110), "Section 2. The Landlord shall keep the roof in repair.")
    doc.save(pdf)
    folder = tmp_path / "index"
    with Pipeline.open(folder) as pipe:
        pipe.encoder = encoder
        pipe.ingest([pdf], progress=False)
    db = sqlite3.connect(folder / "docstore.sqlite")
    db.execute("DROP TABLE line_boxes")  # as an index built before lateseg kept them
    db.commit()
    db.close()
    svc = Service(folder, encoder=encoder)
    try:
        client = local(create_app(svc))
        hit = client.get("/api/search", params={"q": "who repairs the roof"}).json()["hits"][0]
        d = client.get(f"/api/documents/{hit['doc_id']}").json()
        assert d["geometry"] is False
        text = svc.documents.read(hit["source"])["text"]
        start = text.index("The Landlord")
        end = start + len("The Landlord shall keep the roof in repair.")
        got = client.get(
            f"/api/documents/{hit['doc_id']}/highlight", params={"start": start, "end": end}
        ).json()
        assert got["method"] == "search" and "re-ingest" in got["note"]
        (truth,) = pymupdf.open(pdf)[0].search_for("The Landlord shall keep the roof in repair.")
        assert any(abs(r["y0"] - truth.y0) < 1 and r["x0"] <= truth.x0 + 1 for r in got["rects"])
    finally:
        svc.close()


def test_read_gives_text_with_its_pages_and_clause(service):
    got = service.documents.read(MSA, 10741, 10800)
    assert got["page"] == 4 and got["text"].startswith("5.2") and "5.2" in got["section"]
    with pytest.raises(Exception, match="not a document of this index"):
        service.documents.read(os.path.join("/etc", "passwd"))
    assert Path(got["source"]).name == "msa.pdf"


@pytest.mark.parametrize(
    "blob",
    [b"\x01" * 27, b"\0" * 28 * 10**5, b"\0" * 28],  # not whole; more than chars; page 0
)
def test_damaged_line_boxes_in_a_received_index_are_ignored(tmp_path, encoder, blob):
    from lateseg.pipeline import Pipeline

    pdf = tmp_path / "memo.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 90), "Section 1. The Tenant shall pay rent monthly.")
    doc.save(pdf)
    folder = tmp_path / "index"
    with Pipeline.open(folder) as pipe:
        pipe.encoder = encoder
        pipe.ingest([pdf], progress=False)
        doc_id = pipe.document(pdf).id
        assert pipe.retriever.document_by_id(doc_id).lines  # kept at ingest
    db = sqlite3.connect(folder / "docstore.sqlite")
    db.execute("UPDATE line_boxes SET boxes=?", (blob,))
    db.commit()
    db.close()
    with Pipeline.open(folder, readonly=True) as pipe:
        assert pipe.retriever.document_by_id(doc_id).lines == ()


def test_health_says_loading_until_the_models_are_loaded_and_no_generate_quotes_only(
    sample_index, encoder
):
    import threading

    svc = Service(sample_index.folder, encoder=encoder, queue=0)
    gate, real = threading.Event(), svc.pipe.encoder.embed_queries
    calls: list[list[str]] = []

    def held(queries):  # the real embedder, held until the test lets it run
        gate.wait(60)
        calls.append(list(queries))
        return real(queries)

    try:
        svc.pipe.encoder.embed_queries = held
        client = local(create_app(svc))
        svc.preload(generator=False)
        assert client.get("/api/health").json()["status"] == "loading"
        gate.set()
        assert svc.ready.wait(60)
        assert client.get("/api/health").json()["status"] == "ready"
        assert calls, "ready before the embedder had run"
        # --no-generate: quoting only, the generator never loaded
        r = client.post("/api/ask", json={"question": DEMO_QUESTION, "answer": "generate"})
        assert r.status_code == 400 and "--no-generate" in r.json()["error"]
        ok = client.post("/api/ask", json={"question": DEMO_QUESTION})
        assert ok.status_code == 200 and ok.json()["phrase"]["text"] == "sixty (60) days"
        assert svc.pipe.generator._model is None
    finally:
        svc.pipe.encoder.embed_queries = real
        svc.close()


async def test_an_index_of_every_kind_of_source_serves_search_ask_view_and_mcp(tmp_path, encoder):
    """Files from a folder (absolute paths), an upload, a LangChain document (``langchain:ID``),
    a relative source and a URL, in one index: every route names each and none answers 500
    (one LangChain document used to break every search: the common folder of an absolute
    and a relative path raised). Two sources that would show one name are told apart."""
    from mcp import Client

    from lateseg.integrations.langchain import LatesegVectorStore
    from lateseg.pipeline import Pipeline
    from lateseg.serve.mcp import build

    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "lease.txt").write_text("The tenant shall pay rent of 900 dollars monthly.\n")
    (folder / "sub" / "escrow.txt").write_text("The escrow agent releases the deposit in 9 days.\n")
    uploads = tmp_path / "uploads"
    (uploads / "job1").mkdir(parents=True)
    (uploads / "job1" / "upload.txt").write_text("The courier delivers parcels on Tuesdays.\n")
    index = tmp_path / "index"
    with Pipeline.open(index) as pipe:
        pipe.encoder = encoder
        assert pipe.ingest([folder, uploads / "job1" / "upload.txt"], progress=False).ok
        pipe.add_documents([
            Document("notes/plan.md", "The lighthouse keeper trims the wick at dusk.", "text"),
            Document("https://example.com/policy", "Refunds are paid within 14 days.", "text"),
            Document("lease.txt", "The glacier guide checks crampons every morning.", "text"),
        ])  # fmt: skip
        store = LatesegVectorStore(index=pipe)
        store.add_texts(["The falconer feeds the hawks at noon."], ids=["lc-1"])
    svc = Service(index, encoder=encoder, uploads=uploads)
    try:
        client = local(create_app(svc))
        expect = {
            "rent of 900 dollars": "lease.txt",
            "escrow agent deposit": "sub/escrow.txt",
            "courier parcels Tuesdays": "uploads/upload.txt",
            "lighthouse keeper wick": "notes/plan.md",
            "refunds paid days": "https://example.com/policy",
            "glacier guide crampons": "lease.txt (2)",
            "falconer hawks noon": "langchain:lc-1",
        }
        shown = set()
        for query in expect:
            r = client.get("/api/search", params={"q": query, "k": 1})
            assert r.status_code == 200, r.text
            (hit,) = r.json()["hits"]
            shown.add(hit["source"])
            assert str(tmp_path) not in json.dumps(hit)  # no server path leaves it
            view = client.get(f"/api/documents/{hit['doc_id']}")
            assert view.status_code == 200, view.text
            assert view.json()["source"] == hit["source"]
            r = client.post("/api/ask", json={"question": f"What about {query}?"})
            assert r.status_code == 200, r.text
            assert str(tmp_path) not in r.text  # nor in any passage an answer sends
        # the two lease.txt are two names, one each
        assert {expect["rent of 900 dollars"], expect["glacier guide crampons"]} <= shown
        assert len(shown) == len(expect)
        async with Client(build(svc)) as mcp_client:

            async def call(tool: str, args: dict) -> str:
                result = await mcp_client.call_tool(tool, args)
                assert not result.is_error, result.content
                return result.content[0].text

            assert "langchain:lc-1" in await call("search", {"query": "falconer hawks", "k": 2})
            assert "lighthouse" in await call("read", {"source": "notes/plan.md"})
            assert "glacier" in await call("read", {"source": "lease.txt (2)"})
    finally:
        svc.close()
