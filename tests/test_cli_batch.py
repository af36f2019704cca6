"""`lateseg ask --questions FILE`: one JSON line per question, resumable: a run stopped
after some answers (and one cut off mid-line) is finished by running it again, every
question answered exactly once."""

from __future__ import annotations

import json

import pytest
from test_cli import cli

TEXTS = {
    "lease.txt": "The tenant pays rent of 900 dollars on the first day of each month.\n",
    "escrow.txt": "The escrow agent releases the deposit within nine days of closing.\n",
    "courier.txt": "The courier delivers parcels to the harbour office on Tuesdays.\n",
}
QUESTIONS = [
    "How much rent does the tenant pay?",
    "When does the escrow agent release the deposit?",
    "",
    "On which day does the courier deliver parcels?",
    "Where does the courier deliver parcels?",
    "When is the rent due?",
    "How much rent does the tenant pay?",  # asked twice: answered on each line
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    docs = tmp_path_factory.mktemp("docs")
    for name, text in TEXTS.items():
        (docs / name).write_text(text)
    folder = tmp_path_factory.mktemp("idx") / "index"
    out = cli("ingest", str(docs), "--index", str(folder))
    assert out.returncode == 0, out.stderr
    return folder


def _rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_interrupted_batch_is_finished_by_running_it_again(index, tmp_path, monkeypatch):
    from lateseg.pipeline import Pipeline

    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(QUESTIONS) + "\n")
    out = tmp_path / "answers.jsonl"
    argv = ["ask", "--questions", str(questions), "--out", str(out), "--index", str(index)]
    # The first run is stopped (Ctrl-C) as it starts its fourth answer.
    real, calls = Pipeline.ask, []

    def ask_then_stop(self, question, *a, **kw):
        calls.append(question)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(self, question, *a, **kw)

    monkeypatch.setattr(Pipeline, "ask", ask_then_stop)
    first = cli(*argv)
    monkeypatch.setattr(Pipeline, "ask", real)
    assert first.returncode == 130 and "interrupted" in first.stderr
    rows = _rows(out)
    assert [r["line"] for r in rows] == [1, 2, 4]
    # ... and a later run killed while writing its next line left half of it
    with open(out, "a") as f:
        f.write('{"line": 5, "question": "Where does the courier deliver parc')
    second = cli(*argv)
    assert second.returncode == 0, second.stderr
    assert "3 questions already answered" in second.stderr
    rows = _rows(out)  # every line whole JSON again
    asked = [(n, q) for n, q in enumerate(QUESTIONS, start=1) if q]
    assert sorted((r["line"], r["question"]) for r in rows) == asked  # each exactly once
    for r in rows:
        assert r["answer"]["mode"] == "quote" and r["answer"]["citations"]
    by_line = {r["line"]: r["answer"] for r in rows}
    assert "900 dollars" in by_line[1]["text"] and "900 dollars" in by_line[7]["text"]
    assert "Tuesdays" in by_line[4]["text"]
    # a third run has nothing left to do
    third = cli(*argv)
    assert third.returncode == 0 and "6 questions already answered" in third.stderr
    assert len(_rows(out)) == 6


def test_answers_go_to_stdout_without_out_and_a_foreign_out_is_refused(index, tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("How much rent does the tenant pay?\n\nWho delivers parcels?\n")
    out = cli("ask", "--questions", str(questions), "--index", str(index), "-k", "2")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["line"] for r in rows] == [1, 3]
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"note": "not an answer"}\n')
    bad = cli("ask", "--questions", str(questions), "--out", str(foreign), "--index", str(index))
    assert bad.returncode == 1 and "line 1 is not an answer" in bad.stderr
    assert foreign.read_text() == '{"note": "not an answer"}\n'  # left as it was
    both = cli("ask", "x?", "--questions", str(questions), "--index", str(index))
    assert both.returncode == 2 and "one of them" in both.stderr
