"""Questions about code answered with the code fact they ask for (lateseg.answer.code),
on real repositories nobody here wrote (data/real/code: humanize, HTTPie)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from lateseg.answer.code import code_answer
from lateseg.answer.code_facts import facts, shape
from lateseg.answer.extractive import extractive_answer
from lateseg.answer.question import analyse, code_kind
from lateseg.types import Hit

os.environ["HF_HUB_OFFLINE"] = "1"

REAL = Path(__file__).resolve().parent.parent / "data" / "real" / "code"
HUMANIZE = REAL / "humanize" / "src" / "humanize"
HTTPIE = REAL / "httpie" / "httpie"
FLAKE8 = REAL / "flake8" / "src" / "flake8"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What gets raised if I give clamp() a format it cannot use?", "exception"),
        ("What exception do I get if I call naturaldelta with minimum_unit='years'?", "exception"),
        ("What does the error say when activate() can't find the folder?", "exception"),
        ("Which environment variable sets the config folder?", "env"),
        ("Which exit status means the request timed out?", "exit_code"),
        ("What printf format is used for the number when I don't pass one?", "default"),
        ("What strftime pattern does naturalday fall back to?", "default"),
        # a default asked without the word: nothing configured, nothing given
        ("Where are templates kept if I haven't configured anything?", "default"),
        ("Without any user config, where are replay files saved?", "default"),
        ("Out of the box, how long can a line be?", "default"),
        ("How long can a line be if I don't configure anything?", "default"),
        ("What happens to the project if a hook fails?", None),
        ("Which function translates an HTTP status into the exit code?", "symbol"),
        ("Is there a helper that spells out small numbers?", "symbol"),
        # prose: to raise a dispute or a price is not an exception
        ("How soon must the parties meet after someone raises a dispute?", None),
        ("By how much can Corvane raise its hourly rates at most?", None),
        # a quantity is worded as a default (a code question only over an index with
        # code: test_a_question_worded_about_code_is_plain_where_the_index_holds_none)
        ("How many days' notice must the Client give to terminate?", "default"),
        ("After how many days is a cached environment thrown away?", "default"),
        ("What's the largest response body it prints?", "default"),
        (
            "Where do venvs go when I install with --global and haven't set PIPX_GLOBAL_HOME?",
            "default",
        ),
        ("What is the default maximum complexity?", "default"),
        # an exception class is an exception; an enum is a symbol
        ("Which exception class does pipx raise when it can't find the interpreter?", "exception"),
        ("Which pipx exception class reports that mismatch?", "exception"),
        ("What's the name of the enum that lists the wrap modes?", "symbol"),
        ("Which enum lists the wrap modes?", "symbol"),
        ("What happens when a plugin fails to load?", None),
    ],
)
def test_a_question_about_code_says_which_fact_it_asks_for(question, kind):
    assert code_kind(question) == kind
    assert analyse(question).code == kind


def _unit_hit(path: Path, name: str) -> Hit:
    """The whole function ``name`` of the file at ``path`` as a code hit."""
    import ast

    text = path.read_text("utf-8")
    node = next(
        n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef) and n.name == name
    )
    lines = text.splitlines(keepends=True)
    start = sum(map(len, lines[: node.lineno - 1]))
    end = sum(map(len, lines[: node.end_lineno]))
    return Hit(str(path), start, end, text[start:end], 1.0, kind="code", section=name)


def _values(kind: str, hits: list[Hit], message: bool = False) -> list[str]:
    return [hits[f.passage].text[f.value[0] : f.value[1]] for f in facts(kind, hits, message)]


def test_facts_are_read_from_the_lines_that_state_them():
    clamp = _unit_hit(HUMANIZE / "number.py", "clamp")
    defaults = _values("default", [clamp])
    assert 'format: str = "{:}"' in defaults and 'floor_token: str = "<"' in defaults
    assert _values("exception", [clamp]) == ["ValueError"]
    # the message a raise gives through a name assigned a few lines before
    activate = _unit_hit(HUMANIZE / "i18n.py", "activate")
    (said,) = _values("exception", [activate], message=True)
    assert said.startswith("Humanize cannot determinate the default location")
    status = HTTPIE / "status.py"
    text = status.read_text("utf-8")
    whole = Hit(str(status), 0, len(text), text, 1.0, kind="code")
    exits = _values("exit_code", [whole])
    assert "ERROR_TIMEOUT = 2" in exits and "ERROR_CTRL_C = 130" in exits
    assert "http_status_to_exit_status" in _values("symbol", [whole])
    config = (HTTPIE / "config.py").read_text("utf-8")
    env = _values("env", [Hit(str(HTTPIE / "config.py"), 0, len(config), config, 1.0, kind="code")])
    assert {"HTTPIE_CONFIG_DIR", "XDG_CONFIG_HOME"} <= set(env)


def test_an_assignment_that_goes_on_past_its_line_is_no_default():
    text = 'help="""\n    The request URL.\n"""\nOPTIONS = [\n    1,\n]\nINDENT = 4\n'
    hit = Hit("/x/definition.py", 0, len(text), text, 1.0, kind="code")
    assert _values("default", [hit]) == ["INDENT = 4"]


def test_docs_corroborate_but_a_default_or_a_function_needs_code():
    """In docs: $NAME variables, "exits with 4", …Error names, "the default is …", calls
    in examples; a question for a default or a function is answered from them only
    beside a passage of code (else as any question is: code_answer gives None)."""
    text = (
        "The config directory can be changed by setting the $HTTPIE_CONFIG_DIR variable. "
        "On a 4xx reply HTTPie exits with 4. A broken file raises ConfigFileError. "
        "The default is 30 seconds; call naturalsize(3000) to see it."
    )
    hit = Hit("/x/README.md", 0, len(text), text, 1.0, kind="markdown")
    assert _values("env", [hit]) == ["HTTPIE_CONFIG_DIR"]
    assert _values("exit_code", [hit]) == ["exits with 4"]
    assert _values("exception", [hit]) == ["ConfigFileError"]
    assert _values("default", [hit]) == ["30"]
    assert _values("symbol", [hit]) == ["naturalsize"]
    for question in ("What is the default timeout?", "Which function formats a file size?"):
        assert code_answer(analyse(question), [hit], None) is None  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def code_index(tmp_path_factory, encoder):
    """An index of a few real modules of both repositories."""
    from lateseg.pipeline import Pipeline

    root = tmp_path_factory.mktemp("code")
    for src, names in (
        (HUMANIZE, ("number.py", "i18n.py", "filesize.py")),
        (HTTPIE, ("status.py", "config.py")),
    ):
        folder = root / "repo" / src.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copy(src / name, folder / name)
    pipe = Pipeline.open(root / "index")
    pipe.encoder = encoder
    report = pipe.ingest([root / "repo"], progress=False)
    assert not report.failed, report.failed
    yield pipe
    pipe.close()


def _line_of(path: str, needle: str) -> int:
    with open(path, encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, 1) if needle in line)


def test_an_exception_is_named_and_cited_at_its_raise(code_index):
    answer = code_index.ask(
        "What gets raised if I give clamp() a format that is neither a format string nor "
        "a callable?",
        min_confidence=0,
    )
    assert answer.phrase is not None and answer.phrase.text == "ValueError"
    where = answer.phrase.sentence
    assert where.source.endswith("number.py")
    assert where.line == where.line_end == _line_of(where.source, "raise ValueError(msg)")
    assert where.section and where.section.endswith("number.clamp")
    # the passage it cites was grown to the whole function, its lines the function's
    cited = answer.citations[0]
    assert cited.line == _line_of(cited.source, "def clamp(") and cited.line_end >= where.line


def test_a_default_an_exit_code_and_a_variable_are_quoted_from_code(code_index):
    fmt = code_index.ask(
        "In the number module, what format does clamp() apply to the value by default?",
        min_confidence=0,
    )
    assert fmt.phrase is not None and "{:}" in fmt.phrase.text
    timeout = code_index.ask(
        "Which exit status does HTTPie use when the request times out?", min_confidence=0
    )
    assert timeout.phrase is not None and timeout.phrase.text == "ERROR_TIMEOUT = 2"
    assert timeout.phrase.sentence.source.endswith("status.py")
    env = code_index.ask(
        "Which environment variable chooses the HTTPie config directory?", min_confidence=0
    )
    assert env.phrase is not None and env.phrase.text == "HTTPIE_CONFIG_DIR"


def test_a_quantity_is_answered_only_by_a_value_with_a_number(code_index):
    """A default with no number cannot answer "how many": no fact answers, and the
    question is quoted as any other is (no code phrase without a digit)."""
    answer = code_index.ask(
        "How many seconds does HTTPie wait by default before it reads the config file?",
        min_confidence=0,
    )
    assert answer.phrase is None or any(c.isdigit() for c in answer.phrase.text)


def test_the_cli_prints_code_as_code(code_index, capsys):
    """Line breaks kept, each line numbered as in the file, the phrase's lines marked."""
    from lateseg.cli.query import show_phrase

    answer = code_index.ask(
        "Which exit status does HTTPie use when the request times out?", min_confidence=0
    )
    assert answer.phrase is not None
    where = answer.phrase.sentence
    source = Path(where.source).read_text("utf-8")
    start = source.index("class ExitStatus")  # the class down to the quoted line
    block = code_index.retriever.narrow(answer.citations[0], start, where.end)
    phrase = dataclasses.replace(answer.phrase, sentence=block)
    show_phrase(phrase)
    out = capsys.readouterr().out.splitlines()
    numbered = [line for line in out if " | " in line]
    first = _line_of(where.source, "class ExitStatus")
    assert numbered[0].split("|")[0].split() == [str(first)]
    marked = [line for line in numbered if line.lstrip().startswith(">")]
    assert len(marked) == 1 and marked[0].endswith("ERROR_TIMEOUT = 2")
    assert marked[0].split("|")[0].split() == [">", str(where.line)]


def test_a_question_finds_the_units_it_names_by_name(code_index):
    from lateseg.retrieve.symbols import named_units, names_in

    said = "If I call naturaldelta with minimum_unit='years', what then?"
    assert names_in(said) == ["minimum_unit", "call", "naturaldelta", "years"]  # code-shaped first
    (clamp,) = named_units(code_index.retriever, "What does clamp() return for a NaN?")
    assert clamp.section and clamp.section.endswith("number.clamp")
    assert clamp.text.lstrip().startswith("def clamp(")
    found = named_units(code_index.retriever, "Does http_status_to_exit_status or activate run?")
    assert [h.section.rsplit(".", 1)[-1] for h in found if h.section] == [
        "http_status_to_exit_status",
        "activate",
    ]
    assert named_units(code_index.retriever, "What is the notice period for a lease?") == []


def test_hostile_code_costs_little_and_breaks_nothing(encoder):
    """The fact patterns run over untrusted files: a signature of thousands of blanks, a
    run of 'ENV' or dotted names, an assignment per line, are read in linear time (the
    old patterns took minutes here); a value on the line after its name is quoted with
    both lines, never a phrase outside its sentence."""
    hostile = "".join(
        [
            *(f"def f{i}(a:" + " " * 3000 + ")\n" for i in range(5)),
            "ENV" * 2000 + "\n",
            "a." * 3000 + "\n",
            "X = 1\n" * 1500,
            "def exit_code():\n" + "    return 1\n" * 3000,
            # a mapping of defaults whose entry ends in thousands of blanks, unclosed
            "DEFAULTS = {\n" + ("    'k': a" + " " * 6000 + "x\n") * 3,
            # round 5's patterns: a return ending in blanks (quadratic before: minutes),
            # thousands of reads through constants and of keywords of one call
            "def exit_status():\n    return 1" + " " * 60000 + "\n",
            *(f"v = os.getenv(NAME_{i})\nNAME_{i} = 'VAR_{i}'\n" for i in range(3000)),
            "parser.add_argument(\n" + "    env='X_Y',\n" * 3000 + ")\n",
        ]
    )
    hit = Hit("/x/hostile.py", 0, len(hostile), hostile, 1.0, kind="code")
    for kind in ("default", "env", "exit_code", "symbol", "exception"):
        facts(kind, [hit])
    wrapped = (
        "def g():\n"
        "    if c:\n        pass\n    else:\n        y = 5\n"
        '    home = os.environ.get(\n        "MY_HOME", "/x"\n    )\n'
        '    """Read it.\n\n    Defaults to\n        ``30``.\n    """\n'
        "    with pytest.raises(\n        ValueError\n    ):\n        pass\n"
    )
    code = Hit("/x/g.py", 0, len(wrapped), wrapped, 1.0, kind="code", section="g")
    for kind in ("default", "env", "exception"):
        for f in facts(kind, [code]):
            assert f.start <= f.value[0] < f.value[1] <= f.end, (kind, f)
    for question in (
        "What is the default value of y?",
        "Which environment variable sets the home folder?",
        "What exception does g raise?",
    ):
        answer = code_answer(analyse(question), [code], encoder)
        assert answer is not None and answer.phrase is not None
        where = answer.phrase.sentence
        assert all(where.start <= a < b <= where.end for a, b in answer.phrase.spans)
    env = code_answer(analyse("Which environment variable sets the home folder?"), [code], encoder)
    assert env is not None and env.phrase is not None and env.phrase.text == "MY_HOME"


def _whole(path: Path) -> Hit:
    text = path.read_text("utf-8")
    return Hit(str(path), 0, len(text), text, 1.0, kind="code")


def _decision_engine() -> Hit:
    """flake8's DecisionEngine, a passage of style_guide.py from its ``class`` line to the
    next class."""
    path = FLAKE8 / "style_guide.py"
    text = path.read_text("utf-8")
    start = text.index("class DecisionEngine")
    end = text.index("\nclass ", start)
    return Hit(str(path), start, end, text[start:end], 1.0, kind="code")


def test_a_class_asked_is_answered_by_a_class_and_a_function_by_a_function(encoder):
    """flake8's DecisionEngine (a passage of style_guide.py from its ``class`` line to
    the next class): its methods decide, but "which class" names the class; "which
    method" names one of its methods."""
    hit = _decision_engine()
    assert {"class", "def"} <= {shape([hit], f) for f in facts("symbol", [hit])}
    asked = analyse("Which class decides whether an error code is reported or ignored?")
    answer = code_answer(asked, [hit], encoder)
    assert answer is not None and answer.phrase is not None
    assert answer.phrase.text == "DecisionEngine"
    asked = analyse("Which method decides whether an error code is reported or ignored?")
    answer = code_answer(asked, [hit], encoder)
    assert answer is not None and answer.phrase is not None
    assert answer.phrase.text[:1].islower() and answer.phrase.text != "DecisionEngine"
    # a doc's call is a class when its name is capitalised
    text = "Make a `StyleGuide(options)`.\nThen call `handle_error(code)` on it."
    doc = Hit("/x/README.md", 0, len(text), text, 1.0, kind="markdown")
    assert {hit_name(doc, f): shape([doc], f) for f in facts("symbol", [doc])} == {
        "StyleGuide": "class", "handle_error": "def"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("Which class should my formatter inherit from?", "class"),
        ("Which helper class decides whether an error is shown?", "class"),
        ("Which function decides whether an error is shown?", "def"),
        ("Is there a decorator that adds a version option?", "def"),
        ("Where does the search for a config file stop?", None),
    ],
)
def test_the_shape_a_question_asks_for(question, wanted):
    from lateseg.answer.code import shape_asked

    assert shape_asked(question) == wanted


def hit_name(hit: Hit, f) -> str:
    return hit.text[f.value[0] : f.value[1]]


def test_an_exit_status_is_what_a_function_named_for_it_returns(encoder):
    """flake8's Application.exit_code returns 1 or 0, each under its own condition; a
    number another function returns is no exit status."""
    hit = _whole(FLAKE8 / "main" / "application.py")
    assert {"1", "0"} <= set(_values("exit_code", [hit]))
    for question, status in (
        ("What exit status does it give after a catastrophic failure?", "1"),
        ("With the exit-zero option set, which exit code does it end with?", "0"),
    ):
        answer = code_answer(analyse(question), [hit], encoder)
        assert answer is not None and answer.phrase is not None
        assert answer.phrase.text == status, question
    text = (
        "def count_files(self):\n    return 1\n\ndef __exit__(self, *exc):\n    return 3\n\n"
        "def exit_status(self):\n    return 2\n"
    )
    other = Hit("/x/app.py", 0, len(text), text, 1.0, kind="code")
    assert _values("exit_code", [other]) == ["2"]


def test_a_default_that_names_a_constant_is_answered_by_the_constant(encoder):
    """flake8's --max-line-length has ``default=defaults.MAX_LINE_LENGTH``; the answer
    is the line that assigns it, ``MAX_LINE_LENGTH = 79`` in defaults.py."""
    options = (FLAKE8 / "main" / "options.py").read_text("utf-8")
    at = options.index('"--max-line-length"')
    start, end = options.rindex("\n\n", 0, at), options.index("\n\n", at)
    opt = Hit(str(FLAKE8 / "main" / "options.py"), start, end, options[start:end], 0.8,
              kind="code")  # fmt: skip
    consts = _whole(FLAKE8 / "defaults.py")
    for question in (
        "How many characters may a line have by default before it is too long?",
        "What is the maximum line length by default?",
    ):
        answer = code_answer(analyse(question), [opt, consts], encoder)
        assert answer is not None and answer.phrase is not None
        assert answer.phrase.text == "MAX_LINE_LENGTH = 79", question
        assert answer.phrase.sentence.source.endswith("defaults.py")
    # without the constant's passage no line states a number: no code answer
    assert (
        code_answer(analyse("What is the maximum line length by default?"), [opt], encoder) is None
    )


def test_a_named_constant_answers_in_its_naming_lines_place(encoder):
    """Not a quantity, so the naming line is a candidate too: the constant answers, its
    naming line is not its rival (one candidate), and a constant that is only part of
    the value (``BASE_WORKERS * 2``) is not followed."""
    from lateseg.answer.code import resolve_constants

    opts = (
        'def options(parser):\n    parser.add_argument("--format", default=defaults.FORMAT_NAME)\n'
    )
    consts = 'FORMAT_NAME = "pylint"\nBASE_WORKERS = 4\n'
    hits = [Hit("/x/options.py", 0, len(opts), opts, 0.8, kind="code"),
            Hit("/x/defaults.py", 0, len(consts), consts, 0.5, kind="code")]  # fmt: skip
    _, constant = resolve_constants(hits, facts("default", hits))
    ((naming, value),) = constant.items()
    assert "defaults.FORMAT_NAME" in hits[0].text[naming.value[0] : naming.value[1]]
    assert hits[1].text[value.value[0] : value.value[1]] == 'FORMAT_NAME = "pylint"'
    answer = code_answer(analyse("Which output format is used by default?"), hits, encoder)
    assert answer is not None and answer.phrase is not None
    assert answer.phrase.text == 'FORMAT_NAME = "pylint"'
    assert "FORMAT_NAME = " in answer.alternatives[0].text
    assert all("defaults.FORMAT_NAME" not in alt.text for alt in answer.alternatives)
    expr = "def run(parser):\n    parser.add_argument('--workers', default=BASE_WORKERS * 2)\n"
    hits = [Hit("/x/run.py", 0, len(expr), expr, 0.8, kind="code"), hits[1]]
    assert resolve_constants(hits, facts("default", hits))[1] == {}


def test_an_ask_reads_the_constants_its_defaults_name(tmp_path, encoder):
    """Over an index of flake8's options.py and defaults.py, a default question's
    passages end with the chunk assigning the constant its hits name; another kind of
    question reads none."""
    from lateseg.ask.code_search import with_named_code
    from lateseg.pipeline import Pipeline

    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("main/options.py", "defaults.py"):
        shutil.copy(FLAKE8 / name, repo / Path(name).name)
    with Pipeline.open(tmp_path / "index") as pipe:
        pipe.encoder = encoder
        assert not pipe.ingest([repo], progress=False).failed
        text = (repo / "options.py").read_text("utf-8")
        at = text.index("default=defaults.INDENT_SIZE")
        naming = Hit(str((repo / "options.py").resolve()), at, at + 40, text[at : at + 40],
                     0.7, kind="code")  # fmt: skip
        asked = analyse("How many spaces of indent does it assume by default?")
        *first, found = with_named_code(pipe.retriever, asked, [naming])
        assert first == [naming]
        assert found.source.endswith("defaults.py") and "INDENT_SIZE = 4" in found.text
        assert found.score == 0.7
        other = analyse("Which exception does it raise for a bad indent?")
        assert with_named_code(pipe.retriever, other, [naming]) == [naming]
        answer = pipe.ask(asked.question, min_confidence=0)
        assert answer.phrase is not None and answer.phrase.text == "INDENT_SIZE = 4"
        assert answer.phrase.sentence.source.endswith("defaults.py")


def test_a_copy_of_a_line_is_no_second_witness():
    line = "TIMEOUT = 30\n"
    a = Hit("/x/pkg/a.py", 0, len(line), line, 1.0, kind="code")
    b = Hit("/x/build/lib/pkg/a.py", 0, len(line), line, 1.0, kind="code")
    assert _values("default", [a, b]) == ["TIMEOUT = 30"]


def test_a_question_worded_about_code_is_plain_where_the_index_holds_none(
    code_index, tmp_path, encoder
):
    """'What is the default …' of contracts is no question about code: no hybrid search,
    no units looked up, no code facts."""
    from lateseg.ask.options import SearchOptions
    from lateseg.pipeline import Pipeline

    question = "What is the default value of the late fee?"
    assert code_index._answerer.analysed(question).code == "default"
    (tmp_path / "terms.txt").write_text("The late fee is 5% of the unpaid amount.\n")
    with Pipeline.open(tmp_path / "idx") as prose:
        prose.encoder = encoder
        prose.ingest([tmp_path / "terms.txt"], progress=False)
        assert prose._answerer.analysed(question).code is None
        assert prose.ask(question, min_confidence=0).phrase is not None
    assert SearchOptions().select(question, code=False)["mode"] == "dense"
    assert SearchOptions().select(question)["mode"] == "hybrid"
    assert SearchOptions().select()["mode"] == "dense"


def test_a_quantity_is_a_default_of_a_codebase_only(code_index, sample_index):
    """ "How many days' notice …" is worded as a default only by words a contract's
    question uses too: of a codebase it asks for a default, of the sample contracts
    beside their sample script it is any other question (its search and its answer as
    before: no code facts); "by default" asks for one of either."""
    from lateseg.answer.question import weakly_default

    quantity = "How many days' notice must the Client give to terminate?"
    assert code_kind(quantity) == "default" and weakly_default(quantity)
    assert code_index._answerer.analysed(quantity).code == "default"
    assert sample_index._answerer.analysed(quantity).code is None
    for words in ("the default", "haven't set X_HOME", "the largest", "how often"):
        assert weakly_default(f"What is {words} here?")
    plain = "What is the timeout by default?"
    assert not weakly_default(plain)
    assert sample_index._answerer.analysed(plain).code == "default"
    assert not weakly_default("Which function parses the date, and how long is it?")


def test_auto_fuses_a_plain_question_over_a_codebase_only(code_index, sample_index):
    """A codebase is what a search looks in when most of its chunks are code: the code
    index is one, the sample contracts with their sample repository are not (most of
    their chunks are the contracts'), and a kind filter decides alone. ``auto`` fuses a
    question there, not a description (a docstring), and not a question elsewhere."""
    from lateseg.ask.code_search import is_codebase

    assert is_codebase(code_index.retriever)
    assert not is_codebase(sample_index.retriever)
    assert is_codebase(sample_index.retriever, "code")
    assert not is_codebase(code_index.retriever, "pdf")
    counts = code_index.retriever.chunk_kinds()
    assert counts == code_index.retriever.index.store.chunk_kinds()
    assert sum(counts.values()) == code_index.retriever.count()
    counts["code"] = 0  # a copy: the cached counts are not the caller's to change
    assert code_index.retriever.chunk_kinds()["code"] > 0

    modes: list[str] = []
    for pipe in (code_index, sample_index):
        search = pipe.retriever.search

        def spy(*args, _search=search, **kwargs):
            modes.append(kwargs.get("mode", "dense"))
            return _search(*args, **kwargs)

        pipe.retriever.search = spy
        try:
            pipe.search("How is the size of a file shown to the user?", k=3)
            pipe.search("Return the size of a file for display.", k=3)
        finally:
            del pipe.retriever.search
    # auto's hybrid hits are scored by cosine afterwards (a dense search of the pool)
    assert modes == ["hybrid", "dense", "dense", "dense", "dense"]


def test_a_codebase_is_told_again_after_an_ingest(tmp_path, encoder):
    """The chunks per kind are counted once per index state: a write changes them."""
    from lateseg.ask.code_search import is_codebase
    from lateseg.pipeline import Pipeline

    (tmp_path / "status.py").write_bytes((HTTPIE / "status.py").read_bytes())
    terms = "The late fee is 5% of the unpaid amount. " * 40
    (tmp_path / "terms.txt").write_text("\n\n".join([terms] * 6))
    with Pipeline.open(tmp_path / "idx") as pipe:
        pipe.encoder = encoder
        pipe.ingest([tmp_path / "status.py"], progress=False)
        assert set(pipe.retriever.chunk_kinds()) == {"code"}
        assert is_codebase(pipe.retriever)
        pipe.ingest([tmp_path / "terms.txt"], progress=False)
        counts = pipe.retriever.chunk_kinds()
        assert counts["text"] > counts["code"] > 0
        assert not is_codebase(pipe.retriever)


COOKIECUTTER = REAL / "cookiecutter"


def test_an_entry_of_a_mapping_named_for_defaults_is_a_default(encoder):
    """cookiecutter's ``DEFAULT_CONFIG = {'replay_dir': os.path.expanduser(...), …}``:
    each entry is a default, named by the mapping and its key; a mapping named for
    anything else, a value running past its line and a line after the mapping closes
    are not."""
    config = _whole(COOKIECUTTER / "cookiecutter" / "config.py")
    values = _values("default", [config])
    assert "'replay_dir': os.path.expanduser('~/.cookiecutter_replay/')" in values
    assert "'cookiecutters_dir': os.path.expanduser('~/.cookiecutters/')" in values
    assert not any(v.startswith("'gh'") for v in values)  # BUILTIN_ABBREVIATIONS
    text = (
        "DEFAULTS = {\n    'retries': 3,\n    'hosts': [\n        'a',\n    ],\n}\n"
        "    'after': 9,\nCOLOURS = {\n    'red': 1,\n}\n"
    )
    hit = Hit("/x/settings.py", 0, len(text), text, 0.8, kind="code")
    values = _values("default", [hit])
    assert "'retries': 3" in values
    assert not any(v.startswith(("'hosts'", "'after'", "'red'")) for v in values)
    answer = code_answer(
        analyse("Without any configuration, in which folder are replay files kept?"),
        [config],
        encoder,
    )
    assert answer is not None and answer.phrase is not None
    assert "~/.cookiecutter_replay/" in answer.phrase.text


def test_a_variable_the_docs_name_is_answered_by_the_code_that_reads_it(encoder):
    """The docs page and the code both state ``COOKIECUTTER_CONFIG``: the code's read
    answers, cited in config.py, and the two are one candidate; without the code, the
    docs answer."""
    from lateseg.answer.code import code_twins

    page = COOKIECUTTER / "docs" / "advanced" / "user_config.rst"
    docs = Hit(str(page), 0, len(page.read_text("utf-8")), page.read_text("utf-8"), 0.8,
               kind="text")  # fmt: skip
    config = _whole(COOKIECUTTER / "cookiecutter" / "config.py")
    config = dataclasses.replace(config, score=0.5)
    question = "Which environment variable points cookiecutter at my own config file?"
    hits = [docs, config]
    twins = code_twins(hits, facts("env", hits))
    assert twins and all(hits[f.passage] is docs for f in twins)
    assert all(hits[g.passage] is config for g in twins.values())
    answer = code_answer(analyse(question), hits, encoder)
    assert answer is not None and answer.phrase is not None
    assert "COOKIECUTTER_CONFIG" in answer.phrase.text
    assert answer.phrase.sentence.source.endswith("config.py")
    alone = code_answer(analyse(question), [docs], encoder)
    assert alone is not None and alone.phrase is not None
    assert alone.phrase.sentence.source.endswith("user_config.rst")


def test_an_ask_reads_the_code_that_states_what_its_docs_say(tmp_path, encoder, monkeypatch):
    """Over an index of cookiecutter's config.py and its user-config page, a question
    about a variable whose passages are the page's reads, after them, the chunk of
    code that reads the variable the page names; a question about a symbol reads none."""
    from lateseg.ask.code_search import code_stating, with_named_code
    from lateseg.pipeline import Pipeline

    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    shutil.copy(COOKIECUTTER / "cookiecutter" / "config.py", repo / "config.py")
    shutil.copy(COOKIECUTTER / "docs" / "advanced" / "user_config.rst", repo / "docs")
    with Pipeline.open(tmp_path / "index") as pipe:
        pipe.encoder = encoder
        assert not pipe.ingest([repo], progress=False).failed
        page = repo / "docs" / "user_config.rst"
        text = page.read_text("utf-8")
        at = text.index("Or you can set the ``COOKIECUTTER_CONFIG``")
        said = Hit(str(page.resolve()), at, at + 120, text[at : at + 120], 0.6, kind="text")
        asked = analyse("Which environment variable names my config file?")
        got = with_named_code(pipe.retriever, asked, [said])
        reads = [h for h in got if "os.environ['COOKIECUTTER_CONFIG']" in h.text]
        assert said in got and len(reads) == 1 and reads[0].source.endswith("config.py")
        (found,) = code_stating(pipe.retriever, "env", [said])
        assert found.kind == "code" and found.chunk_id == reads[0].chunk_id
        assert found.score == 0.6  # the score of the page that named it
        assert code_stating(pipe.retriever, "env", [found]) == []  # no docs: nothing read

    # another kind of question reads no code for what its docs say
    def not_for_this(*_args, **_kwargs):
        raise AssertionError("code_stating called for a question about a symbol")

    monkeypatch.setattr("lateseg.ask.code_search.code_stating", not_for_this)
    with Pipeline.open(tmp_path / "index") as pipe:
        pipe.encoder = encoder
        with_named_code(pipe.retriever, analyse("Which function reads the config file?"), [said])


def _docs(path: Path, start: str = "", end: str = "") -> Hit:
    """A passage of ``path`` as ingest reads it (a Markdown table as ingest writes it)."""
    from lateseg.ingest import load_document

    doc = load_document(path)
    a = doc.text.index(start) if start else 0
    b = doc.text.index(end, a) if end else len(doc.text)
    return Hit(str(path), a, b, doc.text[a:b], 1.0, kind=doc.kind)


def test_an_exit_status_table_in_the_docs_gives_one_fact_a_row(encoder):
    """vulture's README (a Markdown table under "Exit codes", as ingest writes a table)
    and pipx's exit-codes page (a reStructuredText list-table headed "Code"): each row's
    number, read in its row."""
    readme = _docs(REAL / "vulture" / "README.md", "Exit codes", "Similar programs")
    assert _values("exit_code", [readme]) == ["0", "1", "2", "3"]
    rst = _docs(REAL / "pipx" / "docs" / "reference" / "exit-codes.rst")
    values = _values("exit_code", [rst])
    assert values.count("0") >= 2 and values.count("1") >= 8, values
    for question, status in (
        ("Which exit code means that dead code was found?", "3"),
        ("What exit status do I get for invalid command line arguments?", "2"),
    ):
        answer = code_answer(analyse(question), [readme], encoder)
        assert answer is not None and answer.phrase is not None
        assert answer.phrase.text == status, (question, answer.text)
        assert answer.citations[0].source == readme.source  # cited at the row
        assert f"Exit code: {status} · Description" in answer.text


def test_a_table_is_read_for_exit_statuses_only_where_it_says_so():
    """A row whose cells name no exit status is not read; in a list-table "Status" alone
    counts under words about exiting only; a list-table needs its header row."""
    plain = "Option | Default\nOption: workers · Default: 4\nOption: retries · Default: 3\n"
    named = "Exit status | Meaning\nExit status: `2` · Meaning: bad input\n"
    words = "Return code: 2 · Meaning: bad input\nReturn code: none · Meaning: n/a\n"
    api = "Function | Return value\nFunction: close · Return value: 0\n"
    nested = (
        "Exit codes\n\n.. list-table::\n    :header-rows: 2\n\n    - - Code\n      - Meaning\n"
        "    - - (code)\n      - (what it means)\n    - - 3\n      - found:\n\n"
        "        - 1 dead function\n        - 2 unused imports\n"
    )
    listed = (
        "Exit statuses\n\n.. list-table::\n    :header-rows: 1\n\n    - - Status\n"
        "      - Meaning\n    - - ``4``\n      - the server said no\n"
    )
    unheaded = listed.replace(":header-rows: 1", ":widths: 10 90")
    untitled = listed.replace("Exit statuses", "Statuses")
    values = {
        name: _values("exit_code", [Hit("/x/README", 0, len(t), t, 1.0, kind=kind)])
        for name, t, kind in (
            ("plain", plain, "markdown"),
            ("named", named, "markdown"),
            ("words", words, "html"),
            ("api", api, "markdown"),
            ("nested", nested, "text"),
            ("listed", listed, "text"),
            ("unheaded", unheaded, "text"),
            ("untitled", untitled, "text"),
            ("in code", named, "code"),
        )
    }
    assert values == {
        "plain": [], "named": ["2"], "words": ["2"], "api": [], "nested": ["3"], "listed": ["4"],
        "unheaded": [], "untitled": [], "in code": [],
    }  # fmt: skip
    # hostile passages are read in one pass, and only their first MOST_CHARS characters
    # (directives nested in a block, then blank lines: each line is still read once)
    for big in (
        "".join(" " * d + ".. list-table::\n" for d in range(100)) + "\n" * 19_000,
        "Exit code: 1 · x: " + "·" * 50 + "\n" * 1 + ("Exit code: 1 · " * 20 + "\n") * 50_000,
        ".. list-table::\n" * 100_000,
        "".join(" " * d + ".. list-table::\n" for d in range(400)),
    ):
        _values("exit_code", [Hit("/x/a.rst", 0, len(big), big, 1.0, kind="text")])


def test_a_judge_chooses_among_the_facts_and_the_rating_reads_their_own_scores(encoder):
    """With a judge (an ask with ``rerank="generator"``), the fact quoted is the best by
    its score and the judge's word together; the confidence still rates the facts' own
    scores, so a judge that overrules the score leaves a less sure answer. A flat judge
    changes nothing; one fact is not judged."""
    hit = _decision_engine()
    asked = analyse("Which method decides whether an error code is reported or ignored?")
    alone = code_answer(asked, [hit], encoder)
    assert alone is not None and alone.phrase is not None and alone.confidence is not None
    methods = [hit_name(hit, f) for f in facts("symbol", [hit]) if shape([hit], f) == "def"]
    # the score's runner-up, which the judge prefers
    other = next(m for m in methods if f"def {m}(" in alone.alternatives[1].text)
    assert other != alone.phrase.text
    calls: list[tuple[str, int]] = []

    def judge(question, texts):  # the other method first; the rest alike, so by score
        calls.append((question, len(texts)))
        return np.array([10.0 if f"def {other}(" in t else 0.0 for t in texts])

    judged = code_answer(asked, [hit], encoder, judge)
    assert judged is not None and judged.phrase is not None and judged.confidence is not None
    assert judged.phrase.text == other
    assert calls == [(asked.question, len(methods))]
    assert judged.confidence < alone.confidence
    assert extractive_answer(asked, [hit], encoder, judge=judge).phrase == judged.phrase
    flat = code_answer(asked, [hit], encoder, lambda q, texts: np.ones(len(texts)))
    assert flat is not None and flat.phrase == alone.phrase and flat.confidence == alone.confidence
    # a judge that says nothing finite is not heard; one that miscounts is an error
    lost = code_answer(asked, [hit], encoder, lambda q, texts: np.full(len(texts), np.nan))
    assert lost is not None and lost.phrase == alone.phrase and lost.confidence == alone.confidence
    with pytest.raises(ValueError, match="likelihoods for"):
        code_answer(asked, [hit], encoder, lambda q, texts: np.ones(len(texts) + 1))
    # one fact of the shape asked: nothing to judge among
    line = "def decide(code):\n    return code in SELECTED\n"
    one = Hit(hit.source, 0, len(line), line, 1.0, kind="code")
    calls.clear()
    single = code_answer(asked, [one], encoder, judge)
    assert single is not None and single.phrase is not None and single.phrase.text == "decide"
    assert calls == []


@pytest.mark.slow  # loads the generator
def test_an_ask_with_the_generator_re_ranking_lets_it_judge_the_facts(sample_index):
    """``rerank="generator"`` hands an ask's quote the generator's judge: over flake8's
    DecisionEngine, "which method works out whether a code was explicitly selected" is
    answered by the judged choice (``was_selected``), not by the score's alone
    (``decision_for``, which calls it); without the re-ranker nothing is judged."""
    from lateseg.ask.options import AskOptions
    from lateseg.generate.rerank import fact_judge

    hit = _decision_engine()
    asked = analyse("Which method works out whether a code was explicitly selected?")
    answerer = sample_index.answerer
    plain = answerer.answer_from(asked, [hit], AskOptions())
    answer = answerer.answer_from(asked, [hit], AskOptions(rerank="generator"))
    judge = fact_judge(answerer.local_generator())
    judged = code_answer(asked, [hit], answerer.encoder(), judge)
    assert plain.phrase is not None and answer.phrase is not None and judged is not None
    assert (plain.phrase.text, answer.phrase.text) == ("decision_for", "was_selected")
    assert answer.confidence == judged.confidence


@pytest.mark.slow  # loads the generator
def test_ask_many_with_the_generator_re_ranking_judges_the_facts_it_quotes(
    sample_index, monkeypatch
):
    """``ask_many`` with ``rerank="generator"`` hands the quotes it makes (the one each
    generated answer is checked against, and the fallback's when the generated answer is
    not supported: whether one is made depends on what the model says) the judge ``ask``
    uses: over DecisionEngine they quote the judged choice (``was_selected``); without
    the re-ranker none is judged (``decision_for``). The real quote runs; it is only
    watched."""
    from lateseg.ask import answering
    from lateseg.ask.options import AskOptions

    real, seen = answering.quote_answer, []

    def watched(asked, hits, encoder, judge=None):
        made = real(asked, hits, encoder, judge=judge)
        seen.append((judge is not None, made.phrase.text if made.phrase else None))
        return made

    monkeypatch.setattr(answering, "quote_answer", watched)
    question = "Which method works out whether a code was explicitly selected?"
    hit, answerer = _decision_engine(), sample_index.answerer
    for rerank, judged, phrase in (
        (None, False, "decision_for"),
        ("generator", True, "was_selected"),
    ):
        seen.clear()
        (answer,) = answerer.ask_many([question], AskOptions(rerank=rerank), passages=[hit])
        assert answer.text
        assert seen and set(seen) == {(judged, phrase)}
