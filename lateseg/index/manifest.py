"""``manifest.json``: what an index was built with, read as untrusted input.

An index folder may come from someone else, so its manifest *describes* the index and
never enables anything: every field is checked for its type and range, unknown fields
are refused, and nothing in it can turn on ``trust_remote_code`` (remote model code needs
the caller's own argument, every time). A bad field is named in one line::

    idx/manifest.json: embedder.window: 'big' is not an integer

Version 1 folders keep their vectors only in ``vectors.faiss``; version 2 keeps them in
the docstore (the FAISS file is a cache). A version 1 folder is read as it is and
migrated on its first write (:meth:`lateseg.index.Index.writer`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lateseg.encode.backends import PRECISIONS
from lateseg.encode.config import EncoderConfig
from lateseg.encode.profiles import PROFILES
from lateseg.errors import ConfigError, IndexStoreError
from lateseg.validate import check_fields, is_int, read_bounded, shown

FORMAT = "lateseg-index"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
MAX_MANIFEST_BYTES = 1 << 20  # a manifest is a few hundred bytes; refuse megabytes
# Indexes from before the late/naive mix stored pure late vectors, and those from before
# code fields (lateseg.encode.fields) stored code chunks without them.
LEGACY_EMBEDDER = {
    "late_weight": 1.0,
    "code_late_weight": 1.0,
    "code_field_weight": 0.0,
    "prose_field_weight": 0.0,  # and those from before prose fields, without them
}
# Fields written by EncoderConfig.to_dict (device and trust are the caller's, per run).
EMBEDDER_FIELDS = (
    "model",
    "window",
    "code_window",
    "overlap",
    "late_weight",
    "code_late_weight",
    "code_field_weight",
    "prose_field_weight",
    "query_prefix",
    "document_prefix",
)
TOP_FIELDS = (
    "format", "version", "embedder", "dim", "chunker", "vectors", "segmenter", "precision",
    "profile", "windows",
)  # fmt: skip
#: What a manifest's ``windows`` may name: the backends a profile reads late windows with
#: apart from the vectors' own (lateseg.encode.profiles).
WINDOW_BACKENDS = ("onnx-int8", "openvino-int8")
MAX_DIM = 65536
MAX_SEGMENTER = 1_000_000


@dataclass(frozen=True)
class Manifest:
    """A validated manifest."""

    embedder: EncoderConfig
    dim: int
    # The chunker's ``to_dict()``: a JSON object, checked in full
    # (lateseg.segment.chunker_from_dict) where the folder is opened (lateseg.open_index),
    # since storage does not import the chunkers.
    chunker: dict[str, Any]
    vectors: str
    version: int
    segmenter: int = 0  # lateseg.segment.SEGMENTER_VERSION the index was created with
    # The vectors' precision (lateseg.encode.backends.PRECISIONS): queries and new
    # documents must be embedded in the same class. Manifests without it hold float
    # vectors of either format.
    precision: str = "float"
    # The ingest profile (lateseg.encode.profiles) the index was made with; None: an
    # index from before profiles, or settings that are no profile's.
    profile: str | None = None
    # The backend the late windows were read with where it is not the vectors' own (the
    # fast profile's onnx-int8 on a CPU without bf16): every run of the index reads them
    # so, whatever its CPU, and an index made otherwise never does. None: the vectors'.
    windows: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "embedder": self.embedder.to_dict(),
            "dim": self.dim,
            "chunker": dict(self.chunker),
            "vectors": self.vectors,
            "segmenter": self.segmenter,
            "precision": self.precision,
        }
        if self.profile is not None:
            out["profile"] = self.profile
        if self.windows is not None:
            out["windows"] = self.windows
        return out


def read_manifest(folder: Path, *, device: str | None = None) -> Manifest | None:
    """The folder's manifest, validated; None when the folder has none.

    Raises :class:`IndexStoreError` naming the first bad field.
    """
    path = folder / "manifest.json"
    try:
        raw, more = read_bounded(path, MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise IndexStoreError(f"{path} is not readable: {e.strerror or e}") from None
    if more:
        raise IndexStoreError(f"{path} is over {MAX_MANIFEST_BYTES:,} bytes: not a manifest")
    return decode_manifest(raw, str(path), device=device)


def decode_manifest(raw: bytes, where: str, *, device: str | None = None) -> Manifest:
    """A manifest from its stored bytes (a file's, a database row's), validated; raises
    :class:`IndexStoreError` naming ``where`` and the first bad field."""
    if len(raw) > MAX_MANIFEST_BYTES:
        raise IndexStoreError(f"{where} is over {MAX_MANIFEST_BYTES:,} bytes: not a manifest")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise IndexStoreError(f"{where} is not a readable manifest: {e}") from None
    try:
        return parse_manifest(data, device=device)
    except ConfigError as e:
        raise IndexStoreError(f"{where}: {e}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_manifest(data: Any, *, device: str | None = None) -> Manifest:
    """Validate a manifest's JSON; :class:`ConfigError` names the first bad field. The
    chunker section is checked as an object only: storage does not import the chunkers,
    so its type and fields are checked where the folder is opened (:mod:`lateseg.open_index`)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError("not a lateseg index (the manifest's format is not 'lateseg-index')")
    unknown = sorted(set(data) - set(TOP_FIELDS))
    if unknown:
        raise ConfigError(f"{unknown[0]}: unknown field (known: {', '.join(TOP_FIELDS)})")
    version = data.get("version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        raise ConfigError(
            f"version: index format {version!r}; this lateseg reads "
            f"{', '.join(map(str, READABLE_VERSIONS))}. Re-index into a new folder."
        )
    for name in ("embedder", "dim", "chunker"):
        if name not in data:
            raise ConfigError(f"{name}: missing")
    embedder = _embedder(data["embedder"], device)
    dim = data["dim"]
    if not is_int(dim) or not 1 <= dim <= MAX_DIM:
        raise ConfigError(f"dim: {dim!r} is not an integer in [1, {MAX_DIM}]")
    chunker = _chunker(data["chunker"])
    from lateseg.index.vectors import POLICIES

    vectors = data.get("vectors", "auto")
    if vectors not in POLICIES:
        raise ConfigError(f"vectors: {vectors!r}; choose one of {', '.join(POLICIES)}")
    segmenter = data.get("segmenter", 0)
    if not is_int(segmenter) or not 0 <= segmenter <= MAX_SEGMENTER:
        raise ConfigError(f"segmenter: {segmenter!r} is not an integer in [0, {MAX_SEGMENTER}]")
    precision = data.get("precision", "float")
    if precision not in PRECISIONS:
        raise ConfigError(f"precision: {shown(precision)}; one of {', '.join(PRECISIONS)}")
    profile = data.get("profile")
    if profile is not None and profile not in PROFILES:
        raise ConfigError(f"profile: {shown(profile)}; one of {', '.join(PROFILES)}")
    windows = data.get("windows")
    if windows is not None and windows not in WINDOW_BACKENDS:
        raise ConfigError(f"windows: {shown(windows)}; one of {', '.join(WINDOW_BACKENDS)}")
    return Manifest(
        embedder, dim, chunker, vectors, version, segmenter, precision, profile, windows
    )


def _embedder(raw: Any, device: str | None) -> EncoderConfig:
    if not isinstance(raw, dict):
        raise ConfigError(f"embedder: {shown(raw)} is not an object")
    if "trust_remote_code" in raw:
        raise ConfigError(
            "embedder.trust_remote_code: an index folder cannot enable remote model code; "
            "remove the field, and pass trust_remote_code=True (--trust-remote-code) "
            "yourself when you trust the model"
        )
    unknown = sorted(set(raw) - set(EMBEDDER_FIELDS))
    if unknown:
        raise ConfigError(f"embedder.{unknown[0]}: unknown field")
    if "model" not in raw:
        raise ConfigError("embedder.model: missing")
    fields = {**LEGACY_EMBEDDER, **raw}
    check_fields(EncoderConfig, fields, "embedder")
    if not fields["model"].strip() or len(fields["model"]) > 4096 or "\0" in fields["model"]:
        raise ConfigError(f"embedder.model: {shown(fields['model'])} is not a model name")
    return _section("embedder", fields, lambda d: EncoderConfig(**d, device=device))


def _chunker(raw: Any) -> dict[str, Any]:
    """The chunker section as it is stored: an object. Its ``type`` and fields are the
    chunker registry's to check (``lateseg.segment.CHUNKERS``, whose message lists the
    known types), where the folder is opened (``lateseg.open_index``)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"chunker: {shown(raw)} is not an object")
    return dict(raw)


def _section(name: str, raw: Any, build: Any) -> Any:
    """``build(raw)``, with its ConfigError/TypeError prefixed by the section's name."""
    try:
        return build(raw)
    except ConfigError as e:
        raise ConfigError(f"{name}: {e}") from None
    except (TypeError, ValueError, AttributeError) as e:
        raise ConfigError(f"{name}: {e}") from None


def manifest_json(manifest: Manifest | dict[str, Any]) -> str:
    """The manifest as stored: JSON with the format and version."""
    body = manifest.to_dict() if isinstance(manifest, Manifest) else dict(manifest)
    body = {k: v for k, v in body.items() if k not in ("format", "version")}
    return json.dumps(
        {"format": FORMAT, "version": FORMAT_VERSION, **body}, indent=2, sort_keys=True
    )


def write_manifest(folder: Path, manifest: Manifest | dict[str, Any]) -> None:
    """Replace the manifest atomically (a temporary file renamed over it)."""
    tmp = folder / "manifest.json.tmp"
    tmp.write_text(manifest_json(manifest), "utf-8")
    os.replace(tmp, folder / "manifest.json")
