"""Shared fixtures: real packaged models, loaded once per session."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# No lateseg.toml of the developer's (nor one in the checkout) changes what tests see;
# tests of the file set their own (test_config.py).
os.environ["LATESEG_CONFIG"] = ""

import contextlib
import json
import socket
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
LICENSES = Path("/usr/share/common-licenses")


def cpu_kind() -> str:
    """The CPU this run is on, as a speed or precision figure must name it: its model name
    and the flags that choose OpenVINO's kernels (AVX2, AVX-512 bf16, AMX)."""
    model, flags = "unknown CPU", set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text("utf-8", "replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    named = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags]
    return f"{model} ({', '.join(named) or 'no avx2'})"


def pytest_report_header(config):
    """Every run names its CPU and default embedding backend: vectors at bf16 differ by
    CPU kind (issue 61), so a failure report says which one it came from."""
    from lateseg.encode.backends import default_backend

    return [f"lateseg: {cpu_kind()}; default CPU backend {default_backend('cpu')}"]


def license_file(name: str) -> Path:
    """A license text of ``/usr/share/common-licenses`` (Debian/Ubuntu ``base-files``), or
    skip what needs it, saying why."""
    path = LICENSES / name
    if not path.is_file():
        pytest.skip(f"{path} is missing (Debian and Ubuntu ship it in base-files)")
    return path


#: Fixtures that load the generator, start PostgreSQL or a model server: a test that uses
#: one (however indirectly) is ``slow``, out of ``make test-fast``.
SLOW_FIXTURES = {"gen", "generator", "postgres", "served_llm"}


def _resident_gb() -> tuple[float, float]:
    """(now, peak) resident memory of this process, in GB."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20)  # KiB on Linux
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        now = pages * os.sysconf("SC_PAGE_SIZE") / (1 << 30)
    except (OSError, ValueError, IndexError):
        now = float("nan")
    return now, peak


@pytest.fixture(scope="module", autouse=True)
def _module_memory(request):
    """After each test module: the generator models it loaded released (the embedders
    are small and shared by the whole session), and, with ``LATESEG_TEST_MEMORY=FILE``,
    the process's resident memory (GB now, GB peak) and the Unix time written to FILE, to
    find what holds memory and what takes time."""
    yield
    import ctypes
    import gc

    import lateseg

    lateseg.release_models()
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # freed heap back to the system (glibc)
    log = os.environ.get("LATESEG_TEST_MEMORY")
    if log:
        now, peak = _resident_gb()
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{request.module.__name__}\t{now:.2f}\t{peak:.2f}\t{time.time():.0f}\n")


_WORKER_PEAKS: list[float] = []  # pytest-xdist: each worker's peak, in GB


def pytest_sessionfinish(session):
    output = getattr(session.config, "workeroutput", None)  # in an xdist worker
    if output is not None:
        output["lateseg_peak_gb"] = _resident_gb()[1]


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: absent without it
def pytest_testnodedown(node, error):
    peak = getattr(node, "workeroutput", {}).get("lateseg_peak_gb")
    if peak is not None:
        _WORKER_PEAKS.append(peak)


def pytest_terminal_summary(terminalreporter):
    if _WORKER_PEAKS:  # the tests ran in workers: theirs is the memory that counts
        each = ", ".join(f"{p:.2f}" for p in sorted(_WORKER_PEAKS, reverse=True))
        terminalreporter.write_line(
            f"lateseg: peak resident memory of the {len(_WORKER_PEAKS)} test processes "
            f"{each} GB (together at most {sum(_WORKER_PEAKS):.2f} GB)"
        )
        return
    now, peak = _resident_gb()
    terminalreporter.write_line(
        f"lateseg: peak resident memory of this test process {peak:.2f} GB"
        f" (at the end {now:.2f} GB)"
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


# The README/Makefile demo question; its answer is the gold span of sample question msa-01.
DEMO_QUESTION = (
    "How many days' notice must the Client give to terminate the Master Services "
    "Agreement for convenience?"
)


@pytest.fixture(scope="session")
def encoder():
    from lateseg.encode.late import LateEncoder

    enc = LateEncoder()
    enc.dim  # noqa: B018 - load the model once for the session
    return enc


@pytest.fixture(scope="module")
def fp32_encoder(encoder):
    """The embedder at exact fp32 on any CPU (``openvino``): the torch model's vectors, for
    tests that compare with sentence-transformers or torch to 1e-5. The default is bf16
    where the CPU has it. Per module: a second compiled model is not kept all session."""
    from lateseg.encode.config import EncoderConfig
    from lateseg.encode.late import LateEncoder

    if encoder.embedder.backend == "openvino":
        return encoder
    enc = LateEncoder(EncoderConfig(backend="openvino"))
    enc.dim  # noqa: B018 - load the model once for the session
    return enc


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory, encoder):
    """An index of the bundled sample contracts and codebase (built once)."""
    from lateseg.pipeline import Pipeline

    folder = tmp_path_factory.mktemp("sample") / "index"
    pipe = Pipeline.open(folder)
    pipe.encoder = encoder
    report = pipe.ingest([DATA / "contracts", DATA / "sample_repo"], progress=False)
    assert not report.failed, report.failed
    yield pipe
    pipe.close()


@pytest.fixture(scope="session")
def sample_questions() -> list[dict]:
    lines = (DATA / "eval" / "sample_qa.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def squash(text: str) -> str:
    """Whitespace-collapsed text, for comparing PDF extractions with their sources."""
    return " ".join(text.split())


@contextlib.contextmanager
def serving(app, host: str = "127.0.0.1"):
    """A real uvicorn server for ``app`` in a thread, on a free port: its base URL."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind((host, 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(400):
        if srv.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://{host}:{port}/"
    finally:
        srv.should_exit = True
        thread.join(10)


@pytest.fixture(scope="session")
def postgres():
    """A throwaway PostgreSQL server for the session (``pg_cluster``), or skip saying why
    none can run here."""
    from pg_cluster import Cluster, why_not

    reason = why_not()
    if reason:
        pytest.skip(reason)
    with Cluster() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def served_llm(tmp_path_factory):
    """``transformers serve`` on the packaged SmolLM2 folder, offline, on a free port
    (``llm_servers``): its base URL and the model name it answers to. Stopped at the end."""
    from llm_servers import smollm2_folder, start_transformers_serve, stop_process

    folder = smollm2_folder()
    log = tmp_path_factory.mktemp("transformers-serve") / "serve.log"
    proc, url = start_transformers_serve(folder, log)
    try:
        yield url, str(folder)
    finally:
        stop_process(proc)
