"""The real corpora of ``data/real`` (nobody on the team wrote them), as the benches use them.

Each corpus is a folder and a question file (``data/real/README.md`` says where each comes
from and what the fields mean). ``bench/answers.py`` and ``bench/retrieval.py`` take them as
sets named ``real-<corpus>`` and report them apart from the team's own sets.

**The protocol.** No rule, weight or threshold of lateseg was chosen on these corpora before
they were first run (the questions were committed first: ``git log data/real/questions``).
A lever chosen afterwards is chosen leaving one corpus out: fitted or picked on the team's
sets and the other real corpora, and reported on the one left out (:func:`held_out`), so
every figure in a real corpus's "held out" column comes from rules that never saw it.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "data" / "real"

#: corpus -> (folder under data/real, family). Families are reported apart: the issue's
#: targets are per family (legal, PDF manuals); code is the code issue's.
CORPORA: dict[str, tuple[str, str]] = {
    "mozilla": ("legal/mozilla", "legal"),
    "commonpaper": ("legal/commonpaper", "legal"),
    "basecamp": ("legal/basecamp", "legal"),
    "debian": ("manuals", "pdf"),
    "humanize": ("code/humanize", "code"),
    "httpie": ("code/httpie", "code"),
    "isort": ("code/isort", "code"),
    "flake8": ("code/flake8", "code"),
    "dotenv": ("code/dotenv", "code"),
    "cookiecutter": ("code/cookiecutter", "code"),
    "pipx": ("code/pipx", "code"),
    "twine": ("code/twine", "code"),
    "yamllint": ("code/yamllint", "code"),
    "nox": ("code/nox", "code"),
    "precommit": ("code/precommit", "code"),
    "vulture": ("code/vulture", "code"),
    "black": ("code/black", "code"),
    "piptools": ("code/piptools", "code"),
    "build": ("code/build", "code"),
    "codespell": ("code/codespell", "code"),
    "checkmanifest": ("code/checkmanifest", "code"),
    "bandit": ("code/bandit", "code"),
}
PREFIX = "real-"
SET_NAMES = tuple(PREFIX + c for c in CORPORA)


def corpus_of(set_name: str) -> str | None:
    """``"real-mozilla"`` -> ``"mozilla"``; None for a team set."""
    name = set_name.removeprefix(PREFIX)
    return name if set_name.startswith(PREFIX) and name in CORPORA else None


def folder(corpus: str) -> Path:
    return REAL / CORPORA[corpus][0]


def family(corpus: str) -> str:
    return CORPORA[corpus][1]


def questions(corpus: str) -> list[dict[str, Any]]:
    path = REAL / "questions" / f"{corpus}.jsonl"
    lines = path.read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def files(corpus: str) -> list[Path]:
    """Every file of the corpus, in path order (as a user's folder is: licence files and
    text stubs named ``.pdf`` included)."""
    return sorted(p for p in folder(corpus).rglob("*") if p.is_file())


def sources(corpus: str, rec: dict[str, Any]) -> list[Path]:
    """The files a record's ``source`` names (a path or a glob under the corpus folder);
    empty for an unanswerable question."""
    src = rec.get("source")
    if not src:
        return []
    return sorted(Path(p) for p in glob.glob(str(folder(corpus) / src), recursive=True))


def held_out(corpora: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """Leave one out: each corpus with the others (what a lever is chosen on)."""
    for c in corpora:
        yield c, [o for o in corpora if o != c]
