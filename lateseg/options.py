"""How an index is opened and how files are ingested: the one list of each, checked once.

:class:`OpenOptions` is what ``Pipeline.open`` takes (the embedder, chunker, device,
backend, vector policy, profile, ``create``/``readonly`` …) and
:func:`lateseg.open_index.open_folder` reads; :class:`IngestOptions` is what
``Pipeline.ingest`` takes (workers, engine, OCR mode, prune …) and
:func:`lateseg.scale.ingest.ingest_paths` reads. The facade keeps its keywords (users
write ``Pipeline.open("idx", device="cpu")``), builds one of these at the top and hands
it down; the CLI, the server and LangChain build one too, so no layer restates the list
and a new option, its default and its check are written here only. A wrong value is a
:class:`~lateseg.errors.ConfigError` naming the option, raised before any work.
How to search and answer are :class:`~lateseg.ask.options.SearchOptions` and
:class:`~lateseg.ask.options.AskOptions`, made the same way.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from lateseg.encode.profiles import check_profile
from lateseg.errors import ConfigError
from lateseg.index.vectors import check_policy
from lateseg.scale.engines import engine_kind

if TYPE_CHECKING:
    from lateseg.encode.config import EncoderConfig
    from lateseg.ingest.folder import WalkConfig
    from lateseg.segment import Chunker

__all__ = [
    "INGEST_DEFAULTS", "OPEN_DEFAULTS", "IngestOptions", "OpenOptions", "check_names", "either",
]  # fmt: skip


def check_names(cls: type, given: dict[str, Any], what: str) -> None:
    """Every name of ``given`` is a field of the options class ``cls``; else a
    :class:`ConfigError` naming the unknown ones and listing the known ones."""
    known = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown {what} option {', '.join(unknown)}; the options are {', '.join(known)}"
        )


@dataclass(frozen=True)
class OpenOptions:
    """How to open an index (``Pipeline.open``; the policy is :mod:`lateseg.open_index`).

    ``embedder`` (a model name or an :class:`~lateseg.encode.config.EncoderConfig`) and
    ``chunker`` make a new index and must match an existing one's manifest; ``vectors``:
    the vector index policy kept in the manifest (``auto``, ``flat``, ``hnsw``, ``ivf``,
    ``ivfpq``); ``profile``: a new index's ingest profile
    (:mod:`lateseg.encode.profiles`); ``create=False`` opens an existing index only,
    ``readonly=True`` never writes; ``device``, ``backend`` and ``trust_remote_code``
    belong to this process, never to the folder; ``cache_dir``: this machine's vector
    cache of a ``postgresql://`` index; ``generator``: the local generator answers are
    written with (the pipeline's, not the folder's)."""

    embedder: str | EncoderConfig | None = None
    chunker: Chunker | None = None
    generator: str | None = None
    device: str | None = None
    vectors: str | None = None
    create: bool = True
    readonly: bool = False
    trust_remote_code: bool = False
    backend: str | None = None
    cache_dir: str | os.PathLike[str] | None = None
    profile: str | None = None

    def __post_init__(self) -> None:
        if self.vectors is not None:
            check_policy(self.vectors)
        if self.profile is not None:
            check_profile(self.profile)

    @classmethod
    def of(cls, **given: Any) -> OpenOptions:
        """The options given as keywords; an unknown name is a :class:`ConfigError`
        listing the known ones."""
        check_names(cls, given, "open")
        return cls(**given)


@dataclass(frozen=True)
class IngestOptions:
    """How to ingest (``Pipeline.ingest``; :mod:`lateseg.scale.ingest`): ``workers``
    parse processes (None: automatic, 0: none; Ray: encoder actors); ``ocr``: ``auto``
    reads scanned pages and image files by OCR, ``off`` reports them unread, ``force``
    reads every page by OCR (:data:`~lateseg.ingest.ocr.modes.OCR_MODES`);
    ``progress``: a bar (None: on a terminal); ``password``: of encrypted PDFs;
    ``walk_config``: what a folder walk takes (:class:`~lateseg.ingest.folder.WalkConfig`);
    ``prune``: remove the indexed documents under the paths that the walk no longer
    yields; ``engine`` (:data:`~lateseg.scale.engines.ENGINES`): ``"ray"`` parses and
    encodes on the Ray cluster at ``address``."""

    progress: bool | None = None
    password: str | None = field(default=None, repr=False)
    ocr: str = "auto"
    workers: int | None = None
    walk_config: WalkConfig | None = None
    prune: bool = False
    engine: str = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        from lateseg.ingest.ocr.modes import check_mode

        engine_kind(self.engine, self.address)
        check_mode(self.ocr)

    @classmethod
    def of(cls, **given: Any) -> IngestOptions:
        """The options given as keywords; an unknown name is a :class:`ConfigError`
        listing the known ones."""
        check_names(cls, given, "ingest")
        return cls(**given)


#: The options of an open or an ingest that gives none.
OPEN_DEFAULTS = OpenOptions()
INGEST_DEFAULTS = IngestOptions()

_Options = TypeVar("_Options", OpenOptions, IngestOptions)


def either(options: _Options | None, given: _Options) -> _Options:
    """``options``, or ``given`` (the options a caller wrote as keywords); never both,
    so no option is silently ignored."""
    if options is None:
        return given
    if given != type(given)():
        raise ConfigError("give options=… or the options as keywords, not both")
    return options
