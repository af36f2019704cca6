"""The command line's consistency (issue 46): global options anywhere, an option that
cannot act says so (never silently), serve and mcp refuse a missing index without
--create, every default is stated, a PDF password comes from the environment or a file,
and the upload flags form one family."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request

import pymupdf
import pytest
from test_cli import cli

TEXTS = {
    "lease.txt": "The tenant pays rent of 900 dollars on the first day of each month.\n",
    "escrow.txt": "The escrow agent releases the deposit within nine days of closing.\n",
}


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    docs = tmp_path_factory.mktemp("docs")
    for name, text in TEXTS.items():
        (docs / name).write_text(text)
    index = tmp_path_factory.mktemp("idx") / "small"
    out = cli("ingest", str(docs), "--index", str(index), "--json")
    assert out.returncode == 0, out.stderr
    return docs, index


def test_verbose_is_accepted_before_and_after_the_command(small_index):
    from lateseg.cli import parse

    _, index = small_index
    for argv, level in [
        (["-v", "index", "stats", "--index", str(index)], 1),
        (["index", "stats", "--index", str(index), "-v"], 1),
        (["-v", "search", "rent", "--index", str(index), "--verbose"], 2),
        (["search", "rent", "-vv", "--index", str(index)], 2),
    ]:
        args = parse(argv)
        assert args.verbose + getattr(args, "sub_verbose", 0) == level, argv
    out = cli("search", "rent", "--index", str(index), "-k", "1", "--json", "-v")
    assert out.returncode == 0 and json.loads(out.stdout)[0]["source"].endswith("lease.txt")


def test_generator_options_act_or_are_refused_never_ignored(small_index, capsys):
    """--generator, --kv-budget, --kv-method and --prefill set up the generator: with a
    quoted answer they are refused (exit 2, naming --answer generate); given alone they
    mean --answer generate, and the command says so."""
    from lateseg.cli import parse
    from lateseg.cli.query import ask_options

    _, index = small_index
    ask = ["ask", "What is the rent?", "--index", str(index)]
    for extra in (
        ["--generator", "SmolLM2-135M-Instruct"],
        ["--kv-budget", "96"],
        ["--kv-budget"],
        ["--prefill", "sparse"],
        ["--kv-budget", "64", "--kv-method", "snapkv"],
    ):
        for quoted in (["--answer", "quote"], ["--extractive"], ["--answer", "extractive"]):
            out = cli(*ask, *quoted, *extra)
            assert out.returncode == 2, (extra, quoted, out.stderr)
            assert "--answer generate" in out.stderr and extra[0] in out.stderr
            assert out.stderr.count("\n") == 1 and out.stdout == ""
        # alone: the answer is generated, and stderr says why (checked without loading
        # the generator: the options the command would answer with)
        args = parse([*ask, *extra])
        options, llm = ask_options(args, {"k": 2})
        err = capsys.readouterr().err
        assert options.answer == "generate" and llm is None
        assert f"{extra[0]}" in err and "--answer generate" in err
    # copy uses the generator too: accepted, nothing to say
    options, _ = ask_options(parse([*ask, "--answer", "copy", "--kv-budget", "96"]), {"k": 2})
    assert options.answer == "copy" and options.kv is not None
    assert capsys.readouterr().err == ""
    # a local model and a server's: one writer only
    out = cli(*ask, "--generator", "x", "--llm", "http://127.0.0.1:9/v1")
    assert out.returncode == 2 and "--generator" in out.stderr and "--llm" in out.stderr
    # --no-stream has nothing to stream in a quote: said, not ignored
    out = cli(*ask, "--no-stream", "--json")
    assert out.returncode == 0 and "--no-stream" in out.stderr
    assert json.loads(out.stdout)["mode"] == "quote"
    # batch-only options without --questions
    out = cli(*ask, "--out", "x.jsonl")
    assert out.returncode == 2 and "--out is for --questions" in out.stderr


def test_other_idle_options_are_refused(small_index, tmp_path):
    docs, index = small_index
    out = cli("ingest", str(docs), "--index", str(index), "--address", "10.0.0.5:6379")
    assert out.returncode == 2 and "--engine ray" in out.stderr
    missing = str(tmp_path / "typo")
    for argv, words in [
        (["serve", "--index", str(index), "--upload-max-mb", "5"], "add --uploads"),
        (["serve", "--index", str(index), "--max-upload-mb", "5"], "add --uploads"),
        (["serve", "--index", str(index), "--no-generate", "--queue", "9"], "--queue"),
        (["serve", "--index", str(index), "--no-generate", "--generator", "x"], "--generator"),
        (["mcp", "--index", str(index), "--no-generate", "--generator", "x"], "--generator"),
        (["index", "stats"], "--index DIR|URL is required"),
    ]:
        out = cli(*argv)
        assert out.returncode == 2 and words in out.stderr, (argv, out.stderr)
    assert not (tmp_path / "typo").exists() and missing


def test_serve_and_mcp_refuse_a_missing_index_unless_create(tmp_path):
    pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")
    for command in ("serve", "mcp"):
        out = cli(command, "--index", str(tmp_path / command))
        assert out.returncode == 1 and "no index at" in out.stderr, out.stderr
        assert not (tmp_path / command).exists()  # a typo never serves an empty index


def test_serve_creates_a_missing_index_with_create(tmp_path):
    pytest.importorskip("fastapi", reason="needs the serve extra: pip install 'lateseg[serve]'")
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    index = tmp_path / "new"
    argv = ["serve", "--index", str(index), "--create", "--no-generate", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "lateseg", *argv, "--backend", "openvino"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # printed once the index is open, before serving
        assert line.startswith("lateseg: serving"), (line, proc.stderr.read())
        assert (index / "manifest.json").is_file()
        deadline = time.monotonic() + 300
        while True:  # the server binds right after that line
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health") as r:
                    health = json.loads(r.read())
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        assert health["documents"] == 0
    finally:
        proc.terminate()
        proc.wait(60)


def test_every_default_is_stated_and_shared_help_is_written_once():
    from lateseg.cli import _commands, _parser

    parser = _parser()
    quiet = (argparse._HelpAction, argparse._StoreTrueAction, argparse._CountAction)
    index_helps = []
    for _, sp in _commands(parser):
        for a in sp._actions:
            if a.help == argparse.SUPPRESS or isinstance(a, quiet) or not a.option_strings:
                continue
            if a.dest == "index":
                index_helps.append(a.help)
            if a.default not in (None, [], argparse.SUPPRESS):
                assert "default" in (a.help or ""), (sp.prog, a.option_strings, a.default)
    assert index_helps and all("PGPASSWORD" not in h for h in index_helps)
    assert "PGPASSWORD" in parser.format_help()  # the PostgreSQL note, once
    for command in ("ingest", "search", "ask"):
        out = cli(command, "--help")
        assert out.returncode == 0 and "Examples:" in out.stdout
        assert f"\n  lateseg {command} " in out.stdout  # examples kept as written
    assert "default 20" in cli("mcp", "--help").stdout.replace("\n", " ")
    assert "SmolLM2" in cli("serve", "--help").stdout
    serve = cli("serve", "--help").stdout
    assert "--max-upload-mb" not in serve and "--upload-max-mb" in serve  # one family
    from lateseg.cli import parse

    old = parse(["serve", "--index", "i", "--uploads", "--max-upload-mb", "5"])
    assert old.upload_max_mb == 5 and "upload_max_mb" in old.given  # the old name still works
    assert "/docs with --docs" in " ".join(serve.split())


def _encrypted_pdf(path, text: str, password: str) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw=password)
    doc.close()


def test_a_pdf_password_comes_from_the_environment_or_a_file(tmp_path, monkeypatch):
    pdf = tmp_path / "docs" / "locked.pdf"
    pdf.parent.mkdir()
    _encrypted_pdf(pdf, "The locked clause says ninety days.", "s3cret")
    secret = tmp_path / "pw.txt"
    secret.write_text("s3cret\n")
    monkeypatch.setenv("PDF_PW", "s3cret")
    for n, how in enumerate((["--password-env", "PDF_PW"], ["--password-file", str(secret)])):
        out = cli("ingest", str(pdf), "--index", str(tmp_path / f"i{n}"), "--json", *how)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["added"] == [str(pdf)]
    out = cli("ingest", str(pdf), "--index", str(tmp_path / "i3"), "--password-env", "NOPE_X")
    assert out.returncode == 2 and "NOPE_X" in out.stderr
    both = cli(
        "ingest", str(pdf), "--index", str(tmp_path / "i4"), "--password", "a",
        "--password-env", "PDF_PW",
    )  # fmt: skip
    assert both.returncode == 2 and "not allowed with" in both.stderr
    assert "ps" in cli("ingest", "--help").stdout  # --password says who can see it
