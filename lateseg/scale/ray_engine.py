"""Ingest on a Ray cluster: parsing in Ray tasks, late encoding and chunking on a pool of
Ray actors (Ray Data ``map_batches``), the index written by the calling process alone
(a folder index), or by the actors themselves (a PostgreSQL index).

The driver lists the files (and knows which are unchanged); a Ray Data pipeline then
parses each file in a task (``map``) and encodes it in an actor that loaded the encoder
once (``map_batches`` with an actor pool; one GPU per actor when the cluster has GPUs),
running the same :func:`lateseg.scale.encoding.encode_document` as the local engine. Results
come back in file order (``preserve_order``), and :meth:`Pipeline.ingest` writes them
into the index exactly as it writes its own, with the same durability rules: one writer,
one transaction per document, vectors saved as the local engine saves them. So the index equals the
local engine's: the same chunks with the same IDs, vectors equal to float rounding.

With a ``postgresql://`` index (a store that takes concurrent writers), each actor writes
the documents it encoded itself, one transaction per document, and hands the driver only
what it wrote (:class:`~lateseg.scale.encoding.Written`): vectors no longer travel back
through the object store, and the driver stays the coordinator (the listing, the known
hashes, the report) while its cache catches up from the change log.

Needs ``pip install 'lateseg[ray]'`` on the driver and on every node, with lateseg and
its models installed the same way there (``make install`` on each node).
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from lateseg.encode.config import EncoderConfig
from lateseg.errors import ConfigError, LatesegError
from lateseg.ingest.parallel import Parsed, ParseJob, parse
from lateseg.scale.encoding import Outcome, Written, encode_parsed
from lateseg.segment import Chunker

log = logging.getLogger(__name__)

PARSE_CPUS = 0.5  # CPUs reserved per parse task
GPU_ACTOR_CPUS = 2.0  # CPUs reserved per encoder actor that has a GPU


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise ConfigError(
            "engine='ray' needs Ray: pip install 'lateseg[ray]' (on every node)"
        ) from e
    return ray


def _parse_row(row: dict[str, Any]) -> dict[str, Any]:
    """Ray Data task: one file parsed (never raises for a bad file)."""
    job: ParseJob = pickle.loads(row["job"])
    return {"i": row["i"], "parsed": pickle.dumps(parse(job))}


def local_worker_priority() -> None:
    """Run a local cluster's workers at the driver's priority. Ray starts them at nice 15,
    so beside any busy process (a build, a browser, a second job) they get a few percent of
    a core and an ingest that is all worker stalls for as long as the other runs; on a
    cluster lateseg starts itself the workers are the job. ``RAY_worker_niceness`` set by
    the user wins."""
    os.environ.setdefault("RAY_worker_niceness", "0")


class _Encoder:
    """Ray Data actor: loads the encoder once, then encodes batches of parsed files."""

    def __init__(
        self,
        config: EncoderConfig,
        chunker: dict[str, Any],
        threads: int,
        store_url: str | None = None,
    ) -> None:
        import torch

        from lateseg.encode.late import LateEncoder
        from lateseg.segment import chunker_from_dict

        torch.set_num_threads(threads)  # Ray's default (OMP_NUM_THREADS) would be 1
        self.encoder = LateEncoder(config)
        self.chunker = chunker_from_dict(chunker)
        self.store_url = store_url
        self.store: Any = None

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        parsed: list[Parsed] = [pickle.loads(blob) for blob in batch["parsed"]]
        results: list[Any] = encode_parsed(self.encoder, self.chunker, parsed)
        if self.store_url is not None:
            results = [self._write(p, r) for p, r in zip(parsed, results, strict=True)]
        out = [pickle.dumps(r) for r in results]
        return {"i": batch["i"], "parsed": batch["parsed"], "encoded": out}

    def _write(self, parsed: Parsed, result: Any) -> Any:
        """Write one encoded document into the shared index: what was written, or the
        error as text (the driver reports it and goes on)."""
        if not isinstance(result, tuple) or parsed.doc is None or parsed.digest is None:
            return result
        from lateseg.index.postgres import PgStore

        chunks, vecs = result
        try:
            if self.store is None:
                self.store = PgStore(self.store_url or "", create=False)
            self.store.replace_document(
                parsed.doc, parsed.digest, chunks, vecs, os.fsencode(parsed.path)
            )
        except LatesegError as e:
            return str(e)
        return Written(len(chunks))


class RayIngest:
    """An :class:`~lateseg.scale.engines.Engine`: parse and encode ``jobs`` on a Ray
    cluster; :meth:`run` yields, in job order, each file's :class:`Parsed` and its
    chunks and vectors (or an error message, or None when there was nothing to
    encode)."""

    def __init__(
        self,
        encoder: EncoderConfig,
        chunker: Chunker,
        address: str | None = None,
        *,
        actors: int | None = None,
        batch_size: int = 4,
        store_url: str | None = None,
    ) -> None:
        """``store_url``: a ``postgresql://`` index the actors write into themselves."""
        if actors is not None and actors < 1:
            raise ConfigError(f"actors={actors} must be at least 1")
        if batch_size < 1:
            raise ConfigError(f"batch_size={batch_size} must be at least 1")
        self.encoder = encoder
        self.chunker = chunker.to_dict()
        self.address = address
        self.actors = actors
        self.batch_size = batch_size
        self.store_url = store_url

    def _connect(self) -> bool:
        """Connect to (or start) the cluster; True when this call started Ray."""
        ray = _ray()
        if ray.is_initialized():
            return False
        address = self.address or os.environ.get("RAY_ADDRESS")
        if not address:
            local_worker_priority()
        try:
            ray.init(
                address=address,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.WARNING,
                runtime_env={"env_vars": _forwarded_env()},
            )
        except ConnectionError as e:
            raise ConfigError(f"cannot reach the Ray cluster at {address!r}: {e}") from e
        return True

    def run(self, jobs: Sequence[ParseJob]) -> Iterator[Outcome]:
        if not jobs:
            return
        ray = _ray()
        started = self._connect()
        try:
            from ray.data import ActorPoolStrategy, DataContext

            ctx = DataContext.get_current()
            ctx.execution_options.preserve_order = True  # the writer takes files in order
            ctx.enable_progress_bars = False  # Pipeline.ingest shows its own
            ctx.print_on_execution_start = False
            logging.getLogger("ray.data").setLevel(logging.WARNING)
            resources = ray.cluster_resources()
            gpus = int(resources.get("GPU", 0))
            cpus = max(1, int(resources.get("CPU", 1)))
            config = self.encoder
            if gpus and not (config.device or "").startswith("cuda"):
                config = replace(config, device="cuda")
            actors = self.actors or (gpus or max(1, cpus // 2))
            # Half a CPU per parse task, the rest shared by the encoder actors (distinct
            # resources also keep Ray Data from fusing parsing into the actors); a GPU
            # actor needs few CPUs (tokenizing, chunking), the parse tasks get the others.
            actor_cpus = max(1.0, cpus / actors - PARSE_CPUS)
            if gpus:
                actor_cpus = min(actor_cpus, GPU_ACTOR_CPUS)
            # Never reserve the CPUs a parse task needs: the pipeline would wait forever.
            actor_cpus = min(actor_cpus, (cpus - PARSE_CPUS) / actors)
            log.info("ray ingest: %d files, %d encoder actors, %d GPUs", len(jobs), actors, gpus)
            # A task may run on another node, whose device numbers differ from this one's:
            # the file is still opened without following a symlink in its place, but its
            # identity (device, inode) is checked only by the local engine.
            items = [
                {"i": i, "job": pickle.dumps(replace(job, identity=None))}
                for i, job in enumerate(jobs)
            ]
            ds = (
                ray.data.from_items(items, override_num_blocks=min(len(items), 4 * cpus))
                .map(_parse_row, num_cpus=PARSE_CPUS)
                .map_batches(
                    _Encoder,
                    fn_constructor_args=(
                        config,
                        self.chunker,
                        max(1, round(actor_cpus)),
                        self.store_url,
                    ),
                    compute=ActorPoolStrategy(size=actors),
                    batch_size=self.batch_size,
                    num_cpus=actor_cpus,
                    num_gpus=1 if gpus else 0,
                    batch_format="numpy",
                    zero_copy_batch=True,
                )
            )
            for expected, row in enumerate(ds.iter_rows()):
                if int(row["i"]) != expected:  # never write files out of order
                    raise RuntimeError(f"Ray returned file {row['i']} where {expected} was due")
                yield pickle.loads(row["parsed"]), pickle.loads(row["encoded"])
        finally:
            if started:
                ray.shutdown()


def _forwarded_env() -> dict[str, str]:
    """Settings the workers must share with the driver (offline mode, model homes)."""
    names = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "LATESEG_HOME")
    return {n: os.environ[n] for n in names if n in os.environ}
