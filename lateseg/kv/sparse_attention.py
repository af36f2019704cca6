"""The attention of a sparse prefill: its settings (:class:`SparsePrefill`), each head's
shape chosen from the prompt's last queries (:func:`plan`), and the block kernel that
reads only the keys that shape keeps (:func:`attend`).

MInference (Jiang et al., 2024) observes that long-context attention heads fall into
three shapes and that each head's shape, though not its exact indices, is stable:

* **A-shape**: the first tokens (sinks) and a local band before each query;
* **vertical-slash**: a few key columns every query reads (verticals) and a few fixed
  distances back (slashes, diagonals);
* **block-sparse**: for each block of queries, a few blocks of keys.

Here, for every layer and query head of a prefill: the last ``last_q`` queries' attention
over the whole prompt is computed exactly (a ``last_q x n`` slice); each shape is
instantiated at the same key budget (about ``budget`` keys per query) from that slice
(verticals and slashes by their summed attention, blocks by pooled query-key scores for
every query block); and the head takes the shape that covers the most of the slice's
attention mass (its *recall*). Attention then runs block by block of ``block`` queries
over the gathered keys of each head's shape (always with the first key block and the
query's own block; the blocks of the last ``last_q`` queries read every key), exactly,
with the causal mask: a kernel of our own in torch. Rows
where every head's shape keeps every key run as one dense SDPA call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lateseg.errors import ConfigError
from lateseg.kv.presses import at_least

PATTERNS = ("a-shape", "vertical-slash", "block-sparse")


@dataclass(frozen=True)
class SparsePrefill:
    """Sparse prefill settings: ``budget`` keys per query (about; whole blocks), blocks
    of ``block`` queries and keys, the head's shape chosen from its last ``last_q``
    queries among ``patterns``, and prompts under ``min_tokens`` prefilled densely.

    The defaults are CPU's (``bench/prefill.py``): blocks of 128 (MInference's GPU
    kernels use 64; on CPU the gathered keys' copies cost as much as the attention, and
    larger blocks halve them) and 768 keys per query, which prefilled 7.5k-token
    prompts about 1.4x faster than dense SDPA with the dense prefill's needle answers;
    at 4k tokens it is about even with dense, so shorter prompts stay dense."""

    budget: int = 768
    block: int = 128
    last_q: int = 64
    min_tokens: int = 4096
    patterns: tuple[str, ...] = PATTERNS

    def __post_init__(self) -> None:
        at_least(self, "block", 1, "sparse prefill ")
        at_least(self, "budget", 2 * self.block, "sparse prefill ")
        at_least(self, "last_q", 1, "sparse prefill ")
        at_least(self, "min_tokens", 0, "sparse prefill ")
        bad = [p for p in self.patterns if p not in PATTERNS]
        if bad or not self.patterns:
            raise ConfigError(
                f"sparse prefill patterns={list(self.patterns)}; choose among {', '.join(PATTERNS)}"
            )

    def applies(self, length: int) -> bool:
        """Whether a prompt of ``length`` tokens is prefilled sparsely (a budget of
        ``length`` or more reads every key: exact, and no faster)."""
        return length >= self.min_tokens


# -- the plan: each head's shape --------------------------------------------------------


@dataclass
class Plan:
    """Which keys each query head reads: ``blocks[h, i, j]`` (query block i reads key
    block j) and ``columns[h]`` (single keys read by every later query block; -1 pads),
    with the shape each head took."""

    blocks: Any  # bool [H, nb, nb]
    columns: Any  # long [H, c]
    patterns: list[str]


def plan(
    query: Any, key: Any, settings: SparsePrefill, scaling: float, softcap: float | None
) -> Plan:
    """Each head's shape from its last queries' attention (see the module's docstring).
    ``query`` ``[H, n, d]``, ``key`` ``[H, n, d]`` (already one per query head)."""
    import torch

    h, n, _ = query.shape
    b = settings.block
    nb = -(-n // b)
    kb = max(2, settings.budget // b)  # key blocks per query block
    dev = query.device
    if settings.budget >= n:  # the budget holds the prompt: every key (an A-shape as wide)
        whole = torch.ones(nb, nb, dtype=torch.bool, device=dev).tril()
        none = torch.full((h, 1), -1, dtype=torch.long, device=dev)
        return Plan(whole[None].expand(h, -1, -1), none, ["a-shape"] * h)
    # The last queries' exact attention [H, L, n].
    last = min(settings.last_q, n)
    qpos = torch.arange(n - last, n, device=dev)
    logits = _logits(query[:, -last:], key, scaling, softcap)
    logits = logits.masked_fill(
        torch.arange(n, device=dev)[None, None] > qpos[None, :, None], float("-inf")
    )
    probs = torch.softmax(logits.float(), dim=-1)
    rows = torch.arange(nb, device=dev)
    dist = rows[:, None] - rows[None, :]  # query block - key block
    causal = dist >= 0
    always = causal & ((dist == 0) | (rows[None, :] == 0))  # own block and the first
    options: dict[str, tuple[Any, Any]] = {}
    none = torch.full((h, 1), -1, dtype=torch.long, device=dev)
    if "a-shape" in settings.patterns:
        blocks = always | (causal & (dist < kb - 1))
        options["a-shape"] = (blocks[None].expand(h, -1, -1), none)
    if "vertical-slash" in settings.patterns:
        options["vertical-slash"] = _vertical_slash(probs, qpos, n, b, kb, always, causal)
    if "block-sparse" in settings.patterns:
        options["block-sparse"] = _block_sparse(query, key, b, kb, always, causal, scaling)
    # Recall of each shape on the last queries: the attention mass it covers.
    names = list(options)
    mass = torch.nn.functional.pad(probs, (0, nb * b - n)).view(h, last, nb, b).sum(dim=-1)
    recall = torch.stack([_recall(mass, probs, qpos, *options[p], b) for p in names])  # [P, H]
    best = recall.argmax(dim=0)
    blocks = torch.stack([options[names[int(best[i])]][0][i] for i in range(h)])
    # The last queries (the question, when the prompt ends with one) read every key:
    # their attention is known exactly already, and the answer starts from them.
    blocks[:, (n - last) // b :] = causal[(n - last) // b :]
    blocks = _even(blocks, causal)
    width = max(options[p][1].shape[1] for p in names)
    columns = torch.full((h, width), -1, dtype=torch.long, device=dev)
    for i in range(h):
        c = options[names[int(best[i])]][1][i]
        columns[i, : c.shape[0]] = c
    return Plan(blocks, columns, [names[int(j)] for j in best])


def _even(blocks: Any, causal: Any) -> Any:
    """``blocks`` with every head reading as many key blocks per query block as the head
    that reads most: the others also read their nearest unread earlier blocks (more
    keys read exactly cost accuracy nothing, and the kernel then needs no padding)."""

    count = blocks.sum(dim=2, keepdim=True)  # [H, nb, 1]
    need = count.amax(dim=0, keepdim=True) - count
    unread = causal[None] & ~blocks
    # rank of each unread block counting from the nearest (the query's own side)
    rank = unread.flip(-1).cumsum(dim=-1).flip(-1)
    return blocks | (unread & (rank <= need))


def _logits(q: Any, k: Any, scaling: float, softcap: float | None) -> Any:
    import torch

    out = torch.matmul(q, k.transpose(-1, -2)) * scaling
    if softcap is not None:
        out = torch.tanh(out / softcap) * softcap
    return out


def _vertical_slash(probs, qpos, n, b, kb, always, causal):  # type: ignore[no-untyped-def]
    """Verticals: a quarter of the budget, the key columns with the most attention from
    the last queries. Slashes: the distances back with the most attention, read as whole
    key blocks (as MInference's kernel reads them): a distance ``o`` falls in block
    distances ``o // b`` and ``o // b + 1``, so each block distance scores the slash mass
    of both, and the best fill the rest of the budget."""
    import torch

    h = probs.shape[0]
    dev = probs.device
    nb = always.shape[0]
    nverts = max(1, (kb * b) // 4)
    cols = probs.sum(dim=1)  # [H, n]
    cols[:, :b] = -1  # the first block is always read
    verticals = torch.topk(cols, min(nverts, n), dim=-1).indices.sort(dim=-1).values
    slash = torch.nn.functional.pad(_diagonals(probs), (0, nb * b - n))  # [H, n] by distance
    per = slash.view(h, nb, b).sum(dim=-1)  # mass by o // b
    score = per + torch.nn.functional.pad(per, (1, 0))[:, :nb]  # block distance dd
    score[:, 0] = float("inf")  # the query's own block
    room = max(1, kb - 1 - nverts // b)  # block distances besides the first block
    top = torch.topk(score, min(room, nb), dim=-1).indices  # [H, room]
    dist = torch.arange(nb, device=dev)[:, None] - torch.arange(nb, device=dev)[None, :]
    chosen = torch.zeros(h, nb + 1, dtype=torch.bool, device=dev)
    chosen.scatter_(1, top, True)
    reads = chosen[:, dist.clamp(min=0)] & causal  # [H, nb, nb]
    return always | reads, verticals


def _diagonals(probs: Any) -> Any:
    """``[H, n]``: the attention mass of the last ``L`` queries (the prompt's last
    positions) at each distance back, summed along the diagonals of ``probs``
    ``[H, L, n]`` in one strided pass."""
    import torch

    h, last, n = probs.shape
    width = n + last
    rev = torch.nn.functional.pad(probs.flip(-1), (0, last)).contiguous()  # [H, L, W]
    # rev[l, j] is the key at distance j - (L - 1 - l) from query l: read row l from
    # column L - 1 - l on, so that every column of the view is one distance.
    view = rev.as_strided((h, last, n), (last * width, width - 1, 1), last - 1)
    return view.sum(dim=1)


def _block_sparse(query, key, b, kb, always, causal, scaling):  # type: ignore[no-untyped-def]
    """Per query block, the key blocks with the highest pooled score (mean query of the
    block against mean key of each block), besides the two always read."""
    import torch

    h, n, d = query.shape
    nb = always.shape[0]
    pad = nb * b - n
    q = torch.nn.functional.pad(query, (0, 0, 0, pad)).view(h, nb, b, d)
    k = torch.nn.functional.pad(key, (0, 0, 0, pad)).view(h, nb, b, d)
    counts = torch.full((nb,), b, device=query.device)
    counts[-1] = b - pad
    qm = q.sum(dim=2) / counts[None, :, None]
    km = k.sum(dim=2) / counts[None, :, None]
    score = torch.matmul(qm, km.transpose(-1, -2)) * scaling  # [H, nb, nb]
    score = score.masked_fill(~causal, float("-inf")).masked_fill(always, float("inf"))
    top = torch.topk(score, min(kb, nb), dim=-1).indices
    blocks = torch.zeros(h, nb, nb, dtype=torch.bool, device=query.device)
    blocks.scatter_(2, top, True)
    return blocks & causal, torch.full((h, 1), -1, dtype=torch.long, device=query.device)


def _recall(mass, probs, qpos, blocks, columns, b):  # type: ignore[no-untyped-def]
    """Per head, the share of the last queries' attention that ``blocks``/``columns``
    read (``mass``: that attention summed per key block, ``[H, L, nb]``)."""
    import torch

    rows = blocks[:, qpos // b, :]  # [H, L, nb]
    covered = (mass * rows).sum(dim=-1)  # [H, L]
    valid = columns >= 0
    cols = columns.clamp(min=0)
    outside = valid[:, None, :] & ~torch.gather(
        rows, 2, (cols // b)[:, None, :].expand(-1, rows.shape[1], -1)
    )
    at = torch.gather(probs, 2, cols[:, None, :].expand(-1, probs.shape[1], -1))
    covered += (at * outside).sum(dim=-1)
    return covered.mean(dim=-1)


# -- the kernel -------------------------------------------------------------------------


def attend(
    query: Any,
    key: Any,
    value: Any,
    settings: SparsePrefill,
    scaling: float,
    softcap: float | None = None,
    the_plan: Plan | None = None,
) -> tuple[Any, list[str], float]:
    """Causal attention of ``query`` ``[1, Hq, n, d]`` over ``key``/``value``
    ``[1, Hkv, n, d]`` reading only the planned keys: the output ``[1, n, Hq, d]`` (as
    transformers' attention functions return it), each head's shape, and the share of
    causal query-key pairs computed."""
    import torch

    q, k, v = query[0], key[0], value[0]
    groups = q.shape[0] // k.shape[0]
    if groups > 1:
        k = k.repeat_interleave(groups, dim=0)
        v = v.repeat_interleave(groups, dim=0)
    h, n, _ = q.shape
    b = settings.block
    p = the_plan or plan(q, k, settings, scaling, softcap)
    blocks, columns = p.blocks, p.columns
    nb = blocks.shape[1]
    out = torch.empty_like(q)
    # Rows where every head reads every (causal) key block and no column: one dense call.
    full = blocks.all(dim=0) | ~torch.tril(torch.ones(nb, nb, dtype=torch.bool, device=q.device))
    dense_rows = 0
    while dense_rows < nb and bool(full[dense_rows].all()):
        dense_rows += 1  # (a column there lies inside a block the row reads)
    computed = 0
    if dense_rows:
        m = min(n, dense_rows * b)
        head = _part(q[None, :, :m], k[None, :, :m], v[None, :, :m], None, True, scaling, softcap)
        out[:, :m] = head[0][0]
        computed += m * (m + 1) // 2 * h
    pad = nb * b - n

    def by_block(x: Any) -> Any:  # [H, n, d] -> [nb, H, b, d], contiguous
        return torch.nn.functional.pad(x, (0, 0, 0, pad)).view(h, nb, b, -1).transpose(0, 1)

    kblocks, vblocks = by_block(k).contiguous(), by_block(v).contiguous()
    qblocks = by_block(q).contiguous()
    outblocks = torch.empty_like(qblocks)
    kflat, vflat = kblocks.view(nb * h, b, -1), vblocks.view(nb * h, b, -1)
    # Each query block's attention in three parts, merged by their log-sum-exp: the
    # earlier blocks its heads read (as many for every head, :func:`_even`, so rows with
    # as many are batched), its single columns (masked where not read), and its own block
    # (causal). Padded keys past the prompt lie only in the last block's own block, which
    # only padded queries see.
    earlier = blocks & torch.ones(nb, nb, dtype=torch.bool, device=q.device).tril(-1)
    counts = earlier[0].sum(dim=1).tolist()
    heads = torch.arange(h, device=q.device)
    rows = list(range(dense_rows, nb))
    cols = columns.clamp(min=0)
    kc, vc = k[heads[:, None], cols][None], v[heads[:, None], cols][None]
    col_read = blocks[heads[:, None, None], torch.arange(nb)[None, :, None], (cols // b)[:, None]]
    col_read = col_read.transpose(0, 1)  # [nb, H, c]: the column's block is read anyway
    for most in sorted({counts[i] for i in rows}):
        same = [i for i in rows if counts[i] == most]
        for at in range(0, len(same), ROWS_AT_ONCE):
            idx = torch.tensor(same[at : at + ROWS_AT_ONCE], device=q.device)
            r = len(idx)
            qi = qblocks[idx]  # [R, H, b, d]
            parts = [_part(qi, kblocks[idx], vblocks[idx], None, True, scaling, softcap)]
            if most:
                pick = earlier[:, idx].transpose(0, 1)  # [R, H, nb]
                order = torch.argsort((~pick).to(torch.int8), dim=2, stable=True)[..., :most]
                flat = (order * h + heads[None, :, None]).flatten()
                kg = kflat.index_select(0, flat).view(r, h, most * b, -1)
                vg = vflat.index_select(0, flat).view(r, h, most * b, -1)
                parts.append(_part(qi, kg, vg, None, False, scaling, softcap))
            read = (columns >= 0) & (columns < idx[:, None, None] * b) & ~col_read[idx]
            real = (n - idx * b).clamp(max=b)  # queries of each block inside the prompt
            if bool(read.any()):
                parts.append(_part(qi, kc, vc, read[:, :, None, :], False, scaling, softcap))
                computed += int((read.sum(dim=(1, 2)) * real).sum())
            outblocks[idx] = _merge(parts)
            computed += h * int((most * b * real + real * (real + 1) // 2).sum())
    if dense_rows < nb:
        lo = dense_rows * b
        out[:, lo:] = outblocks.transpose(0, 1).flatten(1, 2)[:, lo:n]
    density = computed / (h * n * (n + 1) / 2)
    return out.transpose(0, 1)[None].contiguous(), p.patterns, density


#: Query blocks attended in one batch (bounds the gathered keys' memory).
ROWS_AT_ONCE = 16


def _part(
    q: Any, k: Any, v: Any, read: Any, causal: bool, scaling: float, softcap: float | None
) -> tuple[Any, Any]:
    """Attention of ``q`` ``[R, H, L, d]`` over ``k``/``v`` ``[R|1, H, M, d]`` alone: its
    output and the log-sum-exp of its scores ``[R, H, L]`` (for :func:`_merge`).
    ``read`` (bool, broadcast to the scores) masks keys; ``causal`` masks later keys of
    the same block. Unmasked parts without a soft-cap run in torch's fused CPU kernel."""
    import torch

    if softcap is None and q.device.type == "cpu":
        shape = (q.shape[0], -1, -1, -1)
        mask = None
        if read is not None:
            mask = torch.zeros(read.shape, dtype=q.dtype, device=q.device)
            mask = mask.masked_fill_(~read, float("-inf")).expand(*q.shape[:3], k.shape[2])
        out, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
            q, k.expand(shape), v.expand(shape), 0.0, causal, attn_mask=mask, scale=scaling
        )
        if read is not None and not bool(read.any(dim=-1).all()):
            out = out.nan_to_num(0.0)  # queries that read none of these keys
        return out, lse
    s = torch.matmul(q, k.transpose(-1, -2)) * scaling
    if softcap is not None:
        s = torch.tanh(s / softcap) * softcap
    if causal:
        later = torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(later, float("-inf"))
    if read is not None:
        s = s.masked_fill(~read, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)  # -inf where a query reads none of these keys
    probs = torch.exp(s - lse[..., None].clamp(min=torch.finfo(s.dtype).min))
    return torch.matmul(probs, v), lse


def _merge(parts: list[tuple[Any, Any]]) -> Any:
    """One softmax's output from parts' outputs and log-sum-exps."""
    import torch

    lse = torch.logsumexp(torch.stack([p[1] for p in parts]), dim=0)
    out = torch.zeros_like(parts[0][0])
    for part, part_lse in parts:
        out += torch.exp(part_lse - lse)[..., None] * part
    return out


def reference(
    query: Any,
    key: Any,
    value: Any,
    p: Plan,
    block: int,
    scaling: float,
    softcap: float | None = None,
) -> Any:
    """The same attention as :func:`attend` with ``p``, from an explicit dense mask (for
    tests): ``[1, n, Hq, d]``."""
    import torch

    q, k, v = query[0], key[0], value[0]
    groups = q.shape[0] // k.shape[0]
    k = k.repeat_interleave(groups, dim=0)
    v = v.repeat_interleave(groups, dim=0)
    h, n, _ = q.shape
    mask = p.blocks.repeat_interleave(block, 1).repeat_interleave(block, 2)[:, :n, :n].clone()
    for i in range(h):
        for c in p.columns[i].tolist():
            if c >= 0:
                mask[i, (c // block + 1) * block :, c] = True
    mask &= torch.ones(n, n, dtype=torch.bool).tril()
    s = _logits(q, k, scaling, softcap).masked_fill(~mask, float("-inf"))
    return (torch.softmax(s, dim=-1) @ v).transpose(0, 1)[None]
