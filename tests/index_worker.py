"""A second process for the index tests, driven by JSON lines on stdin.

``python tests/index_worker.py serve``: a long-lived process that keeps one Pipeline
open between commands, as a notebook or a server would::

    {"op": "ping"}                         -> null (once the imports are done)
    {"op": "open", "index": DIR}           -> null
    {"op": "ingest", "paths": [...], "prune": false} -> {"added": [...], ...}
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
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def serve() -> None:
    from lateseg.pipeline import Pipeline

    pipe: Pipeline | None = None
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            op = cmd["op"]
            result: Any = None
            if op == "ping":
                pass
            elif op == "open":
                pipe = Pipeline.open(cmd["index"])
            elif op == "close":
                if pipe is not None:
                    pipe.close()
                pipe = None
            else:
                assert pipe is not None, "open an index first"
                if op == "ingest":
                    report = pipe.ingest(
                        cmd["paths"], prune=cmd.get("prune", False), progress=False, workers=0
                    )
                    result = report.to_dict()
                elif op == "remove":
                    result = pipe.remove(cmd["sources"])
                elif op == "search":
                    hits = pipe.search(cmd["query"], cmd.get("k", 5), mode=cmd.get("mode", "dense"))
                    result = [[h.source, h.start, h.end, h.score] for h in hits]
                elif op == "sources":
                    result = pipe.sources()
                else:
                    raise ValueError(f"unknown op {op!r}")
            reply = {"ok": True, "result": result}
        except Exception as e:
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


def zygote() -> None:
    import torch  # noqa: F401 - imported once, before any fork
    import transformers.models.bert.modeling_bert  # noqa: F401

    import lateseg.ingest.folder
    import lateseg.ingest.parallel  # noqa: F401
    from lateseg.pipeline import Pipeline

    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            result: Any = None
            if cmd["op"] == "ping":
                pass
            elif cmd["op"] == "fork-ingest":
                pid = os.fork()
                if pid == 0:  # the child: ingest, then leave without running atexit hooks
                    code = 1
                    try:
                        with Pipeline.open(cmd["index"]) as pipe:
                            pipe.ingest(cmd["paths"], progress=False, workers=0)
                        code = 0
                    finally:
                        os._exit(code)
                result = pid
            elif cmd["op"] in ("wait", "poll"):
                flags = os.WNOHANG if cmd["op"] == "poll" else 0
                pid, status = os.waitpid(cmd["pid"], flags)
                if pid == 0:  # polled: still running
                    result = None
                elif os.WIFSIGNALED(status):
                    result = -os.WTERMSIG(status)
                else:
                    result = os.WEXITSTATUS(status)
            else:
                raise ValueError(f"unknown op {cmd['op']!r}")
            reply = {"ok": True, "result": result}
        except Exception as e:
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    {"serve": serve, "zygote": zygote}[sys.argv[1]]()
