"""Forward passes side by side, where this CPU runs them faster so.

OpenVINO can compile a graph for throughput: several streams, each with its share of the
cores, each running a batch of its own. Measured on an AMD EPYC Zen 4 (2 CPUs, AVX-512
bf16, no AMX), two streams of one thread read all-MiniLM-L6-v2 12-25 % faster in bf16
than one stream of two threads, and 2-5 % slower in fp32
(``bench/results/openvino_streams.md``). Which wins is a property of the CPU, the
precision and the model, so it is measured, not assumed: the first time a graph runs
batches on a machine, :func:`streams_for` times both ways (about 3 seconds) and keeps
the answer in the lateseg home (``calibration.json``) for every later process there.
``LATESEG_STREAMS=N`` decides instead (``1``: one batch at a time, as before).

Only many batches run side by side (:meth:`Streams.run`: a document's windows, the
chunks embedded alone); a single batch (a query, a one-window document) keeps the
one-stream graph, the faster for one batch. The two graphs compute the same function:
at fp32 to 1e-5, at bf16 to bf16's rounding (``tests/test_streams.py``).
"""

from __future__ import annotations

import collections
import json
import logging
import math
import os
import stat
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from lateseg.home import lateseg_home

log = logging.getLogger(__name__)

Forward = Callable[[np.ndarray, np.ndarray], np.ndarray]
Pair = tuple[np.ndarray, np.ndarray]

#: Side by side only when it reads at least this much faster than one at a time.
GAIN = 1.05
#: The calibration's batches: (batch, length), each stream's share, and rounds.
SHAPE = (32, 128)  # the CPU's batch budget (late.CPU_BATCH_TOKENS) in windows
ROUNDS = 3
MOST_STREAMS = 64
CACHE_BYTES = 1 << 20  # a calibration file larger than this is not read


#: Whether this process was forked from one that had imported this module. OpenVINO's
#: runtime may have started threads there that a child lacks: a forked ingest that ran
#: batches side by side waited forever, with the stream graph compiled in the child as
#: well as in the parent. Such a process reads one batch at a time.
_forked = False


def _in_the_child() -> None:
    global _forked
    _forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_the_child)


def forked() -> bool:
    """Whether this process was forked after lateseg's encoder was imported."""
    return _forked


class Streams:
    """``forward`` (a graph compiled for ``n`` streams, run from any thread) over many
    batches, ``n`` of them in flight at a time, the results in order.

    Safe across ``fork``: a child process has none of its parent's threads, so a pool
    the parent had started would take batches and never run them (the child waited
    forever); the first run in a new process starts a pool of its own."""

    def __init__(self, forward: Forward, n: int) -> None:
        self.forward = forward
        self.n = n
        self._pid = os.getpid()
        self._pool = ThreadPoolExecutor(n, thread_name_prefix="lateseg-stream")

    def close(self) -> None:
        if self._pid == os.getpid():  # a forked child's copy has no threads to stop
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _threads(self) -> ThreadPoolExecutor:
        """This process's pool: a new one in a child forked after the pool started."""
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._pool = ThreadPoolExecutor(self.n, thread_name_prefix="lateseg-stream")
        return self._pool

    def run(self, pairs: Iterable[Pair]) -> Iterator[np.ndarray]:
        pending: collections.deque[Future[np.ndarray]] = collections.deque()
        pool = self._threads()
        try:
            for ids, mask in pairs:
                pending.append(pool.submit(self.forward, ids, mask))
                if len(pending) >= self.n:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:  # the caller stopped early: wait for what runs
                future.cancel()
            for future in pending:
                if not future.cancelled():
                    future.exception()


def cpu_identity() -> str:
    """This CPU as ``/proc/cpuinfo`` names it (vendor, family, model, name), where it can
    be read: part of the calibration's key, so a home moved to another machine measures
    again."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            head = f.read(1 << 16)  # the first processor's entry is near the start
    except OSError:
        return ""
    fields = {}
    for line in head.splitlines():
        name, _, value = line.partition(":")
        name = name.strip()
        if name in ("vendor_id", "cpu family", "model", "model name") and name not in fields:
            fields[name] = value.strip()
    return " ".join(fields.values())


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def chosen() -> int | None:
    """``LATESEG_STREAMS`` as a number of streams, or None (measure)."""
    value = os.environ.get("LATESEG_STREAMS", "").strip()
    if not value or value == "auto":
        return None
    try:
        n = int(value)
    except ValueError:
        log.warning("LATESEG_STREAMS=%r is not a number of streams: measuring instead", value)
        return None
    return max(1, min(n, MOST_STREAMS))


def timed_ratio(latency: Forward, streams: Streams) -> float:
    """How many times faster ``streams`` reads batches of :data:`SHAPE` than ``latency``
    one at a time (median of :data:`ROUNDS` interleaved rounds of the same batches)."""
    b, n = SHAPE
    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 20000, (b, n)).astype(np.int64)
    pairs = [(ids, np.ones_like(ids))] * (2 * streams.n)
    latency(*pairs[0])  # first runs plan their shapes: not timed
    list(streams.run(pairs[: streams.n]))
    ratios = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for pair in pairs:
            latency(*pair)
        alone = time.perf_counter() - t0
        t0 = time.perf_counter()
        list(streams.run(pairs))
        ratios.append(alone / (time.perf_counter() - t0))
    return statistics.median(ratios)


_lock = threading.Lock()


def streams_for(key: str, measure: Callable[[], tuple[int, float]]) -> int:
    """Streams to run batches with for ``key`` (the CPU, runtime, precision and graph):
    ``LATESEG_STREAMS``, else the answer kept in the lateseg home, else ``measure()``
    (its streams and how much faster they read) kept there: its streams where they read
    :data:`GAIN` times faster, else 1."""
    forced = chosen()
    if forced is not None:
        return forced
    path = lateseg_home() / "calibration.json"
    with _lock:
        known = _read(path)
        entry = known.get(key)
        if isinstance(entry, dict):
            n, ratio = entry.get("streams"), entry.get("ratio")
            if (
                isinstance(n, int)
                and 1 <= n <= min(MOST_STREAMS, cores())
                and isinstance(ratio, float)
                and math.isfinite(ratio)
            ):
                return n if ratio >= GAIN else 1
        n, ratio = measure()
        log.info("%d streams read batches %.2fx as fast as one here (%s)", n, ratio, key)
        known[key] = {"streams": n, "ratio": round(float(ratio), 3), "when": time.time()}
        _write(path, known)
        return n if ratio >= GAIN else 1


def _read(path: Path) -> dict[str, object]:
    """The calibration file, or nothing where it is missing, not a regular file (a FIFO,
    a device), too large, not JSON (or nested too deep to parse) or not a mapping."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return {}
    except OSError as e:
        log.warning("%s cannot be read (%s): measuring again", path, e)
        return {}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            log.warning("%s is not a regular file: measuring again", path)
            return {}
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(CACHE_BYTES + 1)
        if len(raw) > CACHE_BYTES:
            log.warning("%s is larger than %d bytes: measuring again", path, CACHE_BYTES)
            return {}
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        log.warning("%s cannot be read (%s): measuring again", path, e)
        return {}
    finally:
        os.close(fd)
    return data if isinstance(data, dict) else {}


def _write(path: Path, known: dict[str, object]) -> None:
    """``known`` into ``path``, atomically; a home that cannot be written only means
    measuring again next time."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", "utf-8")
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        log.info("the calibration is not kept (%s): %s", path, e)
