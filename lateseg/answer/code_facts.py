"""The code facts a passage states, found by pattern and never executed (:func:`facts`).

A question about code (:func:`~lateseg.answer.question.code_kind`) asks for one of five
facts, each stated by a line of a known form:

* ``exception``: ``raise ValueError(…)``, a docstring's ``Raises:`` entry, an ``…Error``
  named in the docs, and where the class is asked, ``class XError(…)``;
* ``default``: a parameter's ``= value``, ``add_argument(…, default=…)``, an assignment
  (``DEFAULT_TIMEOUT = 30``, ``HOME = Path("/opt/x")``), "defaults to …" in a docstring;
* ``env``: ``os.environ.get('NAME')``, ``getenv(NAME)`` of ``NAME = 'VAR'``, a helper
  named for the environment, ``env='NAME'``, and ``$NAME`` in help text and docs;
* ``exit_code``: ``ERROR_TIMEOUT = 2``, ``= ExitCode(2)``, any member of ``class ExitCode``,
  ``sys.exit(130)``, ``return 1`` in a function named for the exit status (``return
  ExitCode(1)`` anywhere), "exits with 4 or 5" and tables of them (:func:`exit_rows`) in docs;
* ``symbol``: ``def name`` and ``class Name`` (not tests), a call in the docs; its
  :func:`shape` is a class or a function. (:mod:`lateseg.answer.code` picks the best.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from lateseg.answer.code_lines import (
    CLASS,
    DEF,
    DOC_CHARS,
    Fact,
    around,
    enclosing_call,
    enclosing_def,
    exit_class,
    exit_rows,
    hit_value,
    line_at,
    member_of,
    signature_end,
)
from lateseg.text.words import identifier_words
from lateseg.types import Hit

__all__ = ["Fact", "assigns", "constant_named", "constants_named", "facts", "hit_value", "shape"]

# Every pattern here runs over untrusted file text: each quantifier is bounded or cannot
# overlap its neighbour, so a match attempt costs at most a few hundred steps (no
# backtracking blow-up on a hostile line); whitespace crosses a line only where a value
# may stand on the next one (the fact then quotes both lines: :func:`facts`).
_NAME = r"[A-Za-z_][\w.]{0,120}"
# a string literal (no escapes across lines)
_STRING = r"""[rbfu]{0,2}(?:"[^"\n]{0,200}"|'[^'\n]{0,200}')"""
_RAISE = re.compile(rf"\braise[ \t]+({_NAME})")
# the message a raise gives: a literal, or a name assigned one a few lines before
_RAISE_MESSAGE = re.compile(
    rf"\braise[ \t]+{_NAME}[ \t]*\(\s{{0,40}}(?:({_STRING})|([A-Za-z_]\w{{0,80}})\s{{0,40}}\))"
)
_MESSAGE_BACK = 600
# pytest.raises(X), self.assertRaises(X): what a test expects raised
_EXPECTS = re.compile(rf"\b(?:raises|assertRaises(?:Regex)?)\(\s{{0,40}}({_NAME})")
_RAISES_ENTRY = re.compile(
    r"^[ \t]+([A-Z]\w{0,80}(?:Error|Exception|Warning))[ \t]*:", re.MULTILINE
)
# an exception class defined (``class IncompatiblePythonError(PipxError):``)
_ERROR_CLASS = re.compile(
    r"^[ \t]*class[ \t]+([A-Z]\w{0,80}(?:Error|Exception|Warning))\b", re.MULTILINE
)
_ERROR_WORD = re.compile(r"\b([A-Z]\w{0,80}(?:Error|Exception))\b")
_ENV_READ = re.compile(
    r"(?:environ(?:\.get|\.setdefault|\.pop)?[ \t]*[\[(]|getenv[ \t]*\()\s{0,40}"
    r"[rbfu]{0,2}[\"']([A-Za-z_]\w{0,80})[\"']"
)
# a call of a helper named for the environment (``get_environment_value("PIPX_HOME")``,
# ``env_flag('X_DEBUG')``): its name is checked in Python
_ENV_CALL = re.compile(
    r"\b([A-Za-z_][\w.]{0,80})[ \t]*\(\s{0,40}[rbfu]{0,2}[\"']([A-Z][A-Z0-9_]{1,80})[\"']"
)
# a read through a constant (``os.getenv(DISABLE_AUTO_UPGRADE, "0")``): the constant's
# name, whose assignment states the variable
_ENV_READ_NAMED = re.compile(
    r"(?:environ(?:\.get|\.setdefault|\.pop)?[ \t]*[\[(]|getenv[ \t]*\()\s{0,40}"
    r"([A-Z][A-Z0-9_]{2,80})\b(?![.(\w])"
)
# a constant assigned a variable's name (``DISABLE_AUTO_UPGRADE: Final[str] = "PIPX_…"``)
_CONSTANT_ASSIGNED = re.compile(
    r"^[ \t]*([A-Z][A-Z0-9_]{2,80})[ \t]*(?::[^=\n]{0,80})?=[ \t]*[rbfu]{0,2}"
    r"[\"']([A-Z][A-Z0-9_]{1,80})[\"']",
    re.MULTILINE,
)
# NAME = "VALUE" where NAME says ENV (checked in Python: a pattern for it would rescan)
_ENV_NAME = re.compile(r"\b([A-Za-z_]\w{0,80})[ \t]*=[ \t]*[\"']([A-Z][A-Z0-9_]{2,80})[\"']")
_ENV_WORD = re.compile(
    r"\$\{?([A-Z][A-Z0-9]{0,40}_[A-Z0-9_]{1,80})\}?|`([A-Z][A-Z0-9]{0,40}_[A-Z0-9_]{1,80})`"
)
# NAME = 2 where NAME names an exit status (its words checked in Python)
_EXIT_NAME = re.compile(
    r"^[ \t]*([A-Za-z_]\w{0,80})[ \t]*(?::[ \t]*\w{1,40}[ \t]*)?=(?!=)[ \t]*"
    r"(?:([A-Za-z_][\w.]{0,40})\([ \t]*)?(-?\d{1,6})\b(?(2)[ \t]*\))",
    re.MULTILINE,
)
_EXIT_WORD = re.compile(r"exit|error|success|status|code|fail|abort|interrupt", re.IGNORECASE)
# a name with one of these words is a count or a size, not an exit status (``MAX_ERRORS``)
_NOT_EXIT = frozenset(["count", "retries", "limit", "size", "max", "min"])
_EXIT_CALL = re.compile(r"\b(?:sys\.)?exit\([ \t]*(-?\d{1,6})[ \t]*\)")
# ``return 1`` in a function named for the exit status, ``return ExitCode(1)`` in any
_RETURN_NUMBER = re.compile(
    r"^[ \t]*return[ \t]+(?:([A-Za-z_][\w.]{0,40})\([ \t]*)?(-?\d{1,6})[ \t]*(?:\)[ \t]*)?"
    r"(?:#[^\n]*)?$",
    re.MULTILINE,
)
_EXIT_FUNCTION = re.compile(r"exit|status", re.IGNORECASE)
# a call that wraps an exit status (``ExitCode(0)``, ``ExitStatus(2)``, ``exit_code(1)``)
_EXIT_CALLED = re.compile(r"exit|status|code", re.IGNORECASE)
_EXIT_WORDS = re.compile(
    r"\bexit(?:s|ing)?\s{1,5}(?:with\s{1,5})?(?:(?:an?\s{1,5})?(?:code|status)\s{1,5}"
    r"(?:of\s{1,5})?)?(\d{1,6})(?:\s{1,5}(?:or|and)\s{1,5}\d{1,6})?",
    re.IGNORECASE,
)
# a call in the docs (`naturalsize(…)`, ">>> humanize.naturalsize(1_000_000)"): its name,
# from the start of its dotted chain only
_CALLED = re.compile(
    r"(?<![\w.])(?:[A-Za-z_]\w{0,80}\.){0,8}([A-Za-z_]\w{0,80})\((?=[^)\n]{0,80}\))"
)
# a parameter with a default: name, its annotation on the same line, = value
_PARAM = re.compile(
    r"(?:^|[(,])[ \t\n]{0,40}\*{0,2}(\w{1,80})[ \t]*"
    r"(?::(?:[^=,()\[\]\n]|\[[^\]\n]{0,200}\]){0,200})?=[ \t]*("
    + _STRING
    + r"|[^,()\n]{1,80}?(?:\([^()\n]{0,80}\))?)[ \t]*(?=[,)\n]|$)"
)
_ARG_DEFAULT = re.compile(
    r"\bdefault[ \t]*=[ \t]*(" + _STRING + r"|[^,()\n]{1,80}(?:\([^()\n]{0,80}\))?)"
)
_ASSIGN = re.compile(
    r"^[ \t]*((?:self\.)?[A-Za-z_]\w{0,80})[ \t]*(?::[\w\[\], .|]{1,80})?=(?!=)[ \t]*"
    r"([^\n#]{1,60}?)"
    r"[ \t]*(?:#[^\n]*)?$",
    re.MULTILINE,
)
# the start of a value an assignment states (not a name computed from others)
_LITERAL = re.compile(
    r"""[\d'"(\[{-]|[rbfu]{1,2}['"]|(?:True|False|None)\b|[A-Z_][A-Z0-9_.]*\b"""
    # a call given a number or a path (``timedelta(days=30)``, ``Path("/opt/pipx")``;
    # not ``version("cookiecutter")``), a path joined to one (``Path.home() / ".local/bin"``)
    r"""|[\w.]+\([^()]*\d|[\w.]+\([ \t]*[rbfu]{0,2}['"][~/.]"""
    r"""|[\w.]+\(\)[ \t]*[/+][ \t]*[rbfu]{0,2}['"]"""
)
_COMPREHENSION = re.compile(r"[\[({].*\bfor[ \t]+[\w, ()]{1,60}?[ \t]+in\b")
_CONSTANT = re.compile(r"(?:[A-Za-z_]\w{0,80}\.){0,4}[A-Z][A-Z0-9_]{2,80}")
# a value that is a constant (``default=defaults.MAX_LINE_LENGTH``, ``x: int = TIMEOUT``):
# the constant's name, upper case, and nothing after it but the value's end (not
# ``BASE * 2``, not ``X if c else 3``, not ``+= STEP``)
_CONSTANT_NAMED = re.compile(
    r"(?<![=!<>+\-*/%&|^:@])=(?!=)[ \t]*(?:[A-Za-z_]\w{0,80}\.){0,4}([A-Z][A-Z0-9_]{2,80})"
    r"(?=[ \t]*(?:[,)\]}#\n]|$))"
)
# a mapping of defaults opened on its own line (``DEFAULT_CONFIG = {``), its entries one a
# line (``'replay_dir': os.path.expanduser('~/.cookiecutter_replay/'),``) up to the
# line that closes it
_MAPPING = re.compile(
    r"^([ \t]*)([A-Za-z_]\w{0,80})[ \t]*(?::[^=\n]{1,80})?=[ \t]*"
    r"(?:dict\([ \t]*)?\{[ \t]*(?:#[^\n]*)?$",
    re.MULTILINE,
)
# (the value ends on a character that is not a blank, so the blanks after it have one
# reading: linear on a line of hostile trailing blanks)
_ENTRY = re.compile(
    r"^([ \t]+)(['\"])([\w.-]{1,80})\2[ \t]*:[ \t]*([^\n#]{0,159}[^\s,#])"
    r"[ \t]*(?:,[ \t]*)?(?:#[^\n]*)?$",
    re.MULTILINE,
)
_MAPPING_CHARS = 8000
_DEFAULTS_TO = re.compile(
    r"\bdefaults?\s{1,10}(?:to|is)\s{1,10}(`[^`\n]{1,40}`|" + _STRING + r"|[^\s.,;)]{1,40})",
    re.IGNORECASE,
)


def _symbol_facts(i: int, text: str, code: bool) -> list[Fact]:
    out = []
    if not code:  # the docs' examples: `name(…)`, >>> module.name(…)
        for m in _CALLED.finditer(text):
            a, b = line_at(text, m.start(1))
            name = m.group(1)
            out.append(Fact(i, "symbol", a, b, m.span(1), name, around(text, a, b, 1)))
        return out
    for rx in (DEF, CLASS):
        for m in rx.finditer(text):
            name = m.group(1)
            if name.startswith("test") or name.startswith("Test"):
                continue  # a test is not what does X
            a, b = line_at(text, m.start(1))
            ctx = text[a : min(len(text), a + DOC_CHARS)]
            out.append(Fact(i, "symbol", a, b, m.span(1), name, ctx))
    return out


def _opens(value: str) -> bool:
    """Whether ``value`` opens a bracket or a triple-quoted string it does not close."""
    if value.count('"""') % 2 or value.count("'''") % 2:
        return True
    depth = 0
    for c in value:
        depth += c in "([{"
        depth -= c in ")]}"
    return depth > 0


def _default_facts(i: int, text: str, code: bool) -> list[Fact]:
    out = []
    if code:
        for m in DEF.finditer(text):
            close = signature_end(text, m.end() - 1)
            for p in _PARAM.finditer(text, m.end() - 1, close + 1):
                a, b = line_at(text, p.start(1))
                span = (p.start(1), p.end(2))
                ctx = f"{m.group(1)} {text[a:b]} {around(text, close, close, 4)}"
                out.append(Fact(i, "default", a, b, span, f"{m.group(1)} {p.group(1)}", ctx))
        for m in _ARG_DEFAULT.finditer(text):
            a, b = line_at(text, m.start())
            ctx = enclosing_call(text, m.start()) or around(text, a, b, 6)
            name = " ".join(re.findall(r"['\"](-{1,2}[\w-]+)['\"]", ctx)) or "default"
            out.append(Fact(i, "default", a, b, m.span(), name, ctx))
        for m in _ASSIGN.finditer(text):
            value = m.group(2)
            if value.endswith(",") or not _LITERAL.match(value) or _opens(value) or (
                    _COMPREHENSION.search(value)):  # fmt: skip
                continue  # a keyword of a call, a name computed from others, a literal
                # that goes on past its line (help="""…, OPTIONS = [ …), a comprehension
            if m.group(1).startswith("self.") and not _CONSTANT.fullmatch(m.group(2)):
                continue  # an attribute's default only where a constant gives it
                # (``self._default_bin = DEFAULT_PIPX_BIN_DIR``: that constant's line answers)
            a, b = line_at(text, m.start(1))
            out.append(
                Fact(i, "default", a, b, (m.start(1), m.end(2)), m.group(1), around(text, a, b))
            )
        out += _mapping_facts(i, text)
    for m in _DEFAULTS_TO.finditer(text):
        a, b = line_at(text, m.start())
        where = enclosing_def(text, m.start())
        out.append(Fact(i, "default", a, b, m.span(1), where, around(text, a, b)))
    return out


def _mapping_facts(i: int, text: str) -> list[Fact]:
    """The entries of a mapping named for defaults (``DEFAULT_CONFIG = {`` …), each a
    default named by the mapping and its key: the key and its value are the phrase."""
    out = []
    for m in _MAPPING.finditer(text):
        if "default" not in m.group(2).lower():
            continue
        # it closes on the first line no deeper than its own that opens with } or )
        closes = re.compile(rf"^[ \t]{{0,{len(m.group(1))}}}[}})]", re.MULTILINE)
        found = closes.search(text, m.end(), m.end() + _MAPPING_CHARS)
        end = found.start() if found else min(len(text), m.end() + _MAPPING_CHARS)
        depth = None  # its own entries' indentation (a nested mapping's are deeper)
        for e in _ENTRY.finditer(text, m.end(), end):
            depth = len(e.group(1)) if depth is None else depth
            value = e.group(4)
            if len(e.group(1)) != depth or _opens(value) or value.count("'") % 2 or (
                    value.count('"') % 2):  # fmt: skip
                continue  # a nested entry, a value that goes on past its line, a string cut
                # short by a # in it ('#fff')
            a, b = line_at(text, e.start(3))
            name = f"{m.group(2)} {e.group(3)}"
            span = (e.start(2), e.end(4))
            out.append(Fact(i, "default", a, b, span, name, f"{name} {around(text, a, b)}"))
    return out


def _unquoted(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """A string literal's span without its prefix and quotes."""
    literal = text[span[0] : span[1]]
    return span[0] + len(literal) - len(literal.lstrip("rbfuRBFU")) + 1, span[1] - 1


def _message(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """The span of the message a ``raise X(…)`` gives (without quotes): its literal, or
    the first literal assigned to the name it passes within :data:`_MESSAGE_BACK`
    characters before it; None when neither is there."""
    if m.group(1) is not None:
        return _unquoted(text, m.span(1))
    lo = max(0, m.start() - _MESSAGE_BACK)
    lo = text.find("\n", lo) + 1 if lo > 0 else 0  # from a line's start: ^ means one
    assigned = list(
        re.finditer(
            rf"^[ \t]*{re.escape(m.group(2))}[ \t]*=[ \t]*\(?\s{{0,40}}({_STRING})",
            text[lo : m.start()],
            re.M,
        )
    )
    if not assigned:
        return None
    a, b = assigned[-1].span(1)
    return _unquoted(text, (lo + a, lo + b))


def _exception_facts(
    i: int, text: str, code: bool, message: bool, defined: bool = False
) -> list[Fact]:
    out = []
    if code and message:
        for m in _RAISE_MESSAGE.finditer(text):
            span = _message(text, m)
            if span is None:
                continue
            a, b = line_at(text, span[0])
            where = enclosing_def(text, m.start())
            ctx = f"{where} {around(text, a, m.end())}"
            out.append(Fact(i, "exception", a, b, span, where, ctx))
        return out
    if message:
        return out
    if code:
        for m in [*_RAISE.finditer(text), *_EXPECTS.finditer(text)]:
            if not m.group(1).rsplit(".", 1)[-1][:1].isupper():
                continue  # "raise e", "raise self.error(…)": not a class named
            a, b = line_at(text, m.start())
            where = enclosing_def(text, m.start())
            ctx = f"{where} {around(text, a, b)}"
            out.append(Fact(i, "exception", a, b, m.span(1), where, ctx))
        for m in _RAISES_ENTRY.finditer(text):
            a, b = line_at(text, m.start(1))
            where = enclosing_def(text, m.start())
            ctx = f"{where} {around(text, a, b)}"
            out.append(Fact(i, "exception", a, b, m.span(1), where, ctx))
        for m in _ERROR_CLASS.finditer(text) if defined else ():  # by its docstring
            a, b = line_at(text, m.start(1))
            ctx = text[a : min(len(text), a + DOC_CHARS)]
            out.append(Fact(i, "exception", a, b, m.span(1), m.group(1), ctx))
    else:
        for m in _ERROR_WORD.finditer(text):
            a, b = line_at(text, m.start())
            out.append(Fact(i, "exception", a, b, m.span(1), "", around(text, a, b, 1)))
    return out


def _env_facts(i: int, text: str, code: bool) -> list[Fact]:
    out = []
    rxs = (_ENV_READ, _ENV_CALL, _ENV_NAME, _ENV_WORD) if code else (_ENV_WORD,)
    for rx in rxs:
        for m in rx.finditer(text):
            if rx is _ENV_NAME and "ENV" not in m.group(1).upper():
                continue  # NAME = "VALUE": only a name that says it is an env variable
            if rx is _ENV_CALL and not _names_environment(m.group(1).rsplit(".", 1)[-1]):
                continue  # a call not named for the environment: print("USAGE"), create_venv
            g = 2 if rx in (_ENV_NAME, _ENV_CALL) or not m.group(1) else 1
            a, b = line_at(text, m.start())
            ctx = around(text, a, b, 2)
            if rx is _ENV_NAME and not m.group(1).isupper():  # a keyword: env="X" in a call
                ctx = enclosing_call(text, m.start()) or ctx
            out.append(Fact(i, "env", a, b, m.span(g), m.group(g), ctx))
    if code:
        out += _env_through_constants(i, text)
    return out


def _names_environment(name: str) -> bool:
    """Whether a function's name says it reads the environment: a word ``env``,
    ``environ…`` or ``getenv`` (``get_environment_value``, ``env_flag``; not
    ``create_venv``)."""
    words = [w.lower() for w in identifier_words(name)]
    return any(w in ("env", "getenv") or w.startswith("environ") for w in words)


def _env_through_constants(i: int, text: str) -> list[Fact]:
    """Each variable read through a constant (``os.getenv(DISABLE_AUTO_UPGRADE, "0")``)
    that the text assigns (``DISABLE_AUTO_UPGRADE: Final[str] = "PIPX_DISABLE_…"``): the
    assignment states it, read in the context of the line that reads it too. One pass
    for the reads, one for the assignments: linear in the text."""
    reads: dict[str, int] = {}
    for m in _ENV_READ_NAMED.finditer(text):
        reads.setdefault(m.group(1), m.start())
    if not reads:
        return []
    out = []
    said: set[str] = set()
    for m in _CONSTANT_ASSIGNED.finditer(text):
        name = m.group(1)
        if name not in reads or name in said:
            continue
        said.add(name)
        a, b = line_at(text, m.start(2))
        ctx = f"{around(text, a, b, 1)}\n{around(text, *line_at(text, reads[name]), 1)}"
        out.append(Fact(i, "env", a, b, m.span(2), m.group(2), ctx))
    return out


def _exit_facts(i: int, text: str, code: bool) -> list[Fact]:
    out = []
    if code:
        for m in _EXIT_NAME.finditer(text):
            after = text[m.end() : m.end() + 2].lstrip(" \t")
            words = {w.lower() for w in identifier_words(m.group(1))}
            called = m.group(2)
            said = _EXIT_WORD.search(m.group(1)) or exit_class(member_of(text, m))
            if not said or words & _NOT_EXIT or (
                    after[:1] in (",", ".")) or (called and not _EXIT_CALLED.search(
                    called.rsplit(".", 1)[-1])):  # fmt: skip
                continue  # a count, a keyword, a float, a call's number (``compute(1)``)
            a, b = line_at(text, m.start(1))
            out.append(Fact(i, "exit_code", a, b, (m.start(1), m.end()), m.group(1),
                            around(text, a, b)))  # fmt: skip
        for m in _EXIT_CALL.finditer(text):
            a, b = line_at(text, m.start())
            where = enclosing_def(text, m.start())
            out.append(Fact(i, "exit_code", a, b, m.span(), where, f"{where} {around(text, a, b)}"))
        for m in _RETURN_NUMBER.finditer(text):
            where = enclosing_def(text, m.start())
            called = m.group(1) or ""
            if called and not _EXIT_FUNCTION.search(called.rsplit(".", 1)[-1]):
                continue  # return int(3), return max(0, n): not an exit status
            if not called and (not _EXIT_FUNCTION.search(where) or where.startswith("__")):
                continue  # a count or a flag returned (or __exit__'s), not an exit status
            a, b = line_at(text, m.start())
            # its meaning is the condition that guards it (the line before), said
            # first, then the lines around it
            guard = text[line_at(text, max(text.rfind("\n", 0, a), 0))[0] : b]
            ctx = f"{where} {guard} {around(text, a, b)}"
            out.append(Fact(i, "exit_code", a, b, m.span(2), where, ctx))
    for m in _EXIT_WORDS.finditer(text):
        a, b = line_at(text, m.start())
        out.append(Fact(i, "exit_code", a, b, m.span(), "exit", around(text, a, b, 1)))
    return out if code else out + exit_rows(i, text)


def facts(
    asked_kind: str, hits: Sequence[Hit], message: bool = False, defined: bool = False
) -> list[Fact]:
    """Every fact of ``asked_kind`` stated in ``hits`` (see the module docstring);
    ``message``: an exception's message rather than its class; ``defined``: an
    exception's class definition too ("which exception class …"), not only its raise."""
    out: list[Fact] = []
    for i, h in enumerate(hits):
        code = h.kind == "code"
        if asked_kind == "symbol":
            out += _symbol_facts(i, h.text, code)
        elif asked_kind == "default":
            out += _default_facts(i, h.text, code)
        elif asked_kind == "exception":
            out += _exception_facts(i, h.text, code, message, defined)
        elif asked_kind == "env":
            out += _env_facts(i, h.text, code)
        elif asked_kind == "exit_code":
            out += _exit_facts(i, h.text, code)
    seen: set[tuple[str, int, int]] = set()
    said: set[str] = set()
    kept = []
    for f in out:
        if f.value[1] <= f.value[0]:
            continue
        text = hits[f.passage].text
        # a value on a line after its name's ("Defaults to" ⏎ "``30``"): both quoted
        a = line_at(text, f.value[0])[0]
        f = replace(f, start=min(f.start, a), end=max(f.end, line_at(text, f.value[1] - 1)[1]))
        h = hits[f.passage]
        where = (h.source, h.start + f.value[0], h.start + f.value[1])
        line = " ".join(text[f.start : f.end].split())
        # one fact per place (two patterns, two overlapping passages), and a copy of a
        # line elsewhere (build/lib/x.py) is no second witness
        if where not in seen and line not in said:
            seen.add(where)
            said.add(line)
            kept.append(f)
    return kept


def shape(hits: Sequence[Hit], f: Fact) -> str:
    """A symbol fact's shape: ``"class"`` for a ``class`` line (or a capitalised name
    called in the docs), else ``"def"``."""
    line = hits[f.passage].text[f.start : f.end]
    if re.match(r"class\b", line):
        return "class"
    if re.match(r"(?:async[ \t]+)?def\b", line):
        return "def"
    return "class" if f.name[:1].isupper() else "def"


def constant_named(text: str) -> str | None:
    """The constant a default's line names as its value (``default=defaults.MAX_LINE_LENGTH``:
    ``MAX_LINE_LENGTH``), or None."""
    m = _CONSTANT_NAMED.search(text)
    return m.group(1) if m else None


def constants_named(hits: Sequence[Hit], found: Sequence[Fact]) -> dict[str, Fact]:
    """Each constant that a fact of ``found`` (in ``hits``) has as its whole value, with
    the first fact that names it, in their order."""
    naming: dict[str, Fact] = {}
    for f in found:
        name = constant_named(hit_value(hits, f))
        if name is not None:
            naming.setdefault(name, f)
    return naming


def assigns(text: str, name: str) -> bool:
    """Whether ``text`` assigns ``name`` a value on a line of its own (``NAME = 79``)."""
    rx = rf"^[ \t]*{re.escape(name)}[ \t]*(?::[^=\n]{{0,80}})?=(?!=)"
    return re.search(rx, text, re.MULTILINE) is not None
