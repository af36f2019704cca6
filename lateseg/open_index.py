"""Opening an index folder: the policy for what a folder, a manifest and the caller's
settings decide together (``Pipeline.open`` is this and nothing more).

* A folder without a manifest is a new index only if it is empty (or missing) and the
  caller may create one; a non-empty folder without a manifest is refused, never adopted.
* The manifest decides the embedder and the chunker of an existing index; a caller's
  different embedder or chunker is refused (vectors of two models cannot be mixed).
* A new index is made with an ingest profile (:mod:`lateseg.encode.profiles`,
  ``accurate`` unless named) and records it; an existing index is extended with its
  own, and a caller's other profile is refused by name.
* ``device``, ``backend`` and ``trust_remote_code`` belong to the run: they never come
  from, nor go into, the manifest (an index folder is untrusted input). What the manifest
  keeps is the vectors' precision (``fp32``, ``bf16``, ``int8`` from ``onnx-int8``,
  ``int8-static`` from ``openvino-int8``, or ``float`` from before fp32 and bf16 were
  told apart): a run whose backend makes another class (an int8 against float or the
  other int8) is refused by name, since its queries (and new
  documents) would not match the stored vectors. A run that leaves the backend to
  lateseg embeds an fp32 index at fp32 on a CPU whose default is bf16, so an index is
  searched in the precision it was built in; the one thing an index can choose is that.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path

from lateseg.encode.backends import precision_class, run_backend, vector_precision
from lateseg.encode.config import EncoderConfig
from lateseg.encode.late import LateEncoder
from lateseg.encode.profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    apply_profile,
    matches,
    with_profile_backend,
    with_profile_windows,
)
from lateseg.errors import ConfigError, IndexStoreError
from lateseg.home import lateseg_home
from lateseg.index import Index, Manifest, read_manifest, write_manifest
from lateseg.index.base import Store
from lateseg.index.stores import store_for
from lateseg.options import OPEN_DEFAULTS, OpenOptions
from lateseg.segment import SEGMENTER_VERSION, Chunker, DynamicChunker, chunker_from_dict

log = logging.getLogger(__name__)

#: For each precision class (lateseg.encode.backends.PRECISIONS): what an index of it
#: holds, and how to open it.
_PRECISION_HINTS = {
    "int8": ("int8 vectors (backend onnx-int8)", "backend='onnx-int8' (--backend onnx-int8)"),
    "int8-static": (
        "static int8 vectors (backend openvino-int8)",
        "backend='openvino-int8' (--backend openvino-int8)",
    ),
    "float": ("float vectors (a backend that is not int8)", "a backend that is not int8"),
}


def open_folder(
    folder: str | os.PathLike[str], options: OpenOptions = OPEN_DEFAULTS
) -> tuple[Path, Index, LateEncoder, Chunker]:
    """The folder's absolute path (for a ``postgresql://`` index: this machine's cache
    folder), its index, the encoder and the chunker it is built with, opened as
    ``options`` say (:class:`~lateseg.options.OpenOptions`, checked when made; its
    ``generator`` is the pipeline's, not read here). A new index's manifest is written
    here; an existing index is never modified by opening it."""
    device, create, readonly = options.device, options.create, options.readonly
    cache_dir = options.cache_dir
    store: Store | None = None
    kind = store_for(folder)
    if not kind.in_folder:
        store = kind.open(folder, writable=not readonly, create=create and not readonly)
        try:
            manifest = store.read_manifest(device=device)
            path = _cache_folder(store, cache_dir)
        except BaseException:
            store.close()
            raise
        if manifest is None and (not create or readonly):
            store.close()
            raise IndexStoreError(f"no index at {store.location} yet (it has no manifest)")
    else:
        if cache_dir is not None:
            raise IndexStoreError(
                "cache_dir (--cache-dir) is for a postgresql:// index; a folder index keeps "
                "its cache in the folder"
            )
        path = Path(folder).expanduser().resolve()
        manifest = _folder_manifest(path, device, create and not readonly)
    try:
        return _open(path, store, manifest, options)
    except BaseException:
        if store is not None:
            store.close()
        raise


def _folder_manifest(path: Path, device: str | None, create: bool) -> Manifest | None:
    """The folder's manifest; None for a new index (an empty or missing folder, when
    ``create``)."""
    if path.exists() and not path.is_dir():
        raise IndexStoreError(f"{path} exists and is not a folder")
    manifest = read_manifest(path, device=device) if path.is_dir() else None
    if manifest is None:
        if path.is_dir() and any(path.iterdir()):
            raise IndexStoreError(
                f"{path} is a non-empty folder without a lateseg manifest; "
                "choose an empty or new folder for the index"
            )
        if not create:
            raise IndexStoreError(
                f"no index at {path}; create it with `lateseg ingest PATH --index {path}`"
            )
    return manifest


def _cache_folder(store: Store, cache_dir: str | os.PathLike[str] | None) -> Path:
    """Where this machine keeps the vector cache of a server's index: ``cache_dir``, or
    a folder named by the index's identity under the lateseg home."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser().resolve()
    index_id = store.index_id()
    if not index_id.isalnum() or len(index_id) > 64:
        raise IndexStoreError(f"{store.location} has a damaged index ID")
    return lateseg_home() / "caches" / index_id


def _open(
    path: Path, store: Store | None, manifest: Manifest | None, options: OpenOptions
) -> tuple[Path, Index, LateEncoder, Chunker]:
    where = store.location if store is not None else path
    held = None  # the chunker the manifest records, built (storage keeps its dict)
    if manifest is not None:
        held = _held_chunker(manifest, store, path)
        manifest = dataclasses.replace(manifest, chunker=held.to_dict())
    embedder, chunker = options.embedder, options.chunker
    if isinstance(embedder, str):
        enc_cfg = EncoderConfig(model=embedder, device=options.device)
    elif embedder is not None:
        enc_cfg = embedder
    elif manifest is not None:
        enc_cfg = manifest.embedder
    else:
        enc_cfg = EncoderConfig(device=options.device)
    if options.trust_remote_code:
        enc_cfg = dataclasses.replace(enc_cfg, trust_remote_code=True)
    if manifest is None:
        configured = isinstance(embedder, EncoderConfig)
        enc_cfg, recorded = _new_profile(enc_cfg, options.profile, configured)
    else:
        recorded = _own_profile(where, manifest, options.profile)
        if options.backend is None:  # the index's profile may run a backend of its own
            enc_cfg = with_profile_backend(enc_cfg, recorded)
    if options.backend is not None:
        enc_cfg = dataclasses.replace(enc_cfg, backend=options.backend)
    if manifest is not None and manifest.embedder.model != enc_cfg.model:
        raise IndexStoreError(
            f"{where} was built with embedder {manifest.embedder.model!r}, not "
            f"{enc_cfg.model!r}; open it without an embedder or re-index into a new folder"
        )
    precision = vector_precision(enc_cfg.backend, enc_cfg.device)
    if manifest is not None:
        enc_cfg, precision = _follow_precision(where, manifest.precision, enc_cfg, precision)
    if chunker is None:
        chunker = held if held is not None else DynamicChunker()
    elif held is not None and chunker.to_dict() != held.to_dict():
        raise IndexStoreError(
            f"{where} was built with chunker {held.to_dict()}; re-index into "
            "a new folder to use another"
        )
    enc_cfg = _windows(enc_cfg, manifest, recorded)
    encoder = LateEncoder(enc_cfg)
    if manifest is None:
        manifest = Manifest(
            enc_cfg, encoder.dim, chunker.to_dict(), options.vectors or "auto", 2,
            SEGMENTER_VERSION, precision, recorded, enc_cfg.window_backend,
        )  # fmt: skip
        if store is None:
            path.mkdir(parents=True, exist_ok=True)
            write_manifest(path, manifest)
        else:
            store.write_manifest(manifest)
    elif manifest.segmenter < SEGMENTER_VERSION:
        (log.info if options.readonly else log.warning)(
            "%s was created by an older segmenter (%d < %d): its documents keep the structure "
            "they were ingested with (older section labels, tables as flattened rows) "
            "until their files change; re-index into a new folder for current citations",
            where,
            manifest.segmenter,
            SEGMENTER_VERSION,
        )
    index = Index(path, manifest, writable=not options.readonly, store=store)
    if options.vectors is not None and options.vectors != index.policy:
        index.set_policy(options.vectors)
    return path, index, encoder, chunker


def _held_chunker(manifest: Manifest, store: Store | None, path: Path) -> Chunker:
    """The chunker an index's manifest records, its fields checked as the manifest's own
    are (storage keeps the section as stored): a bad one names the manifest."""
    try:
        return chunker_from_dict(manifest.chunker)
    except (ConfigError, TypeError, ValueError, AttributeError) as e:
        where = f"{store.location} (manifest)" if store is not None else path / "manifest.json"
        raise IndexStoreError(f"{where}: chunker: {e}") from None


def _windows(
    enc_cfg: EncoderConfig, manifest: Manifest | None, profile: str | None
) -> EncoderConfig:
    """The run's encoder configuration with the backend its late windows are read with:
    for a new index, the profile's where the run reads at fp32 on the CPU (recorded in
    the manifest); for an existing one, what its manifest records, on any CPU, so that an
    index never mixes windows read in two ways (a caller's own ``window_backend`` kept)."""
    if manifest is None:
        return with_profile_windows(enc_cfg, profile)
    if enc_cfg.window_backend is not None:
        return enc_cfg
    return dataclasses.replace(enc_cfg, window_backend=manifest.windows)


def _new_profile(
    enc_cfg: EncoderConfig, profile: str | None, configured: bool
) -> tuple[EncoderConfig, str | None]:
    """A new index's encoder configuration and the profile its manifest records: the
    named profile applied, else the default one, except over a caller's own
    ``EncoderConfig``, which is kept as given and recorded as the profile it equals
    (None: its settings are no profile's)."""
    if profile is None and configured:
        return enc_cfg, next((n for n in PROFILES if matches(enc_cfg, n)), None)
    name = profile or DEFAULT_PROFILE
    return apply_profile(enc_cfg, name), name


def _own_profile(where: object, manifest: Manifest, profile: str | None) -> str | None:
    """The profile an existing index is extended with: its own. A caller's other profile
    is refused, since one index's vectors must all be made alike."""
    held = manifest.profile
    if profile is None or profile == held:
        return held
    if held is None and matches(manifest.embedder, profile):
        return None  # an index from before profiles whose settings are that profile's
    made = f"profile {held!r}" if held is not None else "settings that are no profile's"
    raise IndexStoreError(
        f"{where} was built with {made}; it is extended with its own, so leave out "
        f"profile={profile!r} (--profile), or ingest into a new folder to use it"
    )


def _follow_precision(
    where: object, held: str, enc_cfg: EncoderConfig, made: str
) -> tuple[EncoderConfig, str]:
    """The run's encoder configuration and the precision it embeds in, for an index that
    holds ``held`` vectors: another class (an int8 against float or the other int8) is
    refused by name; a
    run that left the backend to lateseg embeds an fp32 index at fp32 where the CPU
    default would be bf16, so queries and new documents match the stored vectors."""
    if precision_class(held) != precision_class(made):
        stored, use = _PRECISION_HINTS[precision_class(held)]
        raise IndexStoreError(
            f"{where} holds {stored}; backend {enc_cfg.backend!r} would embed queries and new "
            f"documents differently. Open it with {use}, or re-index into a new folder"
        )
    if held not in ("fp32", "bf16") or held == made:
        return enc_cfg, made
    left_open = enc_cfg.backend is None  # the run's default: bf16 where the CPU has it
    if held == "fp32" and left_open and run_backend(None, enc_cfg.device) == "openvino-bf16":
        log.info("%s holds fp32 vectors: embedding at fp32 (backend openvino)", where)
        return dataclasses.replace(enc_cfg, backend="openvino"), "fp32"
    # bf16 vectors on a CPU without bf16, or a backend the caller chose: the float
    # formats differ by rounding (bench/results/backend_mixing.json: the top-5 set of
    # 109-110 of 110 questions is unchanged)
    log.info("%s holds %s vectors; this run embeds in %s", where, held, made)
    return enc_cfg, made
