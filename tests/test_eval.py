"""``lateseg eval``: the figures by hand, question files good and hostile, runs over the
sample index (through the library and the command line), the LegalBench-RAG format, and
the bench scripts' figures reproduced to the last digit."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT

from lateseg.errors import ConfigError
from lateseg.eval import assert_quality, evaluate, quality_failures, read_questions
from lateseg.eval import metrics as m
from lateseg.eval.run import file_span
from lateseg.eval.variant import Variant

sys.path.insert(0, str(ROOT))

# -- the figures, by hand ------------------------------------------------------------


def test_legalbench_character_precision_and_recall_by_hand():
    """Two gold snippets of a.txt, three retrieved: 50 + 0 + 10 common characters, of
    150 + 50 + 20 retrieved and 100 + 20 gold."""
    golds = [m.Span("a.txt", 100, 200), m.Span("a.txt", 500, 520)]
    got = [m.Span("a.txt", 150, 300), m.Span("b.txt", 100, 150), m.Span("a.txt", 510, 530)]
    precision, recall = m.char_precision_recall(got, golds)
    assert precision == pytest.approx(60 / 220)
    assert recall == pytest.approx(60 / 120)
    assert m.char_precision_recall([], golds) == (0.0, 0.0)


def test_hit_and_reciprocal_rank_count_a_passage_covering_half_the_gold():
    gold = [m.Span("a", 100, 200)]
    ranked = [
        m.Span("b", 100, 200),  # another document
        m.Span("a", 0, 149),  # 49 of 100 gold characters: not half
        m.Span("a", 150, 400),  # 50 of 100: a hit, rank 3
    ]
    g = m.grade_retrieval(ranked, gold, k=2)
    assert (g.hit, g.reciprocal_rank, g.wrong_document) == (False, 1 / 3, True)
    assert m.grade_retrieval(ranked, gold, k=3).hit
    assert m.grade_retrieval(ranked[::-1], gold, k=1) == m.RetrievalGrade(
        True, 1.0, 50 / 250, 0.5, False
    )
    far = [m.Span("b", 0, 1)] * 10 + [m.Span("a", 100, 200)]  # rank 11: past MRR@10
    assert m.grade_retrieval(far, gold, k=20).reciprocal_rank == 0.0


def test_an_answer_is_right_wrong_shown_or_abstained_never_two():
    forms = ["60 days", "sixty (60) days"]
    right = m.grade_answer("Within sixty (60) days.", "sixty (60) days", False, ["a"], forms, ["a"])
    assert (right.right, right.wrong_shown, right.abstained) == (True, False, False)
    # "60 days" is not in "160 days"
    wrong = m.grade_answer("Within 160 days.", "160 days", False, ["a"], forms, ["a"])
    assert (wrong.right, wrong.wrong_shown) == (False, True)
    # the right value from another document is not right, and it is shown
    other = m.grade_answer("sixty (60) days", "sixty (60) days", False, ["b"], forms, ["a"])
    assert (other.right, other.wrong_shown, other.cited_gold) == (False, True, False)
    unsure = m.grade_answer("Not sure ... 60 days", None, True, ["a"], forms, ["a"])
    assert (unsure.right, unsure.wrong_shown, unsure.abstained, unsure.value) == (
        False,
        False,
        True,
        True,
    )
    assert m.grade_answer("anything", "x", False, [], [], []).right is None


def test_calibration_error_and_the_coverage_curve_by_hand():
    conf, right = [0.95, 0.95, 0.15, 0.15], [True, False, False, False]
    # bin 0.9-1.0: mean 0.95, share right 0.5; bin 0.1-0.2: 0.15 and 0: (0.45 + 0.15) / 2
    assert m.expected_calibration_error(conf, right) == pytest.approx(0.3)
    bins = m.reliability(conf, right)
    assert [(b.low, b.answers, b.right) for b in bins] == [(0.1, 2, 0.0), (0.9, 2, 0.5)]
    wrong = [False, True, True, True]
    at = m.at_threshold(conf, right, wrong, 0.5)
    assert (at.coverage, at.accuracy, at.right, at.wrong_shown, at.unsure) == (
        0.5,
        0.5,
        0.25,
        0.25,
        0.5,
    )
    assert m.expected_calibration_error([], []) is None


# -- question files -----------------------------------------------------------------


def test_a_malformed_line_is_reported_with_its_number_and_the_rest_is_read(tmp_path):
    lines = [
        '{"question": "What is the notice period?", "answers": "30 days", "source": "x.pdf"}',
        "{not json",
        '{"answers": ["a"]}',
        '{"question": "q", "source": "x.pdf", "start": 5}',
        '{"question": "q", "answers": [1, 2]}',
        "",
        '["a list"]',
        '{"question": "Is it?", "unanswerable": true, "answers": "yes"}',
        '{"id": "q1", "question": "Who signs?", "answers": ["Ann"]}',
        '{"question": "q", "source": "x.pdf", "start": 9, "end": 3}',
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    qf = read_questions(path)
    assert [q.line for q in qf.questions] == [1, 9]
    assert qf.questions[0].answers == ("30 days",)
    assert qf.questions[1].qid == "q1"
    assert [p.line for p in qf.problems] == [2, 3, 4, 5, 7, 8, 10]
    said = {p.line: p.message for p in qf.problems}
    assert "question must be a non-empty string" in said[3]
    assert "start and end" in said[4]
    assert "end (3) must be after start (9)" in said[10]


def test_hostile_strings_are_left_out_with_their_line_and_lines_end_at_newlines_only(tmp_path):
    lines = [
        "[" * 100_000,  # nested past the parser's depth
        json.dumps({"question": "Is a\u2028b one line?", "answers": "yes\x0cno"}),
        '{"question": "q", "source": "a\\u0000b"}',
        '{"question": "q\\ud800"}',
        '{"question": "q", "id": null}',
        '{"question": "q", "id": 7}',
        '{"question": "q", "answers": "a", "gold_text": "x"}',
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\r\n".join(lines), encoding="utf-8")
    qf = read_questions(path)
    assert [(q.line, q.qid) for q in qf.questions] == [(2, "line-2"), (6, "7")]
    said = {p.line: p.message for p in qf.problems}
    assert said[1] == "nested too deeply to read"
    assert "NUL or an unpaired surrogate" in said[3] and "NUL or an unpaired" in said[4]
    assert "id must be" in said[5] and "needs the source" in said[7]
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' * 100_000, encoding="utf-8")
    with pytest.raises(ConfigError, match="nested too deeply"):
        read_questions(deep)


def test_a_number_form_ends_where_the_number_ends():
    assert m.holds_answer("within 5 days", ["5"])
    assert not m.holds_answer("within 50 days", ["5"])
    assert not m.holds_answer("section 12(a)", ["section 1"])
    assert m.holds_answer("section 1(a)", ["section 1"])
    assert not m.holds_answer("fee of $5,000", ["5,000"])
    assert not m.holds_answer("version 1.5", ["5"])


def test_a_name_form_may_follow_a_dot_or_a_sigil_but_not_a_letter():
    assert m.holds_answer("raise exceptions.PluginExecutionFailed(", ["PluginExecutionFailed"])
    assert m.holds_answer("reads $EDITOR first", ["EDITOR"])
    assert not m.holds_answer("raise MyPluginExecutionFailed", ["PluginExecutionFailed"])
    assert not m.holds_answer("the VISUAL_EDITOR variable", ["EDITOR"])


def test_overlapping_passages_count_their_characters_once():
    gold = [m.Span("a", 0, 100)]
    assert m.char_precision_recall([m.Span("a", 0, 100), m.Span("a", 50, 150)], gold) == (
        100 / 150,
        1.0,
    )


def test_a_name_with_glob_characters_is_a_name_first():
    from lateseg.eval.run import Sources

    where = Sources(["/d/a [1].txt", "/d/a1.txt", "/d/b.txt"])
    assert where.match("a [1].txt") == ["/d/a [1].txt"]
    assert where.match("a?.txt") == ["/d/a1.txt"]
    assert where.match("*.txt") == ["/d/a [1].txt", "/d/a1.txt", "/d/b.txt"]
    assert where.match("/d/b.txt") == ["/d/b.txt"]
    assert where.match("../../etc/passwd") == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--fail-under", "hitt_at_5=0.5"], "no figure 'hitt_at_5'"),
        (["--fail-under", "hit_at_5=nan"], "a finite number"),
        (["--fail-under", "wrong_shown=0.1"], "lower wrong_shown is better; use --fail-over"),
        (["--fail-over", "right=0.1"], "higher right is better; use --fail-under"),
        (["--report", "r", "--viewer", "javascript:alert(1)"], "http(s) URL"),
    ],
)
def test_a_bad_bound_or_viewer_is_refused_before_any_work(tmp_path, capsys, args, says):
    from lateseg.cli import main

    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "q", "answers": "a"}\n', encoding="utf-8")
    absent = tmp_path / "no-index"  # never opened: the options are checked first
    assert main(["eval", str(questions), "--index", str(absent), *args]) == 2
    assert says in capsys.readouterr().err
    assert not absent.exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "empty"),
        (b"\n\n  \n", "empty"),
        (b"\xff\xfe\x00broken", "not UTF-8"),
        (b'{"tests": "no"}\n', "no question could be read"),
        (b"{bad\n{worse\n", "q.jsonl (line 1: Expecting property name"),
    ],
)
def test_a_file_with_no_question_is_one_clear_error(tmp_path, content, says):
    path = tmp_path / "q.jsonl"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=re.escape(says)):
        read_questions(path)


def test_a_file_over_the_bound_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.jsonl"
    with path.open("wb") as f:  # sparse: 100 MB that cost nothing to write
        f.truncate(100 * 2**20)
    with pytest.raises(ConfigError, match="are 100 MB; at most 64 MB"):
        read_questions(path)
    with pytest.raises(ConfigError, match="cannot read"):
        read_questions(tmp_path / "absent.jsonl")


def test_legalbench_format_is_read_as_published(tmp_path):
    data = {
        "tests": [
            {"query": "Q1?", "snippets": [{"file_path": "cuad/a.txt", "span": [10, 20]}]},
            {"query": "Q2?", "snippets": [{"file_path": "cuad/a.txt", "span": [20, 10]}]},
            {"query": "Q3?", "snippets": [], "tags": ["x"]},
        ]
    }
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    qf = read_questions(path)
    assert qf.format == "legalbench"
    assert [(q.question, q.golds[0].source, q.golds[0].start) for q in qf.questions] == [
        ("Q1?", "cuad/a.txt", 10)
    ]
    assert [p.line for p in qf.problems] == [2, 3]


# -- runs over the sample index ------------------------------------------------------


def _write(tmp_path: Path, records: list[dict]) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_every_question_that_cannot_be_graded_is_counted_and_listed(sample_index, tmp_path):
    msa = sample_index.document(str(DATA / "contracts" / "msa.pdf"))
    gold = "Client may terminate this Agreement"
    at = msa.text.index(gold)
    records = [
        {"id": "good", "question": "May the client terminate for convenience?",
         "source": "contracts/msa.pdf", "start": at, "end": at + len(gold)},
        {"id": "outside", "question": "Where?", "source": "contracts/msa.pdf",
         "start": len(msa.text), "end": len(msa.text) + 10},
        {"id": "unknown", "question": "What?", "source": "contracts/absent.pdf",
         "gold_text": "x y"},
        {"id": "ambiguous", "question": "Which?", "source": "*.pdf", "gold_text": "the"},
        {"id": "not there", "question": "Who?", "source": "msa.pdf",
         "gold_text": "words the agreement never says"},
        {"id": "twice", "question": "Which?", "source": "msa.pdf", "gold_text": "Provider"},
        {"id": "nothing", "question": "Is anything to grade here?"},
    ]  # fmt: skip
    path = _write(tmp_path, records)
    with path.open("a", encoding="utf-8") as f:
        f.write('{"question": "broken\n')
    report = evaluate(path, sample_index, [Variant(answer="none")])
    s = report.summary()
    # the line left out is a failure too; the question with no gold is counted apart
    assert (s["questions"], s["failed"], s["retrieval_graded"], s["ungraded"]) == (8, 6, 1, 1)
    reasons = {f["id"]: f["reason"] for f in report.variants[0].failed}
    assert "lies outside contracts/msa.pdf" in reasons["outside"]
    assert "is not in the index" in reasons["unknown"]
    assert "matches 4 documents" in reasons["ambiguous"]
    assert "gold_text is not in msa.pdf" in reasons["not there"]
    assert "occurs more than once in msa.pdf" in reasons["twice"]
    table = report.table()
    assert "6 failed:" in table and "failed outside (line 2)" in table
    assert "left out line 8: Unterminated string" in table
    assert "1 with nothing to grade" in table


def test_legalbench_sample_runs_in_its_format_and_its_figures_are_the_spans(
    tmp_path, encoder, sample_index
):
    """The sample in LegalBench-RAG's format over the contracts' Markdown sources: each
    question's character precision and recall are the overlap of the top-k passages
    with its snippet, counted here character by character. A variant over another index
    (the sample's PDFs, which hold no Markdown file) places the gold in that index: there
    every question fails, listed."""
    from lateseg.pipeline import Pipeline

    pipe = Pipeline.open(tmp_path / "idx")
    pipe.encoder = encoder
    try:
        pipe.ingest([DATA / "sources" / "contracts"], progress=False)
        bench = DATA / "eval" / "legalbench_sample.json"
        other = Variant("pdfs", index=str(sample_index.folder), answer="none", k=3)
        report = evaluate(
            bench, pipe, [Variant(answer="none", k=3), other], corpus=DATA / "sources", limit=12
        )
        assert report.summary("pdfs")["failed"] == 12
        assert all("is not in the index" in f["reason"] for f in report.variants[1].failed)
        tests = json.loads(bench.read_text(encoding="utf-8"))["tests"][:12]
        rows = report.variants[0].rows
        assert report.format == "legalbench" and len(rows) == 12 and not report.variants[0].failed
        for test, row in zip(tests, rows, strict=True):
            (snippet,) = test["snippets"]
            source = str((DATA / "sources" / snippet["file_path"]).resolve())
            # LegalBench-RAG's span counts the Markdown file's characters; the document's
            # text is rendered: the gold is where the span's words stand in it
            text = pipe.document(source).text
            start, end = file_span(source, *snippet["span"], text)
            raw = (DATA / "sources" / snippet["file_path"]).read_text(encoding="utf-8")
            said = " ".join(raw[slice(*snippet["span"])].split())
            assert " ".join(text[start:end].split()).strip("*_ ") in said.replace("**", "")
            gold = {(source, i) for i in range(start, end)}
            hits = pipe.search(test["query"], k=3)
            got = [(h.source, i) for h in hits for i in range(h.start, h.end)]
            common = sum(c in gold for c in got)
            assert row["retrieval"]["precision"] == pytest.approx(common / len(got))
            assert row["retrieval"]["recall"] == pytest.approx(common / len(gold))
        s = report.summary()
        assert s["char_recall_at_3"] == pytest.approx(
            sum(r["retrieval"]["recall"] for r in rows) / 12
        )
        assert s["char_recall_at_3"] > 0.5  # the sample's contracts are found
    finally:
        pipe.close()


def test_a_span_counting_a_markdown_files_characters_is_placed_in_its_rendered_text(tmp_path):
    """LegalBench-RAG's spans count the file's characters, while a Markdown document's text
    is rendered (markup is not text): the span's words are found there, a span cut inside
    markup without its first and last words, one past the rendered text's end (but in
    the file) placed all the same; a span past the file's end is refused."""
    from lateseg.ingest.markdown import render

    md = tmp_path / "terms.md"
    body = "# Terms\n\n**Fees.** The [Customer](https://x.example) will pay **within 30 days**.\n"
    md.write_text(body * 3 + "\nLast: *Notice* goes to the **address** above.\n", encoding="utf-8")
    raw = md.read_text(encoding="utf-8")
    text = render(raw)[0]
    assert len(text) < len(raw)
    start = raw.rindex("Notice")
    got = file_span(str(md), start, raw.index("above") + len("above"), text)
    assert text[got[0] : got[1]] == "Notice goes to the address above"
    assert got[1] <= len(text) < raw.index("above")  # past the rendered end in the file
    # cut inside words and markup: the same characters of the rendered words
    cut = file_span(str(md), start + 2, raw.index("address") + 3, text)
    assert text[cut[0] : cut[1]] == "tice goes to the add"
    # the same words three times: the place at the span's share of the file
    second = raw.index("The [Customer]", raw.index("The [Customer]") + 1)
    a, b = file_span(str(md), second, second + len("The [Customer](https://x.example) will"), text)
    assert text[a:b] == "The Customer will"
    assert sum(1 for m in re.finditer("The Customer will", text) if m.start() < a) == 1
    with pytest.raises(ConfigError, match="lies outside"):
        file_span(str(md), 0, len(raw) + 5, text)
    with pytest.raises(ConfigError, match="cannot read"):
        file_span(str(tmp_path / "gone.md"), 0, 5, text)
    with pytest.raises(ConfigError, match="not in its rendered text"):  # a lone mark
        file_span(str(md), raw.index("**Fees"), raw.index("**Fees") + 2, text)


def test_the_command_compares_search_modes_in_one_table_and_gates_ci(sample_index, tmp_path):
    from lateseg.cli import main

    lines = (DATA / "eval" / "sample_qa.jsonl").read_text(encoding="utf-8").splitlines()[:6]
    questions = tmp_path / "six.jsonl"
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "report"
    argv = ["eval", str(questions), "--index", str(sample_index.folder), "--no-progress"]
    code = main([*argv, "--compare", "mode=hybrid", "--compare", "mode=lexical,k=3",
                 "--report", str(out), "--fail-under", "hit_at_5=1.01"])  # fmt: skip
    assert code == 1  # no variant finds more than every question
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("<svg") == 2 and "mode=lexical,k=3" in html
    saved = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert [v["variant"]["name"] for v in saved["variants"]] == [
        "default",
        "mode=hybrid",
        "mode=lexical,k=3",
    ]
    assert [v["variant"]["mode"] for v in saved["variants"]] == ["auto", "hybrid", "lexical"]
    assert "hit_at_3" in saved["variants"][2]["summary"]
    assert "| id | question | answer shown |" in (out / "report.md").read_text(encoding="utf-8")
    assert main([*argv, "--answer", "none", "--fail-over", "wrong_document=1"]) == 0
    assert main([*argv, "--compare", "kk=3"]) == 2
    assert main([*argv, "--fail-under", "hit_at_9=0.5"]) == 2  # no such figure at k=5


def test_assert_quality_fails_a_test_with_the_table(sample_index, tmp_path):
    records = [json.loads(x) for x in (DATA / "eval" / "sample_qa.jsonl").read_text().splitlines()]
    report = evaluate(_write(tmp_path, records[:4]), sample_index)
    assert_quality(report, min_hit_at_5=0.0, max_failed=0)
    assert quality_failures(report, min_right=1.01) == [
        f"default: right = {report.summary()['right']:.4g}, below 1.01"
    ]
    with pytest.raises(AssertionError, match=r"(?s)below 1.01.*variant\s+hit@5"):
        assert_quality(report, min_right=1.01)
    with pytest.raises(ValueError, match="no figure 'hit_at_3'"):
        assert_quality(report, min_hit_at_3=0.5)


# -- the bench's figures, reproduced ---------------------------------------------------


def test_eval_reproduces_bench_retrieval_on_sample_qa(tmp_path, fp32_encoder):
    """``bench/retrieval.py``'s default row on sample_qa (its own chunking, vectors and
    exact search in numpy) and ``lateseg eval`` over an index of the same files, to the
    last digit. At fp32 (``fp32_encoder``: openvino, exact on any CPU): under bf16 a
    window's vectors may depend on its batch-mates on some CPUs (issue 61), and the bench
    and ingest batch differently."""
    from bench import retrieval as R
    from lateseg.pipeline import Pipeline

    es = R.sample_qa_set(DATA / "eval" / "sample_qa.jsonl")
    systems = R.LatesegSystems(fp32_encoder).run(es.docs)
    qvecs = fp32_encoder.embed_queries([q.question for q in es.queries])
    bench = R.evaluate(systems["lateseg late+dynamic (default)"], qvecs, es, 1)["summary"]
    with Pipeline.open(tmp_path / "idx", backend="openvino") as pipe:
        pipe.encoder = fp32_encoder
        pipe.ingest([DATA / "contracts", DATA / "sample_repo"], progress=False)
        report = evaluate(DATA / "eval" / "sample_qa.jsonl", pipe, [Variant(answer="none")])
    s = report.summary()
    assert s["retrieval_graded"] == len(es.queries) and not s["failed"]
    assert (s["hit_at_5"], s["mrr_at_10"]) == (bench["hit@5"], bench["MRR@10"])


def test_eval_reproduces_bench_answers_on_the_contracts_set(sample_index, tmp_path):
    """``bench/answers.py``'s quote row on its contracts set and ``lateseg eval`` over
    the same index and questions, to the last digit."""
    from bench import answers as A
    from lateseg.answer.confidence import MIN_CONFIDENCE

    bench = A.run_set("contracts", ["quote"], 5, None, None, MIN_CONFIDENCE, pipe=sample_index)
    b = bench["summary"]["quote"]
    records = A.contract_records()
    report = evaluate(_write(tmp_path, records), sample_index)
    s = report.summary()
    assert s["answers_graded"] == b["graded"] and not s["failed"]
    assert (s["right"], s["wrong_shown"], s["abstained"], s["accuracy"]) == (
        b["right"],
        b["wrong_shown"],
        b["unsure"],
        b["accuracy"],
    )


def test_a_gold_in_two_copies_of_a_document_is_found_in_either(encoder, tmp_path):
    """Issue 62: real corpora publish one document as Markdown and as PDF. A source glob
    naming both places the gold in each copy; retrieval is graded against the copy found
    best (recall is not capped at a half) and an answer citing either copy cites it."""
    from lateseg.pipeline import Pipeline

    docs = tmp_path / "docs"
    (docs / "pdf").mkdir(parents=True)
    text = (
        "Refunds. Subscriptions may be cancelled within thirty days for a full refund. "
        "After that, fees are not refunded.\n\nSupport. Email support answers in two days.\n"
    )
    (docs / "terms.md").write_text(text)
    (docs / "pdf" / "terms.txt").write_text(text)
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "r1", "question": "Within how many days can I cancel for a refund?",
                    "source": "**/terms.*", "gold_text": "within thirty days for a full refund",
                    "answer": ["thirty days"]}) + "\n"
    )  # fmt: skip
    pipe = Pipeline.open(tmp_path / "idx")
    pipe.encoder = encoder
    try:
        pipe.ingest([docs], progress=False)
        report = evaluate(questions, pipe, [Variant(k=3)], corpus=docs)
        (row,) = report.variants[0].rows
        assert not report.variants[0].failed
        assert len(row["gold"]) == 2  # both copies
        assert row["retrieval"]["hit"] and row["retrieval"]["recall"] > 0.99
        assert row["answer"]["right"] is True
    finally:
        pipe.close()
