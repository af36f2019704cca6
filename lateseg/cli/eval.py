"""``lateseg eval``: measure an index on your own questions (:mod:`lateseg.eval`)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from urllib.parse import urlsplit

from lateseg.ask.options import QUERY_MODES
from lateseg.cli.options import EXIT_ERROR, EXIT_OK, UsageError, common, count, running

_FORMAT = """\
QUESTIONS is JSONL, one JSON object a line:

  {"question": "What is the notice period?", "answers": ["30 days", "thirty (30) days"],
   "source": "contracts/msa.pdf", "gold_text": "upon thirty (30) days' written notice"}
  {"question": "Who pays for the moon landing?", "unanswerable": true}

with any of: answers (accepted values; a string or a list), source (the document that
answers: a path, its end such as contracts/msa.pdf, or a glob), gold_text (the words that
answer it, whitespace-insensitive) or start/end (their character offsets in the
document's text), unanswerable, id. Or LegalBench-RAG's benchmark JSON as published
({"tests": [{"query", "snippets": [{"file_path", "span"}]}]}) with --corpus, the folder
its file_path values are relative to.

Figures (per variant; precise definitions: lateseg.eval.metrics):

  hit@k        share of questions with a top-k passage covering >= 50% of a gold span
  MRR@10       mean 1/rank of the first such passage (0 when none in the top 10)
  P_char@k     characters of the top-k passages inside a gold span / theirs (LegalBench-RAG)
  R_char@k     gold characters inside the top-k passages / the gold's (LegalBench-RAG)
  wrong doc    share whose top passage is from no gold document
  right        the answer shown (phrase first, or generated text) holds an accepted value
               and cites a gold document
  wrong shown  an answer shown with no accepted value, or citing no gold document
  abstained    answered 'not sure' (a quote rated below --min-confidence)
  ECE          expected calibration error of the quotes' confidence (10 bins)
  s/q          seconds to search and answer one graded question
  failed       questions that could not be graded and lines left out, each listed

--report DIR also draws the reliability diagram and the precision-coverage curve over
min_confidence, and lists every question with its answer, confidence, gold and citation.

Exit codes: 0 done (and every --fail-under bound held), 1 a bound broken or an error,
2 bad usage."""


def add(sub: argparse._SubParsersAction) -> None:
    about = "measure search and answers on your own questions (judge-free, exact)"
    sp = sub.add_parser(
        "eval", help=about, description=about[:1].upper() + about[1:] + ".\n\n" + _FORMAT
    )
    sp.epilog = (
        "Examples:\n\n"
        "  lateseg eval questions.jsonl --index idx\n"
        "  lateseg eval questions.jsonl --index idx --compare mode=hybrid --compare mode=lexical\n"
        "  lateseg eval cuad.json --corpus legalbench/corpus --index idx --answer none -k 8\n"
        "  lateseg eval questions.jsonl --index idx --report out/ --fail-under hit_at_5=0.8 "
        "--fail-over wrong_shown=0.05"
    )
    sp.add_argument(
        "questions", metavar="QUESTIONS", help="the questions: JSONL or LegalBench-RAG JSON"
    )
    common(sp)
    sp.add_argument(
        "-k", type=count, default=5, help="passages searched and answered from (default 5)"
    )
    sp.add_argument(
        "--mode",
        choices=QUERY_MODES,
        default="auto",
        help="search mode (default auto: dense; hybrid for questions about code and for "
        "questions of a codebase)",
    )
    sp.add_argument(
        "--answer",
        choices=("quote", "copy", "generate", "none"),
        default="quote",
        help="how answers are made (default quote, ask's default); none: retrieval only",
    )
    sp.add_argument(
        "--min-confidence", type=float, default=None, metavar="P",
        help="a quote rated below P is 'not sure' (default: ask's)",
    )  # fmt: skip
    sp.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="KEY=VALUE[,KEY=VALUE]",
        help="also run this variant over the same questions, one row each (repeatable): "
        "keys index (a second index, e.g. one made with --profile fast), k, mode, answer, "
        "min_confidence, rerank, passages",
    )
    sp.add_argument(
        "--corpus",
        metavar="DIR",
        default=None,
        help="the folder a LegalBench-RAG file's paths are under",
    )
    sp.add_argument("--limit", type=count, default=None, help="the first N questions only")
    sp.add_argument(
        "--report",
        metavar="DIR",
        default=None,
        help="write report.md, report.html and report.json here",
    )
    sp.add_argument(
        "--viewer", metavar="URL", default=None,
        help="with --report: link citations into the viewer of `lateseg serve` at URL (e.g. "
        "http://127.0.0.1:8000): the cited span opens highlighted",
    )  # fmt: skip
    sp.add_argument(
        "--fail-under", action="append", default=[], metavar="FIGURE=X",
        help="exit 1 when FIGURE (higher is better: hit_at_5, mrr_at_10, right …) is below X in "
        "any variant (checked before the run)",
    )  # fmt: skip
    sp.add_argument(
        "--fail-over", action="append", default=[], metavar="FIGURE=X",
        help="exit 1 when FIGURE (lower is better: wrong_shown, ece, failed …) is above X in "
        "any variant",
    )  # fmt: skip
    sp.add_argument("--no-progress", action="store_true", help="no progress bar")


def _bounds(args: argparse.Namespace, ks: set[int]) -> dict[str, float]:
    """``--fail-under``/``--fail-over`` as ``assert_quality``'s bounds, checked before any
    work (a misspelt figure must not cost a whole run): a figure of the table for some
    variant's k, a finite number, and the side that can fail it."""
    from lateseg.eval import LOWER_IS_BETTER, bound_of

    out: dict[str, float] = {}
    for flag, side, given in (("--fail-under", "min", args.fail_under),
                              ("--fail-over", "max", args.fail_over)):  # fmt: skip
        for text in given:
            name, eq, value = (part.strip() for part in text.partition("="))
            try:
                bound = float(value)
            except ValueError:
                bound = math.nan
            if not eq or not math.isfinite(bound):
                raise UsageError(f"{flag} {text!r}: give FIGURE=NUMBER (a finite number)")
            try:
                bound_of(f"{side}_{name}", ks)
            except ValueError as e:
                raise UsageError(f"{flag} {text!r}: {str(e).split(': ', 1)[1]}") from None
            if (side == "min") == (name in LOWER_IS_BETTER):
                other = "--fail-over" if side == "min" else "--fail-under"
                better = "lower" if side == "min" else "higher"
                raise UsageError(f"{flag} {text!r}: {better} {name} is better; use {other}")
            out[f"{side}_{name}"] = bound
    return out


def run(args: argparse.Namespace) -> int:
    from lateseg.errors import ConfigError
    from lateseg.eval import evaluate, quality_failures, read_questions
    from lateseg.eval.html import write_report
    from lateseg.eval.variant import Variant
    from lateseg.pipeline import Pipeline

    try:
        base = Variant("default", None, args.k, args.mode, args.answer, args.min_confidence)
        variants = [base, *(Variant.parse(text, base) for text in args.compare)]
    except ConfigError as e:
        raise UsageError(str(e)) from None
    bounds = _bounds(args, {v.k for v in variants})
    if args.viewer and not args.report:
        raise UsageError("--viewer links the report's citations; give --report DIR too")
    if args.viewer and urlsplit(args.viewer).scheme not in ("http", "https"):
        raise UsageError(
            f"--viewer {args.viewer!r}: give the http(s) URL `lateseg serve` answers at"
        )
    try:
        questions = read_questions(args.questions)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    opening = running(args, cache_dir=args.cache_dir, create=False, readonly=True)
    with Pipeline.open(args.index, options=opening) as pipe:
        if not pipe.sources():
            raise ConfigError(f"the index {args.index} is empty; run `lateseg ingest` first")
        report = evaluate(
            questions, pipe, variants, corpus=args.corpus, limit=args.limit,
            progress=None if not args.no_progress else False, open_options=opening,
        )  # fmt: skip
    try:
        broken = quality_failures(report, **bounds)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.json:
        payload = report.to_dict()
        payload["broken"] = broken
        print(json.dumps(payload, indent=1, default=str))
    else:
        print(report.table())
    if args.report:
        for path in write_report(report, args.report, args.viewer):
            print(f"wrote {path}", file=sys.stderr)
    if broken:
        print("lateseg eval: quality bounds broken:\n  " + "\n  ".join(broken), file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
