"""Check the real-corpus questions against the documents they cite.

    python data/real/check_questions.py            # every file in questions/
    python data/real/check_questions.py mozilla    # one corpus

Each record's ``gold`` must occur in its ``source`` with whitespace collapsed: in the raw
file for Markdown, text and code; in the visible text for HTML; in one page's extracted
text for a PDF. For Markdown the gold may also be written as the rendered text (inline HTML
tags, link targets, emphasis marks, kramdown attributes and front matter removed), since
Common Paper's agreements wrap nearly every defined term in a ``<span>`` (that page is ``page``, 1-based, when given). It also checks ids are unique
across files, the fields and their types, and prints each file's share of unanswerable
questions and of questions naming a document where another states the topic otherwise.
Exit status 1 when any record fails. It reads the documents; it never runs lateseg.
"""

from __future__ import annotations

import glob
import html.parser
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS_OF = {  # question file stem -> folder its sources are relative to
    "mozilla": HERE / "legal" / "mozilla",
    "commonpaper": HERE / "legal" / "commonpaper",
    "basecamp": HERE / "legal" / "basecamp",
    "debian": HERE / "manuals",
    "humanize": HERE / "code" / "humanize",
    "httpie": HERE / "code" / "httpie",
    "isort": HERE / "code" / "isort",
    "flake8": HERE / "code" / "flake8",
    "dotenv": HERE / "code" / "dotenv",
    "cookiecutter": HERE / "code" / "cookiecutter",
    "pipx": HERE / "code" / "pipx",
    "twine": HERE / "code" / "twine",
    "yamllint": HERE / "code" / "yamllint",
    "nox": HERE / "code" / "nox",
    "precommit": HERE / "code" / "precommit",
    "vulture": HERE / "code" / "vulture",
    "black": HERE / "code" / "black",
    "piptools": HERE / "code" / "piptools",
    "build": HERE / "code" / "build",
    "codespell": HERE / "code" / "codespell",
    "checkmanifest": HERE / "code" / "checkmanifest",
    "bandit": HERE / "code" / "bandit",
}
KINDS = {"symbol", "exception", "default", "env", "exit_code", "behaviour"}


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def rendered(text: str) -> str:
    """A deliberately simple rendering of Markdown to its visible words (not lateseg's)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)  # front matter
    text = re.sub(r"\{:[^}\n]*\}", "", text)  # kramdown attributes
    text = re.sub(r"<[^>\n]*>", "", text)  # inline HTML tags
    text = re.sub(r"!?\[([^\]\n]*)\]\([^)\n]*\)", r"\1", text)  # links keep their text
    text = re.sub(r"(\*\*|__|`)", "", text)
    text = re.sub(r"^[ \t]*#{1,6}[ \t]+", "", text, flags=re.M)
    return html.unescape(text)


class _Text(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


_pages: dict[Path, list[str]] = {}


def texts(path: Path) -> list[str]:
    """The searchable texts of a file: one per PDF page, else one."""
    if path in _pages:
        return _pages[path]
    if path.suffix.lower() == ".pdf":
        import pymupdf

        with pymupdf.open(path) as doc:
            out = [squash(page.get_text()) for page in doc]
    elif path.suffix.lower() in (".html", ".htm"):
        p = _Text()
        p.feed(path.read_text("utf-8"))
        out = [squash("".join(p.parts))]
    elif path.suffix.lower() in (".md", ".markdown"):
        raw = path.read_text("utf-8")
        out = [squash(raw) + " \0 " + squash(rendered(raw))]
    else:
        out = [squash(path.read_text("utf-8"))]
    _pages[path] = out
    return out


def check_file(name: str, seen: dict[str, str]) -> list[str]:
    root = CORPUS_OF[name]
    path = HERE / "questions" / f"{name}.jsonl"
    problems: list[str] = []
    records = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{n}"
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: bad JSON: {e}")
            continue
        records.append(r)
        rid = r.get("id")
        if not isinstance(rid, str) or not rid:
            problems.append(f"{where}: no id")
        elif rid in seen:
            problems.append(f"{where}: id {rid} also in {seen[rid]}")
        else:
            seen[rid] = where
        if not isinstance(r.get("question"), str) or len(r["question"]) < 8:
            problems.append(f"{where}: no question")
        if r.get("unanswerable"):
            if r.get("gold") is not None or r.get("source") is not None:
                problems.append(f"{where}: unanswerable but has a source or gold")
            continue
        src, gold = r.get("source"), r.get("gold")
        if not isinstance(src, str) or not isinstance(gold, str) or len(gold) < 8:
            problems.append(f"{where}: answerable needs source and gold (>= 8 chars)")
            continue
        files = [Path(p) for p in glob.glob(str(root / src), recursive=True)]
        if not files:
            problems.append(f"{where}: source {src} matches no file under {root.name}/")
            continue
        want = squash(gold)
        hits = []
        for f in files:
            for i, t in enumerate(texts(f), 1):
                if want in t or (f.suffix.lower() in (".md", ".markdown") and squash(rendered(gold)) in t):
                    hits.append((f, i))
        if not hits:
            problems.append(f"{where}: gold not found in {src}: {want[:80]!r}")
        elif r.get("page") is not None and not any(p == r["page"] for _, p in hits):
            problems.append(f"{where}: gold found on page(s) {[p for _, p in hits]}, not {r['page']}")
        if "kind" in r and r["kind"] not in KINDS:
            problems.append(f"{where}: kind {r['kind']!r} not one of {sorted(KINDS)}")
    total = len(records)
    if total:
        una = sum(1 for r in records if r.get("unanswerable"))
        con = sum(1 for r in records if r.get("conflict"))
        named = sum(1 for r in records if r.get("names"))
        print(
            f"{name}: {total} questions, {una} unanswerable ({una / total:.0%}), "
            f"{named} name a document, {con} conflict ({con / total:.0%})"
        )
    return problems


def main(argv: list[str]) -> int:
    names = argv or sorted(p.stem for p in (HERE / "questions").glob("*.jsonl"))
    seen: dict[str, str] = {}
    problems = []
    for name in names:
        problems += check_file(name, seen)
    for p in problems:
        print(p)
    print(f"{len(seen)} questions, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
