"""Side-by-side retrieval benchmark: lateseg's chunkers and encoders against peer chunkers.

    python bench/retrieval.py [--sets sample_qa licenses stdlib] [--no-peers]

Every system splits each document of a set's corpus into chunks (character spans of the
document's text) and gives one vector per chunk, all with the same embedding model (the
lateseg default, all-MiniLM-L6-v2, from the local package; nothing is downloaded:
``HF_HUB_OFFLINE=1``). Queries are embedded with ``LateEncoder.embed_queries`` and scored
by exact inner product (numpy) against every chunk of the set's corpus.

Systems: lateseg late+dynamic (the library's defaults: dynamic chunks; each vector mixes
the late-pooled vector with the chunk embedded alone, see ``EncoderConfig``), the same
chunks with pure late vectors, lateseg fixed-256 + late, fixed-256 + naive, dynamic +
naive, LangChain ``RecursiveCharacterTextSplitter`` (500/0 and 1000/200, naive vectors)
and, when installed, LangChain ``SemanticChunker`` and Chonkie's Recursive, Semantic and
Late chunkers. "late" = chunk vectors mean-pooled from contextual token embeddings of the
whole document; "naive" = each chunk's text embedded on its own (``embed_texts``, which
truncates a chunk to the model's window).

Sets (JSONL in ``data/eval``; a missing file is skipped with a message):

* ``sample_qa``: corpus ``data/contracts/*.pdf`` + ``data/sample_repo/**/*.py``; the gold
  span is found in the document text by whitespace-collapsed matching.
* ``licenses``: corpus every file in ``/usr/share/common-licenses`` (symlinks to another
  file there are left out: they would duplicate it); gold ``start``/``end`` offsets.
* ``stdlib``: corpus every ``.py`` under ``.cache/eval/stdlib_nodoc``; gold offsets.
* ``stdlib_holdout``: the same kind of set over other modules, kept apart from
  development (``python data/eval/make_stdlib_set.py --holdout``; corpus under
  ``.cache/eval/stdlib_holdout_nodoc``): a change tuned on ``stdlib`` is checked here.
* ``real-<corpus>`` (``--sets real`` for all): the real corpora of ``data/real``
  (``bench/real_corpora.py``), every readable file of the corpus folder; the answerable
  questions, each gold found in the first document its ``source`` (a path or glob) names
  that holds it. Reported apart from the team's sets: no rule was chosen on them.

Besides the peer chunkers, **BM25** scores the LangChain 1000/200 chunks by their words
alone (no vectors): the lexical peer.

Metrics per system and set (averaged over queries; a chunk's "gold coverage" is the number
of gold characters inside its span):

* ``recall@B`` for context budgets B = 500, 1000, 2000, 4000 characters: ranked chunks
  are taken in order until B characters are used; a chunk that only partly fits
  contributes its first (remaining-budget) characters. Value = gold characters covered by
  what was taken / gold length. Overlapping chunks spend budget on repeated text.
* ``hit@5``: some top-5 chunk covers >= 50% of the gold span.
* ``MRR@10``: 1/rank of the first chunk covering >= 50% of the gold span, 0 if none in
  the top 10.
* time = chunking + encoding of the corpus (model loading excluded; query encoding
  excluded), and throughput = corpus tokens (lateseg tokenizer) / time.
* encoder alone: the late encoder's whole-document pass against naive encoding of the
  default dynamic chunks, both on the same tokens; their throughput ratio.

Writes ``bench/results/retrieval.json`` and ``bench/results/retrieval.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

from lateseg.answer.confidence import zmix
from lateseg.ask.code_search import CODEBASE_SHARE
from lateseg.ask.options import UNIT_CHARS, search_mode
from lateseg.encode.config import EncoderConfig
from lateseg.encode.fields import chunk_fields, units_at_middle
from lateseg.encode.late import LateEncoder, TokenEmbeddings
from lateseg.encode.profiles import PROFILES, apply_profile, with_profile_windows
from lateseg.eval import metrics
from lateseg.eval.run import find_words
from lateseg.generate.rerank import RERANK_TOP, likelihoods
from lateseg.index.sqlite.lexical import fts_query
from lateseg.ingest import load_document
from lateseg.retrieve.fusion import POOL, fuse
from lateseg.retrieve.retriever import innermost_unit
from lateseg.segment import DynamicChunker, FixedChunker
from lateseg.segment.spans import Locator
from lateseg.types import Chunk, Document

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import real_corpora

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
OUT = ROOT / "bench" / "results"
LICENSES = Path("/usr/share/common-licenses")
STDLIB = ROOT / ".cache" / "eval" / "stdlib_nodoc"
STDLIB_HOLDOUT = ROOT / ".cache" / "eval" / "stdlib_holdout_nodoc"
BUDGETS = (500, 1000, 2000, 4000)
# Hand-written notes after this line of a results file survive its rewriting.
NOTES = "<!-- notes: what follows is kept when bench/retrieval.py rewrites this file -->"
HIT_K, MRR_K = 5, metrics.MRR_K


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- evaluation sets -------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    qid: str
    question: str
    doc: int  # index into EvalSet.docs
    start: int
    end: int


@dataclass
class EvalSet:
    name: str
    docs: list[Document]
    queries: list[Query]
    notes: list[str] = field(default_factory=list)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def load_corpus(paths: Sequence[Path], root: Path | None = None) -> list[Document]:
    docs = []
    for p in paths:
        try:
            docs.append(load_document(p, root=root))
        except Exception as e:  # one unreadable file must not stop the benchmark
            log(f"  skip {p}: {e}")
    return docs


def find_squashed(text: str, gold: str) -> tuple[int, int] | None:
    """Span of ``gold`` in ``text`` matching with whitespace collapsed (first occurrence),
    as ``lateseg eval`` finds a ``gold_text`` (:func:`lateseg.eval.run.find_words`)."""
    found = find_words(text, gold, most=1)
    return found[0] if found else None


def sample_qa_set(path: Path, name: str = "sample_qa") -> EvalSet:
    """Questions over the bundled sample contracts and codebase, each with the gold text
    it is answered from (``sample_qa``, 24; ``contracts``, 56 more over the same
    contracts, written for the answer bench: a larger set for prose at the same cost)."""
    pdfs = sorted((DATA / "contracts").glob("*.pdf"))
    code = sorted((DATA / "sample_repo").rglob("*.py"))
    docs = load_corpus(pdfs + code, root=DATA / "sample_repo")
    by_source = {str(Path(d.source).relative_to(DATA)): i for i, d in enumerate(docs)}
    es = EvalSet(name, docs, [])
    for rec in read_jsonl(path):
        i = by_source.get(rec["source"])
        span = find_squashed(docs[i].text, rec["gold"]) if i is not None else None
        if span is None:
            es.notes.append(f"{rec['id']}: gold not found in {rec['source']}, query dropped")
            continue
        es.queries.append(Query(rec["id"], rec["question"], i, *span))
    return es


def offsets_set(name: str, path: Path, docs: list[Document], key: Callable[[str], str]) -> EvalSet:
    """A set whose records give ``source`` (mapped to a corpus document by ``key``),
    ``start`` and ``end``; ``gold``, when present, is checked against the span."""
    by_source = {d.source: i for i, d in enumerate(docs)}
    es = EvalSet(name, docs, [])
    for n, rec in enumerate(read_jsonl(path)):
        qid = str(rec.get("id", f"{name}-{n}"))
        i = by_source.get(key(rec["source"]))
        if i is None:
            es.notes.append(f"{qid}: source {rec['source']} not in corpus, query dropped")
            continue
        start, end = int(rec["start"]), int(rec["end"])
        gold = rec.get("gold")
        if gold is not None and docs[i].text[start:end] != gold:
            es.notes.append(f"{qid}: text[start:end] != gold, query dropped")
            continue
        es.queries.append(Query(qid, rec["question"], i, start, end))
    return es


def licenses_set(path: Path) -> EvalSet:
    files = sorted(p for p in LICENSES.iterdir() if p.is_file() and not p.is_symlink())
    docs = load_corpus(files)
    return offsets_set("licenses", path, docs, lambda s: str((LICENSES / s).resolve()))


def stdlib_set(path: Path, name: str = "stdlib", root: Path = STDLIB) -> EvalSet:
    docs = load_corpus(sorted(root.rglob("*.py")), root=root)
    return offsets_set(name, path, docs, lambda s: str((root / s).resolve()))


def stdlib_holdout_set(path: Path) -> EvalSet:
    return stdlib_set(path, "stdlib_holdout", STDLIB_HOLDOUT)


def real_set(corpus: str) -> EvalSet:
    """A real corpus (``bench/real_corpora.py``): its answerable questions."""
    root = real_corpora.folder(corpus)
    docs = load_corpus(real_corpora.files(corpus), root=root)
    by_source = {str(Path(d.source).resolve()): i for i, d in enumerate(docs)}
    es = EvalSet(real_corpora.PREFIX + corpus, docs, [])
    for rec in real_corpora.questions(corpus):
        if rec.get("unanswerable"):
            continue
        found = None
        for f in real_corpora.sources(corpus, rec):
            i = by_source.get(str(f.resolve()))
            span = find_squashed(docs[i].text, rec["gold"]) if i is not None else None
            if span is not None:
                found = (i, span)
                break
        if found is None:
            es.notes.append(f"{rec['id']}: gold not found in {rec['source']}, query dropped")
            continue
        es.queries.append(Query(rec["id"], rec["question"], found[0], *found[1]))
    return es


SETS: dict[str, tuple[str, Callable[[Path], EvalSet]]] = {
    "sample_qa": ("sample_qa.jsonl", sample_qa_set),
    "contracts": ("contracts_qa.jsonl", lambda p: sample_qa_set(p, "contracts")),
    "licenses": ("licenses_qa.jsonl", licenses_set),
    "stdlib": ("stdlib_code.jsonl", stdlib_set),
    "stdlib_holdout": ("stdlib_holdout.jsonl", stdlib_holdout_set),
    **{
        real_corpora.PREFIX + c: (
            f"../real/questions/{c}.jsonl",
            lambda p, c=c: real_set(c),
        )
        for c in real_corpora.CORPORA
    },
}


#: How to make a set's corpus where it is not in the repository.
MAKE = {
    "stdlib": "python data/eval/make_stdlib_set.py",
    "stdlib_holdout": "python data/eval/make_stdlib_set.py --holdout",
}


def available_sets(names: Sequence[str]) -> Iterator[tuple[str, EvalSet]]:
    """The named sets whose JSONL and corpus exist (others are skipped with a message
    saying how to make them)."""
    for name in names:
        fname, build = SETS[name]
        path = DATA / "eval" / fname
        if not path.is_file():
            log(f"skip {name}: {path} missing")
            continue
        try:
            es: EvalSet | None = build(path)
        except FileNotFoundError:  # a corpus folder that is not there
            es = None
        if es is None or not es.docs:
            how = f"; make it with `{MAKE[name]}`" if name in MAKE else ""
            log(f"skip {name}: its corpus is missing{how}")
            continue
        yield name, es


# -- systems ---------------------------------------------------------------------------


@dataclass
class Chunked:
    """All chunks of a corpus: document index, character span, vector; and the time."""

    doc: np.ndarray
    start: np.ndarray
    end: np.ndarray
    vecs: np.ndarray
    seconds: float
    lost: int = 0  # chunks whose text could not be located in the document
    # A lever's final scores from query ``i``'s dense scores (None: the dense scores).
    rescore: Callable[[int, np.ndarray], np.ndarray] | None = None
    # Small-to-big: the passage each chunk is returned as when it fits (None: itself).
    parents: np.ndarray | None = None
    # Units: the span each chunk is returned as, the same span once (None: itself), for
    # the queries ``units_for`` is true of (``Retriever.units`` as a search runs it).
    units: np.ndarray | None = None
    units_for: Callable[[int], bool] | None = None


@dataclass
class DocChunks:
    spans: list[tuple[int, int]]
    vecs: np.ndarray | None  # None: embed the chunk texts naively
    seconds: float
    lost: int = 0


def assemble(enc: LateEncoder, docs: Sequence[Document], per_doc: Sequence[DocChunks]) -> Chunked:
    """Concatenate per-document chunks, embedding naive ones (timed per document)."""
    doc_ix: list[int] = []
    spans: list[tuple[int, int]] = []
    vecs: list[np.ndarray] = []
    seconds = 0.0
    for i, (d, dc) in enumerate(zip(docs, per_doc, strict=True)):
        seconds += dc.seconds
        if not dc.spans:
            continue
        v = dc.vecs
        if v is None:
            t0 = time.perf_counter()
            v = enc.embed_texts([d.text[s:e] for s, e in dc.spans])
            seconds += time.perf_counter() - t0
        doc_ix += [i] * len(dc.spans)
        spans += dc.spans
        vecs.append(np.asarray(v, dtype=np.float32))
    arr = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    lost = sum(dc.lost for dc in per_doc)
    return Chunked(np.asarray(doc_ix), arr[:, 0], arr[:, 1], np.vstack(vecs), seconds, lost)


def normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def locate(text: str, piece: str, hint: int) -> tuple[int, int] | None:
    """Span of ``piece`` in ``text``: exactly near ``hint``, else with whitespace relaxed
    (for splitters that re-join sentences with single spaces)."""
    piece = piece.strip()
    if not piece:
        return None
    for origin in (max(hint - 50, 0), 0):
        i = text.find(piece, origin)
        if i >= 0:
            return i, i + len(piece)
    pattern = r"\s+".join(re.escape(w) for w in piece.split())
    m = re.compile(pattern).search(text, max(hint - 200, 0)) or re.search(pattern, text)
    return (m.start(), m.end()) if m else None


def spans_of(text: str, pieces: Sequence[tuple[str, int]]) -> list[tuple[int, int]]:
    """Character spans of (chunk text, start hint) pairs; unlocatable chunks are dropped
    (counted by the caller via the number of chunks)."""
    out = []
    for piece, hint in pieces:
        span = locate(text, piece, hint)
        if span is not None and span[1] > span[0]:
            out.append(span)
    return out


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


class LatesegSystems:
    """The lateseg variants, sharing work where the work is identical and charging each
    variant the time it would need on its own. Also times the late encoder against
    naive encoding of the same (default dynamic) chunks: ``encoder_seconds``."""

    def __init__(self, enc: LateEncoder, keep_tokens: bool = False) -> None:
        self.enc = enc
        # the naive variant's own encoder (the same loaded model): what the default
        # variant embedded is not reused for it (lateseg.encode.reuse)
        self.naive_enc = LateEncoder(enc.config)
        self.encoder_seconds = {"late": 0.0, "naive": 0.0}
        self.keep_tokens = keep_tokens  # for the late-interaction lever
        self.tokens: list[TokenEmbeddings] = []
        self.chunks: list[list[Chunk]] = []  # the default chunks, for the levers

    def run(self, docs: Sequence[Document]) -> dict[str, Chunked]:
        default, pure, late_fix, naive_dyn, naive_fix = [], [], [], [], []
        for d in docs:
            code = d.kind == "code"
            tokens, t_enc = timed(lambda d=d, c=code: self.enc.encode_document(d.text, code=c))
            dyn, t_dyn = timed(lambda d=d, t=tokens: DynamicChunker().chunk(d, t))
            if self.keep_tokens:
                self.tokens.append(tokens)
                self.chunks.append(dyn)
            fix, t_fix = timed(lambda d=d, t=tokens: FixedChunker(256).chunk(d, t))
            s_dyn = [(c.start, c.end) for c in dyn]
            s_fix = [(c.start, c.end) for c in fix]
            v_def, t_def = timed(
                lambda d=d, t=tokens, s=s_dyn, c=dyn: (
                    self.enc.chunk_vectors(
                        d.text, t, s, code=d.kind == "code", fields=chunk_fields(d, c)
                    )
                    if s
                    else None
                )
            )
            v_dyn, t_pd = timed(lambda t=tokens, s=s_dyn: t.pool(s) if s else None)
            v_fix, t_pf = timed(lambda t=tokens, s=s_fix: t.pool(s) if s else None)
            v_naive, t_naive = timed(
                lambda d=d, s=s_dyn: (
                    self.naive_enc.embed_texts([d.text[a:b] for a, b in s]) if s else None
                )
            )
            self.encoder_seconds["late"] += t_enc
            self.encoder_seconds["naive"] += t_naive
            # Fixed chunks need only token offsets: naive fixed pays tokenization only.
            offs, t_tok = timed(lambda d=d: self.enc.tokenize(d.text))
            empty = TokenEmbeddings(offs, np.zeros((len(offs), 1), dtype=np.float32))
            fix2, t_fix2 = timed(lambda d=d, t=empty: FixedChunker(256).chunk(d, t))
            assert [(c.start, c.end) for c in fix2] == s_fix
            default.append(DocChunks(s_dyn, v_def, t_enc + t_dyn + t_def))
            pure.append(DocChunks(s_dyn, v_dyn, t_enc + t_dyn + t_pd))
            late_fix.append(DocChunks(s_fix, v_fix, t_enc + t_fix + t_pf))
            # Dynamic chunking needs the contextual token embeddings, so naive dynamic
            # pays the whole-document encoding too, then embeds each chunk again.
            naive_dyn.append(DocChunks(s_dyn, v_naive, t_enc + t_dyn + t_naive))
            naive_fix.append(DocChunks(s_fix, None, t_tok + t_fix2))
        return {
            "lateseg late+dynamic (default)": assemble(self.enc, docs, default),
            "lateseg late+dynamic, pure late vectors": assemble(self.enc, docs, pure),
            "lateseg fixed-256 + late": assemble(self.enc, docs, late_fix),
            "fixed-256 + naive": assemble(self.enc, docs, naive_fix),
            "dynamic + naive": assemble(self.enc, docs, naive_dyn),
        }


def text_system(
    enc: LateEncoder, split: Callable[[str], list[tuple[str, int]]]
) -> Callable[[Sequence[Document]], Chunked]:
    """A peer that returns (chunk text, start hint) pairs; vectors are naive."""

    def run(docs: Sequence[Document]) -> Chunked:
        per_doc = []
        for d in docs:
            pieces, t = timed(lambda d=d: split(d.text))
            spans, t2 = timed(lambda d=d, p=pieces: spans_of(d.text, p))
            real = sum(1 for text, _ in pieces if text.strip())  # empty chunks: not lost
            per_doc.append(DocChunks(spans, None, t + t2, real - len(spans)))
        return assemble(enc, docs, per_doc)

    return run


def langchain_recursive(size: int, overlap: int) -> Callable[[str], list[tuple[str, int]]]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=overlap, add_start_index=True
    )

    def split(text: str) -> list[tuple[str, int]]:
        out = splitter.create_documents([text])
        return [(c.page_content, int(c.metadata["start_index"])) for c in out]

    return split


def langchain_semantic(enc: LateEncoder) -> Callable[[str], list[tuple[str, int]]]:
    from langchain_core.embeddings import Embeddings
    from langchain_experimental.text_splitter import SemanticChunker

    class Local(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return enc.embed_texts(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return enc.embed_queries([text])[0].tolist()

    splitter = SemanticChunker(Local(), add_start_index=True)

    def split(text: str) -> list[tuple[str, int]]:
        out = splitter.create_documents([text])
        return [(c.page_content, int(c.metadata["start_index"])) for c in out]

    return split


def chonkie_split(chunker: Any) -> Callable[[str], list[tuple[str, int]]]:
    def split(text: str) -> list[tuple[str, int]]:
        return [(c.text, int(c.start_index)) for c in chunker.chunk(text)]

    return split


def chonkie_late(enc: LateEncoder, model_dir: str) -> Callable[[Sequence[Document]], Chunked]:
    """Chonkie's LateChunker keeps its own vectors (token embeddings from
    sentence-transformers, fixed 256-token windows without overlap)."""
    from chonkie import LateChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    chunker = LateChunker(SentenceTransformerEmbeddings(model_dir), chunk_size=256)

    def run(docs: Sequence[Document]) -> Chunked:
        per_doc = []
        for d in docs:
            chunks, t = timed(lambda d=d: chunker.chunk(d.text))
            spans, vecs = [], []
            for c in chunks:
                span = locate(d.text, c.text, int(c.start_index))
                if span is not None and span[1] > span[0]:
                    spans.append(span)
                    vecs.append(np.asarray(c.embedding, dtype=np.float32))
            v = normalise(np.vstack(vecs)) if vecs else None
            per_doc.append(DocChunks(spans, v, t, len(chunks) - len(spans)))
        return assemble(enc, docs, per_doc)  # never embeds: vectors are given

    return run


def peer_systems(
    enc: LateEncoder, skipped: dict[str, str]
) -> dict[str, Callable[[Sequence[Document]], Chunked]]:
    """Peers that can be built here; the others go to ``skipped`` with the reason."""
    from lateseg.encode.models import resolve_embedder

    model_dir = resolve_embedder(None)
    out: dict[str, Callable[[Sequence[Document]], Chunked]] = {
        "LangChain recursive 500/0": text_system(enc, langchain_recursive(500, 0)),
        "LangChain recursive 1000/200": text_system(enc, langchain_recursive(1000, 200)),
    }
    builders: dict[str, Callable[[], Callable[[Sequence[Document]], Chunked]]] = {
        "LangChain SemanticChunker": lambda: text_system(enc, langchain_semantic(enc)),
        "Chonkie recursive-256": lambda: text_system(enc, chonkie_recursive(enc)),
        "Chonkie semantic-256": lambda: text_system(enc, chonkie_semantic(model_dir)),
        "Chonkie late-256": lambda: chonkie_late(enc, model_dir),
    }
    for name, build in builders.items():
        try:
            out[name] = build()
        except Exception as e:  # not installed, or cannot load offline
            skipped[name] = f"{type(e).__name__}: {e}"
            log(f"skip {name}: {skipped[name]}")
    return out


def chonkie_recursive(enc: LateEncoder) -> Callable[[str], list[tuple[str, int]]]:
    from chonkie import RecursiveChunker

    return chonkie_split(RecursiveChunker(tokenizer=enc.tokenizer, chunk_size=256))


def chonkie_semantic(model_dir: str) -> Callable[[str], list[tuple[str, int]]]:
    from chonkie import SemanticChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    emb = SentenceTransformerEmbeddings(model_dir)
    return chonkie_split(SemanticChunker(embedding_model=emb, chunk_size=256))


# -- metrics ---------------------------------------------------------------------------


def budget_recall(ch: Chunked, order: np.ndarray, q: Query, budget: int) -> float:
    if ch.parents is not None:
        return passage_recall(ch, order, q, budget)
    covered = np.zeros(q.end - q.start, dtype=bool)
    used = 0
    for r in order:
        if used >= budget:
            break
        s, e = int(ch.start[r]), int(ch.end[r])
        e = min(e, s + budget - used)
        used += e - s
        if ch.doc[r] == q.doc and e > q.start and s < q.end:
            covered[max(s, q.start) - q.start : min(e, q.end) - q.start] = True
    return float(covered.mean()) if len(covered) else 0.0


def passage_recall(ch: Chunked, order: np.ndarray, q: Query, budget: int) -> float:
    """Recall when each ranked chunk is returned as its parent passage if the passage's
    new text fits what is left of the budget (else the chunk itself), and text already
    returned costs nothing again (as ``Retriever.expand`` gives no text twice)."""
    assert ch.parents is not None
    covered = np.zeros(q.end - q.start, dtype=bool)
    taken: dict[int, list[tuple[int, int]]] = {}
    used = 0

    def new(d: int, s: int, e: int) -> list[tuple[int, int]]:
        """The pieces of ``[s, e)`` of document ``d`` not yet returned."""
        pieces = [(s, e)]
        for a, b in taken.get(d, []):
            cut = []
            for x, y in pieces:
                if b <= x or a >= y:
                    cut.append((x, y))
                    continue
                cut += [p for p in ((x, min(a, y)), (max(b, x), y)) if p[0] < p[1]]
            pieces = cut
        return pieces

    for r in order:
        if used >= budget:
            break
        d = int(ch.doc[r])
        big = new(d, int(ch.parents[r, 0]), int(ch.parents[r, 1]))
        if sum(e - s for s, e in big) > budget - used:
            big = new(d, int(ch.start[r]), int(ch.end[r]))
        for s, e in sorted(big):
            if used >= budget:
                break
            e = min(e, s + budget - used)
            used += e - s
            taken.setdefault(d, []).append((s, e))
            if d == q.doc and e > q.start and s < q.end:
                covered[max(s, q.start) - q.start : min(e, q.end) - q.start] = True
    return float(covered.mean()) if len(covered) else 0.0


def returned(ch: Chunked, order: np.ndarray, i: int) -> list[tuple[int, int, int]]:
    """(document, start, end) of what a search returns for query ``i`` in rank order:
    the chunks, or where :attr:`Chunked.units` apply, their units, each unit once at
    its best chunk's place (as ``lateseg.retrieve.retriever.Retriever.units``)."""
    if ch.units is None or ch.units_for is None or not ch.units_for(i):
        return [(int(ch.doc[r]), int(ch.start[r]), int(ch.end[r])) for r in order]
    seen: set[tuple[int, int, int]] = set()
    out = []
    for r in order:
        span = (int(ch.doc[r]), int(ch.units[r, 0]), int(ch.units[r, 1]))
        if span not in seen:
            seen.add(span)
            out.append(span)
    return out


def spans_recall(spans: Sequence[tuple[int, int, int]], q: Query, budget: int) -> float:
    """Recall of ranked returned spans (units) within ``budget`` characters, each span
    costing its whole length as the search returns it (a method after its class too)."""
    covered = np.zeros(q.end - q.start, dtype=bool)
    used = 0
    for d, s, e in spans:
        if used >= budget:
            break
        e = min(e, s + budget - used)
        used += e - s
        if d == q.doc and e > q.start and s < q.end:
            covered[max(s, q.start) - q.start : min(e, q.end) - q.start] = True
    return float(covered.mean()) if len(covered) else 0.0


def score_query(ch: Chunked, qvec: np.ndarray, q: Query, i: int = 0) -> dict[str, float]:
    scores = ch.vecs @ qvec
    if ch.rescore is not None:
        scores = ch.rescore(i, scores)
    order = np.argsort(-scores, kind="stable")
    spans = returned(ch, order, i) if ch.units is not None else None
    # hit@5 and MRR@10 as `lateseg eval` computes them (lateseg.eval.metrics)
    if spans is None:
        ranked = [
            metrics.Span(str(ch.doc[r]), int(ch.start[r]), int(ch.end[r])) for r in order[:MRR_K]
        ]
        row = {f"recall@{b}": budget_recall(ch, order, q, b) for b in BUDGETS}
    else:
        ranked = [metrics.Span(str(d), a, b) for d, a, b in spans[:MRR_K]]
        row = {f"recall@{b}": spans_recall(spans, q, b) for b in BUDGETS}
    graded = metrics.grade_retrieval(ranked, [metrics.Span(str(q.doc), q.start, q.end)], HIT_K)
    row[f"hit@{HIT_K}"] = float(graded.hit)
    row[f"MRR@{MRR_K}"] = graded.reciprocal_rank
    return row


def evaluate(ch: Chunked, qvecs: np.ndarray, es: EvalSet, tokens: int) -> dict[str, Any]:
    rows = [score_query(ch, qvecs[i], q, i) for i, q in enumerate(es.queries)]
    summary = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
    lengths = ch.end - ch.start
    return {
        "summary": summary,
        "chunks": len(lengths),
        "unlocated_chunks": ch.lost,
        "mean_chunk_chars": float(lengths.mean()),
        "seconds": ch.seconds,
        "tokens_per_s": tokens / ch.seconds if ch.seconds > 0 else None,
        "per_query": {q.qid: r for q, r in zip(es.queries, rows, strict=True)},
    }


# -- driver ----------------------------------------------------------------------------


#: Issue 30's levers measured as extra rows (``--levers``): weights of the document prior.
PRIOR_WEIGHTS = (0.25, 0.5)
#: The row of the search as shipped: the default chunks, searched as ``auto`` searches.
SHIPPED = "lateseg late+dynamic, search as shipped (auto)"
#: The same search returning chunks, as it did before round 7 (``passages="chunks"``).
CHUNKS_SHIPPED = "lateseg late+dynamic, auto, chunks (passages=chunks)"


def document_prior(ch: Chunked, weight: float) -> Chunked:
    """Lever: each chunk scored with its document's evidence, ``chunk.q + weight *
    doc.q``, where a document's vector is the normalised mean of its chunks' (so a
    question about "the /var hierarchy" prefers chunks of the chapter about it). Inner
    products are linear, so this is the chunk vectors plus ``weight`` times their
    document's vector; no encoding is added."""
    docs = np.unique(ch.doc)
    means = np.zeros((int(docs.max()) + 1, ch.vecs.shape[1]), dtype=np.float32)
    for d in docs:
        means[d] = ch.vecs[ch.doc == d].mean(axis=0)
    return Chunked(
        ch.doc, ch.start, ch.end, ch.vecs + weight * normalise(means)[ch.doc], ch.seconds, ch.lost
    )


WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
#: A query naming code: snake_case, camelCase, a call "f()", `quoted`, or dotted.name.
IDENTIFIER = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b|\w+\(\)|`[^`]+`|\b\w+\.\w+\b")


def words(text: str) -> list[str]:
    """Lowercase word pieces, identifiers split at case changes and underscores."""
    return [w.lower() for w in WORD.findall(text)]


def bm25(texts: Sequence[str], queries: Sequence[str], k1: float = 1.2, b: float = 0.75):
    """BM25 scores ``[queries, texts]`` over :func:`words`."""
    docs = [words(t) for t in texts]
    lengths = np.array([len(d) for d in docs], dtype=np.float64)
    avg = max(lengths.mean(), 1.0)
    df: dict[str, int] = {}
    for d in docs:
        for w in set(d):
            df[w] = df.get(w, 0) + 1
    tf = [{w: d.count(w) for w in set(d)} for d in docs]
    n = len(docs)
    out = np.zeros((len(queries), n))
    for qi, q in enumerate(queries):
        for w in set(words(q)):
            if w not in df:
                continue
            idf = np.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            f = np.array([t.get(w, 0) for t in tf], dtype=np.float64)
            out[qi] += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * lengths / avg))
    return out


def bm25_system(es: EvalSet, split: Callable[[str], list[tuple[str, int]]], dim: int) -> Chunked:
    """The lexical peer: ``split``'s chunks ranked by BM25 over their words alone."""
    t0 = time.perf_counter()
    doc_ix: list[int] = []
    spans: list[tuple[int, int]] = []
    for i, d in enumerate(es.docs):
        for a, b in spans_of(d.text, split(d.text)):
            doc_ix.append(i)
            spans.append((a, b))
    texts = [es.docs[d].text[a:b] for d, (a, b) in zip(doc_ix, spans, strict=True)]
    lexical = bm25(texts, [q.question for q in es.queries])
    n = len(spans)
    return Chunked(
        np.array(doc_ix),
        np.array([a for a, _ in spans]),
        np.array([b for _, b in spans]),
        np.zeros((n, dim), dtype=np.float32),  # no vectors: BM25 alone ranks
        time.perf_counter() - t0,
        0,
        lambda i, dense: lexical[i],
    )


def fts_rankings(texts: Sequence[str], queries: Sequence[str]) -> list[list[tuple[int, float]]]:
    """Per query, the best :data:`~lateseg.retrieve.fusion.POOL` ``(text index, BM25)``
    of the shipped lexical search: SQLite FTS5 (Porter stemming) over ``texts``, queried
    as :func:`~lateseg.index.sqlite.lexical.fts_query` queries the index."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')")
    db.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", enumerate(texts, 1))
    sql = "SELECT rowid, -bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?"
    out = []
    for q in queries:
        match = fts_query(q)
        rows = db.execute(sql, (match, POOL)) if match is not None else []
        out.append([(int(r) - 1, float(b)) for r, b in rows])
    db.close()
    return out


def hybrid(ch: Chunked, es: EvalSet, routed: bool | Callable[[str], bool]) -> Chunked:
    """Dense and lexical fused as the shipped hybrid search fuses them (the best
    :data:`~lateseg.retrieve.fusion.POOL` of each, :func:`~lateseg.retrieve.fusion.fuse`;
    lexical is :func:`fts_rankings`), for every query or only for those ``routed``
    picks: True, queries that name code (:data:`IDENTIFIER`); a predicate, the queries
    it is true of (such as the shipped ``auto``: :func:`~lateseg.ask.options.search_mode`)."""
    texts = [es.docs[d].text[a:b] for d, a, b in zip(ch.doc, ch.start, ch.end, strict=True)]
    lexical = fts_rankings(texts, [q.question for q in es.queries])
    if routed is True:
        routed = lambda q: bool(IDENTIFIER.search(q))  # noqa: E731

    def rescore(i: int, dense: np.ndarray) -> np.ndarray:
        if routed and callable(routed) and not routed(es.queries[i].question):
            return dense
        best = np.argsort(-dense, kind="stable")[:POOL]
        fused = fuse([[(int(j), float(dense[j])) for j in best], lexical[i]], (1.0, 1.0))
        out = np.full(len(dense), -1.0)  # below every fused candidate
        for j, score in fused:
            out[j] = score
        return out

    return Chunked(ch.doc, ch.start, ch.end, ch.vecs, ch.seconds, ch.lost, rescore)


def shipped_search(ch: Chunked, es: EvalSet, units: bool = True) -> Chunked:
    """The default search as ``ask`` and ``search`` run it (mode ``auto``): dense, or
    fused (:func:`hybrid`) for the queries :func:`~lateseg.ask.options.search_mode`
    routes there where the corpus holds code; a corpus is a codebase where at least
    :data:`~lateseg.ask.code_search.CODEBASE_SHARE` of these chunks are code. The fused
    queries' code hits are returned as their units (``passages="auto"``:
    :func:`with_units`) unless not ``units`` (the search before round 7)."""
    kinds = np.array([es.docs[d].kind == "code" for d in ch.doc], dtype=bool)
    if not kinds.any():
        return ch
    codebase = bool(kinds.mean() >= CODEBASE_SHARE)
    routed = [search_mode("auto", q.question, codebase) == "hybrid" for q in es.queries]
    out = hybrid(ch, es, routed=lambda q: search_mode("auto", q, codebase) == "hybrid")
    return with_units(out, es, lambda i: routed[i]) if units else out


def with_units(ch: Chunked, es: EvalSet, units_for: Callable[[int], bool]) -> Chunked:
    """``ch`` with each code chunk returned as its innermost function, method or class of
    at most :data:`~lateseg.ask.options.UNIT_CHARS` characters
    (:func:`~lateseg.retrieve.retriever.innermost_unit`, as ``Retriever.units``), for the
    queries ``units_for`` is true of."""
    spans = np.stack([ch.start, ch.end], axis=1).copy()
    for r, (d, a, b) in enumerate(zip(ch.doc, ch.start, ch.end, strict=True)):
        doc = es.docs[int(d)]
        if doc.kind == "code":
            unit = innermost_unit(doc, int(a), int(b), UNIT_CHARS)
            if unit is not None:
                spans[r] = (unit.start, unit.end)
    out = Chunked(ch.doc, ch.start, ch.end, ch.vecs, ch.seconds, ch.lost, ch.rescore)
    out.units, out.units_for = spans, units_for
    return out


def late_interaction(
    ch: Chunked, es: EvalSet, enc: LateEncoder, tokens: Sequence[Any], mix: float | None
) -> tuple[Chunked, dict[str, float]]:
    """Lever: the dense top 50 re-ranked by MaxSim (ColBERT's late interaction) between
    the query's token vectors and each chunk's contextual token vectors from the whole
    document's pass, kept as int8 (per-token scale). ``mix`` None ranks the 50 by MaxSim
    alone; else by ``(1 - mix) * dense + mix * maxsim``. Also its cost: bytes per chunk
    and milliseconds per query."""
    per_chunk = []
    for d, a, b in zip(ch.doc, ch.start, ch.end, strict=True):
        i, j = tokens[d].token_range(int(a), int(b))
        v = normalise(tokens[d].vectors[i:j])
        scale = np.maximum(np.abs(v).max(axis=1, keepdims=True), 1e-12) / 127
        per_chunk.append((np.round(v / scale).astype(np.int8), scale.astype(np.float32)))
    queries = [normalise(enc.encode_document(q.question).vectors) for q in es.queries]
    spent: list[float] = []

    def rescore(i: int, dense: np.ndarray) -> np.ndarray:
        t0 = time.perf_counter()
        top = np.argsort(-dense, kind="stable")[:50]
        sim = np.array(
            [
                (queries[i] @ (per_chunk[r][0] * per_chunk[r][1]).T).max(axis=1).mean()
                if len(per_chunk[r][0])
                else 0.0
                for r in top
            ]
        )
        out = dense - 10.0  # below every re-ranked chunk
        out[top] = 10.0 + (sim if mix is None else (1 - mix) * dense[top] + mix * sim)
        spent.append(time.perf_counter() - t0)
        return out

    cost = {
        "bytes_per_chunk": float(np.mean([c[0].nbytes + c[1].nbytes for c in per_chunk])),
        "ms_per_query": 0.0,
    }
    out = Chunked(ch.doc, ch.start, ch.end, ch.vecs, ch.seconds, ch.lost, rescore)
    out.cost = cost  # type: ignore[attr-defined]
    out.spent = spent  # type: ignore[attr-defined]
    return out, cost


def rebuilt(ch: Chunked, vecs: Sequence[np.ndarray]) -> Chunked:
    """``ch`` with each document's chunk vectors replaced (same chunks, same order)."""
    return Chunked(ch.doc, ch.start, ch.end, np.vstack(vecs), ch.seconds, ch.lost)


def without_fields(ch: Chunked, es: EvalSet, enc: LateEncoder, ours: LatesegSystems) -> Chunked:
    """The default before issue 30: code chunks without their unit's name and signature
    (``lateseg.encode.fields``) mixed in."""
    vecs = [
        enc.chunk_vectors(d.text, t, [(c.start, c.end) for c in cs], code=d.kind == "code")
        for d, t, cs in zip(es.docs, ours.tokens, ours.chunks, strict=True)
        if cs
    ]
    return rebuilt(ch, vecs)


#: Token lengths above which a chunk keeps its naive half in the partial-naive lever.
NAIVE_ABOVE = (96, 128, 144)


def partial_naive(
    ch: Chunked, es: EvalSet, enc: LateEncoder, ours: LatesegSystems, above: int
) -> tuple[Chunked, float]:
    """Lever (issue 31, item 3): the naive half only for chunks longer than ``above``
    tokens (a late window is 128); shorter ones, which one window already reads whole,
    keep the pure late vector (with code's unit field). Returns the chunks and the share
    of naive tokens saved."""
    import dataclasses

    late_only = LateEncoder(dataclasses.replace(enc.config, late_weight=1.0, code_late_weight=1.0))
    out, saved, total = ch.vecs.copy(), 0, 0
    row = 0
    for d, t, cs in zip(es.docs, ours.tokens, ours.chunks, strict=True):
        if not cs:
            continue
        spans = [(c.start, c.end) for c in cs]
        late = late_only.chunk_vectors(
            d.text, t, spans, code=d.kind == "code", fields=chunk_fields(d, cs)
        )
        for k, (a, b) in enumerate(spans):
            i, j = t.token_range(a, b)
            total += j - i
            if j - i <= above:
                out[row + k] = late[k]
                saved += j - i
        row += len(spans)
    assert row == len(out)
    return Chunked(ch.doc, ch.start, ch.end, out, ch.seconds, ch.lost), saved / max(total, 1)


def prose_sections(
    ch: Chunked, es: EvalSet, enc: LateEncoder, ours: LatesegSystems, weight: float
) -> Chunked:
    """Lever: prose chunks get a field too, their section path (clause or heading, as
    cited) embedded alone and mixed in like code's unit fields."""
    out = ch.vecs.copy()
    rows, labels = [], []
    where: dict[int, Locator] = {}  # one per document: it sorts the document's sections
    for row, (d, a, b) in enumerate(zip(ch.doc, ch.start, ch.end, strict=True)):
        doc = es.docs[d]
        if doc.kind != "code":
            if d not in where:
                where[d] = Locator(doc)
            label = where[d].section(int(a), int(b))
            if label:
                rows.append(row)
                labels.append(label)
    if rows:
        out[rows] = normalise(out[rows] + weight * enc.embed_texts(labels))
    return Chunked(ch.doc, ch.start, ch.end, out, ch.seconds, ch.lost)


def late_mix(systems: dict[str, Chunked], es: EvalSet, weight: float) -> Chunked:
    """Lever (issue 62): prose chunks' vectors mixed ``weight`` late, the rest naive, as
    ``EncoderConfig.late_weight`` does (``normalise(w * late + (1 - w) * naive)``), from the
    same dynamic chunks' pure late and naive vectors; code chunks keep the default's."""
    default = systems["lateseg late+dynamic (default)"]
    late = systems["lateseg late+dynamic, pure late vectors"]
    naive = systems["dynamic + naive"]
    prose = np.array([es.docs[d].kind != "code" for d in default.doc])
    mixed = normalise(weight * late.vecs + (1.0 - weight) * naive.vecs)
    vecs = np.where(prose[:, None], mixed, default.vecs)
    return Chunked(default.doc, default.start, default.end, vecs, default.seconds, default.lost)


def prose_titles(ch: Chunked, es: EvalSet, enc: LateEncoder, weight: float) -> Chunked:
    """Lever (issue 62): each prose chunk knows its document and section: the field
    "document title > section path" (the title as :func:`lateseg.answer.scope.title_of`
    reads it: metadata, else the first line) embedded alone and mixed in by ``weight``,
    as code's unit fields are (summary-augmented chunking, arXiv 2510.06999)."""
    from lateseg.answer.scope import title_of

    out = ch.vecs.copy()
    rows, fields = [], []
    where: dict[int, Locator] = {}
    titles: dict[int, str] = {}
    for row, (d, a, b) in enumerate(zip(ch.doc, ch.start, ch.end, strict=True)):
        doc = es.docs[d]
        if doc.kind == "code":
            continue
        if d not in where:
            where[d] = Locator(doc)
            titles[d] = title_of(doc.meta, doc.text[:2000]) or Path(doc.source).stem
        section = where[d].section(int(a), int(b)) or ""
        rows.append(row)
        fields.append(f"{titles[d]} > {section}" if section else titles[d])
    if rows:
        out[rows] = normalise(out[rows] + weight * enc.embed_texts(fields))
    return Chunked(ch.doc, ch.start, ch.end, out, ch.seconds, ch.lost)


def small_to_big(ch: Chunked, es: EvalSet, cap: int) -> Chunked:
    """Lever: each code chunk returned as its innermost function or method (with the
    chunk, at most ``cap`` characters) when that fits the budget (:func:`passage_recall`)."""
    parents = np.stack([ch.start, ch.end], axis=1).copy()
    for d in np.unique(ch.doc):
        if es.docs[d].kind != "code":
            continue
        rows = np.nonzero(ch.doc == d)[0]
        spans = [(int(ch.start[r]), int(ch.end[r])) for r in rows]
        for r, (a, b), unit in zip(
            rows, spans, units_at_middle(es.docs[d], spans, ("function", "method")), strict=True
        ):
            if unit is not None:
                lo, hi = min(unit.start, a), max(unit.end, b)
                if hi - lo <= cap:
                    parents[r] = (lo, hi)
    out = Chunked(ch.doc, ch.start, ch.end, ch.vecs, ch.seconds, ch.lost)
    out.parents = parents
    return out


def ql_scores(question: str, passages: Sequence[str]) -> np.ndarray:
    """Lever (issue 30, item 5): the library's query likelihood
    (:func:`lateseg.generate.rerank.likelihoods`) under the packaged generator."""
    from lateseg.generate.local import shared_generator

    return likelihoods(shared_generator(), question, passages)


def query_likelihood(ch: Chunked, es: EvalSet) -> Chunked:
    """Lever: the dense top :data:`RERANK_TOP` re-ranked by dense + query likelihood, each
    standardised over them (:func:`zmix`); the rest keep their dense order."""
    spent: list[float] = []

    def rescore(i: int, dense: np.ndarray) -> np.ndarray:
        t0 = time.perf_counter()
        top = np.argsort(-dense, kind="stable")[:RERANK_TOP]
        texts = [es.docs[ch.doc[r]].text[ch.start[r] : ch.end[r]] for r in top]
        out = dense - 100.0
        out[top] = 100.0 + zmix(dense[top], ql_scores(es.queries[i].question, texts))
        spent.append(time.perf_counter() - t0)
        return out

    out = Chunked(ch.doc, ch.start, ch.end, ch.vecs, ch.seconds, ch.lost, rescore)
    out.cost = {"bytes_per_chunk": 0.0, "ms_per_query": 0.0}  # type: ignore[attr-defined]
    out.spent = spent  # type: ignore[attr-defined]
    return out


def profile_system(es: EvalSet, enc: LateEncoder, tokens: int) -> dict[str, Any]:
    """The library's default chunks and vectors made with ``enc`` (an ingest profile's
    encoder, :mod:`lateseg.encode.profiles`: its own windows, mix and backend), its own
    queries embedded as an index of that profile would embed them; timed like the
    default row."""
    qvecs = enc.embed_queries([q.question for q in es.queries])
    per_doc = []
    for d in es.docs:
        code = d.kind == "code"
        t0 = time.perf_counter()
        toks = enc.encode_document(d.text, code=code)
        chunks = DynamicChunker().chunk(d, toks)
        spans = [(c.start, c.end) for c in chunks]
        vecs = (
            enc.chunk_vectors(d.text, toks, spans, code=code, fields=chunk_fields(d, chunks))
            if spans
            else None
        )
        per_doc.append(DocChunks(spans, vecs, time.perf_counter() - t0))
    return evaluate(assemble(enc, es.docs, per_doc), qvecs, es, tokens)


def run_set(
    es: EvalSet,
    enc: LateEncoder,
    peers: dict[str, Callable[[Sequence[Document]], Chunked]],
    levers: bool = False,
    rerank_ql: bool = False,
    naive_levers: bool = False,
    profiles: dict[str, LateEncoder] | None = None,
    title_weights: Sequence[float] = (),
    late_weights: Sequence[float] = (),
    hybrid_levers: bool = False,
) -> dict[str, Any]:
    tokens = sum(len(enc.tokenize(d.text)) for d in es.docs)
    qvecs = enc.embed_queries([q.question for q in es.queries])
    gold = [q.end - q.start for q in es.queries]
    log(f"[{es.name}] {len(es.docs)} docs, {tokens} tokens, {len(es.queries)} queries")
    results: dict[str, Any] = {}
    t0 = time.perf_counter()
    ours = LatesegSystems(enc, keep_tokens=levers or naive_levers)
    systems = ours.run(es.docs)
    systems[SHIPPED] = shipped_search(systems["lateseg late+dynamic (default)"], es)
    systems[CHUNKS_SHIPPED] = shipped_search(systems["lateseg late+dynamic (default)"], es, False)
    if levers:
        default = systems["lateseg late+dynamic (default)"]
        systems["lever off: code chunks without unit fields"] = without_fields(
            default, es, enc, ours
        )
        systems["lever: prose section fields 0.3"] = prose_sections(default, es, enc, ours, 0.3)
        systems["lever: small-to-big, code chunks as their function (<= 2000 chars)"] = (
            small_to_big(default, es, 2000)
        )
        for w in PRIOR_WEIGHTS:
            systems[f"lever: document prior {w}"] = document_prior(default, w)
        systems["lever: hybrid, every query"] = hybrid(default, es, routed=False)
        systems["lever: hybrid, queries naming code"] = hybrid(default, es, routed=True)
        for mix in (None, 0.5):
            name = "MaxSim re-rank of the top 50" + ("" if mix is None else f", mixed {mix}")
            systems[f"lever: {name}"], _ = late_interaction(default, es, enc, ours.tokens, mix)
    if hybrid_levers:
        from lateseg.answer.question import code_kind

        default = systems["lateseg late+dynamic (default)"]
        systems["lever: hybrid, every query"] = hybrid(default, es, routed=False)
        systems["lever: hybrid, queries naming code"] = hybrid(default, es, routed=True)
        systems["lever: hybrid, questions about code (code_kind)"] = hybrid(
            default, es, routed=lambda q: code_kind(q) is not None
        )
    if naive_levers:
        default = systems["lateseg late+dynamic (default)"]
        for above in NAIVE_ABOVE:
            lever, saved = partial_naive(default, es, enc, ours, above)
            name = f"lever: naive half only for chunks over {above} tokens ({saved:.0%} saved)"
            systems[name] = lever
    for w in late_weights:
        systems[f"lever: prose late weight {w}"] = late_mix(systems, es, w)
    for w in title_weights:
        systems[f"lever: title and section field {w}"] = prose_titles(
            systems["lateseg late+dynamic (default)"], es, enc, w
        )
    if rerank_ql:
        systems[f"lever: query likelihood re-rank of the top {RERANK_TOP}"] = query_likelihood(
            systems["lateseg late+dynamic (default)"], es
        )
    for name, ch in systems.items():
        results[name] = evaluate(ch, qvecs, es, tokens)
        if name == "lateseg late+dynamic (default)":
            for profile, penc in (profiles or {}).items():
                t1 = time.perf_counter()
                results[f"lateseg late+dynamic (profile {profile})"] = profile_system(
                    es, penc, tokens
                )
                log(f"  profile {profile}: {time.perf_counter() - t1:.0f}s")
        if getattr(ch, "spent", None):
            cost = dict(ch.cost)  # type: ignore[attr-defined]
            cost["ms_per_query"] = 1000 * float(np.mean(ch.spent))  # type: ignore[attr-defined]
            results[name]["lever_cost"] = cost
            log(f"  {name}: {cost}")
    log(f"  lateseg systems: {time.perf_counter() - t0:.0f}s")
    late_s, naive_s = ours.encoder_seconds["late"], ours.encoder_seconds["naive"]
    encoder = {
        "late_seconds": late_s,
        "naive_seconds": naive_s,
        "late_tokens_per_s": tokens / late_s,
        "naive_tokens_per_s": tokens / naive_s,
        "late_over_naive_throughput": naive_s / late_s,
    }
    for name, run in peers.items():
        t0 = time.perf_counter()
        try:
            results[name] = evaluate(run(es.docs), qvecs, es, tokens)
        except Exception as e:  # a peer failing on a document must not sink the run
            results[name] = {"error": f"{type(e).__name__}: {e}"}
        log(f"  {name}: {time.perf_counter() - t0:.0f}s")
    if peers:
        t0 = time.perf_counter()
        results["BM25 (LangChain 1000/200 chunks)"] = evaluate(
            bm25_system(es, langchain_recursive(1000, 200), qvecs.shape[1]), qvecs, es, tokens
        )
        log(f"  BM25: {time.perf_counter() - t0:.0f}s")
    return {
        "documents": len(es.docs),
        "characters": sum(len(d.text) for d in es.docs),
        "tokens": tokens,
        "queries": len(es.queries),
        "mean_gold_chars": float(np.mean(gold)) if gold else 0.0,
        "notes": es.notes,
        "encoder": encoder,
        "systems": results,
    }


def markdown(report: dict[str, Any]) -> str:
    metrics = [f"recall@{b}" for b in BUDGETS] + [f"hit@{HIT_K}", f"MRR@{MRR_K}"]
    lines = [
        "# Retrieval benchmark",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Embedder: `{report['embedder']}` (same model for every system); exact inner "
        "product; recall@B = gold characters inside the first B characters of ranked "
        f"chunks; hit@{HIT_K} / MRR@{MRR_K}: a chunk covering >= 50% of the gold span. "
        "Naive vectors truncate a chunk to the model's window. "
        "Time = chunking + encoding of the corpus on this machine "
        f"({report['cpus']} CPUs), model loading excluded.",
        "",
    ]
    for name, res in report["sets"].items():
        lines += [
            f"## {name}: {res['queries']} queries, {res['documents']} documents, "
            f"{res['tokens']:,} tokens, mean gold {res['mean_gold_chars']:.0f} chars",
            "",
            "| system | chunks | mean chars | " + " | ".join(metrics) + " | time s | tok/s |",
            "|---|---:|---:|" + "---:|" * len(metrics) + "---:|---:|",
        ]
        for sysname, r in res["systems"].items():
            if "error" in r:
                lines.append(f"| {sysname} | failed: {r['error']} |")
                continue
            cells = [f"{r['summary'][m]:.3f}" for m in metrics]
            if r["unlocated_chunks"]:
                sysname += f" ({r['unlocated_chunks']} chunks not located, dropped)"
            lines.append(
                f"| {sysname} | {r['chunks']} | {r['mean_chunk_chars']:.0f} | "
                + " | ".join(cells)
                + f" | {r['seconds']:.1f} | {r['tokens_per_s']:,.0f} |"
            )
        e = res["encoder"]
        lines += [
            "",
            f"Encoder alone: late (whole documents, windows) {e['late_seconds']:.1f} s = "
            f"{e['late_tokens_per_s']:,.0f} tok/s; naive (each default dynamic chunk on "
            f"its own, batched by length) {e['naive_seconds']:.1f} s = "
            f"{e['naive_tokens_per_s']:,.0f} tok/s; late/naive throughput "
            f"**{e['late_over_naive_throughput']:.2f}**.",
        ]
        lines += [""] + [f"* {n}" for n in res["notes"]] + ([""] if res["notes"] else [])
    if report["skipped_sets"]:
        lines += ["Sets skipped: " + "; ".join(report["skipped_sets"]), ""]
    if report["skipped_peers"]:
        lines += ["Peers skipped:", ""]
        lines += [f"* {k}: {v}" for k, v in report["skipped_peers"].items()] + [""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sets",
        nargs="+",
        default=["sample_qa", "licenses"],
        choices=[*SETS, "real"],
        help="evaluation sets; `real` for every real corpus (data/real)",
    )
    ap.add_argument("--no-peers", action="store_true", help="lateseg systems only")
    ap.add_argument("--levers", action="store_true", help="also issue 30's levers (document prior)")
    ap.add_argument(
        "--hybrid-levers",
        action="store_true",
        help="also dense + BM25 fused as shipped (lateseg.retrieve.fusion): every query, "
        "queries naming code, questions about code (issue 63)",
    )
    ap.add_argument(
        "--naive-levers",
        action="store_true",
        help="issue 31: the naive half only for chunks longer than 96/128/144 tokens",
    )
    ap.add_argument(
        "--rerank-ql",
        action="store_true",
        help="also the default re-ranked by the generator's query likelihood (slow: 4-6 s/query)",
    )
    ap.add_argument(
        "--backend", default=None, help="embedder backend (default: the library default)"
    )
    ap.add_argument("--overlap", type=int, default=None, help="late window overlap (tokens)")
    ap.add_argument("--window", type=int, default=None, help="late window for prose (tokens)")
    ap.add_argument(
        "--profile",
        nargs="+",
        choices=list(PROFILES),
        default=[],
        help="also the default made with these ingest profiles (lateseg.encode.profiles; "
        "--backend applies to them too), each beside the default row",
    )
    ap.add_argument(
        "--title-fields",
        nargs="+",
        type=float,
        default=[],
        metavar="W",
        help="also the default with each prose chunk's 'title > section' field mixed in "
        "at these weights (issue 62's lever)",
    )
    ap.add_argument(
        "--late-weights",
        nargs="+",
        type=float,
        default=[],
        metavar="W",
        help="also the default with prose chunks mixed W late, 1 - W naive (the prose "
        "late_weight lever, from the same chunks)",
    )
    ap.add_argument(
        "--out", default="retrieval", help="results file stem under bench/results (retrieval)"
    )
    args = ap.parse_args(argv)
    args.sets = list(
        dict.fromkeys(
            s for x in args.sets for s in (real_corpora.SET_NAMES if x == "real" else (x,))
        )
    )

    from lateseg.encode.models import resolve_embedder

    settings: dict[str, Any] = {"backend": args.backend}
    if args.overlap is not None:
        settings["overlap"] = args.overlap
    if args.window is not None:
        settings["window"] = args.window
    enc = LateEncoder(EncoderConfig(**settings))
    enc.encode_document("Warm-up.")  # load the model outside every timing
    profiles = {  # each as an index of that profile runs it with this backend
        p: LateEncoder(
            with_profile_windows(apply_profile(EncoderConfig(backend=args.backend), p), p)
        )
        for p in args.profile
    }
    for p in profiles.values():
        p.encode_document("Warm-up.")
    skipped: dict[str, str] = {}
    peers = {} if args.no_peers else peer_systems(enc, skipped)
    report: dict[str, Any] = {
        "command": " ".join(["python bench/retrieval.py", *(argv or sys.argv[1:])]),
        "embedder": Path(resolve_embedder(None)).parent.name + "/model (all-MiniLM-L6-v2)",
        "cpus": os.cpu_count(),
        "sets": {},
        "skipped_sets": [],
        "skipped_peers": skipped,
    }
    for name in args.sets:
        fname, build = SETS[name]
        path = DATA / "eval" / fname
        if not path.is_file():
            log(f"skip set {name}: {path} does not exist")
            report["skipped_sets"].append(f"{name} ({path.relative_to(ROOT)} missing)")
            continue
        es = build(path)
        if not es.queries:
            report["skipped_sets"].append(f"{name} (no usable queries)")
            continue
        report["sets"][name] = run_set(
            es, enc, peers, args.levers, args.rerank_ql, args.naive_levers, profiles,
            args.title_fields, args.late_weights, args.hybrid_levers,
        )  # fmt: skip
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.out}.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    md = markdown(report)
    path = OUT / f"{args.out}.md"
    kept = path.read_text("utf-8").partition(NOTES)[2] if path.is_file() else ""
    path.write_text(md + ("\n" + NOTES + kept if kept else ""), "utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
