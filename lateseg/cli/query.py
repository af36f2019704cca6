"""``lateseg search`` and ``lateseg ask``: the chunks closest to a question, or a cited
answer from them."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from typing import TYPE_CHECKING

from lateseg.answer.confidence import MIN_CONFIDENCE
from lateseg.ask.options import (
    ANSWER_MODES,
    DEFAULT_ANSWER,
    MODE_ALIASES,
    REMOTE_CONTEXT_TOKENS,
    AskOptions,
    SearchOptions,
)
from lateseg.cli.options import (
    EXIT_OK,
    UsageError,
    common,
    count,
    filters,
    given,
    running,
)
from lateseg.errors import LatesegError
from lateseg.generate.remote.config import KEY_VARS, MODEL_VAR, URL_VAR, LLMConfig
from lateseg.generate.rerank import RERANK_TOP
from lateseg.kv.compress import METHODS, parse_budget
from lateseg.kv.compress import OPERATING_POINT as KV_OPERATING_POINT
from lateseg.kv.presses import described
from lateseg.kv.sparse import PREFILL_MODES
from lateseg.types import Answer, Phrase

if TYPE_CHECKING:
    from lateseg.pipeline import Pipeline

#: ``ask``'s options that set up the local generator: given without ``--answer`` they
#: mean ``--answer generate`` (and say so); with a quote answer they are refused.
GENERATOR_OPTIONS = {
    "generator": "--generator",
    "kv_budget": "--kv-budget",
    "kv_method": "--kv-method",
    "prefill": "--prefill",
}


def question_command(
    sub: argparse._SubParsersAction, name: str, about: str, k_help: str, example: str
) -> argparse.ArgumentParser:
    """``search`` and ``ask``: a question, the index options, ``-k`` and the filters."""
    sp = sub.add_parser(name, help=about, description=about[:1].upper() + about[1:] + ".")
    sp.epilog = f"Examples:\n\n{example}"
    if name == "ask":
        sp.add_argument("question", nargs="?", help="the question (or --questions FILE)")
    else:
        sp.add_argument("question")
    common(sp)
    sp.add_argument("-k", type=count, default=5, help=f"{k_help} (default 5)")
    filters(sp)
    return sp


def add_search(sub: argparse._SubParsersAction) -> None:
    se = question_command(
        sub,
        "search",
        "print the chunks closest to a question",
        "number of hits",
        '  lateseg search "termination for convenience" --index idx -k 3\n'
        "  lateseg search 'parse_invoice' --index idx --mode lexical --kind code --json\n"
        "  lateseg search \"notice period\" --index idx --source '*/contracts/*.pdf'",
    )
    se.add_argument(
        "--definitions",
        action="store_true",
        help="attach the definitions of the defined terms each hit uses (contracts)",
    )
    se.epilog = (
        f"{se.epilog or ''}\n\nEach hit prints as `N. [score] where it lies`. The score of a "
        "dense search, and of the hybrid one that --mode auto chooses for code, is the "
        "passage's cosine similarity to the question (the scale `ask` rates its answers on); "
        "the hybrid ranking weighs the question's words too, so these scores need not fall in "
        "rank order. --mode lexical scores by BM25, --mode hybrid by the fused score, --rerank "
        f"by the standardised sum of the score and the generator's likelihood (the first "
        f"{RERANK_TOP}; the rest keep their score)."
    )


def add_ask(sub: argparse._SubParsersAction) -> None:
    ask = question_command(
        sub,
        "ask",
        "answer a question with citations",
        "passages given to the answerer",
        '  lateseg ask "What is the notice period?" --index idx\n'
        '  lateseg ask "Who may terminate?" --index idx --answer generate --kv-budget 0.5\n'
        '  lateseg ask "Summarise the NDA" --index idx --llm http://localhost:11434/v1\n'
        "  lateseg ask --questions questions.txt --out answers.jsonl --index idx",
    )
    ask.add_argument(
        "--questions",
        metavar="FILE",
        default=None,
        help="answer each line of FILE (blank lines skipped) as one JSON line each "
        "(line, question, answer or error); rerun with the same --out to answer only "
        "those not answered yet",
    )
    ask.add_argument(
        "--out",
        metavar="FILE",
        default=None,
        help="with --questions: append the JSON lines to FILE, resuming where it stopped "
        "(default: stdout, nothing resumed)",
    )
    ask.add_argument("--no-progress", action="store_true", help="with --questions: no bar")
    ask.add_argument(
        "--answer",
        choices=(*ANSWER_MODES, *MODE_ALIASES),
        default=None,
        help=f"how to answer: quote (the sentence that states what is asked, its value "
        f"first; needs no generator), copy (the generator copies a span of the passages), "
        f"generate (the generator's own words, each sentence checked; an unsupported answer "
        f"is replaced by the quote). Default: {DEFAULT_ANSWER}, the most accurate on "
        f"bench/answers.py",
    )
    ask.add_argument(
        "--extractive",
        action="store_true",
        help="the same as --answer quote",
    )
    ask.add_argument(
        "--min-confidence",
        type=float,
        default=None,
        metavar="P",
        help=f"a quote rated below P (0-1) says it is not sure and shows its two best "
        f"candidates (default {MIN_CONFIDENCE}, chosen on bench/answers.py; 0: never)",
    )
    ask.add_argument(
        "--generator",
        default=None,
        help="causal LM name or folder (default: packaged SmolLM2-135M-Instruct); given "
        "without --answer it means --answer generate",
    )
    ask.add_argument(
        "--kv-budget",
        metavar="N|R",
        nargs="?",
        const=str(KV_OPERATING_POINT),
        default=None,
        help="compress the generator's KV cache after prefill to N tokens (128) or a "
        f"share R of the prompt (0.25); given alone, {KV_OPERATING_POINT} (kept about 94%% "
        "of the full cache's answer tokens on bench/kv_answers.py); default: full cache. "
        "This, --kv-method and --prefill without --answer mean --answer generate",
    )
    ask.add_argument(
        "--kv-method",
        choices=METHODS,
        default=None,
        help=f"how to compress (default: lateseg when --kv-budget is given): {described()}",
    )
    ask.add_argument(
        "--prefill",
        choices=PREFILL_MODES,
        default=None,
        help="how the generator reads its prompt: dense (every key; the default) or sparse "
        "(MInference-style: each head reads the keys of its own pattern, chosen from the "
        "prompt's last queries; prompts under 4,096 tokens, where it does not pay on CPU, "
        "stay dense)",
    )
    llm_options(ask)
    ask.add_argument(
        "--no-stream",
        action="store_true",
        help="print a generated answer when it is complete instead of token by token",
    )


def llm_options(parser: argparse.ArgumentParser) -> None:
    """``--llm URL``, ``--llm-model NAME`` and ``--context-tokens N``: a model behind an
    OpenAI-compatible URL writes the answers (``ask``, ``serve``, ``mcp``)."""
    keys = " or ".join(KEY_VARS)
    parser.add_argument(
        "--llm",
        metavar="URL",
        default=None,
        help=f"an OpenAI-compatible server writes the answer (Ollama http://localhost:11434/v1, "
        f"vLLM http://host:8000/v1, llama.cpp http://localhost:8080/v1); lateseg still picks "
        f"the passages, checks every sentence and cites it. Only the question and the "
        f"passages are sent. Default: ${URL_VAR}. The API key is read only from {keys}, "
        f"never from the command line",
    )
    parser.add_argument(
        "--llm-model",
        metavar="NAME",
        default=None,
        help=f"the model's name on that server (default: ${MODEL_VAR}, else the server's "
        f"only model)",
    )
    parser.add_argument(
        "--context-tokens",
        type=count,
        default=None,
        metavar="N",
        help=f"with --llm: the passages sent, whole and in document order, fit N tokens "
        f"(counted by the server's /tokenize where it has one, else estimated; default "
        f"{REMOTE_CONTEXT_TOKENS})",
    )


def llm_config(args: argparse.Namespace, local: bool = False) -> LLMConfig | None:
    """The model server ``--llm`` names, else ``$LATESEG_LLM_URL`` unless the command
    asks for a local answer (``local``: quote, copy, or local generator settings); None:
    none."""
    if args.llm is None and (local or not os.environ.get(URL_VAR)):
        return None
    return LLMConfig.from_env(args.llm, args.llm_model)


def ask_options(args: argparse.Namespace, select: dict) -> tuple[AskOptions, LLMConfig | None]:
    """``ask``'s options, each one acting or saying why not: generator settings given
    without ``--answer`` mean ``--answer generate`` (stated on stderr), and are refused
    with a quoted answer; ``--generator`` and ``--llm`` name two writers, so only one."""
    gen = [flag for dest, flag in GENERATOR_OPTIONS.items() if given(args, dest)]
    names = " and ".join(gen)
    quoted = args.extractive or MODE_ALIASES.get(args.answer, args.answer) == "quote"
    if gen and quoted:
        how = "--extractive" if args.extractive else "--answer quote"
        if not given(args, "answer") and not args.extractive:
            how += " (from lateseg.toml)"
        raise UsageError(
            f"{names} set up the generator, which {how} does not use: give --answer "
            f"generate (or copy), or drop {names}"
        )
    if given(args, "generator") and args.llm is not None:
        raise UsageError(
            f"--generator names a local model and --llm a server's: one of them writes the "
            f"answer; drop one (--llm: {args.llm})"
        )
    answer = args.answer
    if gen and answer is None:
        print(
            f"lateseg: {names} given: answering with the generator, as --answer generate "
            "(give --answer copy or quote to choose otherwise)",
            file=sys.stderr,
        )
        answer = "generate"
    local = (
        answer not in (None, "generate", "generative")
        or args.extractive
        or bool(gen)
        or args.generator is not None  # lateseg.toml's generator.model
    )
    llm = llm_config(args, local)
    options = AskOptions.of(
        llm=llm,
        context_tokens=args.context_tokens,
        answer=answer,
        extractive=args.extractive,
        context=args.context,
        kv_budget=None if args.kv_budget is None else parse_budget(args.kv_budget),
        kv_method=args.kv_method,
        prefill=args.prefill,
        min_confidence=args.min_confidence,
        **select,
    )
    if given(args, "no_stream") and options.answer != "generate":
        print(
            f"lateseg: --no-stream: a {options.answer} answer is printed whole anyway",
            file=sys.stderr,
        )
    return options, llm


def run(args: argparse.Namespace) -> int:
    from lateseg.pipeline import Pipeline

    if args.command == "ask":
        if (args.question is None) == (args.questions is None):
            raise UsageError("give a question or --questions FILE (one of them)")
        for dest, flag in (("out", "--out"), ("no_progress", "--no-progress")):
            if given(args, dest) and args.questions is None:
                raise UsageError(f"{flag} is for --questions FILE; a single answer goes to stdout")
    generator = getattr(args, "generator", None)
    opening = running(args, generator=generator, readonly=True, cache_dir=args.cache_dir)
    with Pipeline.open(args.index, options=opening) as pipe:
        if not pipe.sources():
            raise LatesegError(f"the index {args.index} is empty; run `lateseg ingest` first")
        # which chunks may answer: the same options for search and ask
        select = {
            "k": args.k,
            "mode": args.mode,
            "source": args.source,
            "kind": args.kind,
            "include_toc": args.include_toc,
            "rerank": args.rerank,
            "passages": args.passages,
        }
        if args.command == "search":
            return search(pipe, args, select)
        options, llm = ask_options(args, select)
        if args.questions is not None:
            from lateseg.cli.batch import ask_file

            return ask_file(pipe, options, args.questions, args.out, not args.no_progress)
        streaming = options.answer == "generate" and not (args.json or args.no_stream)

        def show(piece: str) -> None:
            print(piece, end="", flush=True)

        answer = pipe.ask(args.question, options=options, stream=show if streaming else None)
        if args.json:
            print(json.dumps(answer.to_dict(), indent=2))
        else:
            show_answer(answer, streamed=streaming)
            if llm is not None:
                written = (answer.generated or answer).model or llm.model or "the model"
                print(f"Written by {written} at {llm.url}")
        return EXIT_OK


def search(pipe: Pipeline, args: argparse.Namespace, select: dict) -> int:
    """``lateseg search``: the hits, as JSON or for a reader."""
    hits = pipe.search(args.question, options=SearchOptions.of(**select))
    if args.context is not None:
        hits = pipe.expand(hits, args.context)
    if not hits:
        print("no results", file=sys.stderr)
    defs = [pipe.definitions(h) if args.definitions else {} for h in hits]
    if args.json:
        rows = [
            {**h.to_dict(), **({"definitions": d} if args.definitions else {})}
            for h, d in zip(hits, defs, strict=True)
        ]
        print(json.dumps(rows, indent=2))
    else:
        for n, (h, d) in enumerate(zip(hits, defs, strict=True), start=1):
            print(f"{n}. [{h.score:.3f}] {h.cite()}")
            print(textwrap.indent(textwrap.shorten(h.text, 300), "   "))
            for term, text in d.items():
                print(f"   defined: {term}: {textwrap.shorten(text, 200)}")
    return EXIT_OK


def show_phrase(phrase: Phrase, width: int = 100) -> None:
    """The answer phrase, then the sentence it stands in, quoted, and where that is;
    code as code: its lines as the file has them, numbered, those the phrase is on
    marked ``>``."""
    print(phrase.text if phrase.kind == "list" else " ".join(phrase.text.split()))
    print()
    if phrase.sentence.kind == "code":
        print("\n".join(code_lines(phrase)))
    else:
        quote = textwrap.fill(" ".join(phrase.sentence.text.split()), width - 4)
        print(textwrap.indent(f'"{quote}"', "  "))
    print(f"  {phrase.sentence.cite()}")


def code_lines(phrase: Phrase) -> list[str]:
    """The lines of a code phrase's sentence as printed: ``  > 501 | raise ValueError``,
    numbered from the sentence's first line, the phrase's lines marked, each as the
    file has it (the first from where the sentence starts: its indentation is not
    quoted)."""
    where = phrase.sentence
    lines = where.text.split("\n")
    marked: set[int] = set()
    for a, b in phrase.spans:
        top = where.text.count("\n", 0, max(a - where.start, 0))
        marked.update(range(top, where.text.count("\n", 0, max(b - 1 - where.start, 0)) + 1))
    first = where.line
    width = len(str((first or 0) + len(lines)))
    out = []
    for i, line in enumerate(lines):
        number = "" if first is None else str(first + i)
        out.append(f"  {'>' if i in marked else ' '} {number:>{width}} | {line}".rstrip())
    return out


def show_answer(answer: Answer, streamed: bool) -> None:
    """The answer as ``ask`` prints it: the answer phrase first, with the sentence it
    stands in and its citation; a generated answer's text (already printed when
    ``streamed``) and how each sentence was checked, or the quote that replaced it; the
    documents the question was scoped to; the sources."""
    model = answer.generated or answer
    if streamed:
        print()
    elif model.mode == "generate":
        print(model.text)
    if model.mode == "generate" and model.finish in ("time", "length"):
        limit = "time limit (max_seconds)" if model.finish == "time" else "token limit"
        print(f"(the answer was cut at the {limit})", file=sys.stderr)
    stats = model.kv_stats
    if stats and "kept_tokens" in stats:
        print(
            f"(KV cache {stats['method']}: {stats['kept_tokens']} of {stats['prompt_tokens']} "
            f"tokens, {stats['bytes_after'] / 1e6:.1f} of {stats['bytes_before'] / 1e6:.1f} MB)",
            file=sys.stderr,
        )
    sparse = (stats or {}).get("prefill")
    if sparse and not sparse["sparse_layers"]:
        print(
            "(sparse prefill: the prompt is shorter than the length where it pays; "
            "prefilled densely)",
            file=sys.stderr,
        )
    elif sparse:
        heads = ", ".join(f"{n} {p}" for p, n in sparse["heads"].items() if n)
        print(
            f"(sparse prefill: {sparse['sparse_layers']} layers read "
            f"{100 * sparse['density']:.0f}% of the query-key pairs; heads: {heads})",
            file=sys.stderr,
        )
    if answer.dropped:
        names = ", ".join(sorted({h.source.rsplit("/", 1)[-1] for h in answer.dropped}))
        print(
            f"({len(answer.dropped)} retrieved passage(s) did not fit the generator's token "
            f"budget and were left out whole: {names})",
            file=sys.stderr,
        )
    if answer.generated is not None:
        print()
        print("The model's answer above is not supported by its passages:")
        for s in model.support:
            print(f"  - {textwrap.shorten(s.sentence, 100)}: {s.reason}")
        if not model.support:
            print("  - it made no claim (no sentence)")
        print()
        print("Answer (quoted from the passages):")
    elif answer.support and answer.mode == "generate":
        print()
        print("Checked against the passages:")
        for s in answer.support:
            verdict = "supported" if s.supported else f"NOT supported: {s.reason}"
            print(f"  - {textwrap.shorten(s.sentence, 100)}: {verdict}")
            if s.supported and s.evidence is not None:
                print(f'      "{textwrap.shorten(s.evidence.text, 160)}"')
                print(f"      {s.evidence.cite()}")
        if answer.phrase is not None:
            print()
            print("Answer:")
    if answer.mode != "generate" or answer.generated is not None or answer.phrase is not None:
        if answer.phrase is not None:
            show_phrase(answer.phrase)
        elif answer.mode != "generate":
            print(answer.text)
    if answer.confidence is not None:
        sys.stdout.flush()  # the answer's lines first, where both streams go to one place
        print(f"(confidence {answer.confidence:.2f})", file=sys.stderr, flush=True)
    # a quote says an unmatched name in its text; a generated answer (already streamed)
    # has it said here
    if answer.scope is not None and (answer.scope.missing is None or answer.mode != "quote"):
        print()
        line = answer.scope.describe()
        print(line[:1].upper() + line[1:] + ".")
    print()
    label = "Sources (attributed)" if answer.cited_by == "attribution" else "Sources"
    print(f"{label}:" if answer.citations else "Sources: none")
    for n, h in enumerate(answer.citations, start=1):
        print(f"  [{n}] {h.cite()}")
