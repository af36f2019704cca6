"""KV compression across model families: tiny random-initialised models built from each
family's transformers config (no weights needed, offline), run through the real
generator with the default generator's tokenizer.

For every family that can be compressed correctly: the observation window's scores equal
the eager attention weights of every layer, every layer keeps exactly the budget, a
budget of the whole prompt answers exactly as no compression does, and decoding from a
compressed cache equals decoding from the full cache with the dropped slots masked out
(the kept slots keep their original positions). A family that cannot be compressed
correctly is refused with a message that names why, before anything is compressed.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import license_file

from lateseg.errors import ConfigError
from lateseg.generate.local import LocalGenerator
from lateseg.kv import KVConfig, ObservationWindow, compress
from lateseg.kv.observe import refusal, window_scores
from lateseg.types import Hit

pytestmark = pytest.mark.slow  # builds and runs models

LAYERS = 3
QUESTION = "Who may grant a patent license under this License?"


def _common(tok) -> dict:
    return dict(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=LAYERS,
        num_attention_heads=4,
        num_key_value_heads=2,  # grouped-query attention, as the real models use
        max_position_embeddings=4096,
        initializer_range=0.2,  # sharper attention than the default init: scores differ
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )


def _config(family: str, tok):
    import transformers as tf

    c = _common(tok)
    full = ["full_attention"] * LAYERS
    return {
        "llama": lambda: tf.LlamaConfig(**c),
        "qwen2": lambda: tf.Qwen2Config(**c),  # q/k/v projections with biases
        "qwen3": lambda: tf.Qwen3Config(head_dim=16, **c),  # q/k norms
        "mistral": lambda: tf.MistralConfig(sliding_window=None, **c),  # as v0.2 and later
        # Fused qkv projection; rotary on 3/4 of each head, as Phi-4-mini (a Phi3 model).
        "phi3": lambda: tf.Phi3Config(partial_rotary_factor=0.75, **c),
        # Gemma's attention with every layer global: logit soft-capping (Gemma 2), q/k
        # norms and query_pre_attn_scalar scaling (both). Real Gemma checkpoints have
        # sliding-window layers and are refused (below).
        "gemma2-global": lambda: tf.Gemma2Config(
            head_dim=16, layer_types=full, attn_logit_softcapping=5.0, query_pre_attn_scalar=4, **c
        ),
        "gemma3-global": lambda: tf.Gemma3TextConfig(
            head_dim=16, layer_types=full, query_pre_attn_scalar=4, **c
        ),
        # Refused: sliding-window layers.
        "mistral-v0.1": lambda: tf.MistralConfig(sliding_window=4096, **c),
        "qwen2-sliding": lambda: tf.Qwen2Config(use_sliding_window=True, max_window_layers=1, **c),
        "gemma2": lambda: tf.Gemma2Config(head_dim=16, **c),
        "gemma3": lambda: tf.Gemma3TextConfig(head_dim=16, **c),
    }[family]()


SUPPORTED = ["llama", "qwen2", "qwen3", "mistral", "phi3", "gemma2-global", "gemma3-global"]
REFUSED = ["mistral-v0.1", "qwen2-sliding", "gemma2", "gemma3"]


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from lateseg.encode.models import resolve_generator

    return AutoTokenizer.from_pretrained(resolve_generator(None))


@pytest.fixture(scope="module")
def build(tmp_path_factory, tokenizer):
    """A generator over a tiny random model of ``family`` (saved with the default
    generator's tokenizer and chat template), made once per family."""
    from transformers import AutoModelForCausalLM

    made: dict[str, LocalGenerator] = {}

    def make(family: str) -> LocalGenerator:
        if family not in made:
            torch.manual_seed(0)
            model = AutoModelForCausalLM.from_config(_config(family, tokenizer))
            folder = tmp_path_factory.mktemp(family)
            model.save_pretrained(folder)
            tokenizer.save_pretrained(folder)
            made[family] = LocalGenerator(str(folder), max_new_tokens=12, device="cpu")
            made[family].load()
        return made[family]

    return make


def _messages(gen: LocalGenerator, chars: int = 1500) -> list[dict[str, str]]:
    text = license_file("Apache-2.0").read_text()[:chars]
    hit = Hit(source="/docs/apache.txt", start=0, end=len(text), text=text, score=1.0)
    return gen.prompt(QUESTION, [hit])


@pytest.mark.parametrize("family", SUPPORTED)
def test_window_scores_equal_the_eager_attention_weights_of_every_layer(build, family):
    gen = build(family)
    assert refusal(gen.model) is None
    prompt = gen.render(_messages(gen, 800))
    window = len(prompt.ids) - prompt.tail_token
    ids = torch.tensor([prompt.ids])
    cache = gen.new_cache()
    used = gen.model.config._attn_implementation
    with torch.inference_mode(), ObservationWindow(gen.model, window) as obs:
        gen.model(input_ids=ids, cache=cache, use_cache=True, logits_to_keep=1)
    assert gen.model.config._attn_implementation == used  # restored
    ours = window_scores(obs, cache)
    gen.model.config._attn_implementation = "eager"
    try:
        with torch.inference_mode():
            out = gen.model(input_ids=ids, output_attentions=True, logits_to_keep=1)
    finally:
        gen.model.config._attn_implementation = used
    hkv = cache.layers[0].keys.shape[1]
    assert len(out.attentions) == len(ours) == LAYERS
    for layer, att in enumerate(out.attentions):
        a = att[0, :, -window:, :].float()  # [Hq, w, T]
        want = a.view(hkv, -1, window, ids.shape[1]).mean(dim=(1, 2)).numpy()
        np.testing.assert_allclose(ours[layer], want, atol=1e-5, err_msg=f"layer {layer}")
        # Not a trivial match: the window attends to some slots far more than to others.
        assert want.max() > 5 * want.min(), f"layer {layer}: attention too flat to test"


@pytest.mark.parametrize("family", SUPPORTED)
def test_every_layer_keeps_exactly_the_budget(build, family):
    gen = build(family)
    prompt = gen.render(_messages(gen))
    window = len(prompt.ids) - prompt.tail_token
    for method in ("lateseg", "snapkv"):
        config = KVConfig.of(method, 96)
        with torch.inference_mode():
            cache, _, obs = gen.prefill(prompt.ids, window)
        done = compress(
            cache, obs, config, text=prompt.text, offsets=prompt.offsets, window_tokens=window
        )
        assert len(prompt.ids) > 300
        for layer, kept in zip(cache.layers, done.kept, strict=True):
            assert layer.keys.shape[-2] == layer.values.shape[-2] == 96, method
            assert kept.shape == (layer.keys.shape[1], 96)


@pytest.mark.parametrize("family", SUPPORTED)
def test_a_budget_of_the_whole_prompt_answers_exactly_as_no_compression(build, family):
    gen = build(family)
    messages = _messages(gen)
    plain = gen.complete(messages)
    same = gen.complete(messages, kv=KVConfig(budget=plain.prompt_tokens))
    assert plain.completion_tokens > 0
    assert same.text == plain.text and same.completion_tokens == plain.completion_tokens
    assert same.kv_stats is not None and same.kv_stats["kept_tokens"] == plain.prompt_tokens


@pytest.mark.parametrize("family", SUPPORTED)
def test_a_compressed_cache_decodes_as_the_full_cache_with_dropped_slots_masked(build, family):
    """Kept slots keep their original positions: one kept set for all layers
    (``layer_group`` = the layer count), then each step's logits from the compressed
    cache equal the full cache's with an attention mask over the dropped slots, and
    differ from the full cache's unmasked (compression changed something)."""
    gen = build(family)
    prompt = gen.render(_messages(gen))
    n = len(prompt.ids)
    window = n - prompt.tail_token
    config = KVConfig(budget=128, layer_group=LAYERS)
    with torch.inference_mode():
        cache, logits, obs = gen.prefill(prompt.ids, window)
        masked_cache, _, _ = gen.prefill(prompt.ids)
        full_cache, _, _ = gen.prefill(prompt.ids)
        done = compress(
            cache, obs, config, text=prompt.text, offsets=prompt.offsets, window_tokens=window
        )
        mask = torch.zeros(1, n, dtype=torch.long)
        mask[0, done.kept[0][0]] = 1
        token, position, moved = int(logits.argmax()), n, 0.0
        for _ in range(6):
            ours = gen.feed([token], cache, position)
            mask = torch.cat([mask, torch.ones(1, 1, dtype=torch.long)], dim=1)
            want = gen.model(
                input_ids=torch.tensor([[token]]),
                cache=masked_cache,
                position_ids=torch.tensor([[position]]),
                attention_mask=mask,
                use_cache=True,
                logits_to_keep=1,
            ).logits[0, -1]
            torch.testing.assert_close(ours, want, atol=1e-4, rtol=1e-4)
            moved = max(moved, float((gen.feed([token], full_cache, position) - ours).abs().max()))
            token, position = int(ours.argmax()), position + 1
    assert all(layer.keys.shape[-2] == 128 + 6 for layer in cache.layers)
    assert moved > 1e-3


@pytest.mark.parametrize("family", REFUSED)
def test_sliding_window_models_are_refused_by_name_and_never_compressed(build, family):
    gen = build(family)
    reason = refusal(gen.model)
    assert reason is not None and "sliding-window" in reason
    messages = _messages(gen, 600)
    with pytest.raises(ConfigError, match=r"KV compression refused: .*sliding-window"):
        gen.complete(messages, kv=KVConfig(budget=64))
    used = gen.model.config._attn_implementation
    assert not used.startswith("lateseg")  # nothing left switched
    assert gen.complete(messages).completion_tokens > 0  # uncompressed generation works
