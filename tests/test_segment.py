from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, license_file
from hypothesis import given, settings
from hypothesis import strategies as st

from lateseg.errors import ConfigError
from lateseg.ingest import load_document
from lateseg.segment import DynamicChunker, DynamicConfig, FixedChunker
from lateseg.segment.sentences import sentence_starts
from lateseg.types import Document, check_chunks


def test_sentence_splitter_knows_legal_abbreviations_and_numbers():
    text = (
        "See Sec. 12.3 of the Agreement. Acme Inc. shall pay e.g. fees to the U.S. "
        "Treasury. Then it ends! Next sentence (a). Final one."
    )
    starts = sentence_starts(text)
    got = [text[s : s + 6] for s in starts]
    assert got == ["Acme I", "Then i", "Next s", "Final "]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-5, 3), min_size=1, max_size=900),
    st.integers(1, 40),
    st.integers(0, 200),
)
def test_dp_bounds_are_never_broken(gains, min_tokens, extra):
    cfg = DynamicConfig(
        min_tokens=min_tokens,
        max_tokens=2 * min_tokens + extra,
        target_tokens=min_tokens + extra // 2,
    )
    bounds = DynamicChunker(cfg).boundaries(np.asarray(gains))
    n = len(gains)
    assert bounds[0] == 0 and bounds[-1] == n
    sizes = np.diff(bounds)
    assert (sizes <= cfg.max_tokens).all()
    if n >= cfg.min_tokens:
        assert (sizes >= cfg.min_tokens).all()


def test_dp_prefers_strong_boundaries():
    gains = np.full(600, -1.5)
    gains[[150, 310, 450]] = 2.0
    cfg = DynamicConfig(min_tokens=32, target_tokens=150, max_tokens=256)
    assert DynamicChunker(cfg).boundaries(gains) == [0, 150, 310, 450, 600]


def test_config_errors_say_what_to_do():
    with pytest.raises(ConfigError, match="raise max_tokens"):
        DynamicConfig(min_tokens=64, max_tokens=100, target_tokens=80)
    with pytest.raises(ConfigError, match="target_tokens"):
        DynamicConfig(min_tokens=10, max_tokens=100, target_tokens=5)


def _token_sizes(tokens, chunks):
    return [np.subtract(*tokens.token_range(c.start, c.end)[::-1]) for c in chunks]


@pytest.mark.parametrize("name", ["msa.pdf", "lease.pdf"])
def test_dynamic_chunks_of_a_contract_follow_clauses(encoder, name):
    doc = load_document(DATA / "contracts" / name)
    tokens = encoder.encode_document(doc.text)
    chunker = DynamicChunker()
    chunks = chunker.chunk(doc, tokens)
    check_chunks(doc, chunks)
    sizes = _token_sizes(tokens, chunks)
    assert max(sizes) <= chunker.config.max_tokens and min(sizes) >= chunker.config.min_tokens
    # Most chunks start where a clause, heading or paragraph starts, not mid-sentence.
    clause_starts = {s.start for s in doc.spans("clause")}
    at_clause = sum(c.start in clause_starts for c in chunks)
    assert at_clause >= 0.5 * len(chunks)
    assert all(c.page is not None for c in chunks)
    assert sum(c.section is not None for c in chunks) >= 0.8 * len(chunks)


def test_fixed_chunker_cuts_at_absolute_token_positions(encoder):
    doc = load_document(license_file("Apache-2.0"))
    tokens = encoder.encode_document(doc.text)
    chunks = FixedChunker(size=100).chunk(doc, tokens)
    check_chunks(doc, chunks)
    sizes = _token_sizes(tokens, chunks)
    assert all(s == 100 for s in sizes[:-1]) and 0 < sizes[-1] <= 100


def test_boundaries_are_translation_invariant(encoder):
    """Prepending an unrelated paragraph shifts later boundaries by exactly its length."""
    base = license_file("Apache-2.0").read_text()
    prefix = (
        "Editorial note. This copy of the license was collected for an internal archive "
        "of third-party notices; it has not been modified in any way.\n\n"
    )
    chunker = DynamicChunker()

    def cut(text):
        tokens = encoder.encode_document(text)
        chunks = chunker.chunk(Document("/t/apache", text, "text"), tokens)
        return chunks, tokens.pool([(c.start, c.end) for c in chunks])

    plain, v_plain = cut(base)
    shifted, v_shift = cut(prefix + base)
    starts_plain = [c.start for c in plain]
    starts_shift = [c.start - len(prefix) for c in shifted]
    # Past the first few chunks the two segmentations coincide exactly...
    tail = set(starts_plain[3:])
    assert len(tail & set(starts_shift)) >= 0.9 * len(tail)
    # ...and the late-chunked vectors of the shared chunks barely move.
    where = {s: i for i, s in enumerate(starts_shift)}
    sims = [float(v_plain[i] @ v_shift[where[s]]) for i, s in enumerate(starts_plain) if s in where]
    assert np.mean(sims) > 0.95
    # Fixed-size chunking has no such property: almost every boundary moves.
    fixed = FixedChunker(size=128)
    f_plain = {
        c.start for c in fixed.chunk(Document("/a", base, "text"), encoder.encode_document(base))
    }
    f_shift = {
        c.start - len(prefix)
        for c in fixed.chunk(
            Document("/b", prefix + base, "text"), encoder.encode_document(prefix + base)
        )
    }
    assert len(f_plain & f_shift) < 0.5 * len(f_plain)


POLICY = DATA.parent / ".cache" / "testdata" / "policy.pdf"


@pytest.mark.slow
@pytest.mark.skipif(not POLICY.exists(), reason="run `make testdata` for the Debian Policy PDF")
def test_every_chunk_of_a_long_pdf_carries_its_page(encoder):
    """193 pages: each chunk's page is the page its first character is on."""
    from lateseg.segment.dynamic import boundary_bonus
    from lateseg.segment.spans import chunks_from_boundaries

    doc = load_document(POLICY)
    offsets = encoder.tokenize(doc.text)  # structure-only gains: no model forward needed
    bounds = DynamicChunker().boundaries(boundary_bonus(doc, offsets))
    chunks = chunks_from_boundaries(doc, offsets, bounds)
    check_chunks(doc, chunks)
    pages = doc.spans("page")
    assert len(pages) == 193 and len(chunks) > 193
    for c in chunks:
        page = next(p for p in pages if p.start <= c.start < p.end)
        assert c.page == int(page.label), (c.start, c.page, page)
    assert [c.page for c in chunks] == sorted(c.page for c in chunks)
    assert max(c.page for c in chunks) >= 190


def test_functions_that_fit_stay_whole(encoder):
    """A function or method of at most ``max_tokens`` tokens is never cut."""
    chunker = DynamicChunker()
    root = (DATA / "sample_repo").resolve()
    units = whole = 0
    for path in sorted(root.rglob("*.py")):
        doc = load_document(path, root=root)
        tokens = encoder.encode_document(doc.text)
        chunks = chunker.chunk(doc, tokens)
        for unit in doc.spans("function", "method"):
            i, j = tokens.token_range(unit.start, unit.end)
            if j - i > chunker.config.max_tokens:
                continue
            first = (
                unit.start
                + len(doc.text[unit.start : unit.end])
                - len(doc.text[unit.start : unit.end].lstrip())
            )
            units += 1
            whole += any(c.start <= first and unit.end <= c.end for c in chunks)
    assert units >= 20 and whole == units


def test_code_and_prose_have_their_own_sizes_and_survive_the_manifest():
    from lateseg.pipeline import chunker_from_dict
    from lateseg.segment.dynamic import CODE_CONFIG

    chunker = DynamicChunker()
    assert chunker.config_for(Document("/a.py", "x = 1\n", "code")) is CODE_CONFIG
    assert chunker.config_for(Document("/a.txt", "Text.", "text")) is chunker.config
    assert CODE_CONFIG.max_tokens > chunker.config.max_tokens
    custom = DynamicChunker(
        DynamicConfig(min_tokens=10, target_tokens=50, max_tokens=80),
        DynamicConfig(min_tokens=20, target_tokens=100, max_tokens=300),
    )
    again = chunker_from_dict(custom.to_dict())
    assert again.to_dict() == custom.to_dict()
    # Manifests written before code had its own size rebuild with the code default.
    legacy = {k: v for k, v in custom.to_dict().items() if k != "code"}
    assert chunker_from_dict(legacy).code == CODE_CONFIG


def test_forced_cuts_split_the_dp_and_are_kept():
    gains = np.full(1200, -1.5)
    gains[[100, 250, 400, 520, 700, 900, 1050]] = 0.6
    chunker = DynamicChunker(DynamicConfig(min_tokens=24, target_tokens=96, max_tokens=160))
    free = chunker.boundaries(gains)
    forced = chunker.boundaries(gains, [600])
    assert 600 in forced and 600 not in free
    assert (np.diff(forced) <= 160).all()
    # Within each stretch the DP is the same as on that stretch alone.
    assert [b for b in forced if b <= 600] == chunker.boundaries(gains[:600])
    with pytest.raises(ConfigError, match="min_tokens"):
        chunker.boundaries(gains, [10])


def test_semantic_change_in_blocks_is_the_cosine_of_the_two_means(monkeypatch):
    """Blocks of positions give each position the cosine of the means of the context
    tokens before and after it (checked against a direct sum at block edges and ends),
    and the same values to the bit as the whole-array computation they replaced."""
    from lateseg.segment import dynamic

    rng = np.random.default_rng(3)
    n, context = 2 * dynamic.CHANGE_BLOCK + 37, 16
    vectors = rng.standard_normal((n, 24)).astype(np.float32)
    got = dynamic.semantic_change(vectors, context)
    assert got[0] == 0.0
    for t in (1, 5, context, dynamic.CHANGE_BLOCK, dynamic.CHANGE_BLOCK + 1, n - 3, n - 1):
        left = vectors[max(t - context, 0) : t].astype(np.float64).mean(0)
        right = vectors[t : t + context].astype(np.float64).mean(0)
        cos = left @ right / (np.linalg.norm(left) * np.linalg.norm(right))
        assert got[t] == pytest.approx(1.0 - cos, abs=1e-9)
    assert np.array_equal(got, _whole_array_change(vectors, context))  # to the last bit
    monkeypatch.setattr(dynamic, "CHANGE_BLOCK", 7)
    assert np.array_equal(
        dynamic.semantic_change(vectors[:300], 40), _whole_array_change(vectors[:300], 40)
    )
    assert dynamic.semantic_change(vectors[:1], context).tolist() == [0.0]


def _whole_array_change(vectors, context):
    """semantic_change as it was computed before blocks: one cumsum and one pass over
    every position at once (the segmentation every index so far was made with)."""
    n = vectors.shape[0]
    out = np.zeros(n)
    csum = np.vstack(
        [np.zeros((1, vectors.shape[1])), np.cumsum(vectors, axis=0, dtype=np.float64)]
    )
    t = np.arange(1, n)
    lo, hi = np.maximum(t - context, 0), np.minimum(t + context, n)
    left = (csum[t] - csum[lo]) / (t - lo)[:, None]
    right = (csum[hi] - csum[t]) / (hi - t)[:, None]
    cos = (left * right).sum(1) / np.maximum(
        np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1), 1e-12
    )
    out[1:] = 1.0 - cos
    return out


def test_an_exemption_stays_with_the_rule_it_qualifies(encoder):
    """Issue 62: "This Section does not apply…" opened a new chunk and lost the subject
    it qualifies. A sentence or paragraph pointing back at the one before is no better
    a cut than a comma; an ordinary paragraph start keeps its bonus."""
    from lateseg.segment.dynamic import CLAUSE, PARAGRAPH, boundary_bonus
    from lateseg.types import Document

    rule = "Refunds. Customer may cancel within 30 days and receive a full refund of fees."
    text = (
        f"{rule}\n\nThis Section does not apply to fees paid for Enterprise plans.\n\n"
        "Notwithstanding the foregoing, taxes are never refunded.\n\n"
        "Support. Provider answers support requests within two business days."
    )
    doc = Document("terms.txt", text, "text")
    offsets = encoder.tokenize(text)
    bonus = boundary_bonus(doc, offsets)

    def at(phrase: str) -> float:
        i = int(np.searchsorted(offsets[:, 0], text.index(phrase)))
        return float(bonus[i])

    assert at("This Section does not apply") <= CLAUSE
    assert at("Notwithstanding the foregoing") <= CLAUSE
    assert at("Support. Provider") >= PARAGRAPH
