"""What configures lateseg besides its arguments: the environment variables it reads (one
table, :data:`ENVIRONMENT`, which ``lateseg --help`` and ``lateseg config`` print), and an
optional ``lateseg.toml`` for the settings a user repeats (the index, the embedder's
backend and device, the generator, the server).

Where a setting comes from, first match wins: the command line, the project file
(``./lateseg.toml``), the user file (``$XDG_CONFIG_HOME/lateseg/lateseg.toml``, else
``~/.config/lateseg/lateseg.toml``), the built-in default. ``$LATESEG_CONFIG`` names one
file instead of both (empty: none). A file is read with :mod:`tomllib`, at most
:data:`MAX_BYTES`; an unknown section or key, or a value of the wrong type, is a
:class:`~lateseg.errors.ConfigError` naming the file and the key. Relative paths in a file
are relative to the file's folder. A file never enables code: ``trust_remote_code`` is not
a setting (a project file comes with whatever folder one works in).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lateseg.errors import ConfigError
from lateseg.home import lateseg_home as lateseg_home  # re-exported: the cache folder
from lateseg.validate import read_bounded

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the tomli backport
    import tomli as tomllib

FILE_NAME = "lateseg.toml"
CONFIG_VAR = "LATESEG_CONFIG"
MAX_BYTES = 64 * 1024  # a settings file is a few hundred bytes


@dataclass(frozen=True)
class EnvVar:
    """An environment variable: its name, what it does, its default, who reads it."""

    name: str
    meaning: str
    default: str
    read_by: str = "lateseg"


#: Every environment variable lateseg reads (and those it leaves to its libraries).
ENVIRONMENT = (
    EnvVar(
        "LATESEG_HOME",
        "cache folder: converted models, backend exports, OCR results, a PostgreSQL "
        "index's vector cache",
        "$XDG_CACHE_HOME/lateseg, else ~/.cache/lateseg",
    ),
    EnvVar(
        CONFIG_VAR, "the one lateseg.toml to read (empty: none)", "./lateseg.toml, then the user's"
    ),
    EnvVar("XDG_CACHE_HOME", "base of the default LATESEG_HOME", "~/.cache"),
    EnvVar("XDG_CONFIG_HOME", "base of the user's lateseg/lateseg.toml", "~/.config"),
    EnvVar(
        "LATESEG_LLM_URL", "OpenAI-compatible server that writes generated answers (--llm)", "none"
    ),
    EnvVar("LATESEG_LLM_MODEL", "the model's name on that server (--llm-model)", "its only model"),
    EnvVar("LATESEG_LLM_API_KEY", "API key for that server (never taken from an argument)", "none"),
    EnvVar("OPENAI_API_KEY", "API key, read when LATESEG_LLM_API_KEY is unset", "none"),
    EnvVar("LATESEG_SERVE_TOKEN", "bearer token of `lateseg serve` (or --token-file)", "none"),
    EnvVar("LATESEG_FAISS_GPU", "0: keep FAISS on the CPU even with faiss-gpu and a GPU", "1"),
    EnvVar(
        "LATESEG_STREAMS",
        "OpenVINO batches run side by side (1: one at a time)",
        "measured once per machine, kept in the lateseg home",
    ),
    EnvVar("LATESEG_OCR_WORKERS", "Tesseract processes run at once", "one per core, at most 8"),
    EnvVar("LATESEG_OCR_CACHE_MB", "size limit of the OCR cache (0: cache nothing)", "512"),
    EnvVar("LATESEG_TESSERACT", "the tesseract program", "tesseract on PATH"),
    EnvVar("TESSDATA_PREFIX", "folder of eng.traineddata", "Debian's tessdata folders"),
    EnvVar("RAY_ADDRESS", "Ray cluster of `ingest --engine ray` (--address)", "local"),
    EnvVar("RAY_worker_niceness", "priority of the workers of a local Ray cluster", "0", "Ray"),
    EnvVar("CUDA_VISIBLE_DEVICES", "empty or -1: use no GPU", "all GPUs", "lateseg, torch"),
    EnvVar("PGPASSWORD", "password of a postgresql:// index (or ~/.pgpass)", "none", "libpq"),
    EnvVar("HF_HUB_OFFLINE", "1: never download models", "unset", "Hugging Face"),
    EnvVar(
        "LATESEG_DEMO_INDEX", "where `make demo` keeps its index", ".cache/demo-index", "Makefile"
    ),
)


@dataclass(frozen=True)
class Setting:
    """A ``lateseg.toml`` key (``section.name``): the option it stands for (``dest`` of
    the commands in ``commands``, None: every command with that option), its kind
    (``str``, ``path``, ``int``, ``float``, ``bool``, ``list``), its allowed values and
    its lowest value."""

    key: str
    dest: str
    kind: str
    help: str
    commands: tuple[str, ...] | None = None
    choices: tuple[str, ...] | None = None
    low: float | None = None


def _settings() -> tuple[Setting, ...]:
    from lateseg.ask.options import ANSWER_MODES, PASSAGES, QUERY_MODES
    from lateseg.encode.backends import BACKENDS

    serve = ("serve",)
    searching = ("search", "ask", "eval")
    return (
        Setting("index.path", "index", "path", "--index: folder or postgresql:// URL"),
        Setting("index.cache_dir", "cache_dir", "path", "--cache-dir"),
        Setting("embedder.backend", "backend", "str", "--backend", choices=tuple(BACKENDS)),
        Setting("embedder.device", "device", "str", "--device (cpu, cuda, cuda:1 ...)"),
        Setting("generator.model", "generator", "str", "--generator: causal LM name or folder"),
        Setting("generator.answer", "answer", "str", "ask --answer", ("ask",), ANSWER_MODES),
        Setting("generator.llm", "llm", "str", "--llm URL"),
        Setting("generator.llm_model", "llm_model", "str", "--llm-model"),
        Setting("generator.context_tokens", "context_tokens", "int", "--context-tokens", low=1),
        Setting("search.mode", "mode", "str", "search/ask/eval --mode", searching, QUERY_MODES),
        Setting("search.k", "k", "int", "search/ask/eval -k", searching, low=1),
        Setting(
            "search.passages",
            "passages",
            "str",
            "search/ask --passages",
            ("search", "ask"),
            PASSAGES,
        ),
        Setting("serve.host", "host", "str", "serve --host", serve),
        Setting("serve.port", "port", "int", "serve --port", serve, low=1),
        Setting("serve.token_file", "token_file", "path", "serve --token-file", serve),
        Setting("serve.queue", "queue", "int", "serve --queue", serve, low=0),
        Setting(
            "serve.answer_seconds",
            "answer_seconds",
            "float",
            "serve --answer-seconds",
            serve,
            low=0,
        ),
        Setting("serve.docs", "docs", "bool", "serve --docs", serve),
        Setting("serve.allow_hosts", "allow_host", "list", "serve --allow-host", serve),
        Setting("serve.uploads", "uploads", "bool", "serve --uploads", serve),
        Setting("serve.upload_dir", "upload_dir", "path", "serve --upload-dir", serve),
        Setting("serve.upload_types", "upload_types", "str", "serve --upload-types", serve),
        Setting(
            "serve.upload_max_mb", "upload_max_mb", "float", "serve --upload-max-mb", serve, low=0
        ),
        Setting(
            "serve.upload_unzipped_mb",
            "upload_unzipped_mb",
            "float",
            "serve --upload-unzipped-mb",
            serve,
            low=0,
        ),
        Setting(
            "serve.upload_quota_mb",
            "upload_quota_mb",
            "float",
            "serve --upload-quota-mb",
            serve,
            low=0,
        ),
        Setting("mcp.max_k", "max_k", "int", "mcp --max-k", ("mcp",), low=1),
    )


SETTINGS = _settings()
BY_KEY = {s.key: s for s in SETTINGS}


@dataclass(frozen=True)
class Config:
    """The settings the files give: ``values`` by key, ``origins`` the file each came
    from, ``files`` the files read (project last)."""

    values: dict[str, Any]
    origins: dict[str, str]
    files: tuple[Path, ...]

    def for_command(self, command: str) -> dict[str, Any]:
        """The defaults the files give ``command``'s options, by ``dest``."""
        out = {}
        for key, value in self.values.items():
            s = BY_KEY[key]
            if s.commands is None or command in s.commands:
                out[s.dest] = value
        return out


def config_files(cwd: Path | None = None, env: dict[str, str] | None = None) -> list[Path]:
    """The files to read, lowest precedence first: the user's, then the project's; or
    only ``$LATESEG_CONFIG`` when it is set (empty: none)."""
    env = dict(os.environ) if env is None else env
    if CONFIG_VAR in env:
        given = env[CONFIG_VAR].strip()
        if given and not Path(given).expanduser().is_file():
            raise ConfigError(f"${CONFIG_VAR}={given}: no such file; unset it or name a file")
        return [Path(given).expanduser()] if given else []
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    user = Path(base).expanduser() / "lateseg" / FILE_NAME
    project = (cwd or Path.cwd()) / FILE_NAME
    found = [p for p in (user, project) if p.is_file()]
    if len(found) == 2 and found[0].resolve() == found[1].resolve():
        found = found[1:]
    return found


def read_file(path: Path) -> dict[str, Any]:
    """The settings of one file, by key, checked; paths made absolute."""
    try:
        data, more = read_bounded(path, MAX_BYTES)
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None
    if more:
        raise ConfigError(f"{path}: larger than {MAX_BYTES // 1024} KiB; a settings file is small")
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    sections = sorted({k.split(".")[0] for k in BY_KEY})
    out: dict[str, Any] = {}
    for section, body in table.items():
        if section not in sections or not isinstance(body, dict):
            raise ConfigError(
                f"{path}: unknown section [{section}]; the sections are {', '.join(sections)}"
            )
        for name, value in body.items():
            key = f"{section}.{name}"
            if key not in BY_KEY:
                known = ", ".join(k.split(".")[1] for k in BY_KEY if k.startswith(section + "."))
                raise ConfigError(f"{path}: unknown key {key}; [{section}] takes {known}")
            out[key] = _checked(path, BY_KEY[key], value)
    return out


KIND_WORDS = {
    "str": "a string",
    "path": "a path (a string)",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "list": "a list of strings",
}


def _of_kind(value: Any, kind: str) -> bool:
    """Whether a TOML value is of a setting's kind (a bool is no number)."""
    if kind == "list":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if isinstance(value, bool):
        return kind == "bool"
    kinds: dict[str, Any] = {"str": str, "path": str, "int": int, "float": (int, float)}
    return kind in kinds and isinstance(value, kinds[kind])


def _checked(path: Path, s: Setting, value: Any) -> Any:
    where = f"{path}: {s.key} = {value!r}"
    if not _of_kind(value, s.kind):
        raise ConfigError(f"{where}: give {KIND_WORDS[s.kind]}")
    if s.choices is not None and value not in s.choices:
        raise ConfigError(f"{where}: choose one of {', '.join(s.choices)}")
    if s.low is not None and value < s.low:
        raise ConfigError(f"{where}: give at least {s.low:g}")
    if s.kind == "float":
        value = float(value)
    if s.kind == "path" and "://" not in value:
        value = str((path.parent / Path(value).expanduser()).resolve())
    return value


def load(cwd: Path | None = None, env: dict[str, str] | None = None) -> Config:
    """The settings of every file :func:`config_files` finds, the project's over the
    user's."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    files = config_files(cwd, env)
    for path in files:
        for key, value in read_file(path).items():
            values[key] = value
            origins[key] = str(path)
    return Config(values, origins, tuple(files))


def environment_table(width: int = 100) -> str:
    """:data:`ENVIRONMENT` as text lines: each name, then what it does and its default
    (who reads it, when not lateseg itself), wrapped to ``width`` columns."""
    import textwrap

    name = max(len(v.name) for v in ENVIRONMENT)
    lines = []
    for v in ENVIRONMENT:
        who = "" if v.read_by == "lateseg" else f" [read by {v.read_by}]"
        text = f"{v.meaning}{who}; default: {v.default}"
        lines += textwrap.wrap(
            text,
            width,
            initial_indent=f"  {v.name:<{name}}  ",
            subsequent_indent=" " * (name + 4),
        )
    return "\n".join(lines)
