"""Answer accuracy, side by side: quoting, copying and generating, on four sets.

    python bench/answers.py [--sets contracts scoped licenses manuals] [--modes ...]
                            [--generator NAME] [--k 5] [--limit N] [--rerank generator]
                            [--llm URL [--llm-model NAME] | --serve-local]
                            [--context-tokens N] [--context chunks topk fixed local]

Sets (``data/eval``, see its README), each over a fresh index built with the library's
defaults:

* ``contracts``: the contract questions of ``sample_qa.jsonl`` and ``contracts_qa.jsonl``
  over ``data/contracts/*.pdf`` (the index also holds ``data/sample_repo``, as the
  demo's does);
* ``scoped``: ``scoped_qa.jsonl`` over the same index: questions that name their contract
  on topics all four share, and questions that name a contract the index lacks;
* ``licenses``: ``licenses_qa.jsonl`` over ``/usr/share/common-licenses``;
* ``manuals``: ``manuals_qa.jsonl`` over the Debian Policy Manual and FHS 3.0 (``make
  testdata``; skipped with a message where they are missing);
* ``tables``: ``tables_qa.jsonl`` over ``data/tables`` (a DPA's sub-processor and
  service-credit tables, a DOCX fee schedule, an HTML rate card): the answer is a cell.

Real corpora (``data/real``, nobody here wrote them; ``bench/real_corpora.py``), each set
``real-<corpus>`` over a fresh index of the corpus folder, reported apart from the team's
sets (``--sets real`` runs all of them): ``real-mozilla``, ``real-commonpaper``,
``real-basecamp`` (legal: Markdown, HTML, PDF), ``real-debian`` (three PDF manuals),
``real-humanize``, ``real-httpie`` (code). Their questions include unanswerable ones:
**not sure** is the share of those answered as unsure, with no value shown, or with a
named document said missing. A ``source`` may be a glob (the same document in several
formats): the gold is placed in the first matching document that holds it.

Modes (``Pipeline.ask(answer=...)``):

* ``quote``: the sentence that states what is asked, its answer phrase first;
* ``copy``: the generator copies a span of the passages (constrained decoding);
* ``generate``: the generator's own words, shown as they are;
* ``checked``: ``generate``, replaced by ``quote`` when no sentence of it is supported
  (the support check);
* ``kv128``: ``generate`` with the KV cache compressed to 128 tokens.

Metrics per set and mode, over the questions with a gold ``answer`` value:

Right and wrong shown are graded by :func:`lateseg.eval.metrics.grade_answer`, as
``lateseg eval`` grades a user's questions (one implementation: the published figures and
a user's cannot drift):

* **accuracy**: the answer's text (what the reader sees) holds one of the gold's forms,
  both normalised (:func:`normalise`), it is not wrong shown, and it cites the gold's
  document (a right value from another document is not right: none so far);
* **phrase**: the answer phrase (the value shown first) holds one;
* **wrong shown**: an answer is presented and is wrong: the phrase shown first (quoted and
  copied answers; a quote that says the passages do not state the value presents none),
  or the generated text (generated answers) lacks the gold value, or it cites none of
  the gold's document. Stricter than the bench's earlier definition, which counted
  generated text only;
* **cites gold**: a cited passage covers at least half of the gold span;
* **top cite named**: the top citation is from the document the question names (scoped
  set); **missing said**: a question naming a document the index lacks is told so;
* **s/answer**: mean seconds per answer (retrieval included).

For the generated modes, the **support check** (:mod:`lateseg.check.support`) is graded
against the gold too: of the right answers, how many it refuses (no sentence supported:
``checked`` replaces them), and of the wrong ones, how many it passes (some sentence
supported: kept); "all" counts an answer passed only when every sentence is.
``--keep-checks FILE`` writes what each generated answer's check was given (question,
text, passages) with its grade, as JSON lines, for ``bench/support.py`` to score other
checks on without generating again.

With ``--llm URL`` (or ``--serve-local``: ``transformers serve`` on the packaged
SmolLM2), a model behind an OpenAI-compatible URL also writes generated answers, graded
the same way, one row per ``--context`` (``bench/served.py``,
``bench/context_strategies.py``): whole chunks (lateseg's own), top-k cut at the budget,
or fixed windows, each under ``--context-tokens``; ``local`` sends the in-process
generator's own prompt and passages (with ``--modes generate``: the parity check).

Writes ``bench/results/answers.md`` and ``.json`` (``--out``). Offline (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DATA / "eval"))

from bench import real_corpora  # noqa: E402
from bench.cold_start import cpu  # noqa: E402
from bench.context_strategies import WINDOW_TOKENS  # noqa: E402
from bench.retrieval import find_squashed  # noqa: E402
from bench.served import CONTEXTS, Served, load_tokenizer, served_smollm2  # noqa: E402
from lateseg.eval import metrics  # noqa: E402
from lateseg.eval.run import shown  # noqa: E402

OUT = ROOT / "bench" / "results" / "answers.md"
LICENSES = Path("/usr/share/common-licenses")
MANUALS = ROOT / ".cache" / "testdata"
TEAM_SETS = ("contracts", "scoped", "licenses", "manuals", "tables")
SETS = TEAM_SETS + real_corpora.SET_NAMES
MODES = ("quote", "copy", "generate", "checked", "kv128")
# how each mode asks (checked is derived from generate and quote)
ASK = {
    # rated, never doubted here: run_set applies the threshold itself (grading both)
    "quote": {"answer": "quote", "min_confidence": 0.0},
    "copy": {"answer": "copy"},
    "generate": {"answer": "generate", "fallback": False},
    "kv128": {"answer": "generate", "fallback": False, "kv_budget": 128},
}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def contract_records() -> list[dict[str, Any]]:
    sample = [
        r
        for r in read_jsonl(DATA / "eval" / "sample_qa.jsonl")
        if r["source"].startswith("contracts/")
    ]
    return sample + read_jsonl(DATA / "eval" / "contracts_qa.jsonl")


def set_inputs(name: str) -> tuple[list[Path], list[dict[str, Any]], dict[str, list[Path]]]:
    """The paths to ingest, the records, and each record source's files (a real corpus's
    source may be a glob: the same document in several formats)."""
    corpus = real_corpora.corpus_of(name)
    if corpus is not None:
        records = real_corpora.questions(corpus)
        files = {r["source"]: real_corpora.sources(corpus, r) for r in records if r.get("source")}
        return [real_corpora.folder(corpus)], records, files
    paths, records, one = _team_inputs(name)
    return paths, records, {src: [f] for src, f in one.items()}


def _team_inputs(name: str) -> tuple[list[Path], list[dict[str, Any]], dict[str, Path]]:
    if name in ("contracts", "scoped"):
        if name == "contracts":
            records = contract_records()
        else:
            records = read_jsonl(DATA / "eval" / "scoped_qa.jsonl")
        paths = [DATA / "contracts", DATA / "sample_repo"]
        files = {r["source"]: DATA / r["source"] for r in records if r.get("source")}
    elif name == "licenses":
        records = read_jsonl(DATA / "eval" / "licenses_qa.jsonl")
        paths = sorted(p for p in LICENSES.iterdir() if p.is_file() and not p.is_symlink())
        files = {r["source"]: LICENSES / r["source"] for r in records}
    elif name == "tables":
        records = read_jsonl(DATA / "eval" / "tables_qa.jsonl")
        paths = [DATA / "tables"]
        files = {r["source"]: DATA / r["source"] for r in records}
    elif name == "manuals":
        records = read_jsonl(DATA / "eval" / "manuals_qa.jsonl")
        paths = [MANUALS / "policy.pdf", MANUALS / "fhs-3.0.pdf"]
        files = {r["source"]: MANUALS / r["source"] for r in records}
    else:
        raise SystemExit(f"unknown set {name!r}; choose from {', '.join(SETS)}")
    return paths, records, files


def _stored(pipe: Any, path: Path) -> Any:
    """The indexed document of ``path``, or None where it was not indexed (a real
    corpus's unreadable file, reported and skipped at ingest)."""
    try:
        return pipe.document(str(path.resolve()))
    except Exception:
        return None


def stored_texts(pipe: Any, files: dict[str, list[Path]]) -> dict[str, list[Any]]:
    """Each record source's documents as the index stores them (those it holds)."""
    return {
        src: [d for d in (_stored(pipe, f) for f in fs) if d is not None]
        for src, fs in files.items()
    }


def gold_of(
    rec: dict[str, Any], texts: dict[str, list[Any]]
) -> tuple[dict[str, Any], str | None, tuple[int, int] | None]:
    """``rec`` with ``_golds`` (every copy of its document that holds the gold), the gold
    document's source (the first copy that holds it) and the gold's span there."""
    docs = texts.get(rec.get("source") or "", [])
    held = [
        (d, found)
        for d in docs
        if rec.get("gold") and (found := find_squashed(d.text, rec["gold"])) is not None
    ]
    doc, span = held[0] if held else (docs[-1] if docs else None, None)
    if held:
        rec = {**rec, "_golds": [(d.source, found) for d, found in held]}
    return rec, (doc.source if doc is not None else None), span


def forms(answer: str | list[str] | None) -> list[str]:
    if answer is None:
        return []
    return [answer] if isinstance(answer, str) else list(answer)


def normalise(text: str) -> str:
    """Lowercase, whitespace collapsed, quotes and dashes as ASCII (the eval sets' rule)."""
    return metrics.normalise_answer(text)


def correct(text: str | None, answer: str | list[str] | None) -> bool | None:
    """Whether ``text`` holds a form of the gold ``answer`` (None: no gold value; a
    numeral form must stand alone: "60 days" is not in "160 days")."""
    return metrics.holds_answer(text, forms(answer))


def covers(hit: Any, source: str, span: tuple[int, int] | None) -> bool:
    if span is None:
        return False
    return metrics.covers(metrics.Span(hit.source, hit.start, hit.end), metrics.Span(source, *span))


def judge(
    answer: Any, rec: dict[str, Any], source: str | None, span: tuple[int, int] | None
) -> dict:
    """One answer's grades (an unsure answer is graded as not right: not answered). A
    real corpus's gold may lie in several copies of one document (``rec["_golds"]``:
    its Markdown and its PDF): citing any of them is citing the gold."""
    golds = rec.get("_golds") or ([(source, span)] if source else [])
    cites = [any(covers(h, s, sp) for s, sp in golds) for h in answer.citations] if golds else []
    accepted = forms(rec.get("answer"))
    # right, wrong shown: as `lateseg eval` grades them (lateseg.eval.metrics)
    graded = metrics.grade_answer(
        answer.text, shown(answer), answer.unsure, [h.source for h in answer.citations],
        accepted, [s for s, _ in golds],
    )  # fmt: skip
    return {
        "text": answer.text,
        "phrase": None if answer.phrase is None else answer.phrase.text,
        "correct": graded.right,
        "phrase_correct": metrics.holds_answer(
            answer.phrase.text if answer.phrase else None, accepted
        ),
        "wrong_shown": graded.wrong_shown,
        "cites": len(cites),
        "cites_gold": any(cites),
        "gold_cites": sum(cites),
        "top_source": answer.citations[0].source if answer.citations else None,
        "missing_said": answer.scope is not None and answer.scope.missing is not None,
        # an unanswerable question's grade: nothing presented as its answer
        "not_sure": bool(
            answer.unsure
            or shown(answer) is None
            or (answer.scope is not None and answer.scope.missing is not None)
        ),
        "supported": answer.supported,
        "all_supported": all(s.supported for s in answer.support) if answer.support else None,
        "finish": answer.finish,
        "unsure": answer.unsure,
        "confidence": answer.confidence,
    }


def judge_quote(
    answer: Any,
    rec: dict[str, Any],
    source: str | None,
    span: tuple[int, int] | None,
    rated: Any,
    least: float,
) -> dict:
    """A quote's grades as asked with ``min_confidence=least`` (:func:`doubted`, as
    ``ask`` applies it), with its grades when always answered (``raw``: what the
    confidence is fitted to) and its :class:`Signals` ``rated``."""
    from lateseg.answer.confidence import doubted

    raw = judge(answer, rec, source, span)
    out = judge(doubted(answer, least), rec, source, span)
    out["raw"] = {k: raw[k] for k in ("correct", "phrase_correct", "wrong_shown")}
    out["raw"]["shown"] = raw["phrase"] is not None  # a value presented, when always answered
    out["signals"] = None if rated is None else dataclasses.asdict(rated)
    return out


def recording_signals() -> list[tuple[str, Any]]:
    """``(via, signals)``: the :class:`~lateseg.answer.confidence.Signals` of each quote
    made from now on, in order, and where it was rated: the quoting answerer's
    ``signals`` is wrapped to keep what it returns (the features the confidence is
    fitted to; an Answer carries only the rating), in both places a quote is rated: a
    sentence (``"sentence"``, :mod:`lateseg.answer.extractive`) and a code fact
    (``"code"``, :mod:`lateseg.answer.code`)."""
    from lateseg.answer import code, extractive

    seen: list[tuple[str, Any]] = []
    original = getattr(extractive.signals, "__wrapped__", extractive.signals)

    def keeping(via: str) -> Any:
        @functools.wraps(original)
        def keep(*args: Any, **kwargs: Any) -> Any:
            seen.append((via, original(*args, **kwargs)))
            return seen[-1][1]

        return keep

    extractive.signals = keeping("sentence")  # type: ignore[assignment]
    code.signals = keeping("code")  # type: ignore[assignment]
    return seen


def recording_checks() -> list[tuple[str, str, list[Any]]]:
    """The ``(answer, question, passages)`` each support check is given from now on, in
    order (:func:`~lateseg.generate.compose.generated` calls it; wrapped as
    :func:`recording_signals` wraps the quote's signals)."""
    from lateseg.generate import compose

    seen: list[tuple[str, str, list[Any]]] = []
    original = getattr(compose.check_support, "__wrapped__", compose.check_support)

    @functools.wraps(original)
    def keep(answer: str, question: Any, passages: Sequence[Any], *args: Any, **kw: Any) -> Any:
        seen.append((answer, question.question, list(passages)))  # an Asked: its text
        return original(answer, question, passages, *args, **kw)

    compose.check_support = keep  # type: ignore[assignment]
    return seen


def run_set(
    name: str,
    modes: Sequence[str],
    k: int,
    generator: str | None,
    limit: int | None,
    least: float,
    served: Any = None,
    keep_checks: Any = None,
    pipe: Any = None,
    rerank: str | None = None,
) -> dict:
    """One set's rows for ``modes``, and with ``served`` (:class:`bench.served.Served`)
    the served model's rows, one per context, from the same retrieved passages; with
    ``keep_checks`` (an open text file) each generated answer's support check inputs are
    written to it (``--keep-checks``). ``pipe``: a Pipeline whose index holds the set's
    documents already (None: a fresh index is built and the set ingested). ``rerank``: the
    asks' re-ranker (``--rerank generator``: it also judges among a code question's facts)."""
    from lateseg.pipeline import Pipeline

    paths, records, files = set_inputs(name)
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"[{name}] skipped: {', '.join(map(str, missing))} missing", file=sys.stderr)
        return {"skipped": f"missing {', '.join(map(str, missing))}"}
    if limit:
        records = records[:limit]
    rows: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    seen = recording_signals()
    checks = recording_checks()
    extra = {} if rerank is None else {"rerank": rerank}
    with contextlib.ExitStack() as stack:
        if pipe is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
            pipe = stack.enter_context(Pipeline.open(Path(tmp) / "index", generator=generator))
            pipe.ingest(paths, progress=False)
        texts = stored_texts(pipe, files)
        for n, rec in enumerate(records, 1):
            rec, source, span = gold_of(rec, texts)
            row: dict[str, Any] = {
                "id": rec["id"],
                "answer": rec.get("answer"),
                "scope": rec.get("scope", ""),
                "source": source,
                "gold_found": span is not None,
                "unanswerable": bool(rec.get("unanswerable")),
                "conflict": bool(rec.get("conflict")),
                "names": rec.get("names"),
            }
            answers: dict[str, Any] = {}
            for mode in modes:
                if mode == "checked":
                    continue
                seen.clear()
                checks.clear()
                t0 = time.perf_counter()
                got = answers[mode] = pipe.ask(rec["question"], k=k, **ASK[mode], **extra)
                seconds[mode] = seconds.get(mode, 0.0) + time.perf_counter() - t0
                if mode == "quote":
                    via, rated = seen[-1] if seen else (None, None)
                    row[mode] = judge_quote(got, rec, source, span, rated, least)
                    row[mode]["via"] = via
                else:
                    row[mode] = judge(got, rec, source, span)
                if keep_checks is not None and mode == "generate" and checks:
                    text, question, passages = checks[-1]
                    kept = {"set": name, "id": rec["id"], "question": question, "text": text}
                    kept |= {"answer": rec.get("answer"), "correct": row[mode]["correct"]}
                    kept |= {"supported": row[mode]["supported"]}
                    kept["passages"] = [dict(h.to_dict(), chunk_id=h.chunk_id) for h in passages]
                    keep_checks.write(json.dumps(kept) + "\n")
            if "checked" in modes and "generate" in row and "quote" in row:
                ok = bool(row["generate"]["supported"])
                row["checked"] = {**(row["generate"] if ok else row["quote"]), "replaced": not ok}
            shown = [m for m in modes if m in row]
            if served is not None:
                shown += served_rows(
                    pipe, served, rec, row, source, span, seconds, k, answers, rerank
                )
            rows.append(row)
            print(
                f"[{name} {n}/{len(records)}] {rec['id']}: "
                + " ".join(f"{m.split('(')[-1].rstrip(')')}={row[m]['correct']}" for m in shown),
                file=sys.stderr,
                flush=True,
            )
    if "checked" in modes:  # generated, then quoted when replaced
        seconds["checked"] = seconds.get("generate", 0.0) + sum(
            seconds.get("quote", 0.0) / max(len(rows), 1) for r in rows if r["checked"]["replaced"]
        )
    if served is not None:
        modes = [*modes, *served.labels().values()]
    return {"rows": rows, "seconds": seconds, "summary": summarise(rows, modes, seconds)}


def served_rows(
    pipe: Any,
    served: Any,
    rec: dict[str, Any],
    row: dict[str, Any],
    source: str | None,
    span: tuple[int, int] | None,
    seconds: dict[str, float],
    k: int,
    answers: dict[str, Any],
    rerank: str | None = None,
) -> list[str]:
    """``row`` given the served model's answers to ``rec``, one per context of
    ``served`` (keyed by their labels), each from the passages ``ask`` retrieves for a
    generated answer (:meth:`Answerer.prepare`), with the tokens its prompt took; the
    in-process ``generate`` row, where run (its Answer in ``answers``), gets its prompt's
    tokens too. The labels."""
    from lateseg.ask.options import AskOptions

    options = AskOptions(k=k, answer="generate", rerank=rerank)
    prepared = pipe.answerer.prepare(rec["question"], options)
    question = prepared.asked.question
    local = pipe.generator
    if "generate" in answers:
        row["generate"]["prompt_tokens"] = served.prompt_tokens(
            question, answers["generate"], "in-process", local
        )
        row["generate"]["passages"] = len(answers["generate"].context)
    labels = served.labels()
    for context, name in labels.items():
        t0 = time.perf_counter()
        if prepared.missing is not None:
            got = prepared.missing
        else:
            got = served.answer(pipe, prepared, context)
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - t0
        graded = judge(got, rec, source, span)
        stats = got.kv_stats or {}
        graded["context_tokens"] = stats.get("context_tokens")
        graded["counting"] = stats.get("counting")
        graded["passages"] = len(got.context)
        graded["prompt_tokens"] = served.prompt_tokens(question, got, context, local)
        if context == "local":
            graded["context_tokens"] = None  # fitted by the in-process generator's count
            if "generate" in row:
                graded["same_text"] = same_start(row["generate"]["text"], got.text)
        row[name] = graded
    return list(labels.values())


def summarise(rows: list[dict], modes: Sequence[str], seconds: dict[str, float]) -> dict:
    out = {}
    scoped = [r for r in rows if r["scope"]]
    absent = [r for r in rows if r["scope"] is None]
    for m in modes:
        rs = [r[m] for r in rows if m in r]
        graded = [r for r in rs if r["correct"] is not None]
        given = [r for r in graded if not r.get("unsure")]
        cited = sum(r["cites"] for r in rs)
        named = [r[m]["top_source"] == r["source"] for r in scoped if m in r]
        out[m] = {
            "answers": len(rs),
            "graded": len(graded),
            # of the answers given (an unsure answer is not one), and of all graded
            "accuracy": sum(r["correct"] for r in given) / len(given) if given else None,
            "right": sum(r["correct"] for r in graded) / len(graded) if graded else None,
            "unsure": sum(bool(r.get("unsure")) for r in graded) / len(graded) if graded else None,
            "phrase": sum(bool(r["phrase_correct"]) for r in graded) / len(graded)
            if graded
            else None,
            "wrong_shown": sum(r["wrong_shown"] for r in graded) / len(graded) if graded else None,
            "cites_gold": sum(r["cites_gold"] for r in rs) / len(rs) if rs else None,
            "citation_precision": sum(r["gold_cites"] for r in rs) / cited if cited else None,
            "top_cite_named": sum(named) / len(named) if named else None,
            "missing_said": (
                sum(r[m]["missing_said"] for r in absent if m in r) / len(absent)
                if absent
                else None
            ),
            "replaced": sum(bool(r.get("replaced")) for r in rs) if m == "checked" else None,
            "unanswerable": len([r for r in rows if r.get("unanswerable") and m in r]),
            "not_sure": metrics.mean(
                r[m]["not_sure"] for r in rows if r.get("unanswerable") and m in r
            ),
            "support": support_confusion(graded) if m in ("generate", "kv128") else None,
            "s_per_answer": seconds.get(m, 0.0) / len(rs) if rs else None,
        }
        out[m].update(token_figures(rs))
    return out


def same_start(local: str, served: str) -> bool:
    """Whether the in-process generator's answer ``local`` is ``served``'s text or its
    start: the in-process generator may stop sooner (a repetition, its time limit) and
    ends a cut answer at a whole word with " …", which a server does not."""
    local = local.strip().removesuffix(" …").rstrip()
    return served.strip().startswith(local)


def token_figures(rs: list[dict]) -> dict[str, Any]:
    """Mean passages, prompt tokens (by the model's tokenizer) and context tokens (by
    the writer's count, which ``counting`` names) of the answers that recorded them, and
    the share whose text equals the in-process generator's (``same_text``)."""
    out: dict[str, Any] = {}
    for key in ("passages", "prompt_tokens", "context_tokens"):
        got = [r[key] for r in rs if r.get(key) is not None]
        if got:
            out[key] = sum(got) / len(got)
    same = [r["same_text"] for r in rs if r.get("same_text") is not None]
    if same:
        out["same_text"] = sum(same) / len(same)
    counting = {r["counting"] for r in rs if r.get("counting")}
    if counting:
        out["counting"] = ", ".join(sorted(counting))
    return out


def support_confusion(graded: Sequence[dict]) -> dict[str, int]:
    """How the support check agrees with the gold on graded generated answers: right
    answers it refuses (no sentence supported) and wrong ones it passes (some sentence
    supported; ``_all``: every sentence)."""
    right = [r for r in graded if r["correct"]]
    wrong = [r for r in graded if not r["correct"]]
    return {
        "right": len(right),
        "right_refused": sum(not r["supported"] for r in right),
        "right_refused_all": sum(not r.get("all_supported") for r in right),
        "wrong": len(wrong),
        "wrong_passed": sum(bool(r["supported"]) for r in wrong),
        "wrong_passed_all": sum(bool(r.get("all_supported")) for r in wrong),
    }


def support_table(report: dict[str, Any]) -> list[str]:
    """The support check's confusion per set and generated mode (none measured: none)."""
    rows = [
        (name, m, s["support"])
        for name, res in report["sets"].items()
        for m, s in res.get("summary", {}).items()
        if s.get("support") and "from" not in s
    ]
    if not rows:
        return []
    lines = [
        "## Support check (generated answers against the gold)",
        "",
        "Refused: no sentence of a right answer is supported (`checked` replaces it); "
        "passed: some sentence of a wrong answer is supported (kept); all: every sentence.",
        "",
        "| set | mode | right refused | right refused (all) | wrong passed | wrong passed (all) |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for name, m, c in rows:
        r, w = max(c["right"], 1), max(c["wrong"], 1)
        lines.append(
            f"| {name} | {m} | {c['right_refused']}/{c['right']} ({pct(c['right_refused'] / r)}) "
            f"| {c['right_refused_all']}/{c['right']} ({pct(c['right_refused_all'] / r)}) "
            f"| {c['wrong_passed']}/{c['wrong']} ({pct(c['wrong_passed'] / w)}) "
            f"| {c['wrong_passed_all']}/{c['wrong']} ({pct(c['wrong_passed_all'] / w)}) |"
        )
    return [*lines, ""]


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def num(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Answer accuracy",
        "",
        f"`python bench/answers.py` ({report['when']}; generator `{report['generator']}`, "
        f"k={report['k']}"
        + (f", --rerank {report['rerank']}" if report.get("rerank") else "")
        + f", CPU; the default answer mode is `{report['default']}`). "
        "Accuracy: the gold value is in the answer's text; phrase: in the answer phrase "
        "shown first; wrong shown: a presented answer (phrase, or generated text) that "
        f"lacks the gold value; unsure: the quote was rated below min_confidence "
        f"{report.get('min_confidence', 0)} and said so (not answered: never right); "
        "accuracy is over the answers given, right, phrase, wrong shown and unsure over "
        "all graded questions (the quote rows apply the shipped confidence, fitted on these "
        "same questions, so in sample: the Confidence section has the cross-validated "
        "figures); cites gold: a cited passage covers the gold span; top cite "
        "named: the top citation is from the document the question names; missing said: a "
        "question naming a document the index lacks is told so.",
        "",
    ]
    llm = report.get("llm")
    if llm:
        lines += [
            f"Served rows: `{llm['model']}` behind `{llm['url']}` writes the answer "
            f"(greedy), checked and cited as `ask(llm=...)` does; contexts "
            f"{', '.join(llm['contexts'])} at {llm['context_tokens']} tokens by the "
            f"writer's count (`{llm['counting']}`); fixed windows of "
            f"{llm['window_tokens']} tokens. Passages, prompt tokens (the whole prompt, "
            "chat template applied, by the model's own tokenizer) and context tokens (the "
            "passages as shown, by the writer's count) are means; same text: the served "
            "answer starts with the in-process generator's whole answer, word for word "
            "(the in-process generator also stops at a repetition or a time limit).",
            "",
        ]
    lines += real_table(report)
    real_started = False
    for name, res in report["sets"].items():
        if real_corpora.corpus_of(name) and not real_started:
            real_started = True
            lines += ["# Real corpora, set by set", ""]
        if "skipped" in res:
            lines += [f"## {name}", "", f"Skipped: {res['skipped']}.", ""]
            continue
        n = len(res["rows"])
        graded = next(iter(res["summary"].values()))["graded"]
        tokens = any("prompt_tokens" in s or "context_tokens" in s for s in res["summary"].values())
        lines += [
            f"## {name} ({n} questions, {graded} with a gold value)",
            "",
            "| mode | accuracy (given) | right | phrase | wrong shown | unsure | cites gold "
            "| citation precision | top cite named | missing said | replaced | s/answer |"
            + (" passages | prompt tokens | context tokens | same text |" if tokens else ""),
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
            + " ---: | ---: | ---: | ---: |" * tokens,
        ]
        for m, s in res["summary"].items():
            when = f" ({s['from']})" if "from" in s else ""
            lines.append(
                f"| {m}{when} | {pct(s['accuracy'])} | {pct(s.get('right'))} | {pct(s['phrase'])} "
                f"| {pct(s['wrong_shown'])} | {pct(s.get('unsure'))} | {pct(s['cites_gold'])} "
                f"| {pct(s['citation_precision'])} "
                f"| {pct(s['top_cite_named'])} | {pct(s['missing_said'])} "
                f"| {'-' if s['replaced'] is None else s['replaced']} "
                f"| {s['s_per_answer']:.1f} |"
                + (
                    f" {num(s.get('passages'), 1)} | {num(s.get('prompt_tokens'))} "
                    f"| {num(s.get('context_tokens'))} | {pct(s.get('same_text'))} |"
                    if tokens
                    else ""
                )
            )
        lines.append("")
    return "\n".join(lines + support_table(report))


def real_table(report: dict[str, Any], mode: str = "quote") -> list[str]:
    """The real corpora apart from the team's sets, per corpus and per family: ``mode``'s
    answers as ``ask`` shows them. Every real corpus is held out: no rule was chosen on
    it (``bench/real_corpora.py``)."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for name, res in report["sets"].items():
        corpus = real_corpora.corpus_of(name)
        if corpus is None or "rows" not in res:
            continue
        rs = [r for r in res["rows"] if mode in r]
        rows[name] = rs
        rows.setdefault(f"all {real_corpora.family(corpus)}", []).extend(rs)
    if not rows:
        return []
    out = [
        f"## Real corpora (held out: no rule was chosen on them), `{mode}`",
        "",
        "Answerable questions: right, wrong shown and unsure are shares of them (a right "
        "answer cites the gold's document); cites gold: a cited passage covers the gold. "
        "Unanswerable: not sure is the share answered unsure, with no value, or with the "
        "named document said missing. Named: questions naming a document; top cite named: "
        "their top citation is in the gold's document.",
        "",
        "| set | questions | answerable | right | wrong shown | unsure | cites gold "
        "| unanswerable | not sure | named | top cite named |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, rs in sorted(rows.items(), key=lambda kv: (kv[0].startswith("all "), kv[0])):
        ans = [r for r in rs if not r.get("unanswerable") and r[mode]["correct"] is not None]
        una = [r for r in rs if r.get("unanswerable")]
        named = [r for r in ans if r.get("names")]
        out.append(
            f"| {name} | {len(rs)} | {len(ans)} "
            f"| {pct(metrics.mean(r[mode]['correct'] for r in ans))} "
            f"| {pct(metrics.mean(r[mode]['wrong_shown'] for r in ans))} "
            f"| {pct(metrics.mean(bool(r[mode].get('unsure')) for r in ans))} "
            f"| {pct(metrics.mean(r[mode]['cites_gold'] for r in ans))} "
            f"| {len(una)} | {pct(metrics.mean(r[mode]['not_sure'] for r in una))} "
            f"| {len(named)} "
            f"| {pct(metrics.mean(r[mode]['top_source'] == r['source'] for r in named))} |"
        )
    return [*out, ""]


def carry_over(report: dict[str, Any], previous: Path) -> None:
    """Keep the rows of sets and modes this run left out from the report at ``previous``
    (each summary marked with the date it was measured), so ``--modes quote`` updates
    the quote rows without dropping the slower modes' figures; not from a report asked
    with another re-ranker (``--rerank``)."""
    try:
        old = json.loads(previous.read_text(encoding="utf-8"))
        old_sets = old["sets"]
    except (OSError, ValueError, KeyError, TypeError):
        return
    if old.get("rerank") != report.get("rerank"):
        return
    for name, res in old_sets.items():
        if "skipped" in res:
            continue
        new = report["sets"].setdefault(name, {"rows": res["rows"], "summary": {}})
        if "skipped" in new:
            continue
        for mode, summary in res["summary"].items():
            if mode not in new["summary"]:  # measured before unsure answers: none then
                new["summary"][mode] = {
                    "right": summary.get("accuracy"),
                    "unsure": 0.0,
                    **summary,
                    "from": summary.get("from", old["when"]),
                }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sets",
        nargs="+",
        default=list(TEAM_SETS),
        choices=(*SETS, "real", "team"),
        help="team sets (default), real-<corpus> sets, or `real` / `team` for all of either",
    )
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--generator", help="causal LM name or folder (default: the library's)")
    ap.add_argument("--k", type=int, default=5, help="passages per answer (default 5: ask's)")
    ap.add_argument("--limit", type=int, default=None, help="first N questions of each set")
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"default {OUT.relative_to(ROOT)} (answers_rerank.md with --rerank)",
    )
    ap.add_argument(
        "--keep-checks",
        type=Path,
        default=None,
        help="write each generated answer's support check inputs here (JSON lines)",
    )
    ap.add_argument(
        "--min-confidence",
        type=float,
        default=None,
        help="quotes rated below this are unsure (default: ask's, MIN_CONFIDENCE)",
    )
    ap.add_argument(
        "--rerank",
        choices=("generator",),
        default=None,
        help="ask with this re-ranker (the generator's likelihood: passages, and a code "
        "question's facts); default: none, as ask",
    )
    served = ap.add_argument_group("a model behind an OpenAI-compatible URL (bench/served.py)")
    served.add_argument("--llm", metavar="URL", help="its base URL: served rows are added")
    served.add_argument("--llm-model", help="the name it knows the model by (default: its only)")
    served.add_argument(
        "--serve-local",
        action="store_true",
        help="start `transformers serve` on the packaged SmolLM2 (float32) for the run",
    )
    served.add_argument("--context-tokens", type=int, default=1000, help="the served budget")
    served.add_argument(
        "--context",
        nargs="+",
        default=["chunks"],
        choices=CONTEXTS,
        help="how the budget is spent (bench/context_strategies.py); local: the "
        "in-process generator's prompt and passages, the parity check",
    )
    args = ap.parse_args(argv)
    if args.out is None:  # a re-ranked run keeps its own report
        args.out = OUT.with_name("answers_rerank.md") if args.rerank else OUT
    if args.serve_local:
        if args.llm:
            ap.error("--serve-local starts its own server: leave out --llm")
        with served_smollm2() as (url, model):
            return run(args, url, args.llm_model or model)
    return run(args, args.llm, args.llm_model)


def run(args: argparse.Namespace, url: str | None, model: str | None) -> int:
    from lateseg.answer.confidence import check_min_confidence
    from lateseg.ask.answering import DEFAULT_ANSWER
    from lateseg.encode.models import DEFAULT_GENERATOR

    least = check_min_confidence(args.min_confidence)
    named = {"real": real_corpora.SET_NAMES, "team": TEAM_SETS}
    args.sets = list(dict.fromkeys(s for x in args.sets for s in named.get(x, (x,))))

    modes = list(dict.fromkeys(args.modes))
    if "checked" in modes:  # derived from these two
        modes = list(dict.fromkeys(["quote", "generate", *modes]))
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d"),
        "generator": args.generator or DEFAULT_GENERATOR,
        "default": DEFAULT_ANSWER,
        "k": args.k,
        "rerank": args.rerank,
        "min_confidence": least,
        "sets": {},
    }
    served = None
    if url:
        from lateseg.generate.remote.client import RemoteLLM
        from lateseg.generate.remote.config import LLMConfig

        writer = RemoteLLM(LLMConfig.from_env(url, model, timeout_s=900.0))
        served = Served(writer, list(dict.fromkeys(args.context)), args.context_tokens,
                        load_tokenizer(writer.model_name()))  # fmt: skip
        writer.count_tokens("counting")  # learn whether the server counts
        report["llm"] = {
            "url": writer.config.url,
            "model": writer.model_name(),
            "contexts": served.contexts,
            "context_tokens": args.context_tokens,
            "counting": writer.counting,
            "window_tokens": WINDOW_TOKENS,
            "cpu": cpu(),
        }
    with contextlib.ExitStack() as stack:
        kept = None
        if args.keep_checks is not None:
            kept = stack.enter_context(args.keep_checks.open("w", encoding="utf-8"))
        for name in args.sets:
            report["sets"][name] = run_set(
                name, modes, args.k, args.generator, args.limit, least, served, kept,
                rerank=args.rerank,
            )  # fmt: skip
    if args.limit is None:
        carry_over(report, args.out.with_suffix(".json"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    text = markdown(report)
    if "quote" in modes:
        from bench.confidence import calibration, figure

        text += "\n" + calibration(report)
        if any(real_corpora.corpus_of(n) for n in report["sets"]):
            from bench.confidence import code_held_out_table, held_out_table

            text += "\n" + held_out_table(report)
            text += "\n" + code_held_out_table(report)
        png = args.out.with_name(args.out.stem + "_confidence.png")
        if figure(report, png):
            text += f"\n![reliability and precision–coverage (5-fold)]({png.name})\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
