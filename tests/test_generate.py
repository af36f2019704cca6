"""Bounded generation: loops and slow answers stop, and say why."""

from __future__ import annotations

import pytest

from lateseg.generate.decode import looping
from lateseg.generate.local import LocalGenerator

pytestmark = pytest.mark.slow  # loads the generator


@pytest.mark.parametrize(
    ("tokens", "dropped"),
    [
        ([9, 8, *[1, 2, 3] * 6], 3 * 6 - 6),  # "the law of the law of ...": one copy of 6 kept
        ([5] * 12, 8),  # one token said 12 times: 4 kept
        ([7, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4], 8),  # a 4-token stretch, 3 times
        ([1, 2, 1, 2, 1, 2], 0),  # short repeats in a sentence ("no, no, no") are no loop
        (list(range(40)), 0),
        ([1, 2, 3, 1, 2, 3, 1, 2, 4], 0),  # the end breaks the pattern
    ],
)
def test_a_loop_at_the_end_is_found_and_one_copy_kept(tokens, dropped):
    assert looping(tokens) == dropped


@pytest.fixture(scope="module")
def gen():
    g = LocalGenerator(max_new_tokens=24)
    g.load()
    return g


def test_an_answer_that_runs_out_of_time_stops_and_says_so(gen):
    messages = [{"role": "user", "content": "Count from one to fifty in words."}]
    gen.max_seconds = 0.0
    try:
        done = gen.complete(messages)
    finally:
        gen.max_seconds = 120.0
    assert done.finish_reason == "time" and done.completion_tokens == 1
    normal = gen.complete(messages)
    assert normal.finish_reason in {"length", "stop", "repetition"}
    assert normal.completion_tokens > 1


LONG = (
    "Each package must have a priority value, which is set in the metadata for the Debian "
    "archive and is also included in the package's control files."
)


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        (f"{LONG} {LONG} ", len(LONG)),
        (f"Intro. {LONG}\n{LONG.upper()} ", len("Intro. ") + len(LONG)),  # case and spacing aside
        (f"{LONG} Something else entirely. ", None),
        ("No. No. No. ", None),  # short sentences said again are no repeat
    ],
)
def test_a_whole_sentence_said_again_is_found(text, cut):
    from lateseg.generate.decode import repeated_sentence

    assert repeated_sentence(text)[1] == cut


def test_the_default_generator_is_its_transformers_versions_own_with_the_models_eos(gen):
    """The converted folder is named for the transformers version that made it (another
    environment sharing the home, on another version, makes its own: transformers 5.2's
    conversion had another end-of-sequence token and no byte-level decoder), and its
    tokenizer ends a sequence where the model's generation config says."""
    import importlib.metadata

    from transformers import AutoTokenizer, GenerationConfig

    from lateseg.encode.models import default_generator_dir

    folder = default_generator_dir()
    assert folder.name.endswith("-transformers-" + importlib.metadata.version("transformers"))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert tokenizer.eos_token_id == GenerationConfig.from_pretrained(folder).eos_token_id
    assert tokenizer.decode(tokenizer.encode(" the world")).endswith(" the world")


def test_decoding_stops_when_a_long_sentence_repeats(gen):
    """The real model made to copy a text that says one long sentence three times (a
    copy constraint that may not end early): decoding stops after the first copy, far
    longer than the token loop's 16-token window."""
    from lateseg.generate.copying import CopyConstraint

    text = f"{LONG} {LONG} {LONG}"
    constraint = CopyConstraint(gen.tokenizer, [text], [[0]], least=10_000)
    messages = [{"role": "user", "content": f"Copy this text: {text}"}]
    done = gen.complete(messages, max_new_tokens=120, constraint=constraint)
    assert done.finish_reason == "repetition"
    assert done.text == LONG


def test_a_cut_answer_ends_at_a_whole_word(gen):
    from lateseg.generate.decode import _word_end

    assert _word_end("the notice per") == len("the notice ")
    assert _word_end("the notice period.") == len("the notice period.")
    messages = [{"role": "user", "content": "Describe the water cycle in detail."}]
    done = gen.complete(messages, max_new_tokens=7)
    assert done.finish_reason == "length" and done.text.endswith(" …")
