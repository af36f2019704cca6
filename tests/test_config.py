"""lateseg.toml and the environment variables: the command line wins over the project's
file, which wins over the user's, which wins over the defaults; a bad file is one clear
error; one table names every environment variable lateseg reads."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT
from test_cli import cli

USER = """
[index]
path = "user-index"

[generator]
answer = "copy"

[serve]
port = 9001
allow_hosts = ["docs.example"]

[mcp]
max_k = 7
"""
PROJECT = """
[index]
path = "project-index"

[serve]
port = 9002
"""


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """A user file under $XDG_CONFIG_HOME and a project file in the current folder."""
    user = tmp_path / "xdg" / "lateseg" / "lateseg.toml"
    user.parent.mkdir(parents=True)
    user.write_text(USER)
    project = tmp_path / "project"
    project.mkdir()
    (project / "lateseg.toml").write_text(PROJECT)
    monkeypatch.delenv("LATESEG_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(project)
    return user, project / "lateseg.toml"


def test_command_line_over_project_file_over_user_file_over_default(homes):
    from lateseg.cli import parse

    user, project = homes
    serve = parse(["serve"])
    assert serve.port == 9002  # project over user
    assert serve.index == str(project.parent / "project-index")  # relative to its file
    assert serve.allow_host == ["docs.example"]  # only the user file sets it
    assert serve.host == "127.0.0.1" and serve.queue == 4  # defaults
    assert parse(["mcp"]).max_k == 7
    assert parse(["ask", "q?"]).answer == "copy"
    cli_wins = parse(["serve", "--port", "9003", "--index", "mine"])
    assert cli_wins.port == 9003 and cli_wins.index == "mine"
    assert parse(["ask", "q?", "--answer", "quote"]).answer == "quote"
    assert {"port", "index"} <= cli_wins.given and "port" not in serve.given
    # without the project file the user's speaks; without either, the defaults
    project.unlink()
    assert parse(["serve"]).port == 9001
    user.unlink()
    assert parse(["serve", "--index", "i"]).port == 8765
    assert parse(["ask", "q?", "--index", "i"]).answer is None


def test_config_shows_each_setting_and_where_it_came_from(homes):
    user, project = homes
    out = cli("config", "--json")
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    assert shown["files"] == [str(user), str(project)]
    rows = {r["key"]: r for r in shown["settings"]}
    assert rows["serve.port"] == {**rows["serve.port"], "value": 9002, "from": str(project)}
    assert rows["mcp.max_k"]["value"] == 7 and rows["mcp.max_k"]["from"] == str(user)
    assert rows["serve.host"]["value"] == "127.0.0.1" and rows["serve.host"]["from"] == "default"
    human = cli("config").stdout
    assert "serve.port" in human and f"[{project}]" in human


def test_a_file_setting_never_counts_as_given_on_the_command_line(homes, capsys):
    """A generator named in lateseg.toml does not switch ask to generate (only the command
    line's options do, and say so); a quote answer from the file still refuses
    --kv-budget, naming the file."""
    from lateseg.cli import parse
    from lateseg.cli.options import UsageError
    from lateseg.cli.query import ask_options

    _, project = homes
    project.write_text('[generator]\nmodel = "SmolLM2-135M-Instruct"\nanswer = "quote"\n')
    args = parse(["ask", "q?", "--index", "i"])
    assert args.generator == "SmolLM2-135M-Instruct" and "generator" not in args.given
    options, _ = ask_options(args, {"k": 2})
    assert options.answer == "quote" and capsys.readouterr().err == ""
    with pytest.raises(UsageError, match=r"--answer quote \(from lateseg\.toml\)"):
        ask_options(parse(["ask", "q?", "--index", "i", "--kv-budget", "64"]), {"k": 2})


def test_search_options_are_set_in_the_file_for_every_command_that_searches(homes):
    """[search] mode and k reach search, ask and eval; the command line still wins."""
    from lateseg.cli import parse

    _, project = homes
    project.write_text('[search]\nmode = "hybrid"\nk = 7\n')
    for argv in (["search", "q"], ["ask", "q?"], ["eval", "q.jsonl"]):
        args = parse([*argv, "--index", "i"])
        assert (args.mode, args.k) == ("hybrid", 7), argv
    args = parse(["search", "q", "--index", "i", "--mode", "dense", "-k", "3"])
    assert (args.mode, args.k) == ("dense", 3)
    project.write_text('[search]\npassages = "chunks"\n')
    for argv in (["search", "q"], ["ask", "q?"]):
        assert parse([*argv, "--index", "i"]).passages == "chunks", argv
    assert parse(["search", "q", "--index", "i", "--passages", "units"]).passages == "units"


@pytest.mark.parametrize(
    "text, words",
    [
        ('[search]\nmode = "fuzzy"\n', "choose one of auto, hybrid"),
        ('[search]\npassages = "lines"\n', "choose one of auto, chunks, units"),
        ("[search]\nk = 0\n", "give at least 1"),
        ("[serve]\nprot = 1\n", "unknown key serve.prot; [serve] takes host, port"),
        ("[sever]\nport = 1\n", "unknown section [sever]"),
        ('[serve]\nport = "80"\n', "serve.port = '80': give a whole number"),
        ("[serve]\nport = true\n", "give a whole number"),
        ("[serve]\nport = 0\n", "give at least 1"),
        ('[embedder]\nbackend = "gpu"\n', "choose one of torch"),
        ("[embedder]\ntrust_remote_code = true\n", "unknown key embedder.trust_remote_code"),
        ("[serve\n", "not valid TOML"),
        ("# " + "x" * 70_000 + "\n", "larger than 64 KiB"),
    ],
)
def test_a_bad_file_is_one_clear_error(homes, text, words):
    _, project = homes
    project.write_text(text)
    out = cli("config")
    assert out.returncode == 2 and words in out.stderr, out.stderr
    assert str(project) in out.stderr and out.stderr.count("\n") == 1


def test_help_works_beside_a_broken_file_and_says_so(homes):
    _, project = homes
    project.write_text("[serve\n")
    out = cli("ask", "--help")
    assert out.returncode == 0 and "--index" in out.stdout
    assert "not valid TOML" in out.stderr and "built-in defaults" in out.stderr
    out = cli("ask", "q?", "--index", "i")  # anything but help: the error, nothing run
    assert out.returncode == 2 and "not valid TOML" in out.stderr


def test_lateseg_config_names_one_file_or_none(homes, tmp_path, monkeypatch):
    from lateseg.cli import parse

    monkeypatch.setenv("LATESEG_CONFIG", "")
    assert parse(["serve", "--index", "i"]).port == 8765  # no file at all
    only = tmp_path / "only.toml"
    only.write_text("[serve]\nport = 9100\n")
    monkeypatch.setenv("LATESEG_CONFIG", str(only))
    assert parse(["serve", "--index", "i"]).port == 9100
    monkeypatch.setenv("LATESEG_CONFIG", str(tmp_path / "absent.toml"))
    out = cli("config")
    assert out.returncode == 2 and "absent.toml: no such file" in out.stderr


def test_one_table_names_every_environment_variable_lateseg_reads():
    from lateseg.config import ENVIRONMENT

    table = {v.name for v in ENVIRONMENT}
    read = set()
    for path in (ROOT / "lateseg").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        read |= set(re.findall(r"environ(?:\.get)?[\[(]\s*\"([A-Z_][A-Z0-9_]*)\"", text))
        read |= set(re.findall(r"\"(LATESEG_[A-Z0-9_]+)\"", text))
    read |= set(re.findall(r"\b(LATESEG_[A-Z0-9_]+)\b", (ROOT / "Makefile").read_text()))
    read -= {"TRANSFORMERS_VERBOSITY", "OMP_THREAD_LIMIT"}  # set for libraries, not read
    assert read - table == set(), "read but not in lateseg.config.ENVIRONMENT"
    assert {"LATESEG_FAISS_GPU", "LATESEG_DEMO_INDEX", "LATESEG_HOME"} <= table
    assert "LATESEG_TOKEN" not in read  # the page's script variable, not the environment
    helptext = cli("--help").stdout
    assert all(name in helptext for name in table)
