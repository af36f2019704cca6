"""Model servers for the tests of :mod:`lateseg.generate.remote.client`.

:class:`FaultServer` is a small OpenAI-compatible server on a free localhost port that fails
on purpose: the model name asked for picks the fault (``MODES``). It records what it saw
(requests per model, the Authorization headers, whether a streaming client went away).

:func:`start_transformers_serve` starts the real thing, ``transformers serve``, on the
packaged SmolLM2 folder, offline."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ANSWER = ["The ", "term ", "is ", "five ", "years ", "[1]."]
#: The fault each model name asks for.
MODES = (
    "ok",  # a normal answer, whole or streamed
    "auth",  # 401 unless the key is KEY; the error body echoes the key it got
    "forbidden",  # always 403
    "flaky",  # 503 twice (Retry-After: 0), then ok
    "rate",  # 429 twice (Retry-After: 0), then ok
    "rate-long",  # 429 asking for an hour
    "down",  # always 500
    "stall",  # streams one delta, then says nothing
    "big",  # an answer far over any cap; streamed, endless big chunks
    "malformed",  # 200 with a body that is not JSON
    "empty",  # 200 with "choices": []
    "endless",  # streams a delta every 20 ms until the client goes away
)
KEY = "sk-test-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FaultServer:
    """An OpenAI-compatible server whose every model is a fault (see ``MODES``)."""

    def __init__(self, tokenizer: bool = False) -> None:
        self.tokenizer = tokenizer
        self.calls: Counter[str] = Counter()
        self.auth_headers: list[str | None] = []
        #: What model "ok" answers (whole, or streamed a word a chunk); None: ANSWER.
        self.reply: str | None = None
        #: The chat requests' bodies, as received.
        self.bodies: list[dict[str, Any]] = []
        #: Per model: set when a streaming client went away mid-answer.
        self.disconnected = {m: threading.Event() for m in MODES}
        self.stop = threading.Event()
        self.httpd = _QuietServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FaultServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=10)


class _QuietServer(ThreadingHTTPServer):
    """A client that closes a kept-alive connection while a handler waits for its next
    request resets it; socketserver prints that traceback to stderr, where the tests
    read what lateseg itself printed. Those resets are the client's right: not shown."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler(server: FaultServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(data).encode(), headers)

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self._json(200, {"object": "list", "data": [{"id": m} for m in MODES]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if self.path == "/tokenize" and server.tokenizer:
                # One "token" a word, so a test can tell it from the estimate.
                self._json(200, {"tokens": list(range(len(body["content"].split())))})
                return
            if self.path != "/v1/chat/completions":
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            model = body.get("model")
            server.calls[model] += 1
            server.bodies.append(body)
            server.auth_headers.append(self.headers.get("Authorization"))
            n = server.calls[model]
            if model not in MODES:
                self._json(404, {"error": {"message": f"model {model} not found"}})
            elif model == "auth" and self.headers.get("Authorization") != f"Bearer {KEY}":
                got = self.headers.get("Authorization")
                self._json(401, {"error": {"message": f"Incorrect API key provided: {got}"}})
            elif model == "forbidden":
                self._json(403, {"error": {"message": "forbidden"}})
            elif model in ("flaky", "rate") and n <= 2:
                code = 503 if model == "flaky" else 429
                self._json(code, {"error": {"message": "busy"}}, {"Retry-After": "0"})
            elif model == "rate-long":
                self._json(429, {"error": {"message": "slow down"}}, {"Retry-After": "3600"})
            elif model == "down":
                self._json(500, {"error": {"message": "internal error"}})
            elif model == "malformed":
                self._send(200, b"<html>Bad gateway</html>")
            elif model == "empty":
                self._json(200, {"model": model, "choices": []})
            elif model == "big" and not body.get("stream"):
                text = "x" * 200_000
                self._json(200, _completion(model, text))
            elif body.get("stream"):
                self._stream(model)
            else:
                self._json(200, _completion(model, server.reply or "".join(ANSWER)))

        def _stream(self, model: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()

            def event(data: str) -> None:
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()

            def delta(text: str) -> str:
                return json.dumps({"model": model, "choices": [{"delta": {"content": text}}]})

            try:
                self.wfile.write(b": ping\n\n")
                if model == "stall":
                    event(delta(ANSWER[0]))
                    server.stop.wait(30)
                elif model in ("endless", "big"):
                    piece = "word " if model == "endless" else "x" * 10_000
                    deadline = time.monotonic() + 30
                    while not server.stop.is_set() and time.monotonic() < deadline:
                        event(delta(piece))
                        time.sleep(0.02)
                else:
                    reply = server.reply
                    words = [] if reply is None else reply.split(" ")
                    pieces = ANSWER if reply is None else [w + " " for w in words[:-1]] + words[-1:]
                    for text in pieces:
                        event(delta(text))
                    event(json.dumps({"choices": [{"delta": {}, "finish_reason": "stop"}]}))
                    event("[DONE]")
            except (BrokenPipeError, ConnectionResetError):
                server.disconnected[model].set()
            self.close_connection = True

    return Handler


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "model": model,
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 6},
    }


def smollm2_folder() -> Path:
    """The packaged SmolLM2 converted to a Hugging Face folder, as lateseg loads it."""
    from lateseg.encode.models import default_generator_dir

    return default_generator_dir()


def start_transformers_serve(
    folder: Path, log_path: Path, ceiling_s: float = 240.0
) -> tuple[Any, str]:
    """``transformers serve FOLDER`` on a free port, offline, logging to ``log_path``; its
    process and base URL, once ``/health`` answers (within ``ceiling_s``, else it is
    killed and this raises)."""
    port = free_port()
    exe = Path(sys.executable).with_name("transformers")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    # float32, as lateseg's in-process generator runs on a CPU: the same weights at the
    # same precision give the same greedy text, so the two paths can be compared.
    cmd = [str(exe), "serve", str(folder), "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--dtype", "float32"]
    # Its log goes to a file: a pipe nobody reads would fill and block the server.
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + ceiling_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"transformers serve exited with {proc.returncode}: {err}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return proc, f"http://127.0.0.1:{port}/v1"
        except OSError:
            time.sleep(0.5)
    stop_process(proc)
    raise RuntimeError(f"transformers serve did not answer /health within {ceiling_s:g} s")


def stop_process(proc: Any) -> None:
    """Stop ``proc`` (terminate, then kill after 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
