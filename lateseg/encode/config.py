"""The late encoder's settings (:class:`EncoderConfig`), checked when made: which model,
its windows, how late and naive vectors mix, batches, and where it runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lateseg.encode.backends import check_backend
from lateseg.encode.models import DEFAULT_EMBEDDER
from lateseg.errors import ConfigError


@dataclass(frozen=True)
class EncoderConfig:
    """Settings of the late encoder.

    ``window`` is the number of document tokens per window for prose, ``code_window``
    for source code (None: the model's limit minus special and prefix tokens);
    ``overlap`` the tokens shared by adjacent windows. A chunk's vector is
    ``late_weight`` (``code_late_weight`` for code) times its late-pooled vector plus the
    rest its own text embedded alone, normalised: 1.0 is pure late chunking, 0.0 naive
    embedding; the naive part costs a second pass over the chunk's tokens. A code chunk
    inside a class, function or method also mixes in its unit's name and signature
    embedded alone (:mod:`lateseg.encode.fields`), ``code_field_weight`` times that
    vector added before normalising (0: off; indexes from before it read as 0). A prose
    chunk mixes in its document's title and its section path ("Cloud Service Agreement >
    4 Payment & Taxes > 4.1 Fees") the same way, ``prose_field_weight`` times it: a chunk
    knows which document and section it is from (issue 62: chosen leaving one corpus
    out, ``bench/results/real.md``; indexes from before it read as 0).

    The defaults were measured with all-MiniLM-L6-v2 (``bench/late_variants.py``): its
    token vectors smear a chunk's own meaning when they carry much more context than the
    chunk, so prose (96/160-token chunks) is read in 128-token windows and source code
    (whole functions up to 256 tokens) in full 254-token ones, and both mix in the
    chunk's own embedding. Models trained for late chunking (jina-v2, 8k) want their full
    length and more late weight.
    ``query_prefix``/``document_prefix`` are model-specific prompts (``"search_query: "``;
    empty: the model's own ``query``/``document`` prompts, if its sentence-transformers
    config has them). Queries and naive vectors are pooled as the model defines it (mean,
    CLS or last token); late vectors mean-pool token embeddings over the chunk.
    ``backend`` runs the transformer (:mod:`lateseg.encode.backends`): None picks
    ``torch`` on a GPU and, on a CPU, ``openvino-bf16`` where the CPU has bf16, else
    ``openvino`` (fp32, the same vectors, faster than torch); ``openvino`` (exact fp32
    anywhere), ``onnx``, ``onnx-int8`` (int8 weights: fast, lower recall) and
    ``openvino-int8`` (int8 with static scales, :mod:`lateseg.encode.quantize`) are
    opt-in. Like ``device`` it is the caller's per run, not the index's, with one
    exception: left as None, it is ``openvino`` for an index whose vectors are fp32 on a
    CPU whose default is bf16 (:mod:`lateseg.open_index`).
    ``window_backend``, where set, runs the late windows' forward passes instead (the
    chunks' texts embedded alone, their fields and the queries stay on ``backend``; a
    CPU backend on the CPU whatever ``device`` says): a ``fast`` index made on a CPU
    that reads at fp32 reads its windows with ``onnx-int8``, as its manifest records
    (:mod:`lateseg.encode.profiles`, :mod:`lateseg.open_index`).
    A forward batch holds at most ``batch_tokens`` tokens, padding included (None:
    :data:`~lateseg.encode.late.CPU_BATCH_TOKENS` on a CPU,
    :data:`~lateseg.encode.late.GPU_BATCH_TOKENS` on a GPU), and at most
    ``batch_size`` sequences; windows of many documents share a batch
    (:meth:`lateseg.encode.late.LateEncoder.encode_documents`).
    ``trust_remote_code`` must be opted into for models that ship code (jina-v2). Like
    ``device`` and the backends it belongs to the run, never to the index: ``to_dict`` (what
    a manifest stores) leaves it out, so reopening an index built with it needs
    ``trust_remote_code=True`` (``--trust-remote-code``) again, each time; an index folder,
    which may come from anyone, can never turn it on.
    """

    model: str = DEFAULT_EMBEDDER
    window: int | None = 128
    code_window: int | None = None
    overlap: int = 32
    late_weight: float = 0.5
    code_late_weight: float = 0.25
    code_field_weight: float = 0.3
    prose_field_weight: float = 0.1
    batch_size: int = 256
    batch_tokens: int | None = None
    device: str | None = None
    backend: str | None = None
    window_backend: str | None = None
    query_prefix: str = ""
    document_prefix: str = ""
    trust_remote_code: bool = False

    def __post_init__(self) -> None:
        for name in ("window", "code_window"):
            size = getattr(self, name)
            if size is not None and size < 16:
                raise ConfigError(f"{name}={size} is too small; use at least 16 tokens")
            if self.overlap < 0 or (size is not None and self.overlap * 2 >= size):
                raise ConfigError(
                    f"overlap={self.overlap} must be >= 0 and under half of {name}={size}"
                )
        check_backend(self.backend, self.device)
        # a CPU backend's windows run on the CPU whatever the device of the rest
        check_backend(self.window_backend, None, "window_backend")
        if self.batch_size < 1:
            raise ConfigError(f"batch_size={self.batch_size} must be at least 1")
        if self.batch_tokens is not None and self.batch_tokens < 64:
            raise ConfigError(f"batch_tokens={self.batch_tokens} must be at least 64")
        for name in ("late_weight", "code_late_weight", "code_field_weight", "prose_field_weight"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name}={getattr(self, name)} must lie in [0, 1]")

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "window": self.window,
            "code_window": self.code_window,
            "overlap": self.overlap,
            "late_weight": self.late_weight,
            "code_late_weight": self.code_late_weight,
            "code_field_weight": self.code_field_weight,
            "prose_field_weight": self.prose_field_weight,
            "query_prefix": self.query_prefix,
            "document_prefix": self.document_prefix,
        }
