"""`lateseg serve` against a hostile client or web page: a real uvicorn server on
loopback, real HTTP requests (raw sockets where a browser's or an attacker's exact bytes
matter), real uploads and a real index."""

from __future__ import annotations

import http.client
import io
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import zipfile
from urllib.parse import urlsplit

import pymupdf
import pytest

pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")

from conftest import DATA, DEMO_QUESTION, ROOT, serving

from lateseg.serve.app import create_app
from lateseg.serve.jobs import Jobs, Limits
from lateseg.serve.limits import BODY_IDLE_SECONDS, MAX_JSON_BYTES, MAX_PAGE_SIDE
from lateseg.serve.service import Service


@pytest.fixture(scope="module")
def served(sample_index, encoder, tmp_path_factory):
    """The sample index served for real, taking uploads into a fresh index of its own:
    (base URL of the sample server, base URL of the upload server, its jobs)."""
    from lateseg.pipeline import Pipeline

    service = Service(sample_index.folder, encoder=encoder, queue=0)
    tmp = tmp_path_factory.mktemp("uploads")
    folder = tmp / "index"
    Pipeline.open(folder).close()
    up = Service(folder, encoder=encoder, uploads=tmp / "files")
    writer = Pipeline.open(folder)
    writer.encoder = encoder
    limits = Limits(2 << 20, 200 << 10, quota=64 << 20)
    jobs = Jobs(tmp / "files", up.folder, limits, lambda: writer, up.indexed_as)
    app = create_app(service, allow_hosts=["lateseg.internal"], body_idle=1.0)
    with serving(app) as url, serving(create_app(up, jobs)) as upload_url:
        yield url, upload_url, jobs, service
    service.close()
    up.close()
    writer.close()


def request(url: str, method: str, path: str, body: bytes = b"", **headers: str):
    """One request with exactly these headers (``Host`` included, when given)."""
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.putrequest(method, path, skip_host="Host" in headers, skip_accept_encoding=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    if body or method == "POST":
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body or None)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), data


def multipart(files: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = "lateseg-test-boundary"
    out = io.BytesIO()
    for name, data in files:
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        )
        out.write(head.encode())
        out.write(data + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def upload(url: str, files: list[tuple[str, bytes]], **headers: str):
    body, kind = multipart(files)
    return request(url, "POST", "/api/ingest", body, **{"Content-Type": kind, **headers})


def reply_of(sock: socket.socket) -> str:
    """What the server sends back on a raw socket: the status line, headers and body
    (until it has sent its Content-Length, or closed)."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(4096)
        if not piece:
            return data.decode()
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    size = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < size and (piece := sock.recv(4096)):
        body += piece
    return (head + b"\r\n\r\n" + body).decode()


def wait(url: str, job: str, ceiling: float = 1800.0) -> dict:
    """The job's final state, once its event stream ends (the server ends it when the job
    is done or failed): a wait on the job's own events, so a slow machine only waits
    longer; ``ceiling`` seconds of silence fail the test."""
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=ceiling)
    conn.request("GET", f"/api/ingest/{job}/events")
    r = conn.getresponse()
    assert r.status == 200, r.read()
    r.read()  # to the stream's end
    conn.close()
    _, _, data = request(url, "GET", f"/api/ingest/{job}")
    state = json.loads(data)
    assert state["state"] in ("done", "failed"), state
    return state


# 1. DNS rebinding --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example:8765", 421),
        ("evil.example", 421),
        ("127.0.0.1.evil.example", 421),
        ("localhost:8765", 200),
        ("127.0.0.1:8765", 200),
        ("[::1]:8765", 200),
        ("lateseg.internal:8765", 200),  # --allow-host
    ],
)
def test_a_request_to_another_host_name_is_refused(served, host, status):
    url = served[0]
    got, _, data = request(url, "GET", "/api/search?q=governing+law", Host=host)
    assert got == status, data
    if status == 421:
        assert "hits" not in data.decode() and "allow-host" in json.loads(data)["error"]


# 2. cross-site writes ---------------------------------------------------------------


def test_a_write_from_another_sites_page_is_refused(served):
    url, upload_url, jobs, _ = served
    mine = urlsplit(upload_url).netloc
    files = [("note.txt", b"Cross-site text that must not be indexed.")]
    before = set(jobs.jobs)
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"}):  # fmt: skip
        status, _, data = upload(upload_url, files, **headers)
        assert status == 403 and "another site" in json.loads(data)["error"]
        status, _, _ = request(url, "POST", "/api/ask", json.dumps({"question": "x"}).encode(),
                               **{"Content-Type": "application/json", **headers})  # fmt: skip
        assert status == 403
    assert set(jobs.jobs) == before and not any(jobs.folder.rglob("note.txt"))
    same = upload(upload_url, files, Origin=f"http://{mine}")
    assert same[0] == 202


def test_uploads_are_off_unless_asked_for(served):
    status, _, data = upload(served[0], [("a.txt", b"text")])
    assert status == 404 and "--uploads" in json.loads(data)["error"]


# 3. pixel bombs ------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_a_huge_page_is_drawn_within_the_pixel_bound(tmp_path, encoder):
    from lateseg.pipeline import Pipeline

    pdf = tmp_path / "docs" / "poster.pdf"
    pdf.parent.mkdir()
    doc = pymupdf.open()
    page = doc.new_page(width=3000, height=3000)
    page.insert_text((100, 100), "A poster three thousand points wide. It says very little.")
    doc.save(pdf)
    with Pipeline.open(tmp_path / "index") as pipe:
        pipe.encoder = encoder
        pipe.ingest([pdf.parent], progress=False)
    svc = Service(tmp_path / "index", encoder=encoder)
    try:
        with serving(create_app(svc)) as url:
            _, _, data = request(url, "GET", "/api/search?q=poster")
            hit = json.loads(data)["hits"][0]
            for query in ("zoom=4", f"zoom=4&highlight={hit['start']}-{hit['end']}"):
                status, headers, png = request(
                    url, "GET", f"/api/documents/{hit['doc_id']}/pages/1.png?{query}"
                )
                assert status == 200 and headers["content-type"] == "image/png"
                assert max(png_size(png)) <= MAX_PAGE_SIDE
    finally:
        svc.close()


# 4. request bodies, 5. odd numbers, 15. kinds, 16. slow clients ---------------------------


def test_a_body_over_the_limit_is_refused_before_it_is_read(served):
    url = served[0]
    u = urlsplit(url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 50000000\r\n\r\n{")  # fmt: skip
        reply = reply_of(s)  # answered without the 50 MB
    assert reply.startswith("HTTP/1.1 413") and str(MAX_JSON_BYTES) in reply
    # and one that does not say its size is cut off as it passes the limit
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  b"\r\nTransfer-Encoding: chunked\r\n\r\n")  # fmt: skip
        piece = b"x" * 8192
        try:
            for _ in range(4 * MAX_JSON_BYTES // len(piece)):
                s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
        except OSError:
            pass  # the server answered and closed
        reply = reply_of(s)
    assert reply.startswith("HTTP/1.1 413")


@pytest.mark.parametrize(
    "field",
    [
        '"kv_budget": Infinity',
        '"kv_budget": NaN',
        '"kv_budget": -5',
        '"kv_budget": 1e300',
        '"kind": "spreadsheet"',
        '"answer": "guess"',
        '"k": 0',
    ],
)
def test_odd_values_get_422_never_500(served, field):
    body = ('{"question": "notice?", ' + field + "}").encode()
    status, _, data = request(
        served[0], "POST", "/api/ask", body, **{"Content-Type": "application/json"}
    )
    assert status == 422, data
    assert json.loads(data)["status"] == 422


def test_a_slow_body_is_cut_off(served):
    u = urlsplit(served[0])
    with socket.create_connection((u.hostname, u.port), timeout=300) as s:
        s.sendall(b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 40\r\n\r\n{\"question\"")  # fmt: skip
        t0 = time.monotonic()
        reply = reply_of(s)  # the rest never comes
    # cut by this app's 1 s idle limit, not the default one (15 s): room for a busy machine
    assert reply.startswith("HTTP/1.1 408") and time.monotonic() - t0 < BODY_IDLE_SECONDS


# 6. disconnects, 12. refusals --------------------------------------------------------------


@pytest.mark.slow
def test_a_client_that_goes_away_frees_its_answer_at_once(served):
    url, _, _, service = served
    service.queue = 1
    u = urlsplit(url)
    body = json.dumps({"question": DEMO_QUESTION, "answer": "generate", "stream": True}).encode()
    with socket.create_connection((u.hostname, u.port), timeout=120) as s:
        s.sendall(b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
        seen = b""
        while b"event: token" not in seen:  # the model is writing
            piece = s.recv(4096)
            assert piece, seen.decode(errors="replace")
            seen += piece
    t0 = time.monotonic()  # gone
    while time.monotonic() - t0 < 20:
        health = json.loads(request(url, "GET", "/api/health")[2])
        if health["answers_in_queue"] == 0:
            break
        time.sleep(0.2)
    assert health["answers_in_queue"] == 0 and time.monotonic() - t0 < 20


@pytest.mark.slow
def test_a_streamed_ask_refused_for_load_gets_503_not_an_event(served):
    url, _, _, service = served
    service.queue = 0
    body = json.dumps({"question": DEMO_QUESTION, "answer": "generate", "stream": True}).encode()
    with service._generation_slot():
        status, headers, data = request(
            url, "POST", "/api/ask", body, **{"Content-Type": "application/json"}
        )
    assert status == 503 and int(headers["retry-after"]) > 0 and b"event:" not in data
    service._streams = 10_000  # every stream taken: quotes are refused too, before streaming
    try:
        quoted = json.dumps({"question": DEMO_QUESTION, "stream": True}).encode()
        status, headers, _ = request(
            url, "POST", "/api/ask", quoted, **{"Content-Type": "application/json"}
        )
        assert status == 503 and headers["retry-after"]
    finally:
        service._streams = 0


@pytest.mark.slow
def test_concurrent_streamed_asks_are_answered_or_refused_before_the_stream(served):
    """Twelve streamed generated answers at once against a queue of one: each is a 200
    stream that ends in its answer, or a 503 with Retry-After before any event. (The
    place in the queue was checked before the stream and taken after it started: some
    were refused inside a 200 stream, with an ``error`` event.)"""

    url, _, _, service = served
    service.queue = 1
    body = json.dumps({"question": DEMO_QUESTION, "answer": "generate", "stream": True}).encode()
    replies: list[tuple[int, dict, bytes]] = []
    start = threading.Barrier(12)

    def ask() -> None:
        start.wait()
        replies.append(
            request(url, "POST", "/api/ask", body, **{"Content-Type": "application/json"})
        )

    threads = [threading.Thread(target=ask) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    service.queue = 0
    assert len(replies) == 12
    for status, headers, data in replies:
        if status == 200:
            assert b"event: answer" in data and b"event: error" not in data, data[-400:]
        else:
            assert status == 503 and int(headers["retry-after"]) > 0 and b"event:" not in data
    assert {status for status, _, _ in replies} == {200, 503}


# 7. archive totals, 8. damaged archives, 9. no leftovers ------------------------------------


def zipped(entries: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return out.getvalue()


@pytest.mark.slow
def test_archive_limits_hold_per_request_not_per_zip(served):
    """Three zips of 96 KiB each in one request, against 200 KiB unpacked in all: the
    third is refused; a zip of more files than a request may bring is refused whole."""
    _, upload_url, jobs, _ = served
    rng = __import__("random").Random(7)
    words = [f"w{n}" for n in range(5000)]
    mib = " ".join(rng.choice(words) for _ in range(20_000)).encode()[: 48 << 10]
    parts = [
        (f"part{i}.zip", zipped({f"f{i}{j}.txt": b"%d%d " % (i, j) + mib[:-4] for j in range(2)}))
        for i in range(3)
    ]  # every file's content its own: none is a duplicate
    status, _, data = upload(upload_url, parts)
    assert status == 202, data
    job = json.loads(data)
    (refused,) = job["refused"]
    assert refused["file"] == "part2.zip" and "with this upload's other zips" in refused["reason"]
    wait(upload_url, job["job"])
    many = zipped({f"tiny{i}.txt": b"x" for i in range(jobs.limits.max_files + 1)})
    status, _, data = upload(upload_url, [("many.zip", many)])
    assert status == 400 and "at most" in json.loads(data)["error"]


def _damaged(kind: str) -> bytes:
    data = bytearray(zipped({"doc.txt": b"A plain sentence about rent. " * 200}))
    if kind == "crc":
        at = data.index(b"PK\x03\x04") + 14  # the local header's CRC-32
        data[at : at + 4] = b"\0\0\0\0"
        central = data.index(b"PK\x01\x02") + 16
        data[central : central + 4] = b"\0\0\0\0"
    elif kind == "deflate":
        start = data.index(b"PK\x03\x04") + 30 + len("doc.txt")
        data[start + 5 : start + 40] = os.urandom(35)
    elif kind == "method":
        for sig, off in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
            at = data.index(sig) + off
            data[at : at + 2] = struct.pack("<H", 99)  # AES, which zipfile cannot read
    return bytes(data)


@pytest.mark.parametrize("kind", ["crc", "deflate", "method"])
def test_a_damaged_archive_is_refused_with_its_reason_and_leaves_nothing(served, kind):
    _, upload_url, jobs, _ = served
    before = set(jobs.jobs)
    folders = {p for p in jobs.folder.iterdir() if p.is_dir()}
    status, _, data = upload(upload_url, [("bad.zip", _damaged(kind))])
    assert status == 400, data
    reason = json.loads(data)["error"]
    assert "bad.zip" in reason and ("damaged" in reason or "not a readable zip" in reason)
    assert set(jobs.jobs) == before  # no job
    assert {p for p in jobs.folder.iterdir() if p.is_dir()} == folders  # no folder


def test_the_same_content_is_not_indexed_twice(served):
    _, upload_url, _, _ = served
    text = b"The Harbour Master collects a berth fee of nine dollars per night."
    first = json.loads(upload(upload_url, [("berth.txt", text)])[2])
    assert wait(upload_url, first["job"])["added"] == ["berth.txt"]
    again = upload(upload_url, [("copy of berth.txt", text), ("twin.txt", text)])
    assert again[0] == 400
    reason = json.loads(again[2])["error"]
    assert "duplicate" in reason and "already indexed as berth.txt" in reason


def test_finished_jobs_are_trimmed_and_the_quota_holds(tmp_path):
    jobs = Jobs(tmp_path / "up", tmp_path / "index", Limits(quota=1 << 10))
    old = [jobs.new_job() for _ in range(3)]
    for j in old:
        j.finished = time.time() - 2 * 24 * 3600
    fresh = jobs.new_job()
    assert set(jobs.jobs) == {fresh.id} and not any(j.folder.exists() for j in old)
    jobs.add_file(fresh, "big.txt", io.BytesIO(b"x" * 4096))
    assert fresh.files == [] and "over the upload limit" in fresh.refused[0][1]


# 10. a full disk, 11. tokens, 13. server paths, 14. /docs -----------------------------------


@pytest.mark.slow
def test_ingest_on_a_full_disk_says_so_in_one_line(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)],
                          capture_output=True)  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.decode().strip()}")
    try:
        out = subprocess.run(
            [sys.executable, "-m", "lateseg", "ingest", str(DATA / "contracts"),
             str(DATA / "sample_repo"), "--index", str(mount / "idx")],
            capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
            timeout=600, cwd=ROOT,
        )  # fmt: skip
        assert out.returncode == 1 and "Traceback" not in out.stderr
        errors = [line for line in out.stderr.splitlines() if "error" in line]
        assert (
            len(errors) == 1 and "disk full" in errors[0] and "nothing already indexed" in errors[0]
        )
        assert not list(mount.glob("idx/*.tmp"))  # no half-written cache left
        verify = subprocess.run(
            [sys.executable, "-m", "lateseg", "index", "verify", "--index", str(mount / "idx")],
            capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}, cwd=ROOT,
        )  # fmt: skip
        assert verify.returncode == 0, verify.stdout + verify.stderr
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_token_from_the_environment_needs_16_characters(monkeypatch, capsys, sample_index):
    from lateseg.cli import main

    monkeypatch.setenv("LATESEG_SERVE_TOKEN", "short")
    assert main(["serve", "--index", str(sample_index.folder)]) == 1
    assert "at least 16 characters" in capsys.readouterr().err


def test_no_absolute_server_path_leaves_the_server(served):
    url, upload_url, _, _ = served
    here = str(ROOT)
    _, _, data = request(url, "GET", "/api/search?q=notice+period&k=10")
    hits = json.loads(data)["hits"]
    assert hits and all(not h["source"].startswith("/") for h in hits)
    assert here not in data.decode() and "contracts/msa.pdf" in data.decode()
    body = json.dumps({"question": DEMO_QUESTION}).encode()
    _, _, data = request(url, "POST", "/api/ask", body, **{"Content-Type": "application/json"})
    assert here not in data.decode()
    assert json.loads(data)["phrase"]["sentence"]["cite"].startswith("contracts/msa.pdf, p. 4")
    text = b"The dock warden locks the east gate at nine in the evening."
    job = json.loads(upload(upload_url, [("dock.txt", text)])[2])
    wait(upload_url, job["job"])
    _, _, data = request(upload_url, "GET", "/api/search?q=dock+warden+east+gate")
    assert str(served[2].folder) not in data.decode()
    hit = json.loads(data)["hits"][0]
    assert hit["source"] == "uploads/dock.txt"
    _, _, doc = request(upload_url, "GET", f"/api/documents/{hit['doc_id']}")
    assert json.loads(doc)["source"] == "uploads/dock.txt"


def test_the_docs_page_is_off_unless_asked_for(sample_index, encoder):
    from fastapi.testclient import TestClient

    svc = Service(sample_index.folder, encoder=encoder)
    try:
        plain = TestClient(create_app(svc), base_url="http://127.0.0.1")
        assert (
            plain.get("/docs").status_code == 404 and plain.get("/openapi.json").status_code == 200
        )
        docs = TestClient(create_app(svc, docs=True), base_url="http://127.0.0.1")
        assert docs.get("/docs").status_code == 200
    finally:
        svc.close()


def test_concurrent_reads_and_a_write_keep_answering(served):
    """A sanity check of the guard under load: readers go on while refusals are made."""
    url = served[0]
    errors: list[int] = []

    def read() -> None:
        for _ in range(5):
            status = request(url, "GET", "/api/search?q=governing+law")[0]
            if status != 200:
                errors.append(status)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    assert request(url, "GET", "/api/health", Host="evil.example")[0] == 421
    for t in threads:
        t.join(60)
    assert not errors
