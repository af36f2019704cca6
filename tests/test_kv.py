"""KV-cache compression with the real default generator (SmolLM2-135M) on real text."""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest
import torch
from conftest import license_file
from hypothesis import given, settings
from hypothesis import strategies as st

from lateseg.answer.question import analyse
from lateseg.errors import ConfigError
from lateseg.generate.compose import generated
from lateseg.generate.local import LocalGenerator, cache_keyword
from lateseg.kv import METHODS, KVConfig, ObservationWindow, compress, content_chunks
from lateseg.kv.compress import knapsack, parse_budget, select, window_scores
from lateseg.types import Hit

NEEDLE = "The secret access code for the vault is 7481."
QUESTION = "What is the secret access code for the vault?"


@pytest.fixture(scope="module")
def gen():
    g = LocalGenerator(max_new_tokens=16, context_tokens=50_000)
    g.load()
    return g


def _haystack(chars=4000, at=0.5):
    text = license_file("Apache-2.0").read_text()[:chars]
    cut = text.index("\n\n", int(len(text) * at))
    doc = text[:cut] + "\n\n" + NEEDLE + text[cut:]
    return Hit(source="/docs/apache.txt", start=0, end=len(doc), text=doc, score=1.0)


def _prefill(gen, hit, config, question=QUESTION):
    prompt = gen.render(gen.prompt(question, [hit]))
    window = len(prompt.ids) - prompt.tail_token
    with torch.inference_mode():
        cache, _, obs = gen.prefill(prompt.ids, window)
    return prompt, cache, obs, window


@pytest.mark.parametrize("method", [m for m in METHODS if m != "full"])
def test_every_layer_keeps_the_budget_with_sinks_and_window(gen, method):
    config = KVConfig.of(method, 96)
    prompt, cache, obs, window = _prefill(gen, _haystack(2500), config)
    n = len(prompt.ids)
    done = compress(
        cache, obs, config, text=prompt.text, offsets=prompt.offsets, window_tokens=window
    )
    assert n > 400
    for layer, kept in zip(cache.layers, done.kept, strict=True):
        assert layer.keys.shape[-2] == layer.values.shape[-2] == 96
        assert kept.shape == (layer.keys.shape[1], 96)
        for heads in kept:
            assert set(range(4)) <= set(heads) and set(range(n - window, n)) <= set(heads)
            assert (np.diff(heads) > 0).all()  # original order, no duplicates
    st_ = done.stats()
    assert st_["kept_tokens"] == 96 and st_["prompt_tokens"] == n
    assert st_["bytes_after"] * n == st_["bytes_before"] * 96  # exactly the configured ratio


def test_lateseg_keeps_whole_content_chunks_and_the_kept_keys_are_the_originals(gen):
    config = KVConfig.of("lateseg", 128, layer_group=3)
    prompt, cache, obs, window = _prefill(gen, _haystack(3000), config)
    full_keys = [layer.keys.clone() for layer in cache.layers]
    done = compress(
        cache, obs, config, text=prompt.text, offsets=prompt.offsets, window_tokens=window
    )
    n = len(prompt.ids)
    chunks = done.chunks
    assert chunks[0][0] == 4 and chunks[-1][1] == n - window
    assert all(b - a <= config.press.chunk_max_tokens for a, b in chunks)
    assert all(x[1] == y[0] for x, y in itertools.pairwise(chunks))  # they tile the middle
    for i, (layer, kept) in enumerate(zip(cache.layers, done.kept, strict=True)):
        k = set(kept[0].tolist())
        for a, b in chunks:
            inside = sum(t in k for t in range(a, b))
            assert inside in (0, b - a), f"layer {i}: chunk {a}..{b} kept in part"
        # The kept slots are the original keys, at their original (rotated) positions.
        torch.testing.assert_close(layer.keys[0], full_keys[i][0][:, kept[0]])
    # Layer groups of 3 share their choice.
    assert all((done.kept[g] == done.kept[g + 1]).all() for g in (0, 1, 3, 4))


def test_scores_match_the_models_own_attention_weights(gen):
    """Our scores from rotated queries and cached keys (sdpa prefill) equal the
    attention probabilities an eager forward returns."""
    prompt = gen.render(gen.prompt(QUESTION, [_haystack(1200)]))
    window = len(prompt.ids) - prompt.tail_token
    cache = gen.new_cache()
    ids = torch.tensor([prompt.ids])
    given = {cache_keyword(gen.model): cache}  # its name in this transformers
    with torch.inference_mode(), ObservationWindow(gen.model, window) as obs:
        gen.model(input_ids=ids, use_cache=True, logits_to_keep=1, **given)
    ours = window_scores(obs, cache)
    gen.model.config._attn_implementation = "eager"
    try:
        with torch.inference_mode():
            out = gen.model(input_ids=ids, output_attentions=True, logits_to_keep=1)
    finally:
        gen.model.config._attn_implementation = "sdpa"
    hkv = cache.layers[0].keys.shape[1]
    for layer, att in enumerate(out.attentions):
        a = att[0, :, -window:, :].float()  # [Hq, w, T]
        want = a.view(hkv, -1, window, a.shape[-1]).mean(dim=(1, 2)).numpy()
        np.testing.assert_allclose(ours[layer], want, atol=2e-3, err_msg=f"layer {layer}")


def test_generates_the_needle_from_a_compressed_cache(gen):
    hit = _haystack(4000, at=0.4)
    full, none = gen.generate(gen.prompt(QUESTION, [hit]))
    assert "7481" in full and none is None
    text, stats = gen.generate(gen.prompt(QUESTION, [hit]), kv=KVConfig(budget=128))
    assert "7481" in text
    assert stats["kept_tokens"] == 128 and stats["prompt_tokens"] > 800
    assert stats["decode_tokens"] > 0 and stats["compress_ms"] < stats["prefill_ms"]
    pieces: list[str] = []
    streamed, _ = gen.generate(
        gen.prompt(QUESTION, [hit]), kv=KVConfig(budget=128), stream=pieces.append
    )
    assert streamed == text and "".join(pieces).strip() == text and len(pieces) > 2


def test_the_attention_is_restored_on_exit_and_on_error(gen):
    config = gen.model.config
    layers = [layer.self_attn for layer in gen.model.model.layers]
    assert config._attn_implementation == "sdpa"
    with ObservationWindow(gen.model, 8):
        assert config._attn_implementation == "lateseg_observe_sdpa"
        assert all(hasattr(a, "_lateseg_observer") for a in layers)
    assert config._attn_implementation == "sdpa"
    assert not any(hasattr(a, "_lateseg_observer") for a in layers)
    with pytest.raises(RuntimeError, match="boom"), ObservationWindow(gen.model, 8):
        raise RuntimeError("boom")
    assert config._attn_implementation == "sdpa"
    assert not any(hasattr(a, "_lateseg_observer") for a in layers)


def test_a_session_answers_several_questions_from_one_compressed_cache(gen, encoder):
    hit = _haystack(4000, at=0.6)
    session = gen.session([hit], KVConfig(budget=0.2))
    slots = session.slots
    assert slots == round(0.2 * len(session.context_ids))
    first = session.complete(QUESTION)
    assert all(layer.keys.shape[-2] == slots for layer in session.cache.layers)
    other = session.complete("Who may grant a patent license under this License?")
    again = session.complete(QUESTION)
    assert again.text == first.text and other.text != first.text  # truncated back each time
    assert first.kv_stats["reused"] and first.kv_stats["kept_tokens"] == slots
    cited = generated(first.text, analyse(QUESTION), session.passages, encoder, first.kv_stats)
    assert cited.citations == (hit,)


def test_a_probe_scored_session_holds_the_context_alone_at_its_budget(gen):
    from lateseg.generate.agnostic import PROBE

    hit = _haystack(4000, at=0.6)
    end = gen.session([hit], KVConfig(budget=0.2, observe="end"))
    probe = gen.session([hit], KVConfig(budget=0.2))  # the default
    assert probe.kv.observe == "probe"
    n = len(probe.context_ids)
    assert probe.context_ids == end.context_ids
    # the probe's slots were dropped: the cache is the context's budget, no more
    assert probe.slots == end.slots == round(0.2 * n)
    comp = probe.compressed
    assert comp is not None and comp.length == n and comp.budget == probe.slots
    assert all(k.shape[1] == probe.slots and k.max() < n for k in comp.kept)
    assert probe.stats["kept_tokens"] == probe.slots
    assert probe.stats["bytes_after"] == sum(
        layer.keys.nbytes + layer.values.nbytes for layer in probe.cache.layers
    )
    # the two scorings choose differently, and the probe keeps no slot of its own: each
    # layer holds the context's own keys at the kept positions (causal: the context's
    # keys do not depend on what follows it)
    assert any((a != b).any() for a, b in zip(comp.kept, end.compressed.kept, strict=True))
    with torch.inference_mode():
        alone, _, _ = gen.prefill(probe.context_ids)
    for layer, own, kept in zip(probe.cache.layers, alone.layers, comp.kept, strict=True):
        want = own.keys[0].gather(
            1, torch.from_numpy(kept)[:, :, None].expand(-1, -1, own.keys.shape[-1])
        )
        assert torch.allclose(layer.keys[0], want, atol=1e-4)
    done = probe.complete(QUESTION)
    assert done.kv_stats["reused"] and all(
        layer.keys.shape[-2] == probe.slots for layer in probe.cache.layers
    )
    assert PROBE not in done.text


def test_observe_is_checked_and_travels_with_the_config():
    with pytest.raises(ConfigError, match="observe='question'; choose one of end, probe"):
        KVConfig(observe="question")
    assert KVConfig().observe == "probe"  # the default (bench/results/kv_agnostic.md)
    config = KVConfig.of("snapkv", 0.25, observe="end", window=16)
    assert config.observe == "end" and config.window == 16
    assert KVConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


def test_config_errors_are_clear(gen):
    with pytest.raises(ConfigError, match="choose one of"):
        KVConfig.of("h2o")
    with pytest.raises(ConfigError, match="strictly between"):
        KVConfig(budget=1.5)
    with pytest.raises(ConfigError, match="at least 1 token"):
        KVConfig(budget=0)
    assert parse_budget("128") == 128 and parse_budget("0.25") == 0.25
    with pytest.raises(ConfigError, match="give tokens"):
        parse_budget("lots")
    with pytest.raises(ConfigError, match="smaller than the 4 sink"):
        gen.generate(gen.prompt(QUESTION, [_haystack(1500)]), kv=KVConfig(budget=10))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 6), st.floats(0, 1)), min_size=1, max_size=8),
    st.integers(0, 30),
)
def test_knapsack_is_exact_and_optimal(items, capacity):
    lengths = [a for a, _ in items]
    values = [b for _, b in items]
    chosen = knapsack(lengths, values, capacity)
    subsets = [
        s
        for r in range(len(items) + 1)
        for s in itertools.combinations(range(len(items)), r)
        if sum(lengths[i] for i in s) <= capacity
    ]
    fill = max(sum(lengths[i] for i in s) for s in subsets)
    best = max(sum(values[i] for i in s) for s in subsets if sum(lengths[i] for i in s) == fill)
    assert sum(lengths[i] for i in chosen) == fill
    assert sum(values[i] for i in chosen) == pytest.approx(best)


def test_content_chunks_follow_the_text_not_the_position(gen):
    body = license_file("MPL-2.0").read_text()[:3000]
    tok = gen.tokenizer

    def chunk_texts(text):
        enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
        off = enc["offset_mapping"]
        found = content_chunks(text, off, 0, len(off), 24)
        assert all(b - a <= 24 for a, b in found)
        assert found[0][0] == 0 and found[-1][1] == len(off)
        return [text[off[a][0] : off[b - 1][1]].strip() for a, b in found]

    plain = chunk_texts(body)
    for pad in (1, 2, 3, 7):  # shift the text by a few tokens
        shifted = chunk_texts("= " * pad + "\n\n" + body)
        assert shifted[-len(plain) + 1 :] == plain[1:]


def test_keydiff_keeps_per_head_the_keys_least_like_the_mean_key(gen):
    config = KVConfig.of("keydiff", 80)
    prompt, cache, obs, window = _prefill(gen, _haystack(1500), config)
    n = len(prompt.ids)
    keys = [layer.keys[0].float().clone() for layer in cache.layers]  # [H, T, D] before
    done = compress(cache, obs, config, window_tokens=window)
    capacity = 80 - 4 - window
    for layer_keys, kept in zip(keys, done.kept, strict=True):
        unit = torch.nn.functional.normalize(layer_keys, dim=-1)
        cosine = (unit * unit.mean(dim=1, keepdim=True)).sum(-1) / unit.mean(dim=1).norm(
            dim=-1, keepdim=True
        )
        for h, heads in enumerate(kept):
            middle = [p for p in heads.tolist() if 4 <= p < n - window]
            assert len(middle) == capacity
            # every kept middle key is at least as unlike the mean as every dropped one
            dropped = sorted(set(range(4, n - window)) - set(middle))
            assert cosine[h, middle].max() <= cosine[h, dropped].min() + 1e-5


def test_a_new_kv_method_is_one_class_and_its_registry_line():
    """What adding a press takes: the class and ``register``; KVConfig then accepts the
    name, and an unknown name lists every registered one."""
    from lateseg.kv import PRESSES, Press, register

    @dataclasses.dataclass(frozen=True)
    class EveryOther(Press):
        name = "every-other-test"
        scored = False

        def choose(self, scores, slots, chunks):
            return np.arange(slots.sinks, slots.win_start, 2)[: slots.capacity]

    register(EveryOther)
    try:
        config = KVConfig.of("every-other-test", 20)
        (kept,) = select(config, [np.zeros((2, 40))], 40, 8)
        assert kept.tolist() == [[0, 1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 18, *range(32, 40)]] * 2
        with pytest.raises(ConfigError, match="every-other-test") as e:
            KVConfig.of("nope")
        assert all(name in str(e.value) for name in PRESSES)
    finally:
        PRESSES.unregister("every-other-test")


# -- presses own their settings -----------------------------------------------------------


def test_each_press_owns_its_settings_and_they_act(gen):
    from lateseg.kv.presses import ChunkKVFixedPress, Slots, SnapKVPress

    # ChunkKV's chunk: the kept middle is made of whole aligned chunks of that length
    slots = Slots(length=100, sinks=4, win_start=92, capacity=40, heads=1)
    scores = np.random.default_rng(0).random((1, 100))
    for c in (5, 20):
        middle = ChunkKVFixedPress(chunk=c).choose(scores, slots, None)
        starts = sorted({4 + (int(p) - 4) // c * c for p in middle})
        assert len(middle) == 40 and len(starts) == 40 // c  # whole chunks of c only
    # SnapKV's kernel: pooling over 1 slot is no pooling (top scores exactly); wider is not
    one = SnapKVPress(kernel=1).choose(scores, slots, None)
    assert set(one[0]) == set(4 + np.argsort(-scores[0, 4:92])[:40])
    assert set(SnapKVPress(kernel=9).choose(scores, slots, None)[0]) != set(one[0])
    # settings are checked when a press is made, and named when unknown
    with pytest.raises(ConfigError, match="chunk=0"):
        ChunkKVFixedPress(chunk=0)
    with pytest.raises(ConfigError, match="its settings: kernel"):
        KVConfig.of("snapkv", 64, chunk=4)
    with pytest.raises(ConfigError, match="has none"):
        KVConfig.of("streaming", 64, kernel=3)
    # the full press keeps everything whatever the budget: no special case in select
    (kept,) = select(KVConfig.of("full", 8), [np.zeros((2, 40))], 40, 8)
    assert kept.shape == (2, 40)


def test_layer_groups_default_to_the_press_and_an_explicit_one_wins():
    # lateseg shares one choice per 3 layers unless told otherwise; peers choose per layer
    assert KVConfig().group == 3 and KVConfig.of("snapkv", 64).group == 1
    assert KVConfig.of("lateseg", 64, layer_group=1).group == 1
    scores = [np.random.default_rng(i).random((2, 60)) for i in range(7)]
    kept = select(KVConfig.of("snapkv", 20), scores, 60, 8)
    assert any((kept[i] != kept[i + 1]).any() for i in range(6))
    kept = select(KVConfig.of("snapkv", 20, layer_group=3), scores, 60, 8)
    assert all((kept[g] == kept[g + 1]).all() for g in (0, 1, 3, 4))
    assert (kept[5] != kept[6]).any()  # a new group starts at layer 6
    with pytest.raises(ConfigError, match="layer_group"):
        KVConfig(layer_group=0)


@pytest.mark.parametrize(
    "config",
    [
        KVConfig(),
        KVConfig.of("chunkkv-fixed", 0.25, chunk=20, sinks=2, layer_group=3),
        KVConfig.of("snapkv", 512, kernel=5, window=16),
        KVConfig.of("lateseg", 0.1, max_chunk=48),
        KVConfig.of("keydiff", 128),
        KVConfig.of("full", 64),
    ],
)
def test_a_kv_config_round_trips_through_json(config):
    again = KVConfig.from_dict(json.loads(json.dumps(config.to_dict())))
    assert again == config and again.press == config.press
    assert type(again.press) is type(config.press)


@pytest.mark.parametrize(
    "bad",
    [
        {"press": {"method": "h2o"}, "budget": 64},
        {"press": {"method": "snapkv", "kernel": -1}, "budget": 64},
        {"press": {"method": "snapkv", "kernel": "7; rm -rf /"}, "budget": 64},
        {"press": "snapkv", "budget": 64},
        {"press": {"method": "lateseg"}, "budget": 64, "colour": "red"},
        {"press": {"method": "lateseg"}, "budget": float("nan")},
        [],
    ],
)
def test_a_kv_config_read_from_json_is_checked(bad):
    with pytest.raises(ConfigError):
        KVConfig.from_dict(bad)


def test_every_list_of_presses_is_the_registry():
    """The CLI, the server's validation and the LangChain chat model read the registry:
    each registered press is offered everywhere (keydiff was missing from LangChain)."""
    pytest.importorskip("langchain_core", reason="the LangChain extra (not in make kvpress-env)")
    from lateseg.cli import _parser
    from lateseg.integrations.langchain.chat import LatesegChatModel
    from lateseg.kv.presses import PRESSES

    ask = _parser()._subparsers._group_actions[0].choices["ask"]
    (method,) = [a for a in ask._actions if "--kv-method" in a.option_strings]
    assert tuple(method.choices) == tuple(PRESSES)
    doc = LatesegChatModel.__doc__ or ""
    assert all(f"``{name}``" in doc for name in PRESSES)


def test_ask_takes_a_bare_kv_budget_as_the_operating_point_and_a_prefill_mode():
    from lateseg.cli import _parser
    from lateseg.kv.compress import OPERATING_POINT

    parse = _parser().parse_args
    args = parse(["ask", "notice?", "--index", "i", "--kv-budget"])
    assert parse_budget(args.kv_budget) == OPERATING_POINT and args.prefill is None
    args = parse(["ask", "notice?", "--index", "i", "--kv-budget", "128", "--prefill", "sparse"])
    assert parse_budget(args.kv_budget) == 128 and args.prefill == "sparse"
    with pytest.raises(SystemExit):
        parse(["ask", "notice?", "--index", "i", "--prefill", "fast"])


def test_ask_says_what_the_sparse_prefill_did(capsys):
    from lateseg.cli.query import show_answer
    from lateseg.types import Answer

    heads = {"a-shape": 2, "vertical-slash": 20, "block-sparse": 8}
    ran = {"sparse_layers": 30, "dense_calls": 0, "density": 0.2, "heads": heads}
    show_answer(Answer("It is 60 days.", (), kv_stats={"method": "full", "prefill": ran}), False)
    err = capsys.readouterr().err
    assert "30 layers read 20% of the query-key pairs" in err and "20 vertical-slash" in err
    short = {**ran, "sparse_layers": 0, "dense_calls": 30, "density": 1.0}
    show_answer(Answer("It is 60 days.", (), kv_stats={"method": "full", "prefill": short}), False)
    assert "prefilled densely" in capsys.readouterr().err


def test_the_cache_goes_by_the_name_the_model_s_forward_takes(gen):
    import inspect

    name = cache_keyword(gen.model)
    assert name in inspect.signature(gen.model.forward).parameters

    class Older:  # transformers before the rename (5.2, which kvpress pins)
        def forward(self, input_ids=None, past_key_values=None, **kwargs): ...

    assert cache_keyword(Older()) == "past_key_values"
