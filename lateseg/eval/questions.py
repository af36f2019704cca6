"""Question files for ``lateseg eval``: read, checked line by line, bounded.

Two formats, told apart by their content:

* **JSONL**, one JSON object a line: ``question`` (required), and any of ``answers``
  (an accepted value or a list of them; ``answer`` is read too, as the team's sets in
  ``data/eval`` spell it), ``source`` (the file that answers it: a path, a file name or
  a glob), ``gold_text`` (``gold`` too: the words that answer it, found in the source's
  text with whitespace collapsed) or ``start``/``end`` (their character offsets in the
  source's text), ``unanswerable: true`` (the documents do not answer it), ``id``.
* **LegalBench-RAG's benchmark JSON** as it is published: ``{"tests": [{"query": ...,
  "snippets": [{"file_path": ..., "span": [start, end]}, ...]}, ...]}``; each
  ``file_path`` is relative to the benchmark's corpus folder (``--corpus``), and its
  spans are character offsets into the file's text.

A malformed line or test is reported (:class:`Problem`, with its line or test number)
and left out; the rest is read. The file is read up to :data:`MAX_BYTES`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lateseg.errors import ConfigError
from lateseg.validate import read_bounded

#: A question file larger than this is refused before it is read (a user's set of
#: thousands of questions is a few MB; LegalBench-RAG's largest, MAUD, is 3 MB).
MAX_BYTES = 64 * 1024 * 1024
#: Characters of a question kept: a longer one is refused (no reader asks that much).
MAX_QUESTION = 4000


@dataclass(frozen=True)
class Gold:
    """Where a question is answered: the document ``source`` as the question file names
    it (a path, a file name or a glob; empty: any document), and the span there, by
    offsets (``start``/``end``) or by its words (``text``), or neither."""

    source: str = ""
    start: int | None = None
    end: int | None = None
    text: str | None = None


@dataclass(frozen=True)
class Question:
    """One question of an evaluation. ``line``: where it stands in its file (the line of
    a JSONL file, the 1-based test of a LegalBench-RAG file)."""

    qid: str
    question: str
    answers: tuple[str, ...] = ()
    golds: tuple[Gold, ...] = ()
    unanswerable: bool = False
    line: int = 0


@dataclass(frozen=True)
class Problem:
    """A line or test left out, and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass
class QuestionFile:
    """What a question file held: its ``questions``, the ``problems`` of the lines left
    out, and its ``format`` (``jsonl`` or ``legalbench``)."""

    path: Path
    format: str
    questions: list[Question] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def _safe(value: str, key: str) -> str:
    """``value``, or a ``ValueError`` where it holds a NUL or an unpaired surrogate (no
    path, query or report could carry it)."""
    if _UNSAFE.search(value):
        raise ValueError(f"{key} holds a NUL or an unpaired surrogate (\\u0000, \\ud800 …)")
    return value


def _answers(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError("answers must be a string or a list of non-empty strings")
    return tuple(_safe(v, "answers") for v in value)


def _offset(rec: dict[str, Any], key: str) -> int | None:
    value = rec.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key} must be a whole number of at least 0, not {value!r}")
    return value


def _text(rec: dict[str, Any], key: str, required: bool = False) -> str | None:
    value = rec.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be a non-empty string")
    if len(value) > MAX_QUESTION and key == "question":
        raise ValueError(f"question is {len(value):,} characters; at most {MAX_QUESTION:,}")
    return _safe(value, key)


def question_of(rec: Any, line: int) -> Question:
    """The :class:`Question` of one JSONL record (``ValueError`` saying what is wrong)."""
    if not isinstance(rec, dict):
        raise ValueError(f"a line must be a JSON object, not {type(rec).__name__}")
    question = _text(rec, "question", required=True)
    assert question is not None
    answers = _answers(rec["answers"] if "answers" in rec else rec.get("answer"))
    source = rec.get("source")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise ValueError("source must be a non-empty string (a path, a file name or a glob)")
    if source is not None:
        _safe(source, "source")
    start, end = _offset(rec, "start"), _offset(rec, "end")
    if (start is None) != (end is None):
        raise ValueError("give both start and end, or neither")
    if start is not None and end is not None and end <= start:
        raise ValueError(f"end ({end}) must be after start ({start})")
    text = _text(rec, "gold_text") if "gold_text" in rec else _text(rec, "gold")
    unanswerable = rec.get("unanswerable", False)
    if not isinstance(unanswerable, bool):
        raise ValueError("unanswerable must be true or false")
    if unanswerable and (answers or start is not None or text):
        raise ValueError("an unanswerable question has no answers nor gold span")
    if (start is not None or text) and not source:
        raise ValueError("a gold span needs the source it is in")
    golds = (Gold(source or "", start, end, text),) if source else ()
    qid = rec.get("id", f"line-{line}")
    if isinstance(qid, bool) or not isinstance(qid, str | int) or not str(qid).strip():
        raise ValueError(f"id must be a non-empty string or a whole number, not {qid!r}")
    return Question(_safe(str(qid), "id"), question, answers, golds, unanswerable, line)


def _legalbench(data: dict[str, Any], out: QuestionFile) -> None:
    tests = data.get("tests")
    if not isinstance(tests, list):
        out.problems.append(Problem(0, "a LegalBench-RAG file's tests must be a list"))
        return
    for n, test in enumerate(tests, 1):
        try:
            if not isinstance(test, dict):
                raise ValueError("a test must be a JSON object")
            query = _text(test, "query", required=True)
            assert query is not None
            snippets = test.get("snippets")
            if not isinstance(snippets, list) or not snippets:
                raise ValueError("snippets must be a non-empty list")
            golds = []
            for s in snippets:
                path, span = (
                    (s.get("file_path"), s.get("span")) if isinstance(s, dict) else (None, None)
                )
                if not isinstance(path, str) or not path.strip():
                    raise ValueError("a snippet's file_path must be a non-empty string")
                _safe(path, "file_path")
                if (
                    not isinstance(span, list)
                    or len(span) != 2
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in span)
                    or not 0 <= span[0] < span[1]
                ):
                    raise ValueError(
                        f"a snippet's span must be [start, end], 0 <= start < end: {span!r}"
                    )
                golds.append(Gold(path, span[0], span[1]))
            out.questions.append(Question(f"t{n}", query, (), tuple(golds), False, n))
        except ValueError as e:
            out.problems.append(Problem(n, f"test {n}: {e}"))


def read_questions(path: str | Path, max_bytes: int = MAX_BYTES) -> QuestionFile:
    """The questions of ``path`` (:mod:`lateseg.eval.questions`): JSONL, or
    LegalBench-RAG's JSON (an object with ``tests``). A file that cannot be read, is
    over ``max_bytes``, or holds no question is a :class:`ConfigError`; a bad line is a
    :class:`Problem` and the rest is read."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise ConfigError(f"cannot read the questions {path}: {e.strerror or e}") from e
    if not path.is_file():
        raise ConfigError(f"the questions {path} are not a file")
    if size > max_bytes:
        raise ConfigError(
            f"the questions {path} are {size / 2**20:.0f} MB; at most {max_bytes / 2**20:.0f} MB "
            "are read (split the file)"
        )
    try:
        raw, _ = read_bounded(path, max_bytes)  # grown past max_bytes since stat: cut
        text = raw.decode("utf-8-sig")
    except OSError as e:
        raise ConfigError(f"cannot read the questions {path}: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"the questions {path} are not UTF-8 text ({e.reason} at byte {e.start})"
        ) from e
    if not text.strip():
        raise ConfigError(f"the questions {path} are empty; give one JSON object a line")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            whole = json.loads(text)
        except (ValueError, RecursionError):
            whole = None  # JSONL whose first line is an object (or nothing JSON reads)
        if isinstance(whole, dict) and "tests" in whole:
            out = QuestionFile(path, "legalbench")
            _legalbench(whole, out)
            return _checked(out)
    out = QuestionFile(path, "jsonl")
    seen: set[str] = set()
    # lines end at "\n" only: JSON strings may hold U+2028, \x0c … that splitlines cuts at
    for n, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            q = question_of(json.loads(line), n)
        except ValueError as e:  # json.JSONDecodeError is one
            out.problems.append(Problem(n, str(e).splitlines()[0]))
            continue
        except RecursionError:
            out.problems.append(Problem(n, "nested too deeply to read"))
            continue
        if q.qid in seen:
            out.problems.append(Problem(n, f"id {q.qid!r} is used by an earlier line"))
            continue
        seen.add(q.qid)
        out.questions.append(q)
    return _checked(out)


def _checked(out: QuestionFile) -> QuestionFile:
    if not out.questions:
        first = f" ({out.problems[0]})" if out.problems else ""
        raise ConfigError(f"no question could be read from {out.path}{first}")
    return out
