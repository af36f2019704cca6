"""A generator's model folder rewritten under a running process (a server) is loaded
again at the generator's next use; an unchanged folder is not loaded twice."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # loads transformers models


def _save_tiny_llama(folder, seed: int) -> None:
    """A tiny random Llama with the default generator's tokenizer, saved to ``folder``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig

    from lateseg.encode.models import resolve_generator

    tok = AutoTokenizer.from_pretrained(resolve_generator(None))
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
    )  # fmt: skip
    torch.manual_seed(seed)
    AutoModelForCausalLM.from_config(config).save_pretrained(folder)
    tok.save_pretrained(folder)


def test_a_rewritten_model_folder_is_loaded_again(tmp_path):
    import torch

    from lateseg.generate.local import LocalGenerator

    folder = tmp_path / "model"
    _save_tiny_llama(folder, seed=0)
    gen = LocalGenerator(str(folder), device="cpu", max_new_tokens=2)
    first = gen.model
    gen.load()
    assert gen.model is first  # unchanged: not loaded again
    other = LocalGenerator(str(folder), device="cpu")
    assert other.model is first  # shared within the process
    _save_tiny_llama(folder, seed=1)  # replaced while "serving"
    second = gen.model
    assert second is not first
    weights = [dict(m.named_parameters())["lm_head.weight"] for m in (first, second)]
    assert not torch.equal(*weights)  # the new files' weights, not the old ones
    assert other.model is second


def test_release_models_frees_the_generator_a_pipeline_keeps(tmp_path):
    """A long-lived process (a server between jobs, a test session) gets a pipeline's
    generator back with ``lateseg.release_models()``; it is loaded again when next used."""
    import gc
    import weakref

    import lateseg
    from lateseg.pipeline import Pipeline

    folder = tmp_path / "model"
    _save_tiny_llama(folder, seed=0)
    with Pipeline.open(tmp_path / "index", generator=str(folder), device="cpu") as pipe:
        model = weakref.ref(pipe.generator.model)
        assert model() is not None
        lateseg.release_models()
        gc.collect()
        assert model() is None  # nothing kept it: the answerer forgot its generator
        assert pipe.generator.model is not None  # and makes it again on demand
