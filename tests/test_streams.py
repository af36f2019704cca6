"""Forward passes side by side (lateseg.encode.streams): measured once per machine, kept
in the lateseg home, and the same vectors as one batch at a time."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import threading
import time

import numpy as np
import pytest

from lateseg.encode.streams import GAIN, Streams, forked, streams_for


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LATESEG_HOME", str(tmp_path))
    monkeypatch.delenv("LATESEG_STREAMS", raising=False)
    return tmp_path


def test_the_measurement_is_made_once_and_kept_in_the_home(home):
    calls = []

    def measure():
        calls.append(1)
        return 2, 1.3

    assert streams_for("cpu A|bf16", measure) == 2
    assert streams_for("cpu A|bf16", measure) == 2
    assert len(calls) == 1  # the second answer came from the file
    kept = json.loads((home / "calibration.json").read_text())
    assert kept["cpu A|bf16"]["streams"] == 2 and kept["cpu A|bf16"]["ratio"] == 1.3
    # another CPU, precision or graph is measured on its own; a gain below GAIN: one
    assert streams_for("cpu A|f32", lambda: (2, GAIN - 0.06)) == 1
    assert streams_for("cpu A|f32", lambda: pytest.fail("measured twice")) == 1
    assert set(json.loads((home / "calibration.json").read_text())) == {"cpu A|bf16", "cpu A|f32"}


@pytest.mark.parametrize(
    "content",
    [
        b"not json{",
        b'["a list"]',
        b'{"k": {"streams": 100000, "ratio": 2.0}}',
        b'{"k": {"streams": "2", "ratio": 2.0}}',
        b'{"k": {"streams": 2}}',
        b"{" + b" " * (2 << 20) + b"}",  # larger than any calibration: not read
    ],
)
def test_a_damaged_or_hostile_calibration_file_is_measured_again(home, content):
    (home / "calibration.json").write_bytes(content)
    assert streams_for("k", lambda: (3, 1.5)) == 3
    assert json.loads((home / "calibration.json").read_text())["k"]["streams"] == 3


def test_lateseg_streams_decides_without_measuring(home, monkeypatch, caplog):
    monkeypatch.setenv("LATESEG_STREAMS", "1")
    assert streams_for("k", lambda: pytest.fail("measured")) == 1
    monkeypatch.setenv("LATESEG_STREAMS", "4")
    assert streams_for("k", lambda: pytest.fail("measured")) == 4
    monkeypatch.setenv("LATESEG_STREAMS", "many")
    assert streams_for("k", lambda: (2, 1.2)) == 2  # not a number: measured, with a warning
    assert "LATESEG_STREAMS" in caplog.text


def test_batches_side_by_side_come_back_in_order_with_at_most_n_in_flight():
    running, most = [0], [0]
    lock = threading.Lock()

    def forward(ids, mask):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01 * (3 - int(ids[0, 0]) % 3))  # later batches may finish first
        with lock:
            running[0] -= 1
        return ids.astype(np.float32)[:, :, None]

    streams = Streams(forward, 2)
    pairs = [(np.full((1, 2), i), np.ones((1, 2), np.int64)) for i in range(12)]
    got = [int(out[0, 0, 0]) for out in streams.run(iter(pairs))]
    assert got == list(range(12)) and most[0] == 2
    # a caller that stops early leaves nothing running, and nothing more is started
    given = iter(pairs)
    run = streams.run(given)
    assert int(next(run)[0, 0, 0]) == 0
    run.close()
    assert running[0] == 0
    assert len(list(given)) == 12 - 2  # the two read before the first came back: no more
    streams.close()


def _in_a_forked_child(work, seconds: float = 120.0) -> int:
    """``work()`` (True: right) in a child forked from this process, which has threads
    running; the child's exit status: 0 right, 1 wrong, 2 an error, or -SIGALRM when
    it hung past ``seconds`` (then killed, so a hang fails the test, never the suite)."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 2
        try:
            signal.alarm(int(seconds))
            code = 0 if work() else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + seconds + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_a_forked_process_knows_it_is_one():
    assert not forked()
    assert _in_a_forked_child(forked, 20) == 0


def test_streams_run_in_a_process_forked_after_their_threads_started():
    """A child forked after the pool's threads started has none of them: it gets a pool
    of its own instead of waiting forever for threads that are not there (a process
    that forks workers after ingesting once, as a pre-forking server does)."""
    streams = Streams(lambda ids, mask: ids.astype(np.float32) * 2, 2)
    pairs = [(np.full((1, 3), i), np.ones((1, 3), np.int64)) for i in range(6)]
    assert [int(o[0, 0]) for o in streams.run(pairs)] == [0, 2, 4, 6, 8, 10]  # threads up
    status = _in_a_forked_child(
        lambda: [int(o[0, 0]) for o in streams.run(pairs)] == [0, 2, 4, 6, 8, 10], 20
    )
    assert status == 0, status
    assert [int(o[0, 0]) for o in streams.run(pairs)] == [0, 2, 4, 6, 8, 10]  # parent's too
    streams.close()


def test_a_model_reading_side_by_side_reads_one_at_a_time_in_a_forked_child(encoder, monkeypatch):
    """A process forked after the model ran its batches side by side (OpenVINO's
    stream threads stay in the parent, and a child that used them waited forever) reads
    one batch at a time with the one-stream graph, and gets what that graph gives."""
    model = encoder.embedder
    if not model.backend.startswith("openvino"):
        pytest.skip(f"{model.backend} has no streams")
    two = _fresh(model, monkeypatch, 2)
    rng = np.random.default_rng(2)
    pairs = [(rng.integers(1000, 20000, (4, 40)).astype(np.int64), np.ones((4, 40), np.int64))
             for _ in range(4)]  # fmt: skip
    list(two.forward_many(pairs))  # the stream graph compiled, its threads started
    assert two.streams() is not None and two.streams().n == 2
    alone = [two.forward(ids, mask) for ids, mask in pairs]

    def same() -> bool:
        there = list(two.forward_many(pairs))
        return two.streams() is None and all(
            np.allclose(a, b, atol=1e-6) for a, b in zip(alone, there, strict=True)
        )

    assert _in_a_forked_child(same) == 0
    assert two.streams() is not None  # the parent keeps its streams


def _fresh(embedder, monkeypatch, streams):
    """The loaded model with its side-by-side decision not yet made, ``streams`` forced."""
    monkeypatch.setenv("LATESEG_STREAMS", str(streams))
    return dataclasses.replace(embedder)


@pytest.mark.parametrize("which", ["fp32", "default"])
def test_side_by_side_batches_give_what_one_at_a_time_gives(
    encoder, fp32_encoder, monkeypatch, which
):
    model = (fp32_encoder if which == "fp32" else encoder).embedder
    if not model.backend.startswith("openvino"):
        pytest.skip(f"{model.backend} has no streams")
    rng = np.random.default_rng(1)
    pairs = []
    for b, n in [(4, 130), (16, 64), (1, 9), (8, 130)]:
        ids = rng.integers(1000, 20000, (b, n)).astype(np.int64)
        mask = np.ones_like(ids)
        mask[0, n // 2 :] = 0  # padding too
        pairs.append((ids, mask))
    one = _fresh(model, monkeypatch, 1)
    assert one.streams() is None
    alone = list(one.forward_many(pairs))
    two = _fresh(model, monkeypatch, 2)
    assert two.streams() is not None and two.streams().n == 2
    together = list(two.forward_many(pairs))
    for a, t in zip(alone, together, strict=True):
        # fp32 to 1e-5; bf16 to its rounding (a few steps of 2**-8 of the largest value)
        tol = 1e-5 if which == "fp32" else 4 * 2.0**-8 * float(np.abs(a).max())
        np.testing.assert_allclose(t, a, atol=tol)
    texts = [["the supplier shall deliver", "fees are due"], ["a licence", "b", "c"]]
    np.testing.assert_allclose(
        np.vstack(list(two.embed_many(texts, ""))),
        np.vstack([one.embed(t, "") for t in texts]),
        atol=1e-5 if which == "fp32" else 2e-2,
    )


def test_a_model_without_a_graph_runs_one_batch_at_a_time(encoder, monkeypatch):
    monkeypatch.setenv("LATESEG_STREAMS", "2")
    plain = dataclasses.replace(encoder.embedder, graph=None)
    assert plain.streams() is None
    ids = np.ones((2, 5), np.int64)
    out = list(plain.forward_many([(ids, ids)]))
    np.testing.assert_allclose(out[0], encoder.embedder.forward(ids, ids), atol=1e-5)


def test_a_model_follows_the_answer_kept_for_this_machine(encoder, home, monkeypatch):
    from lateseg.encode.runtime import streams_key

    model = encoder.embedder
    if not model.backend.startswith("openvino"):
        pytest.skip(f"{model.backend} has no streams")
    key = streams_key(model.graph, model.backend)
    assert model.graph.parent.name in key and ("bf16" in key or "f32" in key)

    def not_again(*_):
        raise AssertionError("measured although the answer is kept")

    monkeypatch.setattr("lateseg.encode.backends.timed_ratio", not_again)
    for streams, ratio, expected in [(2, 1.4, 2), (2, 1.0, None)]:
        (home / "calibration.json").write_text(
            json.dumps({key: {"streams": streams, "ratio": ratio}})
        )
        fresh = dataclasses.replace(model)
        got = fresh.streams()
        assert (got and got.n) == expected
        assert fresh.streams() is got  # decided once per loaded model


def test_one_batch_keeps_the_one_stream_graph_and_decides_nothing(encoder, monkeypatch):
    model = encoder.embedder
    if not model.backend.startswith("openvino"):
        pytest.skip(f"{model.backend} has no streams")
    monkeypatch.setenv("LATESEG_STREAMS", "2")
    fresh = dataclasses.replace(model)
    ids = np.ones((2, 7), np.int64)
    (out,) = list(fresh.forward_many([(ids, ids)]))
    assert not fresh._streams_looked  # no second graph compiled for a single batch
    np.testing.assert_allclose(out, model.forward(ids, ids), atol=1e-5)
    assert len(list(fresh.forward_many([(ids, ids)] * 3))) == 3 and fresh._streams_looked


def test_a_calibration_file_that_is_no_file_or_no_sense_is_measured_again(home):
    import os

    path = home / "calibration.json"
    path.write_text("[" * 100_000 + "]" * 100_000)  # nested past the parser's recursion
    assert streams_for("k", lambda: (2, 1.5)) == 2
    too_many = {"k": {"streams": 10_000, "ratio": 2.0}, "j": {"streams": 2, "ratio": float("inf")}}
    path.write_text(json.dumps(too_many))
    assert streams_for("k", lambda: (2, 1.0)) == 1 and streams_for("j", lambda: (2, 1.0)) == 1
    if hasattr(os, "mkfifo"):  # a FIFO would block a plain read forever
        path.unlink()
        os.mkfifo(path)
        assert streams_for("k", lambda: (2, 1.5)) == 2
