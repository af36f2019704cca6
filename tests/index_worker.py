"""A second process for the index tests, driven by JSON lines on stdin.

``python tests/index_worker.py serve``: a long-lived process that keeps one Pipeline
open between commands, as a notebook or a server would::

    {"op": "ping"}                         -> null (once the imports are done)
    {"op": "open", "index": DIR, "cache_dir": null} -> null (DIR: or a postgresql:// URL)
    {"op": "ingest", "paths": [...], "prune": false} -> {"added": [...], ...}
        (with "gate": PATH, "pause_at": N: held before it writes its N-th document,
        PATH.reached created, until the file PATH exists)
    {"op": "remove", "sources": [...]}     -> [removed sources]
    {"op": "search", "query": Q, "k": 5, "mode": "dense"} -> [[source, start, end, score]]
    {"op": "sources"}                      -> [sources]
    {"op": "close"}                        -> null

``python tests/index_worker.py zygote``: imports torch, transformers and lateseg once,
never runs the model, and forks a child per ``{"op": "fork-ingest", "index": DIR,
"paths": [...]}`` (answering its pid) that ingests and exits; ``{"op": "wait", "pid":
N}`` answers its exit status (negative: the signal that killed it), and ``{"op":
"poll", "pid": N}`` the same without waiting (null while it runs). A killed ingest
then costs a fork instead of a fresh interpreter. Forking is safe here because the
parent never started torch's thread pools; each child loads the model itself.

Every answer is one JSON line ``{"ok": true, "result": ...}`` or ``{"ok": false,
"error": "..."}``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def answer(handle: Callable[[dict[str, Any]], Any]) -> None:
    """Read commands from stdin; reply to each with ``handle(command)`` or its error."""
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            reply = {"ok": True, "result": None if cmd["op"] == "ping" else handle(cmd)}
        except Exception as e:
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


def _gate(gate: str, pause_at: int) -> Callable[[], None]:
    """Hold the next ingest at a point chosen by its progress: before it writes its
    ``pause_at``-th document, create ``gate + ".reached"`` and wait until the file
    ``gate`` exists (at most 600 s: a ceiling for a lost test, not a pace). Returns what
    undoes it."""
    import time
    from pathlib import Path

    from lateseg.index.writer import Writer

    real = Writer.add
    calls = 0

    def add(self: Writer, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == pause_at:
            Path(gate + ".reached").touch()
            deadline = time.monotonic() + 600
            while not Path(gate).exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return real(self, *args, **kwargs)

    Writer.add = add  # type: ignore[method-assign]

    def undo() -> None:
        Writer.add = real  # type: ignore[method-assign]

    return undo


def serve() -> None:
    from lateseg.pipeline import Pipeline

    pipe: Pipeline | None = None

    def handle(cmd: dict[str, Any]) -> Any:
        nonlocal pipe
        op = cmd["op"]
        if op == "open":
            pipe = Pipeline.open(cmd["index"], cache_dir=cmd.get("cache_dir"))
            return None
        if op == "close":
            if pipe is not None:
                pipe.close()
            pipe = None
            return None
        assert pipe is not None, "open an index first"
        if op == "ingest":
            prune = cmd.get("prune", False)
            undo = _gate(cmd["gate"], cmd.get("pause_at", 2)) if cmd.get("gate") else None
            try:
                return pipe.ingest(cmd["paths"], prune=prune, progress=False, workers=0).to_dict()
            finally:
                if undo is not None:
                    undo()
        if op == "remove":
            return pipe.remove(cmd["sources"])
        if op == "search":
            hits = pipe.search(cmd["query"], cmd.get("k", 5), mode=cmd.get("mode", "dense"))
            return [[h.source, h.start, h.end, h.score] for h in hits]
        if op == "sources":
            return pipe.sources()
        raise ValueError(f"unknown op {op!r}")

    answer(handle)


def zygote() -> None:
    import torch  # noqa: F401 - imported once, before any fork
    import transformers.models.bert.modeling_bert  # noqa: F401

    import lateseg.ingest.folder
    import lateseg.ingest.parallel  # noqa: F401
    from lateseg.pipeline import Pipeline

    def handle(cmd: dict[str, Any]) -> Any:
        if cmd["op"] == "fork-ingest":
            pid = os.fork()
            if pid == 0:  # the child: ingest, then leave without running atexit hooks
                code = 1
                try:
                    with Pipeline.open(cmd["index"], cache_dir=cmd.get("cache_dir")) as pipe:
                        pipe.ingest(cmd["paths"], progress=False, workers=0)
                    code = 0
                finally:
                    os._exit(code)
            return pid
        if cmd["op"] in ("wait", "poll"):
            flags = os.WNOHANG if cmd["op"] == "poll" else 0
            pid, status = os.waitpid(cmd["pid"], flags)
            if pid == 0:  # polled: still running
                return None
            return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        raise ValueError(f"unknown op {cmd['op']!r}")

    answer(handle)


if __name__ == "__main__":
    {"serve": serve, "zygote": zygote}[sys.argv[1]]()
