"""NVIDIA kvpress's own presses and lateseg's, side by side, in one run (issue 64).

    make kvpress-env        # kvpress pins transformers<5.3: an environment of its own
    .venv-kvpress/bin/python bench/kvpress_compare.py [--lengths 4096 8192] [--contexts 2]
        [--ratios 0.25 0.5 0.75 0.9] [--settings agnostic aware] [--contract-questions 14]
        [--aware-questions 4] [--presses kvpress:ChunkKV lateseg:lateseg ...]
        [--out bench/results/kvpress_compare.md]
    # one table of runs made in parts; --replace: a later run of some presses (after a
    # fix to them) takes their rows, once its full cache answered exactly as before
    .venv-kvpress/bin/python bench/kvpress_compare.py --merge A.json B.json
        [--replace C.json] --out bench/results/kvpress_compare_all.md

Same model (SmolLM2-135M-Instruct, the packaged generator), same prompts (kvpress's
pipeline's chat template and question suffix), same budgets (kvpress's
``compression_ratio``: that share of the context's slots removed).

Presses: kvpress's ``ChunkKVPress`` (SnapKV scores, its fixed 20-token chunks),
``SnapKVPress``, ``KeyDiffPress``, ``ExpectedAttentionPress``, ``KVzipPress``,
``StreamingLLMPress``; lateseg's ``lateseg`` (whole content-defined chunks),
``chunkkv-fixed``, ``snapkv``, ``keydiff`` and ``streaming``, each as kvpress press
(:class:`lateseg.integrations.kvpress.LatesegKVPress`); and the full cache.

Tasks, generated here, deterministically (seeded; no hub), at each ``--lengths`` in the
model's tokens: RULER-style single-needle, multi-key (four keys, each asked), multi-value,
variable tracking (a four-hop chain), frequent-word extraction, and QA (three gold
clauses of ``data/eval``'s contracts among distractor clauses); and contract QA, each of
``data/sources/contracts``'s contracts whole in the prompt, asked its ``data/eval``
questions. Settings: ``agnostic`` (the context compressed once, then every question asked
of that cache, as ``ask_many`` does) and ``aware`` (each question inside the context
before compression, kvpress's query-aware setting).

One prefill serves every press that compresses in its layer hooks: kvpress compresses
a layer's cache after the layer's attention has run on the full prompt, so the next
layers' inputs never depend on the press, and each press's ``compress`` is called on the
same keys, values and hidden states it would see alone (checked against kvpress's own
pipeline at the start of a run: ``--no-check`` skips it). KVzip scores by reconstructing
the context (2-3 further forward passes) and masks keys rather than dropping them, so it
runs alone, once per ratio, through ``with press(model)``.

Scores: RULER's string match (the share of the expected values in the answer), contract
and QA answers as ``bench/answers.py`` grades them; 95 % Wilson intervals over questions;
bytes kept (KVzip: the share left unmasked, as its cache is not smaller); compression
milliseconds per context. Writes the Markdown table and ``.json`` beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import random
import re
import string
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from bench.answers import correct  # noqa: E402
from bench.cold_start import cpu  # noqa: E402

OUT = ROOT / "bench" / "results" / "kvpress_compare.md"
RATIOS = (0.25, 0.5, 0.75, 0.9)
FILLER = (
    "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. "
)
TASKS = ("niah_single", "niah_multikey", "niah_multivalue", "vt", "fwe", "qa")
KVPRESS = ("ChunkKV", "SnapKV", "KeyDiff", "ExpectedAttention", "KVzip", "StreamingLLM")
LATESEG = ("lateseg", "chunkkv-fixed", "snapkv", "keydiff", "streaming")


@dataclass
class Question:
    text: str
    expected: list[str]  # RULER: every value expected; QA: the gold's forms
    prefix: str = ""  # RULER's answer prefix
    graded: str = "all"  # "all": share of expected found; "qa": bench.answers.correct


@dataclass
class Case:
    task: str
    length: int
    context: str
    questions: list[Question]
    ident: str = ""
    tokens: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


# -- tasks -------------------------------------------------------------------------------


def _number(rng: random.Random) -> str:
    return str(rng.randint(1_000_000, 9_999_999))


def _key(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(6, 9)))


def _fill(
    sentences: list[str], target: int, count: Callable[[str], int], rng: random.Random
) -> str:
    """Noise around ``sentences`` (each at a random depth) to about ``target`` tokens."""
    per = max(1, count(FILLER))
    noise = [FILLER] * max(1, (target - sum(count(s) for s in sentences) - 150) // per)
    for s in sentences:
        noise.insert(rng.randint(0, len(noise)), s + " ")
    return "".join(noise)


def ruler_case(task: str, length: int, seed: int, count: Callable[[str], int]) -> Case:
    rng = random.Random(f"{task}-{length}-{seed}")
    qs: list[Question] = []
    if task in ("niah_single", "niah_multikey", "niah_multivalue"):
        keys = [_key(rng) for _ in range(4)]
        if task == "niah_single":
            pairs = [(keys[0], _number(rng))]
        elif task == "niah_multikey":
            pairs = [(k, _number(rng)) for k in keys]
        else:
            pairs = [(keys[0], _number(rng)) for _ in range(4)]
        needles = [f"One of the special magic numbers for {k} is: {v}." for k, v in pairs]
        context = _fill(needles, length, count, rng)
        asked = dict.fromkeys(k for k, _ in pairs)
        for k in asked:
            values = [v for kk, v in pairs if kk == k]
            many = len(values) > 1
            qs.append(
                Question(
                    f"What {'are all' if many else 'is'} the special magic number"
                    f"{'s' if many else ''} for {k} mentioned in the provided text?",
                    values,
                    f"The special magic number{'s' if many else ''} for {k} mentioned in the "
                    f"provided text {'are' if many else 'is'}",
                )
            )
    elif task == "vt":
        names = ["".join(rng.choice(string.ascii_uppercase) for _ in range(5)) for _ in range(5)]
        value = str(rng.randint(10_000, 99_999))
        chain = [f"VAR {names[0]} = {value}."] + [
            f"VAR {names[i]} = VAR {names[i - 1]}." for i in range(1, 5)
        ]
        # the chain in order, at increasing depths
        text = _fill([], length, count, rng)
        cuts = sorted(rng.sample(range(len(text) // 10, len(text)), 5))
        parts, last = [], 0
        for c, line in zip(cuts, chain, strict=True):
            c = text.rfind(". ", 0, c) + 2
            parts += [text[last:c], line + " "]
            last = c
        context = "".join([*parts, text[last:]])
        qs.append(
            Question(
                f"Find all variables that are assigned the value {value} in the text above.",
                names,
                f"Answer: According to the chain(s) of variable assignment in the text above, "
                f"5 variables are assigned the value {value}, they are:",
            )
        )
    elif task == "fwe":
        vocab = [_key(rng) for _ in range(400)]
        top = vocab[:3]
        words: list[str] = []
        per = max(1, count(" ".join(vocab[:50])) / 50)
        n = int((length - 150) / per)
        weights = [30.0, 26.0, 22.0] + [1.0 / (i + 1) ** 0.3 for i in range(len(vocab) - 3)]
        words = rng.choices(vocab, weights=weights, k=n)
        context = " ".join(words)
        qs.append(
            Question(
                "What are the three most frequently appeared coded words in the above coded text?",
                top,
                "Answer: According to the coded text above, the three most frequently appeared "
                "words are:",
            )
        )
    elif task == "qa":
        context, qs = qa_case(length, rng, count)
    else:
        raise ValueError(task)
    return Case(task, length, context, qs, ident=f"{task}-{length}-{seed}")


def _clauses() -> list[tuple[str, str]]:
    """(source, paragraph) of the team's contracts."""
    out = []
    for path in sorted((ROOT / "data" / "sources" / "contracts").glob("*.md")):
        for para in re.split(r"\n\s*\n", path.read_text()):
            if len(para.split()) >= 12:
                out.append((path.name, para.strip()))
    return out


def _records() -> list[dict[str, Any]]:
    path = ROOT / "data" / "eval" / "contracts_qa.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def qa_case(
    length: int, rng: random.Random, count: Callable[[str], int]
) -> tuple[str, list[Question]]:
    """Three questions whose gold clause is among distractor clauses (RULER's QA)."""
    clauses = _clauses()
    records = [r for r in _records() if r.get("answer") and r.get("gold")]
    golds: list[tuple[dict[str, Any], str]] = []
    for r in rng.sample(records, len(records)):
        hold = [p for _, p in clauses if r["gold"][:60] in p]
        if hold and all(hold[0] != g for _, g in golds):
            golds.append((r, hold[0]))
        if len(golds) == 3:
            break
    chosen = [g for _, g in golds]
    rest = [p for _, p in clauses if p not in chosen]
    rng.shuffle(rest)
    docs, used = list(chosen), sum(count(p) for p in chosen)
    for p in rest:
        if used + count(p) > length - 250:
            continue
        docs.append(p)
        used += count(p)
    rng.shuffle(docs)
    context = "\n\n".join(f"Document {i}:\n{p}" for i, p in enumerate(docs, 1))
    qs = [
        Question(r["question"], r["answer"] if isinstance(r["answer"], list) else [r["answer"]],
                 "Answer:", "qa")
        for r, _ in golds
    ]  # fmt: skip
    return context, qs


def contract_cases(limit: int) -> list[Case]:
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in _records():
        if r.get("answer"):
            by_source[r["source_md"]].append(r)
    out = []
    for source, recs in sorted(by_source.items()):
        text = (ROOT / "data" / source).read_text()
        qs = [
            Question(r["question"], r["answer"] if isinstance(r["answer"], list) else [r["answer"]],
                     "Answer:", "qa")
            for r in recs[:limit]
        ]  # fmt: skip
        out.append(Case("contract", 0, text, qs, ident=Path(source).stem))
    return out


def grade(q: Question, answer: str) -> float:
    if q.graded == "qa":
        return float(bool(correct(answer, q.expected)))
    low = answer.lower()
    return sum(v.lower() in low for v in q.expected) / len(q.expected)


# -- presses -----------------------------------------------------------------------------


def kvpress_press(name: str, ratio: float) -> Any:
    import kvpress as kp

    if name == "ChunkKV":
        return kp.ChunkKVPress(press=kp.SnapKVPress(compression_ratio=ratio), chunk_length=20)
    made = {
        "SnapKV": kp.SnapKVPress,
        "KeyDiff": kp.KeyDiffPress,
        "ExpectedAttention": kp.ExpectedAttentionPress,
        "KVzip": kp.KVzipPress,
        "StreamingLLM": kp.StreamingLLMPress,
    }[name]
    return made(compression_ratio=ratio)


PRESSES = tuple(f"kvpress:{n}" for n in KVPRESS) + tuple(f"lateseg:{n}" for n in LATESEG)


def configs(
    ratios: Sequence[float], tokenizer: Any, only: Sequence[str] = PRESSES
) -> list[tuple[str, float, Any]]:
    """Every press of ``only`` (``kvpress:NAME`` or ``lateseg:NAME``) at every ratio."""
    from lateseg.integrations.kvpress import LatesegKVPress

    out: list[tuple[str, float, Any]] = []
    for r in ratios:
        for name in KVPRESS:
            if f"kvpress:{name}" in only:
                out.append((f"kvpress {name}", r, kvpress_press(name, r)))
        for name in LATESEG:
            if f"lateseg:{name}" in only:
                out.append((f"lateseg {name}", r, LatesegKVPress(r, name, tokenizer=tokenizer)))
    return out


def _bytes(cache: Any) -> int:
    from lateseg.kv.compress import layer_bytes

    return sum(layer_bytes(layer) for layer in cache.layers)


@contextlib.contextmanager
def all_presses(model: Any, presses: list[tuple[str, Any]], ids: list[int]):
    """One hook per attention layer calling every press's ``compress`` on the layer's
    full keys and values (lateseg's ``cut``, which cuts a group of adjacent layers once
    its last has run); yields ``(kept, seconds)``: per press, each layer's kept keys and
    values, and its compression time."""
    base = model.model
    kept: dict[str, dict[int, tuple[Any, Any]]] = {n: {} for n, _ in presses}
    seconds: dict[str, float] = dict.fromkeys(kept, 0.0)
    for _, p in presses:
        p.post_init_from_model(model)
        if hasattr(p, "context"):
            p.context(ids)

    def hook(module: Any, args: Any, kwargs: dict[str, Any], output: Any) -> Any:
        cache = kwargs["past_key_values"]
        layer = cache.layers[module.layer_idx]
        keys, values = layer.keys, layer.values
        for name, p in presses:
            t0 = time.perf_counter()
            if hasattr(p, "cut"):  # lateseg's: a group of adjacent layers chooses at once
                kept[name].update(p.cut(module, kwargs["hidden_states"], keys, values, kwargs))
            else:
                k, v = p.compress(module, kwargs["hidden_states"], keys, values, output[1], kwargs)
                kept[name][module.layer_idx] = (k, v)
            seconds[name] += time.perf_counter() - t0
        return output

    hooks = []
    try:
        for layer in base.layers:
            layer.self_attn.rotary_emb = base.rotary_emb
            hooks.append(layer.self_attn.register_forward_hook(hook, with_kwargs=True))
        yield kept, seconds
        for name, p in presses:  # a group the hooks left open (a layer count unknown)
            if hasattr(p, "flush"):
                kept[name].update(p.flush())
    finally:
        for h in hooks:
            h.remove()


def ask(pipe: Any, cache: Any, length: int, question_ids: list[Any], max_new: int) -> list[str]:
    out = []
    for qids in question_ids:
        lengths = [cache.get_seq_length(i) for i in range(len(cache))]
        out.append(pipe.generate_answer(qids, cache, length, max_new))
        pipe._remove_answer_from_cache(cache, lengths)
    return out


def run_context(
    pipe: Any,
    context: str,
    questions: list[Question],
    presses: list[tuple[str, float, Any]],
    max_new: int,
    aware: bool,
) -> list[dict[str, Any]]:
    """Every press's answers to ``questions`` from ``context``: compressed once for all of
    them (agnostic) or, with ``aware``, the one question inside the context."""
    from transformers import DynamicCache

    from lateseg.kv.compress import shallow_copy

    model = pipe.model
    if aware:
        (q,) = questions
        prep = pipe.preprocess(context + "\n\n" + q.text, [""], q.prefix, 10**9)
    else:
        prep = pipe.preprocess(context, [q.text for q in questions], "", 10**9)
        prefixed = [pipe.preprocess(context, [q.text], q.prefix, 10**9) for q in questions]
        prep["questions_ids"] = [p["questions_ids"][0] for p in prefixed]
    ids = prep["context_ids"]
    length = ids.shape[1]
    rows: list[dict[str, Any]] = []

    def record(
        label: str, ratio: float, answers: list[str], kept: float, ms: float, **more: Any
    ) -> None:
        for q, a in zip(questions, answers, strict=True):
            rows.append({"press": label, "ratio": ratio, "question": q.text, "answer": a,
                         "score": grade(q, a), "kept": kept, "compress_ms": ms,
                         "tokens": length, **more})  # fmt: skip

    hooked = [(f"{n}@{r}", p) for n, r, p in presses if "KVzip" not in n]
    with torch.inference_mode():
        full = DynamicCache()
        t0 = time.perf_counter()
        with all_presses(model, hooked, ids[0].tolist()) as (kept, seconds):
            model.model(input_ids=ids, past_key_values=full)
        # the prefill alone: the shared one less the time every hooked press took
        prefill = time.perf_counter() - t0 - sum(seconds.values())
        before = _bytes(full)
        record("full cache", 0.0, ask(pipe, full, length, prep["questions_ids"], max_new), 1.0, 0)
        for name, ratio, _ in presses:
            key = f"{name}@{ratio}"
            if key not in kept:
                continue
            cache = shallow_copy(full)
            for i, layer in enumerate(cache.layers):
                layer.keys, layer.values = kept[key][i]
            answers = ask(pipe, cache, length, prep["questions_ids"], max_new)
            record(name, ratio, answers, _bytes(cache) / before, 1000 * seconds[key])
            del kept[key]
        zipped = [(n, r) for n, r, _ in presses if "KVzip" in n]
        if zipped:
            for (name, ratio), (answers, ms) in zip(
                zipped, kvzip_ratios(pipe, ids, [r for _, r in zipped], prep, max_new), strict=True
            ):
                # masked, not dropped; its time beyond a plain prefill
                record(name, ratio, answers, 1 - ratio, ms - 1000 * prefill, kvzip_net=True)
    return rows


def kvzip_ratios(
    pipe: Any, ids: Any, ratios: list[float], prep: dict[str, Any], max_new: int
) -> list[tuple[list[str], float]]:
    """KVzip's answers at every ratio from one of its prefills: its reconstruction scores
    do not depend on the ratio, and its ``compress_post`` only sets which keys the
    attention patch masks, so it is called once per ratio on a copy of the scores
    (kvpress's code throughout). With the milliseconds of its one prefill and scoring."""
    import kvpress as kp
    from transformers import DynamicCache

    press = kp.KVzipPress(compression_ratio=ratios[0])
    post = press.compress_post
    saved: dict[str, Any] = {}

    def keep_scores(model: Any) -> None:
        saved["scores"] = press.score_val.clone()
        post(model)

    press.compress_post = keep_scores  # type: ignore[method-assign]
    cache = DynamicCache()
    length = ids.shape[1]
    t0 = time.perf_counter()
    with press(pipe.model):
        pipe.model.model(input_ids=ids, past_key_values=cache)
    ms = 1000 * (time.perf_counter() - t0)
    out = []
    for i, r in enumerate(ratios):
        if i:
            press.score_val = saved["scores"].clone()
            press.compression_ratio = r
            post(pipe.model)
            press.score_val = None
        out.append((ask(pipe, cache, length, prep["questions_ids"], max_new), ms))
    return out


def check_against_pipeline(pipe: Any, context: str, question: str) -> list[str]:
    """The shared prefill gives every hooked press exactly the cache kvpress's pipeline
    leaves when it runs that press alone (every layer's kept keys and values, equal), and
    KVzip at 0.5 from a prefill made for 0.25 answers as KVzip run alone at 0.5."""
    from transformers import DynamicCache

    bad = []
    presses = configs([0.5], pipe.tokenizer)
    prep = pipe.preprocess(context, [question], "", 10**9)
    ids = prep["context_ids"]
    hooked = [(n, p) for n, _, p in presses if "KVzip" not in n]
    with torch.inference_mode(), all_presses(pipe.model, hooked, ids[0].tolist()) as (kept, _):
        pipe.model.model(input_ids=ids, past_key_values=DynamicCache())
    for name, p in hooked:
        cache = DynamicCache()
        pipe(context, question=question, press=p, max_new_tokens=4, cache=cache)
        same = all(
            torch.equal(layer.keys, kept[name][i][0])
            and torch.equal(layer.values, kept[name][i][1])
            for i, layer in enumerate(cache.layers)
        )
        if not same:
            bad.append(f"{name}: its cache alone differs from the shared prefill's")
    zipped = next(p for n, _, p in presses if "KVzip" in n)
    alone = pipe(context, question=question, press=zipped, max_new_tokens=12)["answer"]
    with torch.inference_mode():
        (_, _), (shared, _) = kvzip_ratios(pipe, ids, [0.25, 0.5], prep, 12)
    if shared != [alone]:
        bad.append(f"KVzip at 0.5: {alone!r} alone, {shared!r} from a prefill made for 0.25")
    return bad


# -- report ------------------------------------------------------------------------------


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def kvzip_net(rows: list[dict[str, Any]]) -> None:
    """KVzip's milliseconds beyond a plain prefill, for rows recorded before the bench
    took the hooked presses' time out of the shared prefill it subtracts: adds that
    time back (the hooked rows of the same context carry it)."""
    hooked: dict[tuple, dict[tuple, float]] = defaultdict(dict)
    for r in rows:
        if r["press"] not in ("full cache", "kvpress KVzip"):
            hooked[(r["setting"], r["case"], r["question"])][(r["press"], r["ratio"])] = r[
                "compress_ms"
            ]
    for r in rows:
        if r["press"] == "kvpress KVzip" and not r.get("kvzip_net"):
            r["compress_ms"] += sum(hooked[(r["setting"], r["case"], r["question"])].values())
            r["kvzip_net"] = True


def summarise(rows: list[dict[str, Any]]) -> dict[tuple, dict[str, Any]]:
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["setting"], r["task"], r["length"], r["press"], r["ratio"])].append(r)
    out = {}
    for key, rs in groups.items():
        p = sum(r["score"] for r in rs) / len(rs)
        out[key] = {
            "n": len(rs), "score": p, "ci": wilson(p, len(rs)),
            "kept": sum(r["kept"] for r in rs) / len(rs),
            "compress_ms": sum(r["compress_ms"] for r in rs) / len(rs),
        }  # fmt: skip
    return out


def _cell(s: dict[str, Any] | None) -> str:
    if s is None:
        return "–"
    lo, hi = s["ci"]
    return f"{100 * s['score']:.0f} ({100 * lo:.0f}–{100 * hi:.0f})"


def full_answers(rows: list[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    """The full cache's answer to each question, by setting, context and question: what
    a compressed cache's answer is compared with."""
    return {
        (r["setting"], r["case"], r["question"]): r["answer"].strip()
        for r in rows
        if r["press"] == "full cache"
    }


def overview(
    rows: list[dict[str, Any]], ratios: list[float], labels: list[str], settings: list[str]
) -> list[str]:
    """Per setting, press and ratio: the mean score over every question of every task,
    and the share of answers identical to the full cache's (the same question, the same
    setting), which a model too small to answer most questions still measures."""
    full = full_answers(rows)
    out = []
    for setting in settings:
        mine = [r for r in rows if r["setting"] == setting]
        if not mine:
            continue
        n = sum(r["press"] == "full cache" for r in mine)
        out += [
            f"## {setting}: every task together ({n} questions)",
            "",
            "Score (95 % interval) / answers identical to the full cache's.",
            "",
            "| press | " + " | ".join(f"{r:g}" for r in ratios) + " |",
            "| --- |" + " ---: |" * len(ratios),
        ]
        for label in labels:
            cells = []
            for x in ratios:
                rs = [
                    r
                    for r in mine
                    if r["press"] == label and (label == "full cache" or r["ratio"] == x)
                ]
                if not rs:
                    cells.append("–")
                    continue
                p = sum(r["score"] for r in rs) / len(rs)
                lo, hi = wilson(p, len(rs))
                same = sum(
                    r["answer"].strip() == full[(setting, r["case"], r["question"])] for r in rs
                ) / len(rs)
                cells.append(f"{100 * p:.0f} ({100 * lo:.0f}–{100 * hi:.0f}) / {100 * same:.0f} %")
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def sign_p(wins: int, losses: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven between
    ``wins`` and ``losses`` if either press were as likely to be the one that wins."""
    n, k = wins + losses, min(wins, losses)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def paired(
    rows: list[dict[str, Any]], mine: str, theirs: str, ratios: list[float], settings: list[str]
) -> list[str]:
    """``mine`` against ``theirs`` question by question (the same question, setting and
    ratio): how often only one of them kept the full cache's answer, how often only one
    scored higher, and the sign test of each split, for contract QA and for every task."""
    full = full_answers(rows)
    by = {
        (r["press"], r["setting"], r["case"], r["question"], r["ratio"]): r
        for r in rows
        if r["press"] in (mine, theirs)
    }
    out = [
        f"## {mine} against {theirs}, question by question",
        "",
        f"Per setting and ratio: questions where only {mine} / only {theirs} kept the full "
        "cache's answer exactly, and where each scored higher than the other; p: the two-sided "
        "exact sign test of each split (a small p: one press wins more often than chance "
        "would make it).",
        "",
        f"| setting | tasks | ratio | identical: only {mine} / only {theirs} (p) | "
        f"scored higher: {mine} / {theirs} (p) |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    header = len(out)
    tasks = {(r["task"] == "contract") for r in rows}
    parts = [("contract QA", lambda t: t == "contract")] if True in tasks else []
    if False in tasks:  # the RULER tasks too: every task together
        parts.append(("every task", lambda t: True))
    for setting in settings:
        for label, keep in parts:
            for x in ratios:
                pairs = [
                    (r, by.get((theirs, setting, r["case"], r["question"], x)))
                    for (p, st, _, _, ratio), r in by.items()
                    if p == mine and st == setting and ratio == x and keep(r["task"])
                ]
                pairs = [(a, b) for a, b in pairs if b is not None]
                if not pairs:
                    continue
                same = [
                    tuple(r["answer"].strip() == full[(setting, r["case"], r["question"])]
                          for r in pair)
                    for pair in pairs
                ]  # fmt: skip
                only = (sum(a and not b for a, b in same), sum(b and not a for a, b in same))
                higher = (
                    sum(a["score"] > b["score"] for a, b in pairs),
                    sum(b["score"] > a["score"] for a, b in pairs),
                )
                out.append(
                    f"| {setting} | {label} ({len(pairs)}) | {x:g} | {only[0]} / {only[1]} "
                    f"({sign_p(*only):.2f}) | {higher[0]} / {higher[1]} ({sign_p(*higher):.2f}) |"
                )
    return [*out, ""] if len(out) > header else []  # nothing to pair: no section


def markdown(report: dict[str, Any]) -> str:
    rows = report["rows"]
    kvzip_net(rows)
    summ = summarise(rows)
    ratios = report["args"]["ratios"]
    labels = ["full cache"] + [f"kvpress {n}" for n in KVPRESS] + [f"lateseg {n}" for n in LATESEG]
    lines = [
        "# kvpress's presses and lateseg's, side by side",
        "",
        f"`{report['command']}` ({report['date']}; {report['machine']}; kvpress "
        f"{report['versions']['kvpress']}, transformers {report['versions']['transformers']}, "
        f"torch {report['versions']['torch']}; model SmolLM2-135M-Instruct; "
        f"{report['minutes']:.0f} min).",
        "",
        "Cells: score in % (95 % Wilson interval) over the questions; RULER tasks score the "
        "share of expected values in the answer, QA and contract QA the gold value. Ratio: "
        "share of the context's KV slots removed (kvpress's `compression_ratio`).",
        "",
        f"Shared-prefill check against kvpress's own pipeline: {report['check']}.",
        "",
    ]
    if report.get("coverage"):
        lines += [f"**What this run covers:** {report['coverage']}", ""]
    lines += overview(rows, ratios, labels, report["args"]["settings"])
    lines += paired(rows, "lateseg lateseg", "kvpress ChunkKV", ratios, report["args"]["settings"])
    for setting in report["args"]["settings"]:
        tasks = sorted({(r["task"], r["length"]) for r in rows if r["setting"] == setting},
                       key=lambda t: (t[0] != "contract", t[1], t[0]))  # fmt: skip
        lines += [f"## {setting}", ""]
        for task, length in tasks:
            n = max(
                (s["n"] for k, s in summ.items() if k[:3] == (setting, task, length)), default=0
            )
            title = (
                "contract QA (whole contract)"
                if task == "contract"
                else f"{task} at {length} tokens"
            )
            lines += [f"### {title}: {n} questions", "",
                      "| press | " + " | ".join(f"{r:g}" for r in ratios) + " |",
                      "| --- |" + " ---: |" * len(ratios)]  # fmt: skip
            for label in labels:
                if label == "full cache":
                    s = summ.get((setting, task, length, label, 0.0))
                    lines.append(f"| {label} | " + " | ".join([_cell(s)] * len(ratios)) + " |")
                    continue
                cells = [_cell(summ.get((setting, task, length, label, r))) for r in ratios]
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            lines.append("")
    # cost
    lines += ["## Cost per context (all settings and tasks)", "",
              "| press | " + " | ".join(f"bytes kept @{r:g}" for r in ratios)
              + " | compress ms (mean over ratios) |",
              "| --- |" + " ---: |" * (len(ratios) + 1)]  # fmt: skip
    for label in labels[1:]:
        rs = [r for r in rows if r["press"] == label]
        kept = [
            sum(r["kept"] for r in rs if r["ratio"] == x) / max(1, sum(r["ratio"] == x for r in rs))
            for x in ratios
        ]
        ms = sum(r["compress_ms"] for r in rs) / max(1, len(rs))
        lines.append(
            f"| {label} | " + " | ".join(f"{100 * k:.0f} %" for k in kept) + f" | {ms:.0f} |"
        )
    lines += [
        "",
        "KVzip masks its evicted keys (kvpress's attention patch) instead of dropping them: "
        "its cache is not smaller; the column gives the share left unmasked. Its "
        "milliseconds are its reconstruction passes (the time beyond a plain prefill).",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[4096, 8192])
    ap.add_argument("--contexts", type=int, default=2, help="contexts per RULER task and length")
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    ap.add_argument("--ratios", type=float, nargs="+", default=list(RATIOS))
    ap.add_argument(
        "--settings", nargs="+", default=["agnostic", "aware"], choices=["agnostic", "aware"]
    )
    ap.add_argument("--contract-questions", type=int, default=14, help="per contract, agnostic")
    ap.add_argument("--aware-questions", type=int, default=4, help="per contract, aware")
    ap.add_argument("--no-contracts", action="store_true")
    ap.add_argument("--max-new-tokens", type=int, default=16)
    ap.add_argument(
        "--presses", nargs="+", default=list(PRESSES), choices=PRESSES, metavar="PRESS",
        help="the presses to run (default: all; the full cache always runs): "
        + ", ".join(PRESSES),
    )  # fmt: skip
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--check-only", action="store_true", help="run the check and stop")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--report", type=Path, help="write the Markdown of a run's .json again")
    ap.add_argument(
        "--merge", type=Path, nargs="+", metavar="JSON",
        help="one table (and .json, at --out) of several runs' .json that cover different "
        "tasks or lengths: a run too long for one sitting, made in parts",
    )  # fmt: skip
    ap.add_argument(
        "--replace", type=Path, nargs="+", metavar="JSON", default=[],
        help="with --merge: runs of some presses (--presses) whose rows replace those "
        "presses' rows at the contexts they ran, once their full cache answered every "
        "question exactly as the merged runs' did",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.report is not None:
        args.out.write_text(markdown(json.loads(args.report.read_text())))
        print(f"wrote {args.out}")
        return 0
    if args.replace and not args.merge:
        ap.error("--replace goes with --merge")
    if args.merge:
        inputs = {p.resolve() for p in args.merge}
        if "--out" not in (sys.argv if argv is None else argv) or (
                args.out.with_suffix(".json").resolve() in inputs):  # fmt: skip
            ap.error("--merge needs an --out of its own (not one of the runs it merges)")
        report = merged([json.loads(p.read_text()) for p in args.merge], args.merge)
        for path in args.replace:
            report = replaced(report, json.loads(path.read_text()), path)
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1))
        args.out.write_text(markdown(report))
        print(f"wrote {args.out}")
        return 0

    import transformers
    from kvpress import KVPressTextGenerationPipeline
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from lateseg.encode.models import quiet_transformers, resolve_generator
    from lateseg.generate.local import DEFAULT_GENERATOR

    quiet_transformers()
    where = resolve_generator(DEFAULT_GENERATOR)
    tok = AutoTokenizer.from_pretrained(where)
    model = AutoModelForCausalLM.from_pretrained(where, dtype=torch.float32).eval()
    pipe = KVPressTextGenerationPipeline(model=model, tokenizer=tok)

    def count(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False))

    t_start = time.perf_counter()
    check = "skipped"
    if not args.no_check:
        case = ruler_case("niah_single", 1024, 0, count)
        bad = check_against_pipeline(pipe, case.context, case.questions[0].text)
        check = (
            "every hooked press's cache equals kvpress's pipeline's running it alone, layer by "
            "layer; KVzip at 0.5 from a 0.25 prefill answers as alone"
            if not bad
            else "; ".join(bad)
        )
        if args.check_only:
            print(check)
            return 0 if not bad else 1
        print("check:", check, flush=True)
    # contract QA first (the setting the issue settles on), then RULER by length
    cases = [] if args.no_contracts else contract_cases(args.contract_questions)
    cases += [
        ruler_case(t, n, s, count)
        for n in args.lengths
        for t in args.tasks
        for s in range(args.contexts)
    ]
    presses = configs(args.ratios, tok, args.presses)
    rows: list[dict[str, Any]] = []
    for case in cases:
        for setting in args.settings:
            qs = case.questions
            if setting == "aware" and case.task == "contract":
                qs = qs[: args.aware_questions]
            groups = [[q] for q in qs] if setting == "aware" else [qs]
            t0 = time.perf_counter()
            for group in groups:
                for r in run_context(pipe, case.context, group, presses, args.max_new_tokens,
                                     setting == "aware"):  # fmt: skip
                    r.update(setting=setting, task=case.task, length=case.length, case=case.ident)
                    rows.append(r)
            print(f"{case.ident} {setting}: {len(qs)} questions, {time.perf_counter() - t0:.0f} s",
                  flush=True)  # fmt: skip
        report = {
            "command": "python bench/kvpress_compare.py "
            + " ".join(sys.argv[1:] if argv is None else argv),
            "date": time.strftime("%Y-%m-%d"),
            "machine": f"{cpu()}, {os.cpu_count()} CPUs, {platform.python_version()}",
            "versions": {
                "kvpress": _version("kvpress"),
                "transformers": transformers.__version__,
                "torch": torch.__version__,
            },
            "args": {k: v for k, v in vars(args).items() if k != "out"},
            "check": check,
            "minutes": (time.perf_counter() - t_start) / 60,
            "rows": rows,
        }
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1))
        args.out.write_text(markdown(report))  # partial results as they come
    print(f"wrote {args.out}")
    return 0


SAME: dict[str, Callable[[dict[str, Any]], Any]] = {
    "machine": lambda rep: rep["machine"],
    "versions": lambda rep: rep["versions"],
    "ratios": lambda rep: rep["args"]["ratios"],
    "max_new_tokens": lambda rep: rep["args"]["max_new_tokens"],
}


def _answers(rows: list[dict[str, Any]], press: str) -> dict[tuple, str]:
    return {
        (r["setting"], r["case"], r["question"], r["ratio"]): r["answer"].strip()
        for r in rows
        if r["press"] == press
    }


def replaced(report: dict[str, Any], new: dict[str, Any], path: Path) -> dict[str, Any]:
    """``report`` with the rows of the presses ``new`` ran (not its full cache), at the
    contexts and settings it ran, taken from ``new``: a later run of a few presses after
    a fix to them, without running the presses that did not change again. Refused unless
    the runs agree in machine, versions, ratios and answer length, ``new``'s full cache
    gave every question exactly the answer the report's did (the same prompts, model and
    decoding: a control), and each replaced press answered the same questions. Another
    machine is allowed, as that control holds (the note names it: its milliseconds are
    that machine's). The coverage note says how many answers of each press changed."""
    # KVzip's milliseconds net of the other presses' time in its own run, while those
    # rows are still the ones its run recorded
    kvzip_net(report["rows"])
    kvzip_net(new["rows"])
    for key, of in SAME.items():
        if key != "machine" and of(new) != of(report):
            raise SystemExit(f"{path} differs from the merged runs in {key}")
    mine, theirs = _answers(report["rows"], "full cache"), _answers(new["rows"], "full cache")
    for q, answer in theirs.items():
        if q not in mine:
            raise SystemExit(f"{path}: {q[:3]} is not in the merged runs")
        if mine[q] != answer:
            raise SystemExit(
                f"{path}: the full cache answered {q[:3]} {answer!r}, the merged runs "
                f"{mine[q]!r}: not the same prompts, model or decoding"
            )
    where = {(r["setting"], r["case"]) for r in new["rows"]}
    presses = sorted({r["press"] for r in new["rows"]} - {"full cache"})
    changed = []
    for press in presses:
        old = {q: a for q, a in _answers(report["rows"], press).items() if q[:2] in where}
        fresh = _answers(new["rows"], press)
        if old.keys() != fresh.keys():
            raise SystemExit(f"{path}: {press} answered other questions than the merged runs")
        changed.append(f"{press}: {sum(old[q] != fresh[q] for q in old)} of {len(old)}")
    rows = [
        r
        for r in report["rows"]
        if not (r["press"] in presses and (r["setting"], r["case"]) in where)
    ] + [r for r in new["rows"] if r["press"] in presses]
    note = (
        f"The rows of {', '.join(presses)} at the {len(where)} contexts and settings it ran "
        f"come from `{new['command']}` ({new['date']}, {new['minutes']:.0f} min, check: "
        f"{new['check']}), which replaced the rows of those presses above; its full cache "
        f"gave every one of its {len(theirs)} answers exactly as the runs above (checked). "
        f"Answers that changed: {'; '.join(changed)}."
    )
    if new["machine"] != report["machine"]:
        note += (
            f" That run was made on another machine ({new['machine']}): its milliseconds "
            "are that machine's, not comparable with the other rows'."
        )
    return {
        **report,
        "command": report["command"] + f" --replace {path}",
        "date": max(report["date"], new["date"]),
        "minutes": report["minutes"] + new["minutes"],
        "coverage": " ".join(x for x in (report.get("coverage"), note) if x),
        "rows": rows,
    }


def merged(reports: Sequence[dict[str, Any]], paths: Sequence[Path]) -> dict[str, Any]:
    """One report of several runs of this bench that cover different contexts (a task at
    a length no other run has): their rows together, each run's command, time, check and
    own coverage note named. Runs that share a context, or differ in machine, versions,
    ratios or answer length, are refused: a table of them would average answers of
    different runs as one. Milliseconds of different runs are averaged together in the
    cost table: compare them within one run's own table."""
    seen: dict[str, str] = {}
    for path, rep in zip(paths, reports, strict=True):
        for r in rep["rows"]:
            if seen.setdefault(r["case"], str(path)) != str(path):
                raise SystemExit(f"{r['case']} is in both {seen[r['case']]} and {path}")
    first = reports[0]
    for key, of in SAME.items():
        if any(of(rep) != of(first) for rep in reports):
            raise SystemExit(f"the runs differ in {key}: {[of(rep) for rep in reports]}")
    settings = sorted({s for rep in reports for s in rep["args"]["settings"]})
    parts = "; ".join(
        f"`{rep['command']}` ({rep['date']}, {rep['minutes']:.0f} min, check: {rep['check']}"
        + (f"; its own note: {rep['coverage']}" if rep.get("coverage") else "")
        + ")"
        for rep in reports
    )
    return {
        "command": "python bench/kvpress_compare.py --merge " + " ".join(str(p) for p in paths),
        "date": max(rep["date"] for rep in reports),
        "machine": first["machine"],
        "versions": first["versions"],
        "args": {
            **first["args"],
            "settings": settings,
            "tasks": sorted({t for rep in reports for t in rep["args"]["tasks"]}),
            "lengths": sorted({n for rep in reports for n in rep["args"]["lengths"]}),
        },
        "check": "; ".join(dict.fromkeys(rep["check"] for rep in reports)),
        "minutes": sum(rep["minutes"] for rep in reports),
        "coverage": f"{len(reports)} runs made in parts, one table: {parts}. Milliseconds "
        "come from different runs (some beside other work): compare presses within one "
        "run's own table.",
        "rows": [r for rep in reports for r in rep["rows"]],
    }


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    raise SystemExit(main())
