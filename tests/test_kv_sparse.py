"""Sparse prefill (MInference-style): the kernel computes exactly the attention its plan
names, each head takes the shape that covers its last queries' attention, the model's
attention is switched only inside the context manager and composes with the KV
observation window, and on the real generator the sparse prefill gives the dense
prefill's answer tokens on needle prompts."""

from __future__ import annotations

import pytest
import torch
from conftest import license_file

from lateseg.errors import ConfigError
from lateseg.generate.local import LocalGenerator
from lateseg.kv import KVConfig, compress
from lateseg.kv.sparse import PATTERNS, SparsePrefill, prefill_mode, sparse_prefill
from lateseg.kv.sparse_attention import _diagonals, attend, plan, reference
from lateseg.types import Hit

pytestmark = pytest.mark.slow  # builds and runs models

QUESTION = "What is the secret access code for the vault?"


def _qkv(n=700, hq=6, hkv=2, d=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(1, hq, n, d, generator=g),
        torch.randn(1, hkv, n, d, generator=g),
        torch.randn(1, hkv, n, d, generator=g),
    )


def _dense(q, k, v, scale):
    groups = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(groups, 1), v.repeat_interleave(groups, 1)
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)
    return out.transpose(1, 2)


@pytest.mark.parametrize("pattern", [*PATTERNS, None])
@pytest.mark.parametrize("softcap", [None, 3.0])
def test_the_kernel_computes_exactly_the_planned_attention(pattern, softcap):
    q, k, v = _qkv()
    s = SparsePrefill(
        budget=256, block=32, min_tokens=0, patterns=(pattern,) if pattern else PATTERNS
    )
    keys = k[0].repeat_interleave(3, 0)
    p = plan(q[0], keys, s, 0.25, softcap)
    out, patterns, density = attend(q, k, v, s, 0.25, softcap, p)
    assert out.shape == (1, 700, 6, 16) and len(patterns) == 6
    assert 0 < density < 1  # it skipped keys ...
    # ... and those it read, it read exactly
    torch.testing.assert_close(out, reference(q, k, v, p, 32, 0.25, softcap))
    if softcap is None:
        assert (out - _dense(q, k, v, 0.25)).abs().max() > 1e-2  # not dense attention


def test_a_plan_that_reads_every_key_is_dense_attention():
    q, k, v = _qkv(n=500)
    s = SparsePrefill(budget=512, block=32, min_tokens=0)
    out, _, density = attend(q, k, v, s, 0.25)
    assert density == 1.0
    torch.testing.assert_close(out, _dense(q, k, v, 0.25))


def test_a_head_whose_attention_sits_on_scattered_columns_takes_vertical_slash():
    # Every query looks at 10 columns spread over the prompt: no band of blocks holds them.
    q, k, _ = _qkv(n=1024, hq=2, hkv=2, d=16)
    u = torch.nn.functional.normalize(torch.ones(16), dim=0)
    q = 0.1 * q + u  # every query shares one direction ...
    magnets = torch.arange(100, 1000, 90)
    k[0, :, magnets] = 8 * u  # ... which only these keys have
    s = SparsePrefill(budget=256, block=64, min_tokens=0)
    p = plan(q[0], k[0], s, 1.0, None)
    assert p.patterns == ["vertical-slash", "vertical-slash"]
    assert all(set(magnets.tolist()) <= set(p.columns[h].tolist()) for h in range(2))


def test_slash_scores_sum_the_attention_at_each_distance_back():
    probs = torch.rand(3, 5, 40)  # the last 5 queries of a 40-token prompt
    want = torch.zeros(3, 40)
    for row in range(5):
        for key in range(35 + row + 1):
            want[:, 35 + row - key] += probs[:, row, key]
    probs_causal = probs.clone()
    for row in range(5):
        probs_causal[:, row, 35 + row + 1 :] = 0  # later keys carry no attention
    torch.testing.assert_close(_diagonals(probs_causal), want)


def test_settings_are_checked_and_named():
    assert prefill_mode("dense") is None and prefill_mode(None) is None
    assert prefill_mode("sparse") == SparsePrefill()
    with pytest.raises(ConfigError, match="dense, sparse"):
        prefill_mode("fast")
    with pytest.raises(ConfigError, match="budget"):
        SparsePrefill(budget=64, block=64)
    with pytest.raises(ConfigError, match="patterns"):
        SparsePrefill(patterns=("diagonal",))
    with pytest.raises(ConfigError, match="dense, sparse"):
        LocalGenerator(prefill="quick")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A generator over a tiny random Llama (the default generator's tokenizer)."""
    import transformers as tf

    from lateseg.encode.models import resolve_generator

    tok = tf.AutoTokenizer.from_pretrained(resolve_generator(None))
    config = tf.LlamaConfig(
        vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=3,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
        initializer_range=0.2, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
    )  # fmt: skip
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-llama")
    tf.AutoModelForCausalLM.from_config(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    gen = LocalGenerator(str(folder), max_new_tokens=8, device="cpu", context_tokens=50_000)
    gen.load()
    return gen


def _ids(gen, chars):
    text = license_file("Apache-2.0").read_text()[:chars]
    hit = Hit(source="/docs/apache.txt", start=0, end=len(text), text=text, score=1.0)
    return gen.render(gen.prompt(QUESTION, [hit]))


def _logits(gen, ids, settings=None):
    with torch.inference_mode():
        if settings is None:
            return gen.model(input_ids=torch.tensor([ids])).logits[0], None
        with sparse_prefill(gen.model, settings) as stats:
            out = gen.model(input_ids=torch.tensor([ids])).logits[0]
        return out, stats


def test_on_a_model_reading_every_key_is_exact_and_attention_is_restored(tiny):
    ids = _ids(tiny, 3000).ids
    used = tiny.model.config._attn_implementation
    dense, _ = _logits(tiny, ids)
    every, stats = _logits(tiny, ids, SparsePrefill(budget=len(ids) + 64, min_tokens=0))
    assert tiny.model.config._attn_implementation == used  # restored
    assert len(stats.patterns) == 3 and stats.density == [1.0] * 3
    torch.testing.assert_close(every, dense)
    sparse, stats = _logits(tiny, ids, SparsePrefill(budget=256, block=32, min_tokens=0))
    assert max(stats.density) < 0.8 and torch.isfinite(sparse).all()
    assert (sparse - dense).abs().max() > 1e-3  # keys were skipped


def test_sparse_prefill_composes_with_compression_and_short_prompts_stay_dense(tiny):
    prompt = _ids(tiny, 3000)
    window = len(prompt.ids) - prompt.tail_token
    gen = tiny.with_prefill(SparsePrefill(budget=256, block=32, min_tokens=0))
    assert gen.model is tiny.model and tiny.sparse is None  # a copy, sharing the model
    with torch.inference_mode():
        cache, _, obs = gen.prefill(prompt.ids, window)
    assert gen.last_sparse["sparse_layers"] == 3 and gen.last_sparse["density"] < 0.8
    assert obs is not None and len(obs.queries) == 3  # the window saw the sparse prefill
    config = KVConfig.of("lateseg", 128)
    done = compress(
        cache, obs, config, text=prompt.text, offsets=prompt.offsets, window_tokens=window
    )
    assert done.kept[0].shape[1] == 128
    long_only = tiny.with_prefill(SparsePrefill(budget=256, block=32, min_tokens=10_000))
    done = long_only.complete(tiny.prompt(QUESTION, []), kv=None)
    assert done.kv_stats["prefill"]["sparse_layers"] == 0
    assert done.kv_stats["prefill"]["dense_calls"] > 0


def test_sparse_prefill_gives_the_dense_answer_on_needle_prompts():
    """SmolLM2 at about 3k tokens, every layer sparse at the default budget: fed the
    dense prefill's greedy answer, the sparse prefill's cache picks every token of it
    itself (teacher-forced top-1), the code's digits included."""
    gen = LocalGenerator(max_new_tokens=16, context_tokens=50_000)
    text = license_file("GPL-3").read_text()[:12_000]
    for at, code in ((0.3, 7481), (0.7, 2950)):
        cut = text.index("\n\n", int(len(text) * at))
        doc = text[:cut] + f"\n\nThe secret access code for the vault is {code}." + text[cut:]
        hit = Hit(source="/docs/gpl.txt", start=0, end=len(doc), text=doc, score=1.0)
        prompt = gen.render(gen.prompt(QUESTION, [hit]))
        picks = []
        for mode in ("dense", "sparse"):
            g = gen.with_prefill(SparsePrefill(min_tokens=0) if mode == "sparse" else mode)
            with torch.inference_mode():
                cache, logits, _ = g.prefill(prompt.ids)
                if mode == "dense":
                    answer = []
                    for _ in range(14):
                        answer.append(int(logits.argmax()))
                        logits = g.feed(answer[-1:], cache, len(prompt.ids) + len(answer) - 1)
                    picks.append(answer)
                    continue
                assert g.last_sparse["sparse_layers"] == 30 and g.last_sparse["density"] < 0.7
                chosen = [int(logits.argmax())]
                for i, token in enumerate(answer[:-1]):
                    chosen.append(int(g.feed([token], cache, len(prompt.ids) + i).argmax()))
                picks.append(chosen)
        assert str(code) in gen.tokenizer.decode(picks[0])
        assert picks[1] == picks[0]
