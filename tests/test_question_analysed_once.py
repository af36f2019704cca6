"""The analysed question is a type (issue 61.4): during one ask the question's text is read
by :func:`~lateseg.answer.question.analyse` once, in the preparation step, and every later
step (quote, cells, phrase, sense, the support check, the remote and local generators)
reads the :class:`~lateseg.answer.question.Asked` it made, never the text again."""

from __future__ import annotations

import collections
import functools
import importlib
import inspect
import pkgutil
import sys

import pytest

QUESTION = "How long is the notice period to terminate the MSA?"


def _all_modules() -> None:
    for package in ("lateseg.answer", "lateseg.check", "lateseg.generate", "lateseg.ask"):
        path = importlib.import_module(package).__path__
        for info in pkgutil.walk_packages(path, package + "."):
            importlib.import_module(info.name)


def counting_question_calls(monkeypatch) -> tuple[collections.Counter, list[str]]:
    """Every function of :mod:`lateseg.answer.question` wrapped wherever a lateseg module
    holds it: the calls made from outside that module whose first argument is the
    question's text (as ``analyse`` got it) or a stretch of it longer than one word, by
    function name; and the texts ``analyse`` was given."""
    from lateseg.answer import question

    _all_modules()
    calls: collections.Counter = collections.Counter()
    analysed: list[str] = []

    def wrap(name, fn):
        @functools.wraps(fn)
        def counted(*args, **kw):
            caller = sys._getframe(1).f_globals.get("__name__")
            first = args[0] if args else None
            if name == "analyse":
                analysed.append(first)
            if (
                caller != question.__name__
                and isinstance(first, str)
                and analysed
                and len(first.split()) > 1
                and first in analysed[0]
            ):
                calls[name] += 1
            return fn(*args, **kw)

        return counted

    functions = {
        name: fn
        for name, fn in vars(question).items()
        if inspect.isfunction(fn) and fn.__module__ == question.__name__
    }
    wrapped = {name: wrap(name, fn) for name, fn in functions.items()}
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("lateseg"):
            for name, fn in functions.items():
                if getattr(module, name, None) is fn:
                    monkeypatch.setattr(module, name, wrapped[name])
    return calls, analysed


@pytest.mark.slow
@pytest.mark.parametrize("how", ["quote", "copy", "generate", "remote"])
def test_one_ask_reads_the_question_text_once(sample_index, monkeypatch, how):
    """Before issue 61.4 one ask of this question made 3 such calls (quote), 2 (copy), 5
    (generate) and 5 (a model behind a URL): table cells re-derived the question's
    content words from its text for every sentence whose phrase they cut. Now: one,
    ``analyse``'s, in every mode."""
    calls, analysed = counting_question_calls(monkeypatch)
    if how == "remote":
        from llm_servers import FaultServer

        from lateseg.generate.remote.config import LLMConfig

        with FaultServer(tokenizer=True) as server:
            llm = LLMConfig(url=server.url, model="ok", timeout_s=30)
            answer = sample_index.ask(QUESTION, k=3, llm=llm)
    else:
        answer = sample_index.ask(QUESTION, k=3, answer=how)
    assert answer.text
    assert len(analysed) == 1, analysed
    assert dict(calls) == {"analyse": 1}, calls
