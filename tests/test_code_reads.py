"""Code facts stated the way real code states them (pypa/pipx, data/real/code/pipx):
a default built by a call or a path (``Path("/opt/pipx")``, ``Path.home() / ".local/bin"``),
an annotated constant, a variable read through a helper or a constant, an exit status
wrapped in a call, an exception class defined; and a question about a default that names
a variable reads the code that reads it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from lateseg.answer.code import code_answer
from lateseg.answer.code_facts import facts
from lateseg.answer.question import analyse
from lateseg.types import Hit

os.environ["HF_HUB_OFFLINE"] = "1"

PIPX = Path(__file__).resolve().parent.parent / "data" / "real" / "code" / "pipx" / "src" / "pipx"


def _whole(path: Path, text: str | None = None) -> Hit:
    text = path.read_text("utf-8") if text is None else text
    return Hit(str(path), 0, len(text), text, 0.8, kind="code")


def _values(kind: str, hits: list[Hit]) -> list[str]:
    return [hits[f.passage].text[f.value[0] : f.value[1]] for f in facts(kind, hits)]


def test_a_default_built_by_a_call_or_a_path_is_a_default():
    values = _values("default", [_whole(PIPX / "paths.py")])
    assert 'DEFAULT_PIPX_GLOBAL_HOME: Final[Path] = Path("/opt/pipx")' in values
    assert 'DEFAULT_PIPX_BIN_DIR: Final[Path] = Path.home() / ".local/bin"' in values
    shared = _values("default", [_whole(PIPX / "shared_libs.py")])
    assert any(v.startswith("SHARED_LIBS_MAX_AGE_SEC") and "days=30" in v for v in shared)
    # a name computed from others is still no default; an attribute is one only where
    # a constant gives it
    text = (
        "x = compute(a, b)\nself.count = 0\nself._default_bin = DEFAULT_BIN_DIR\n"
        "NAMES = [n for n in names]\nWAIT = ('wait for', 3)\n"
    )
    # a comprehension is computed; a "for" inside a string is none
    assert _values("default", [_whole(Path("/x/m.py"), text)]) == [
        "self._default_bin = DEFAULT_BIN_DIR",
        "WAIT = ('wait for', 3)",
    ]


def test_a_variable_read_through_a_helper_or_a_constant_is_read():
    interpreter = _values("env", [_whole(PIPX / "interpreter.py")])
    assert "PIPX_DEFAULT_PYTHON" in interpreter
    paths = _values("env", [_whole(PIPX / "paths.py")])
    assert {"PIPX_HOME", "PIPX_BIN_DIR", "PIPX_GLOBAL_HOME"} <= set(paths)
    # os.getenv(DISABLE_SHARED_LIBS_AUTO_UPGRADE, "0") with the constant assigned above
    shared = _values("env", [_whole(PIPX / "shared_libs.py")])
    assert "PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE" in shared
    # a call not named for the environment reads nothing; a constant never assigned
    # in the text states nothing
    text = (
        'print("USAGE_TEXT")\nvalue = os.getenv(NOT_HERE)\nlog.info("EXIT_NOW")\n'
        'create_venv("PIPX_VENV")\n'  # "venv" is no word for the environment
    )
    assert _values("env", [_whole(Path("/x/m.py"), text)]) == []
    helpers = 'env_flag("X_DEBUG")\nget_expanded_environ("X_HOME")\n'
    assert sorted(_values("env", [_whole(Path("/x/m.py"), helpers)])) == ["X_DEBUG", "X_HOME"]


def test_an_exit_status_wrapped_in_a_call_is_an_exit_status():
    constants = _values("exit_code", [_whole(PIPX / "constants.py")])
    assert "EXIT_CODE_INSTALL_VENV_EXISTS = ExitCode(0)" in constants  # the call closed
    named = "EXIT_TERMINATED = 143\nexit_code = compute(1)\nERROR_ACCOUNT_LOCKED = 7\n"
    # a word, not a part of one, says it is a count ("min" in TERMINATED is none); a
    # number given to a call that is no exit status is none
    assert _values("exit_code", [_whole(Path("/x/c.py"), named)]) == [
        "EXIT_TERMINATED = 143",
        "ERROR_ACCOUNT_LOCKED = 7",
    ]
    text = (
        "def main():\n    if not args:\n        return ExitCode(1)\n"
        "def width():\n    return int(3)\n"
        "def run():\n    popen(\n        args,\n        interrupt_timeout=10,\n"
        "        exit_delay=2.5)\n"
        "MAX_ERRORS = 50\n"
    )
    hit = _whole(Path("/x/main.py"), text)
    found = [(f.name, hit.text[f.value[0] : f.value[1]]) for f in facts("exit_code", [hit])]
    # int(3), a keyword of a call, a float, a count: no exit status
    assert found == [("main", "1")]


def test_an_exception_class_defined_is_an_exception(encoder):
    """Defined, where the question asks for the class; raised, where it asks what is
    raised (a module of exception classes with docstrings would otherwise outscore the
    raise that answers: flake8's exceptions.py)."""
    hit = _whole(PIPX / "requires_python.py")
    defined = [hit.text[f.value[0] : f.value[1]] for f in facts("exception", [hit], defined=True)]
    assert "IncompatiblePythonError" in defined
    assert "IncompatiblePythonError" not in _values("exception", [hit])
    answer = code_answer(
        analyse("Which exception class does pipx raise when it can't find the interpreter?"),
        [_whole(PIPX / "interpreter.py")],
        encoder,
    )
    assert answer is not None and answer.phrase is not None
    assert answer.phrase.text == "InterpreterResolutionError"


def test_a_default_asked_by_the_variable_it_stands_in_for(tmp_path, encoder):
    """ "If I never set PIPX_GLOBAL_HOME": the ask reads the code that reads the variable
    (``get_expanded_environ("PIPX_GLOBAL_HOME")``), then the constant it falls back to
    (``self._default_home = DEFAULT_PIPX_GLOBAL_HOME``), whose own line answers."""
    from lateseg.ask.code_search import variables_read
    from lateseg.pipeline import Pipeline

    repo = tmp_path / "pipx"
    repo.mkdir()
    for name in ("paths.py", "constants.py", "interpreter.py", "shared_libs.py"):
        shutil.copy(PIPX / name, repo / name)
    with Pipeline.open(tmp_path / "index") as pipe:
        pipe.encoder = encoder
        assert not pipe.ingest([repo], progress=False).failed
        unrelated = pipe.retriever.search("shared libraries upgrade", 1, mode="lexical")
        got = variables_read(
            pipe.retriever, "If I never set PIPX_GLOBAL_HOME, where do venvs go?", unrelated
        )
        assert len(got) == 1 and 'get_expanded_environ("PIPX_GLOBAL_HOME")' in got[0].text
        assert got[0].score == max(h.score for h in unrelated)
        assert variables_read(pipe.retriever, "Where do venvs go?", unrelated) == []
        answer = pipe.ask(
            "Where do the virtual environments go when I install with --global and "
            "haven't set PIPX_GLOBAL_HOME?"
        )
        assert answer.phrase is not None and "/opt/pipx" in answer.phrase.text
        assert answer.phrase.sentence.source.endswith("paths.py")


def test_a_code_fact_is_rated_with_the_code_facts_weights(encoder, monkeypatch):
    """The same signals rate a code fact with ``CODE_COEFFICIENTS``: a sentence's weights
    (the same order), the level lower."""
    from lateseg.answer import code
    from lateseg.answer.confidence import CODE_COEFFICIENTS, COEFFICIENTS, confidence

    seen = []
    original = code.signals

    def keep(*args, **kwargs):
        seen.append(original(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(code, "signals", keep)
    question = "Which exception class does pipx raise when it can't find the interpreter?"
    answer = code_answer(analyse(question), [_whole(PIPX / "interpreter.py")], encoder)
    assert answer is not None and len(seen) == 1
    assert answer.confidence == confidence(seen[0], CODE_COEFFICIENTS)
    assert answer.confidence < confidence(seen[0], COEFFICIENTS)


TWINE = Path(__file__).resolve().parent.parent / "data" / "real" / "code" / "twine" / "twine"


def test_a_keyword_of_a_call_is_read_in_its_calls_words():
    """``env="TWINE_CERT"`` in ``parser.add_argument("--cert", …, help=…)``: the fact is
    read in that call's words (its option, its help), not in the lines around it, which
    are the neighbouring calls'."""
    from lateseg.answer.code_lines import enclosing_call

    hit = _whole(TWINE / "settings.py")
    (cert,) = [f for f in facts("env", [hit]) if f.name == "TWINE_CERT"]
    assert cert.context.lstrip().startswith("parser.add_argument(")
    assert '"--cert"' in cert.context and "--client-cert" not in cert.context
    assert cert.context.count("add_argument(") == 1
    (gpg,) = [f for f in facts("default", [hit]) if hit.text[f.value[0] : f.value[1]] ==
              'default="gpg"']  # fmt: skip
    assert gpg.name == "--sign-with"
    # in no call, or a list first: none
    assert enclosing_call("x = 1\ny = 2\n", 8) is None
    text = 'f(a, [\n  "X",\n])'
    assert enclosing_call(text, text.index('"X"')) is None
    assert enclosing_call(text, text.index("a,")) == text


def test_an_option_or_a_variable_the_question_names_lifts_the_fact_that_states_it(encoder):
    from lateseg.answer.code import names_asked

    assert names_asked("If I don't pass --sign-with, or set PIPX_BIN_DIR, or -q?") == (
        "--sign-with",
        "PIPX_BIN_DIR",
    )
    answer = code_answer(
        analyse("If I don't pass --sign-with, which program does twine call to sign my files?"),
        [_whole(TWINE / "settings.py")],
        encoder,
    )
    assert answer is not None and answer.phrase is not None
    assert answer.phrase.text == 'default="gpg"'


REAL = Path(__file__).resolve().parent.parent / "data" / "real" / "code"


def test_a_member_of_a_class_named_for_exit_statuses_is_an_exit_status():
    """``class ExitCode(IntEnum): … DeadCode = 3`` (jendrikseipp/vulture): each member is
    an exit status though its own name says nothing of exits; a number assigned in a
    function, or at module level, named for a code is none."""
    values = _values("exit_code", [_whole(REAL / "vulture" / "vulture" / "utils.py")])
    assert values == [
        "NoDeadCode = 0",
        "InvalidInput = 1",
        "InvalidCmdlineArguments = 2",
        "DeadCode = 3",
    ]
    text = "def parse_code(x):\n    n = 2\n    return n\nn = 3\nclass Point:\n    x = 1\n"
    assert _values("exit_code", [_whole(Path("/x/m.py"), text)]) == []
    # a class whose name only holds "code" or "status" as letters or another sense, and a
    # name after the exit class's body has ended, are none
    for text in (
        "class JSONEncoder:\n    indent = 4\n",
        "class Barcode:\n    width = 3\n",
        "class HTTPStatus:\n    NOT_FOUND = 404\n",
        "class ExitCode:\n    pass\nif WINDOWS:\n    TIMEOUT = 5\n",
        "class ExitCode:\n    def f(self):\n        n = 3\n",
    ):
        assert _values("exit_code", [_whole(Path("/x/m.py"), text)]) == [], text
    text = "class ReturnCodes(IntEnum):\n    OK = 0\n\n    # usage\n    USAGE = 2\n"
    assert _values("exit_code", [_whole(Path("/x/m.py"), text)]) == ["OK = 0", "USAGE = 2"]


def test_docs_corroborate_and_code_answers(encoder):
    """A function defined in a docs example (nox's docs/config.rst: ``def
    a_very_long_function_name(session):``) is not the library's: where a passage of code
    states a function, the docs' alone do not answer."""
    nox = REAL / "nox"
    docs = (nox / "docs" / "config.rst").read_text("utf-8")
    doc_hit = Hit(str(nox / "docs" / "config.rst"), 0, len(docs), docs, 0.9, kind="text")
    code_hit = _whole(nox / "nox" / "sessions.py")
    question = "Which function makes a long session name into a shorter folder name for it?"
    assert any(
        doc_hit.text[f.start : f.end].lstrip().startswith("def ")
        for f in facts("symbol", [doc_hit])
    )
    answer = code_answer(analyse(question), [doc_hit, code_hit], encoder)
    assert answer is not None and answer.phrase is not None
    assert answer.phrase.sentence.source.endswith("sessions.py")
    # the docs alone still state a function where no passage of code states one
    # (code_answer then leaves a function to the quote of any question: None)
    assert code_answer(analyse(question), [doc_hit], encoder) is None
    exception = "Which exception does it raise when the session name is bad?"
    said = "Raises:\n    ValueError: when the name is bad.\n"
    doc_only = Hit(str(nox / "docs" / "x.rst"), 0, len(said), said, 0.9, kind="text")
    answer = code_answer(analyse(exception), [doc_only], encoder)
    assert answer is not None and answer.phrase.sentence.source.endswith("x.rst")
