"""Run an evaluation: every question of a file against one index or several variants.

:func:`evaluate` resolves each question's gold against the index (its document and span),
searches and answers it as each :class:`Variant` says, and grades what came back with
:mod:`lateseg.eval.metrics`. A question that cannot be graded (its source is not in the
index, its span lies outside its document, the search or the answer raised) is a failure:
counted, listed with its reason, never dropped silently.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lateseg.errors import ConfigError, LatesegError
from lateseg.eval import metrics
from lateseg.eval.questions import Question, QuestionFile, read_questions
from lateseg.eval.report import EvalReport, VariantResult, summarise
from lateseg.eval.variant import NO_ANSWER, Variant
from lateseg.options import OpenOptions

if TYPE_CHECKING:
    from lateseg.pipeline import Pipeline
    from lateseg.types import Answer, Document, Hit

log = logging.getLogger(__name__)
_GLOB = re.compile(r"[*?\[]")


class Sources:
    """Maps the sources a question file names to the index's documents: an absolute
    path as it is; a path under ``corpus`` (LegalBench-RAG's ``file_path``); a relative
    path from here; else the documents whose path ends with it (``contracts/msa.pdf``,
    ``BSD``); and where none is named so, a glob against whole paths and their ends."""

    def __init__(self, sources: Sequence[str], corpus: Path | None = None) -> None:
        self.sources = list(sources)
        self.known = set(self.sources)
        self.corpus = corpus
        self._cache: dict[str, list[str]] = {}

    def match(self, name: str) -> list[str]:
        if name not in self._cache:
            self._cache[name] = self._match(name)
        return self._cache[name]

    def _match(self, name: str) -> list[str]:
        for base in ([self.corpus] if self.corpus else []) + [Path.cwd()]:
            candidate = str((base / name).resolve()) if not os.path.isabs(name) else name
            if candidate in self.known:
                return [candidate]
        tail = "/" + name.replace("\\", "/").lstrip("/")
        found = [s for s in self.sources if s.replace(os.sep, "/").endswith(tail)]
        if found or not _GLOB.search(name):
            return found
        # a glob, where no file is named so ("a [1].txt" is a name first)
        pattern = name.replace("\\", "/")
        return [
            s
            for s in self.sources
            if fnmatch.fnmatchcase(s, pattern) or fnmatch.fnmatchcase(s, "*/" + pattern)
        ]


class Located:
    """A question's gold resolved against an index: its spans (None where the question
    gives none) and the documents it is in."""

    def __init__(
        self, spans: list[metrics.Span] | None, sources: set[str], copies: bool = False
    ) -> None:
        self.spans = spans
        self.sources = sources
        #: the spans are one gold in several copies of a document: any one of them is it
        self.copies = copies


def find_words(text: str, words: str, most: int = 2) -> list[tuple[int, int]]:
    """The first ``most`` spans of ``words`` in ``text``, any run of whitespace matching
    any other (a gold text copied from a PDF's lines; ``bench/`` finds its golds so too).
    Two are enough to tell a gold that is there once from one that is not."""
    parts = words.split()
    if not parts:
        return []
    found = re.finditer(r"\s+".join(map(re.escape, parts)), text)
    return [(m.start(), m.end()) for _, m in zip(range(most), found, strict=False)]


#: The largest Markdown file whose characters a gold span may count (read to place it).
MAX_FILE_BYTES = 64 * 1024 * 1024


@functools.lru_cache(maxsize=8)
def _file_text(source: str, mtime_ns: int, size: int) -> str:
    """The decoded text of the file ``source`` as of ``mtime_ns`` and ``size`` (they key
    the cache: one read per version of the file)."""
    from lateseg.errors import IngestError
    from lateseg.ingest.text import read_text

    try:
        return read_text(Path(source))
    except IngestError as e:
        raise ConfigError(f"cannot read {source} to place its gold span: {e}") from e


def file_span(source: str, start: int, end: int, text: str) -> tuple[int, int]:
    """Where characters ``[start, end)`` of the Markdown file ``source`` stand in its
    rendered ``text`` (``Document.text``: markup is not text, so file offsets do not
    index it; LegalBench-RAG's spans count the file's characters). The file's span is
    rendered and its words found in ``text`` (marks a cut left unpaired stripped from its
    ends; where still not found, without its first and last words). Of several places,
    the one at the same share of the text. A :class:`ConfigError` where the file cannot
    be read or the words are not there."""
    from lateseg.ingest.markdown import render

    try:
        st = os.stat(source)
    except OSError as e:
        raise ConfigError(f"cannot read {source} to place its gold span: {e}") from e
    if st.st_size > MAX_FILE_BYTES:
        raise ConfigError(f"{source} is over {MAX_FILE_BYTES:,} bytes: its gold is not placed")
    raw = _file_text(source, st.st_mtime_ns, st.st_size)
    if end > len(raw):
        raise ConfigError(
            f"gold span [{start}, {end}) lies outside {source} ({len(raw):,} characters)"
        )
    parts = render(raw[start:end])[0].split()
    if not parts:
        raise ConfigError(f"[{start}, {end}) of {source} holds no words a reader sees")
    # marks the cut left unpaired ("*Notice" cut after its "*") are no words either:
    # stripped from the first and last word only (a ")" inside is the text's)
    ends = (parts[0].strip("*_`").lstrip("[(<#"), parts[-1].strip("*_`").rstrip("])>"))
    bare = [ends[0], *parts[1:-1], ends[1]] if len(parts) > 1 else [ends[0]]
    where = start / max(len(raw), 1) * len(text)  # the same share of the rendered text
    for words in (parts, bare, parts[1:-1]):
        found = find_words(text, " ".join(words), most=100)
        if found:
            return min(found, key=lambda f: abs(f[0] - where))
    raise ConfigError(f"the words of [{start}, {end}) of {source} are not in its rendered text")


def locate(q: Question, sources: Sources, document: Callable[[str], Document]) -> Located:
    """Where ``q`` is answered in the index (:class:`Located`); a :class:`ConfigError`
    saying what is wrong where its gold cannot be placed."""
    spans: list[metrics.Span] = []
    docs: set[str] = set()
    has_span = False
    several = False  # the gold is in several copies of one document
    for gold in q.golds:
        found = sources.match(gold.source)
        if not found:
            raise ConfigError(f"source {gold.source!r} is not in the index")
        if gold.start is None and gold.text is None:
            docs.update(found)
            continue
        has_span = True
        if len(found) > 1:
            if gold.start is not None or gold.text is None:
                raise ConfigError(
                    f"source {gold.source!r} matches {len(found)} documents; a gold span "
                    "needs one (give more of its path)"
                )
            # one document in several formats (terms.md, terms.pdf): each copy that
            # holds the gold text is a place it is answered
            copies = [(f, find_words(document(f).text, gold.text)) for f in found]
            held = [(f, got) for f, got in copies if got]
            if not held:
                raise ConfigError(f"gold_text is in none of the {len(found)} documents "
                                  f"{gold.source!r} matches")  # fmt: skip
            if any(len(got) > 1 for _, got in held):
                raise ConfigError(
                    f"source {gold.source!r} matches {len(found)} documents and gold_text "
                    "occurs more than once in one of them; give more of its words"
                )
            for f, got in held:
                docs.add(f)
                spans.append(metrics.Span(f, *got[0]))
            several = several or len(held) > 1
            continue
        doc = document(found[0])
        text = doc.text
        if gold.start is not None and gold.end is not None:
            span = (gold.start, gold.end)
            if doc.kind == "markdown" and gold.text is None:  # offsets count the file's
                span = file_span(found[0], gold.start, gold.end, text)
            elif gold.end > len(text):
                raise ConfigError(
                    f"gold span [{gold.start}, {gold.end}) lies outside {gold.source} "
                    f"({len(text):,} characters)"
                )
            if gold.text is not None and " ".join(text[gold.start : gold.end].split()) != " ".join(
                gold.text.split()
            ):
                raise ConfigError(
                    f"the text at [{gold.start}, {gold.end}) of {gold.source} is not gold_text"
                )
        else:
            assert gold.text is not None
            got = find_words(text, gold.text)
            if not got:
                raise ConfigError(f"gold_text is not in {gold.source}'s text")
            if len(got) > 1:
                raise ConfigError(
                    f"gold_text occurs more than once in {gold.source}; give start/end or "
                    "more of its words"
                )
            span = got[0]
        docs.add(found[0])
        spans.append(metrics.Span(found[0], *span))
    if several and len(q.golds) > 1:
        raise ConfigError("a gold in several copies of a document must be its question's only one")
    return Located(spans if has_span else None, docs, several)


@dataclass
class _Open:
    """The pipelines of one evaluation, one per index named, opened read-only."""

    default: Pipeline
    stack: ExitStack
    options: OpenOptions
    others: dict[str, Pipeline] = field(default_factory=dict)

    def of(self, v: Variant) -> Pipeline:
        if v.index is None:
            return self.default
        if v.index not in self.others:
            from lateseg.pipeline import Pipeline

            self.others[v.index] = self.stack.enter_context(
                Pipeline.open(v.index, options=self.options)
            )
        return self.others[v.index]


def shown(answer: Answer) -> str | None:
    """What ``answer`` presents as the answer: its phrase (quoted or copied; none when
    the quote says the passages do not state it), or its generated text."""
    if answer.mode == "generate":
        return answer.text
    return answer.phrase.text if answer.phrase is not None else None


def grade(answer: Answer, q: Question, where: Located) -> dict[str, Any]:
    """One answer's row, graded as shown."""
    cited = [h.source for h in answer.citations]
    g = metrics.grade_answer(
        answer.text, shown(answer), answer.unsure, cited, q.answers, where.sources
    )
    return {
        "text": answer.text,
        "shown": shown(answer),
        "confidence": answer.confidence,
        "unsure": answer.unsure,
        "mode": answer.mode,
        "missing": answer.scope.missing if answer.scope is not None else None,
        "citations": [_cite(h) for h in answer.citations],
        **dataclasses.asdict(g),
    }


def _cite(h: Hit) -> dict[str, Any]:
    return {
        "source": h.source, "start": h.start, "end": h.end, "page": h.page,
        "section": h.section, "line": h.line, "doc_id": h.doc_id,
    }  # fmt: skip


def _answer_row(got: Answer, q: Question, where: Located, least: float | None) -> dict[str, Any]:
    """``got`` graded as shown (a quote rated below ``least`` doubted, as ``ask``
    does) and, under ``raw``, as if always given (what the confidence is judged by)."""
    from lateseg.answer.confidence import doubted

    as_shown = doubted(got, least) if got.mode == "quote" else got
    row = grade(as_shown, q, where)
    raw = metrics.grade_answer(
        got.text, shown(got), False, [h.source for h in got.citations], q.answers, where.sources
    )
    row["raw"] = {"right": raw.right, "wrong_shown": raw.wrong_shown}
    if q.unanswerable:
        row["abstained"] = bool(as_shown.unsure or row["shown"] is None or row["missing"])
    return row


def _ask(pipe: Pipeline, v: Variant, q: Question, where: Located) -> dict[str, Any]:
    got = pipe.ask(q.question, **v.ask_options())
    return _answer_row(got, q, where, v.min_confidence)


def _search(pipe: Pipeline, v: Variant, q: Question, where: Located) -> dict[str, Any]:
    hits = pipe.search(
        q.question, k=max(v.k, metrics.MRR_K), mode=v.mode, rerank=v.rerank, passages=v.passages
    )
    ranked = [metrics.Span(h.source, h.start, h.end) for h in hits]
    assert where.spans is not None
    if where.copies:  # one gold in several copies: graded against the copy found best
        grades = [metrics.grade_retrieval(ranked, [s], v.k) for s in where.spans]
        g = max(grades, key=lambda x: (x.hit, x.reciprocal_rank, x.recall, x.precision))
    else:
        g = metrics.grade_retrieval(ranked, where.spans, v.k)
    return {**dataclasses.asdict(g), "top": _cite(hits[0]) if hits else None}


def _questions(questions: str | Path | QuestionFile | Sequence[Question]) -> QuestionFile:
    if isinstance(questions, QuestionFile):
        return questions
    if isinstance(questions, str | os.PathLike):
        return read_questions(questions)
    out = QuestionFile(Path("<questions>"), "list", list(questions))
    if not out.questions:
        raise ConfigError("no questions to evaluate")
    ids = [q.qid for q in out.questions]
    if len(set(ids)) != len(ids):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        raise ConfigError(f"question ids must differ; used twice: {', '.join(twice[:5])}")
    return out


def _progress(total: int, enabled: bool | None) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="question",
        desc="eval",
        disable=not enabled if enabled is not None else None,
    )


def evaluate(
    questions: str | Path | QuestionFile | Sequence[Question],
    index: str | os.PathLike[str] | Pipeline,
    variants: Sequence[Variant] | None = None,
    *,
    corpus: str | os.PathLike[str] | None = None,
    progress: bool | None = False,
    limit: int | None = None,
    open_options: OpenOptions | None = None,
) -> EvalReport:
    """Evaluate ``index`` (a folder, a ``postgresql://`` URL or an open
    :class:`~lateseg.pipeline.Pipeline`) on ``questions`` (a file path, a read
    :class:`QuestionFile` or :class:`Question` objects), once per variant (default:
    ``Variant()``: ask's defaults). ``corpus``: the folder a LegalBench-RAG file's
    ``file_path`` is relative to; ``limit``: the first questions only; ``open_options``:
    how each index opened here is opened (device, backend …; always read-only). Returns
    an :class:`~lateseg.eval.report.EvalReport`; the figures are defined in
    :mod:`lateseg.eval.metrics`."""
    qf = _questions(questions)
    asked = qf.questions[:limit] if limit else qf.questions
    variants = list(variants) if variants else [Variant()]
    if len({v.name for v in variants}) != len(variants):
        raise ConfigError("two variants have the same name; name each once")
    reading = dataclasses.replace(open_options or OpenOptions(), create=False, readonly=True)
    with ExitStack() as stack:
        if isinstance(index, str | os.PathLike):
            from lateseg.pipeline import Pipeline

            pipe = stack.enter_context(Pipeline.open(index, options=reading))
        else:
            pipe = index
        opened = _Open(pipe, stack, reading)
        folder = Path(corpus).resolve() if corpus else None
        golds: dict[int, dict[str, Located | str]] = {}  # per index: its sources and texts
        results = []
        bar = _progress(len(asked) * len(variants), progress)
        try:
            for v in variants:
                used = opened.of(v)
                if id(used) not in golds:
                    golds[id(used)] = _locate_all(asked, used, folder)
                results.append(_run_variant(used, v, asked, golds[id(used)], bar))
        finally:
            bar.close()
    report = EvalReport(str(qf.path), qf.format, results)
    report.problems = [{"line": p.line, "reason": p.message} for p in qf.problems]
    if not limit:  # a line left out is a question that failed, in every variant
        for r in results:
            r.summary["questions"] += len(qf.problems)
            r.summary["failed"] += len(qf.problems)
    return report


def _locate_all(
    asked: Sequence[Question], pipe: Pipeline, corpus: Path | None
) -> dict[str, Located | str]:
    """Each question's gold in ``pipe``'s index, or why it cannot be placed there."""
    where = Sources(pipe.sources(), corpus)
    located: dict[str, Located | str] = {}
    for q in asked:
        try:
            located[q.qid] = locate(q, where, pipe.document)
        except LatesegError as e:
            located[q.qid] = str(e)
        except (ValueError, OSError, RuntimeError) as e:  # a path no file system takes
            located[q.qid] = f"source cannot be placed: {type(e).__name__}: {e}"
    return located


def _run_variant(
    pipe: Pipeline,
    v: Variant,
    asked: Sequence[Question],
    located: dict[str, Located | str],
    bar: Any,
) -> VariantResult:
    rows: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for q in asked:
        bar.update(1)
        where = located[q.qid]
        if isinstance(where, str):
            failed.append({"id": q.qid, "line": q.line, "question": q.question, "reason": where})
            continue
        row: dict[str, Any] = {"id": q.qid, "line": q.line, "question": q.question}
        row["answers"] = list(q.answers)
        row["unanswerable"] = q.unanswerable
        row["gold"] = [s._asdict() for s in where.spans or []] or sorted(where.sources)
        t0 = time.perf_counter()
        try:
            if where.spans is not None:
                row["retrieval"] = _search(pipe, v, q, where)
            if v.answer != NO_ANSWER and (q.answers or q.unanswerable):
                row["answer"] = _ask(pipe, v, q, where)
        except Exception as e:  # listed with its type, never dropped; the rest runs
            log.debug("question %s failed", q.qid, exc_info=True)
            failed.append({"id": q.qid, "line": q.line, "question": q.question,
                           "reason": f"{type(e).__name__}: {e}"})  # fmt: skip
            continue
        if "retrieval" in row or "answer" in row:
            row["seconds"] = time.perf_counter() - t0
        rows.append(row)  # one with nothing to grade is counted as such (``ungraded``)
    return VariantResult(v, rows, failed, summarise(v, rows, failed))
