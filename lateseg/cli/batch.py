"""``lateseg ask --questions FILE``: one answer per line of FILE, as JSON lines, resumable.

Each answered question is one line ``{"line": N, "question": ..., "answer": {...}}``
(``N``: its line in FILE), written whole and flushed before the next question starts.
With ``--out``, a second run reads what the first wrote and answers only the questions
not there yet (matched by line number and text), so an interrupted run (Ctrl-C, a killed
process, a full disk) loses at most the answer being made. A last line cut short by the
interruption is dropped before appending. A question that fails is listed on stderr and
left out of the file, so the next run tries it again; the exit status is then 3.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from lateseg.cli.options import EXIT_OK, EXIT_PARTIAL
from lateseg.errors import ConfigError, LatesegError
from lateseg.validate import read_bounded

if TYPE_CHECKING:
    from lateseg.ask.options import AskOptions
    from lateseg.pipeline import Pipeline

MAX_QUESTIONS_BYTES = 64 << 20  # a questions file is text, one question a line


def read_questions(path: str) -> list[tuple[int, str]]:
    """``(line number, question)`` of every non-blank line of ``path``."""
    try:
        data, more = read_bounded(path, MAX_QUESTIONS_BYTES)
    except OSError as e:
        raise ConfigError(f"--questions {path}: {e.strerror}") from None
    if more:
        raise ConfigError(f"--questions {path}: larger than {MAX_QUESTIONS_BYTES >> 20} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"--questions {path}: not UTF-8 text ({e.reason})") from None
    lines = enumerate(text.splitlines(), start=1)
    return [(n, line.strip()) for n, line in lines if line.strip()]


def answered(path: Path) -> set[tuple[int, str]]:
    """``(line, question)`` of each answer already in ``path`` (none when it does not
    exist); a last line left unfinished by an interrupted run is cut off the file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return set()
    except OSError as e:
        raise ConfigError(f"--out {path}: {e.strerror}") from None
    end = data.rfind(b"\n") + 1
    if end < len(data):  # an unfinished last line: the run stopped while writing it
        with open(path, "r+b") as f:
            f.truncate(end)
    done = set()
    for number, line in enumerate(data[:end].splitlines(), start=1):
        try:
            row = json.loads(line)
            done.add((int(row["line"]), str(row["question"])))
        except (ValueError, KeyError, TypeError):
            raise ConfigError(
                f"--out {path}: line {number} is not an answer of `lateseg ask --questions`; "
                "give another --out, or move this file away"
            ) from None
    return done


def ask_file(
    pipe: Pipeline, options: AskOptions, questions: str, out: str | None, progress: bool
) -> int:
    """Answer each question of the file ``questions`` into ``out`` (None: stdout)."""
    from tqdm.auto import tqdm

    todo = read_questions(questions)
    sink: IO[str]
    if out is None:
        sink = sys.stdout
    else:
        done = answered(Path(out))
        skipped = len(todo)
        todo = [(n, q) for n, q in todo if (n, q) not in done]
        skipped -= len(todo)
        if skipped:
            print(f"lateseg: {skipped} questions already answered in {out}", file=sys.stderr)
        sink = open(out, "a", encoding="utf-8")  # noqa: SIM115 - closed in finally
    failed = []
    bar = tqdm(
        total=len(todo), unit="question", file=sys.stderr, disable=None if progress else True
    )
    try:
        for number, question in todo:
            try:
                answer = pipe.ask(question, options=options)
            except LatesegError as e:
                failed.append(number)
                bar.write(f"lateseg: line {number}: {e}", file=sys.stderr)
            else:
                row = {"line": number, "question": question, "answer": answer.to_dict()}
                sink.write(json.dumps(row, ensure_ascii=False) + "\n")  # one write a line
                sink.flush()
                if sink is not sys.stdout:
                    os.fsync(sink.fileno())
            bar.update(1)
    finally:
        bar.close()
        if sink is not sys.stdout:
            sink.close()
    if failed:
        print(
            f"lateseg: {len(failed)} of {len(todo)} questions failed (lines "
            f"{', '.join(map(str, failed[:20]))}); run again to retry them",
            file=sys.stderr,
        )
        return EXIT_PARTIAL
    return EXIT_OK
