"""Bounded generation: loops and slow answers stop, and say why."""

from __future__ import annotations

import pytest

from lateseg.generate.local import LocalGenerator, looping


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
