from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, DEMO_QUESTION, ROOT, license_file, squash


def lateseg(*args: str) -> subprocess.CompletedProcess:
    """The installed command in a process of its own: for what only a process shows
    (``python -m lateseg``, a closed pipe). It reloads torch and the models each time."""
    return subprocess.run(
        [sys.executable, "-m", "lateseg", *args], capture_output=True, text=True, timeout=600
    )


def cli(*args: str) -> subprocess.CompletedProcess:
    """``lateseg ARGS`` run in this process (``main()``, stdout and stderr captured, a
    usage error's exit status returned): the models stay loaded between calls."""
    from lateseg.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def license_index(tmp_path_factory):
    docs = tmp_path_factory.mktemp("licenses")
    for name in ["GPL-3", "Apache-2.0", "BSD"]:
        shutil.copy(license_file(name), docs / name)
    index = tmp_path_factory.mktemp("idx") / "licenses"
    out = cli("ingest", str(docs), "--index", str(index), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert len(report["added"]) == 3 and not report["failed"]
    return docs, index


def test_search_json_hits_index_the_document_text(license_index):
    docs, index = license_index
    out = cli(
        "search",
        "Can I charge a fee for conveying copies?",
        "--index",
        str(index),
        "-k",
        "4",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert len(hits) == 4
    for h in hits:
        assert set(h) >= {"source", "start", "end", "text", "score", "page", "section"}
        # Plain-text documents are verbatim, so offsets are offsets into the file itself.
        with open(h["source"], encoding="utf-8") as f:
            text = f.read()
        assert text[h["start"] : h["end"]] == h["text"]
        assert h["source"].startswith(str(docs))
        # ...and lines are the file's lines: the hit's first and last characters' (1-based).
        assert h["line"] == text.count("\n", 0, h["start"]) + 1
        assert h["line_end"] == text.count("\n", 0, h["end"] - 1) + 1  # its last character's
        assert h["line_end"] > h["line"]  # license chunks span several lines
    assert hits[0]["source"].endswith("GPL-3")
    assert "fee" in hits[0]["text"].lower()


def test_search_mode_and_filters_from_the_command_line(license_index):
    docs, index = license_index
    args = ["search", "patent license", "--index", str(index), "-k", "3", "--json"]
    out = cli(*args, "--mode", "lexical", "--source", "*/Apache-2.0")
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert len(hits) == 3 and all(h["source"] == str(docs / "Apache-2.0") for h in hits)
    assert all("patent" in h["text"].lower() for h in hits)
    wide = cli(*args, "--context", "2500")
    assert wide.returncode == 0, wide.stderr
    assert 1000 < sum(h["end"] - h["start"] for h in json.loads(wide.stdout)) <= 2500
    none = cli(*args, "--kind", "code")
    assert none.returncode == 0 and json.loads(none.stdout) == []
    bad = cli(*args, "--mode", "fuzzy")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_human_output_and_reingest(license_index):
    docs, index = license_index
    out = cli("search", "warranty", "--index", str(index), "-k", "2")
    assert out.returncode == 0 and out.stdout.startswith("1. [")
    first = out.stdout.splitlines()[0]  # "1. [0.512] /…/GPL-3:590-601, chars …": path:lines
    assert re.search(rf"{re.escape(str(docs))}/[\w.-]+:\d+-\d+, ", first), first
    again = cli("ingest", str(docs), "--index", str(index))
    assert again.returncode == 0
    assert "0 added, 0 updated, 3 unchanged, 0 skipped, 0 failed" in again.stdout


def test_search_help_says_what_its_score_is():
    """The bracketed number of a hit is explained, and that auto's need not fall in order."""
    out = cli("search", "--help")
    assert out.returncode == 0
    said = " ".join(out.stdout.split())
    assert "N. [score]" in said and "cosine similarity" in said
    assert "need not fall in rank order" in said and "BM25" in said and "the first 30" in said


def test_errors_are_one_line_with_exit_codes(tmp_path, capsys):
    from lateseg.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, err = run("ingest", str(tmp_path / "nope"), "--index", str(tmp_path / "i"))
    assert code == 3 and f"failed: {tmp_path / 'nope'}: no such file or folder" in out
    # nothing indexed: the index folder this command made is not left behind (issue 62)
    assert not (tmp_path / "i").exists() and "was not kept" in err
    code, _, err = run("search", "x", "--index", str(tmp_path / "empty"))
    assert code == 1 and "no index at" in err and err.count("\n") == 1
    assert not (tmp_path / "empty").exists()  # a typo never creates an index
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.pdf").write_bytes(b"%PDF-1.4 broken")
    (bad / "ok.txt").write_text("A perfectly fine note about payment terms.\n")
    code, out, _ = run("ingest", str(bad), "--index", str(tmp_path / "j"))
    assert code == 0 and "1 added" in out and "failed: " in out
    code, out, _ = run("ingest", str(bad), "--index", str(tmp_path / "j"), "--strict")
    assert code == 3 and "1 unchanged" in out
    (bad / "ok.txt").unlink()
    assert run("ingest", str(bad), "--index", str(tmp_path / "k"))[0] == 3
    assert not (tmp_path / "k").exists()
    # an index that existed stays, whatever this ingest found
    assert run("ingest", str(tmp_path / "nope"), "--index", str(tmp_path / "j"))[0] == 3
    assert (tmp_path / "j" / "manifest.json").exists()
    # The installed command itself: help, and a usage error.
    assert lateseg("--help").returncode == 0
    assert lateseg("ask").returncode == 2


def test_usage_errors_and_empty_results_are_one_line_with_documented_codes(
    license_index, tmp_path, capsys
):
    from lateseg.cli import main

    docs, index = license_index
    for argv, words in [
        (["search", "x", "--index", str(index), "-k", "0"], "-k: 0 must be"),
        (["search", "x", "--index", str(index), "--context", "-5"], "--context: -5 must be"),
        (["ingest", str(docs), "--index", str(index), "--max-file-mb", "nan"], "nan must be"),
        (["ingest", str(docs), "--index", str(index), "--max-file-mb", "inf"], "inf must be"),
        (["ingest", str(docs), "--index", str(index), "--workers", "-1"], "-1 must be"),
        (["phase", "toy", "--out", str(docs / "BSD")], "exists and is not a folder"),
    ]:
        with pytest.raises(SystemExit) as e:
            main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and words in err, (argv, err)
        assert "Traceback" not in err
    assert main(["search", "x", "--index", str(tmp_path / "typo")]) == 1
    assert "no index at" in capsys.readouterr().err and not (tmp_path / "typo").exists()
    bad = tmp_path / "bad-index"
    bad.mkdir()
    (bad / "manifest.json").write_text('{"format": "lateseg-index", "version": 2, "dim": 384}')
    assert main(["search", "x", "--index", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "embedder: missing" in err
    # No hits: nothing on stdout, "no results" on stderr, success.
    assert main(["search", "patent", "--index", str(index), "--source", "elsewhere/*"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip() == "no results"
    # A relative --source glob is resolved against the current folder.
    cwd = os.getcwd()
    os.chdir(docs.parent)
    try:
        assert (
            main(
                [
                    "search",
                    "patent",
                    "--index",
                    str(index),
                    "-k",
                    "2",
                    "--json",
                    "--source",
                    f"{docs.name}/Apache*",
                ]
            )
            == 0
        )
    finally:
        os.chdir(cwd)
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 2 and all(h["source"] == str(docs / "Apache-2.0") for h in hits)


def test_output_closed_early_ends_quietly(license_index):
    _, index = license_index
    proc = subprocess.run(
        f"{sys.executable} -m lateseg search 'warranty' --index {index} -k 50 | head -c 20",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert len(proc.stdout) == 20 and proc.stderr == "", proc.stderr


@pytest.mark.slow
def test_ask_prints_the_phrase_first_and_cites_the_gold_span(tmp_path, sample_questions):
    index = tmp_path / "idx"
    assert cli("ingest", str(DATA / "contracts"), "--index", str(index)).returncode == 0
    q = next(q for q in sample_questions if q["id"] == "msa-01")
    out = cli("ask", DEMO_QUESTION, "--index", str(index), "--extractive", "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["mode"] == "quote" and answer["citations"]
    assert any(squash(q["gold"]) in squash(c["text"]) for c in answer["citations"])
    assert all(c["source"].endswith("msa.pdf") and c["page"] for c in answer["citations"])
    assert answer["phrase"]["text"] == "sixty (60) days"
    # as a reader sees it: the value first, its sentence quoted, where it is, the scope
    out = cli("ask", DEMO_QUESTION, "--index", str(index))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "sixty (60) days"
    assert lines[2].strip().startswith('"Client may terminate')
    assert "msa.pdf, p. 4, § 5 Term and Termination > 5.2 Termination for Convenience" in out.stdout
    assert "Answered from msa.pdf: the question names 'Master Services Agreement'." in out.stdout
    missing = cli("ask", "Which law governs the employment agreement?", "--index", str(index))
    assert missing.returncode == 0 and "No indexed document matches" in missing.stdout
    assert "whole index" in missing.stdout and "Not sure" in missing.stdout


def test_makefile_demo_asks_the_tested_question():
    makefile = (ROOT / "Makefile").read_text()
    assert f"QUESTION ?= {DEMO_QUESTION}" in makefile


def test_repository_rules_and_their_switches(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("def main():\n    return 'billing'\n")
    (repo / "src" / "secret.py").write_text("TOKEN = 'x'\n")
    (repo / ".gitignore").write_text("secret.py\n")
    (repo / "yarn.lock").write_text("# lockfile\npkg@1:\n  version 1\n")
    out = cli("ingest", str(repo), "--index", str(tmp_path / "a"), "--json")
    report = json.loads(out.stdout)
    reasons = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    assert [Path(p).name for p in report["added"]] == ["app.py"]
    assert reasons["secret.py"] == "gitignored" and reasons["yarn.lock"].startswith("generated")
    out = cli(
        "ingest",
        str(repo),
        "--index",
        str(tmp_path / "b"),
        "--json",
        "--no-gitignore",
        "--keep-generated",
    )
    added = sorted(Path(p).name for p in json.loads(out.stdout)["added"])
    assert added == ["app.py", "secret.py", "yarn.lock"]


def test_index_stats_verify_compact(license_index, tmp_path, capsys):
    from lateseg.cli import main
    from lateseg.index import read_manifest
    from lateseg.index.cache import load_cache, save_cache
    from lateseg.index.sqlite.store import DocStore

    def run(*argv: str) -> tuple[int, str]:
        code = main(list(argv))
        return code, capsys.readouterr().out

    _, index = license_index
    copy = tmp_path / "copy"
    shutil.copytree(index, copy)
    code, out = run("index", "stats", "--index", str(copy), "--json")
    s = json.loads(out)
    assert code == 0 and s["documents"] == 3 and s["chunks"] == s["vectors"] > 0
    assert s["documents_by_kind"] == {"text": 3} and s["format"] == 2
    assert run("index", "verify", "--index", str(copy)) == (0, "ok: index is consistent\n")
    # Damage the cache behind the index's back: a cache that lost 5 vectors but whose
    # header still claims the docstore's state (what a bug could write) ...
    manifest = read_manifest(copy)
    store = DocStore(copy / "docstore.sqlite", writable=False)
    vec, header = load_cache(copy / "vectors.faiss", manifest.dim, store.index_id())
    store.close()
    vec.remove(sorted(vec.ids().tolist())[:5])
    save_cache(copy / "vectors.faiss", vec, header.index_id, header.seq)
    code, out = run("index", "verify", "--index", str(copy))
    assert code == 3 and "5 chunks have no vector in vectors.faiss" in out
    # ... or bytes flipped on disk.
    data = bytearray((copy / "vectors.faiss").read_bytes())
    data[-50] ^= 0xFF
    (copy / "vectors.faiss").write_bytes(bytes(data))
    code, out = run("index", "verify", "--index", str(copy))
    assert code == 3 and "does not match its checksum" in out
    code, out = run("index", "compact", "--index", str(copy), "--json")
    assert code == 0 and json.loads(out).keys() == {"bytes_before", "bytes_after", "vectors"}
    assert run("index", "verify", "--index", str(copy))[0] == 0
    after = json.loads(run("index", "stats", "--index", str(copy), "--json")[1])
    assert after["documents"] == 3 and after["vectors"] == s["vectors"]  # nothing lost
    code, out = run("index", "compact", "--index", str(copy), "--vectors", "hnsw", "--json")
    assert json.loads(out)["vectors"] == "hnsw"
    after = json.loads(run("index", "stats", "--index", str(copy), "--json")[1])
    assert after["vector_index"] == after["vector_policy"] == "hnsw"
    assert run("index", "verify", "--index", str(copy))[0] == 0
    assert main(["index", "stats", "--index", str(tmp_path / "nothing")]) == 1
    assert "no index at" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()


@pytest.mark.slow
def test_ask_streams_a_generated_answer_from_a_compressed_cache(license_index):
    _, index = license_index
    q = "Which license grants a patent license from each contributor?"
    out = cli("ask", q, "--index", str(index), "-k", "2", "--kv-budget", "96")
    assert out.returncode == 0, out.stderr
    assert "KV cache lateseg: 96 of" in out.stderr and "Sources" in out.stdout
    # every generated answer is checked: its sentences and evidence, or the extractive
    # answer in its place
    checked = "Checked against the passages:" in out.stdout
    replaced = "The model's answer above is not supported" in out.stdout
    assert checked != replaced
    assert not replaced or "Answer (quoted from the passages):" in out.stdout
    js = cli(
        "ask",
        q,
        "--index",
        str(index),
        "-k",
        "2",
        "--kv-budget",
        "0.5",
        "--kv-method",
        "snapkv",
        "--json",
    )
    answer = json.loads(js.stdout)
    stats = answer["kv_stats"]
    model = answer["generated"] or answer
    assert model["mode"] == "generate" and model["support"]
    assert answer["supported"] is (None if answer["generated"] else True)
    assert all(set(s) >= {"supported", "reason", "evidence"} for s in model["support"])
    assert stats["method"] == "snapkv"
    assert stats["kept_tokens"] == round(0.5 * stats["prompt_tokens"])
    bad = cli("ask", q, "--index", str(index), "--kv-method", "snapkv")
    assert bad.returncode == 1 and "needs a kv_budget" in bad.stderr
    bad = cli("ask", q, "--index", str(index), "--kv-budget", "many")
    assert bad.returncode == 1 and "give tokens" in bad.stderr


@pytest.mark.slow
def test_phase_command_writes_json_plots_and_summary(tmp_path):
    out = cli(
        "phase",
        "retrieval",
        "--reduced",
        "--scheme",
        "prefix",
        "--offsets",
        "16",
        "--out",
        str(tmp_path),
        "--no-progress",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "phase.json").read_text())
    systems = {r["system"]: r for r in data["results"]}
    assert set(systems) == {"fixed-16 naive", "lateseg late+dynamic"}
    assert systems["fixed-16 naive"]["gap"] > systems["lateseg late+dynamic"]["gap"]
    assert "| fixed-16 naive | prefix | 16 |" in out.stdout
    assert len(list(tmp_path.glob("*.png"))) == 2
    bad = cli("phase", "retrieval", "--out", str(tmp_path), "--text", "/nonexistent")
    assert bad.returncode == 1 and "does not exist" in bad.stderr


def test_search_json_carries_page_ranges_and_include_toc(tmp_path, capsys):
    from test_pipeline import _manual_pdf

    from lateseg.cli import main

    pdf = tmp_path / "manual.pdf"
    _manual_pdf(pdf)
    index = tmp_path / "idx"
    assert main(["ingest", str(pdf), "--index", str(index)]) == 0
    capsys.readouterr()
    args = ["search", "Contents Scope Delivery Warranty Notices", "--index", str(index)]
    assert main([*args, "-k", "20", "--json", "--include-toc"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert all(h["page_end"] >= h["page"] for h in hits)
    assert any(h["page_end"] > h["page"] for h in hits)  # the paragraph across pages 2-3
    assert any(h["page"] == 1 and h["text"].startswith("Contents") for h in hits)
    assert main([*args, "-k", "20"]) == 0  # without the flag: no contents, pages as ranges
    out = capsys.readouterr().out
    assert "pp. 2–3" in out and "\n   Contents" not in out


def test_version_is_the_packages():
    from importlib.metadata import version

    out = cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"lateseg {version('lateseg')}"


def test_verbose_ask_logs_its_steps_and_the_confidence_line_stands_alone(license_index):
    """Issue 62: ``-v`` showed only FAISS's loader lines, and "(confidence 0.81)" came
    out glued to the quote where stdout and stderr go to one place (a log, a pipe)."""
    _, index = license_index
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "lateseg", "-v", "ask", "Can I charge a fee for copies?",
         "--index", str(index)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout
    lines = run.stdout.splitlines()
    assert any(re.fullmatch(r"\(confidence \d\.\d\d\)", line) for line in lines), run.stdout
    assert not any("(confidence" in line and not line.startswith("(") for line in lines)
    assert "lateseg: INFO retrieved" in run.stdout and "lateseg: INFO   [1]" in run.stdout
    assert "faiss" not in run.stdout.lower()


def test_ask_past_the_passage_cap_is_refused_at_once(license_index):
    """``ask -k 100000`` ran five minutes over every chunk; the API caps k at 50."""
    _, index = license_index
    out = cli("ask", "Can I charge a fee?", "--index", str(index), "-k", "100000")
    assert out.returncode != 0 and "at most 50 passages" in out.stderr
    out = cli("search", "fee", "--index", str(index), "-k", "100000")
    assert out.returncode != 0 and "at most 1000 passages" in out.stderr
