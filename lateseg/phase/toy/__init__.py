"""The paper's controlled experiment at CPU scale: tiny LMs trained from scratch on
key-value retrieval over dense records, identical except for their attention.

A sequence is a stream of records ``k v`` (a key token, then its value token) separated
by runs of 0..``max_filler`` filler tokens (the first run is longer, up to ``2 x stride
- 1``, so every phase is seen), then ``tail`` fillers, then the queries: every key again,
in random order, each followed by its value, which is predicted at the key. The query is
far from its record (more than the ``local`` window), so recall must go through the
compressed blocks. Records are dense (mean spacing 3 tokens at the defaults), so a block
of 4 tokens often holds two of them, and the model is narrow (width 32, one head): a
block's summary cannot keep every slot equally (the capacity pressure the paper's needle
test has at 128K tokens).

Variants (``VARIANTS``), each trained from the same seed and data:

* ``full``: causal attention with RoPE (the negative control);
* ``fixed``: each query attends a short local window plus *compressed blocks*:
  non-overlapping blocks of ``stride`` tokens at fixed positions, each reduced to one key
  and value per head by a softmax gate over its slots, ``w_gate . x + bias[slot]``, with
  a learned bias per slot (DeepSeek-V4's ``ape[pos % ratio]``; the positive control).
  The study trains it at stride 4 and at stride 2;
* ``fixed-nope``: the same without position encoding; ``fixed-uniform``: the same with
  uniform gates (plain averages): the paper's two ablations;
* ``dynamic``: the same learned-gate compression, but blocks end where the content says
  so: before a key token once the block holds ``stride - 1`` tokens or no key yet (a
  record is never split), a run without keys every ``2 x stride`` tokens. No absolute position is
  special, and the blocks' mean size is close to the fixed ones' (``mean_block_size``).

Every layer has a short causal convolution (kernel 3) before its attention, as the
Based / Zoology associative-recall models do: without it not even full attention learns
the task in the CPU budget. The probe (:func:`recall_by_position`) is the paper's needle
test in small: fresh sequences from the training distribution, the first query's record
is the needle, and trials are grouped by the needle key's position mod the stride (the
query position and the mean needle position are the same for every residue).

Capacity is what makes the learned-gate model periodic at this scale. Exploratory runs
of the same task and model (one seed, 4,096 needles each) that learned around the blocks
(recall 0.97-0.99, gaps of 1.2-2.6 points, none with period 4 at p < 0.01 and a gap
over 3): width 64 with two heads (32 values, 0-4 fillers, 1,500 steps); width 64 with one
head (32 values, 0-2 fillers, 1,200 steps); width 64 with two heads and no fillers (1,200
steps); width 32 with two heads (64 values, 0-2 fillers, 2,500 steps). Width 32 with one
head and 64 values (the defaults) was periodic at 1,200 and 2,500 steps. The earlier toy
of this module (records padded by one pad token, width 64, four heads,
``bench/results/toy_sweep_v1.json``) was flat in all 8 settings
swept. The weak residues are where the record's span (key, value and the next token,
which the convolution mixes) crosses a block edge; the mean gate weights per slot differ
by a few hundredths and do not single them out (``toy.md``).

A variant trains in about 1-2 minutes on 2 CPU cores at the defaults; models are seeded
and cached (``train_variant(..., cache_dir=...)``). ``run_study`` trains the six rows of
the study and :func:`write_toy_report` writes ``toy.md``, ``toy.json`` and ``toy.png``.

The parts: :mod:`~lateseg.phase.toy.data` (the config, the sequences and the blocks),
:mod:`~lateseg.phase.toy.model` (:class:`~lateseg.phase.toy.model.ToyLM`, a
``torch.nn.Module``; the one part that imports torch at load), :mod:`~lateseg.phase.toy.train`
(training and the cache), :mod:`~lateseg.phase.toy.probe` (the needle test),
:mod:`~lateseg.phase.toy.rows` (the study's rows) and :mod:`~lateseg.phase.toy.report`
(``toy.md``, ``toy.json``, ``toy.png``).
"""

from __future__ import annotations

from lateseg.phase.toy.data import PAD, VARIANTS, Probe, ToyConfig, block_ids, make_batch
from lateseg.phase.toy.probe import Recall, dominant_period, recall_by_position
from lateseg.phase.toy.report import write_toy_report
from lateseg.phase.toy.rows import (
    REDUCED_STEPS,
    STUDY,
    ToyRow,
    run_study,
    run_variant,
    weak_slots_match,
)
from lateseg.phase.toy.train import train_variant

__all__ = [
    "PAD",
    "REDUCED_STEPS",
    "STUDY",
    "VARIANTS",
    "Probe",
    "Recall",
    "ToyConfig",
    "ToyRow",
    "block_ids",
    "dominant_period",
    "make_batch",
    "recall_by_position",
    "run_study",
    "run_variant",
    "train_variant",
    "weak_slots_match",
    "write_toy_report",
]
