"""Ask and search options: one frozen list, checked when made, the old mode names read
as the new ones."""

from __future__ import annotations

import dataclasses

import pytest

from lateseg.ask.options import (
    ANSWER_MODES,
    AskOptions,
    SearchOptions,
    answer_mode,
    options_of,
)
from lateseg.errors import ConfigError


def test_the_defaults_quote_from_five_passages_dense_but_hybrid_for_code_questions():
    o = AskOptions()
    assert (o.k, o.answer, o.mode, o.kv, o.fallback) == (5, "quote", "auto", None, True)
    assert o.search == SearchOptions()
    assert o.search.select("How many days' notice must the Client give?")["mode"] == "dense"
    assert o.search.select("Which exception does clamp() raise?")["mode"] == "hybrid"
    assert SearchOptions(mode="dense").select("Which exception is raised?")["mode"] == "dense"
    with pytest.raises(ConfigError, match="choose one of auto, hybrid, dense, lexical"):
        SearchOptions(mode="fuzzy")
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.k = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("given", "mode"),
    [
        ({"answer": "extractive"}, "quote"),
        ({"answer": "generative"}, "generate"),
        ({"answer": "copy"}, "copy"),
        ({"extractive": True}, "quote"),
        ({"extractive": True, "answer": "extractive"}, "quote"),
        ({"kv_budget": 128}, "generate"),
        ({"prefill": "sparse"}, "generate"),
    ],
)
def test_old_mode_names_and_generator_settings_choose_the_mode(given, mode):
    assert AskOptions.of(**given).answer == mode
    assert mode in ANSWER_MODES


@pytest.mark.parametrize(
    ("given", "names"),
    [
        ({"k": 0}, "k=0"),
        ({"k": True}, "k=True"),
        ({"context": 0}, "context=0"),
        ({"mode": "fuzzy"}, "mode='fuzzy'"),
        ({"rerank": "magic"}, "rerank='magic'"),
        ({"answer": "guess"}, "answer='guess'"),
        ({"answer": "copy", "extractive": True}, "extractive=True"),
        ({"answer": "quote", "kv_budget": 64}, "kv_budget"),
        ({"kv_method": "snapkv"}, "kv_method='snapkv'"),
        ({"prefill": "thin"}, "prefill='thin'"),
        ({"top": 3}, "unknown ask option top"),
    ],
)
def test_a_wrong_option_is_refused_by_name(given, names):
    with pytest.raises(ConfigError, match=names.replace("(", r"\(").replace(")", r"\)")):
        AskOptions.of(**given)


def test_search_options_check_their_own_and_select_for_the_retriever():
    o = SearchOptions.of(k=3, mode="hybrid", kind="pdf", weights=(1.0, 0.5))
    assert o.select("any question") == {
        "mode": "hybrid",
        "source": None,
        "kind": "pdf",
        "include_toc": False,
        "weights": (1.0, 0.5),
    }
    with pytest.raises(ConfigError, match="unknown search option answer"):
        SearchOptions.of(answer="quote")
    assert AskOptions.of(k=3, mode="lexical", rerank="generator").search == SearchOptions(
        3, "lexical", rerank="generator"
    )


def test_options_or_keywords_never_both():
    given = AskOptions.of(k=2)
    assert options_of(AskOptions, given, None, {}) is given
    assert options_of(AskOptions, None, 4, {"answer": "copy"}) == AskOptions(4, "copy")
    with pytest.raises(ConfigError, match="not both"):
        options_of(AskOptions, given, 3, {})


def test_answer_mode_reads_aliases():
    assert answer_mode("generative") == "generate" and answer_mode(None) == "quote"
