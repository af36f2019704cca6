"""A context prefilled and compressed before any question is known (``ask_many``, a
served document asked many questions): what scores its slots.

* ``end`` (:data:`~lateseg.kv.compress.OBSERVE`): the attention of the context's own last
  ``window`` tokens, kept like a question's window;
* ``probe``: a request to repeat the passages (:data:`PROBE`), put where a question
  goes, is prefilled after the context and its queries are the observation window; its
  slots are dropped afterwards, so the cache holds the context alone, at the budget the
  context alone asks. KVzip (Kim et al., 2025) scores by making the model reconstruct
  the whole context (2-3 more forward passes); the probe asks for the same thing at the
  cost of its few tokens.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lateseg.errors import ConfigError
from lateseg.kv.compress import KVConfig, layer_bytes

if TYPE_CHECKING:
    from lateseg.generate.prompts import Prompt
    from lateseg.types import Hit

#: The question slot's text when the probe scores the context.
PROBE = "Repeat the passages above, word for word."


def prefill_agnostic(
    generator: Any, passages: Sequence[Hit], kv: KVConfig | None
) -> tuple[Prompt, Any]:
    """The context of ``passages`` (the prompt of a placeholder question, whose tokens
    before its tail are the context) prefilled by ``generator`` (a
    :class:`~lateseg.generate.local.LocalGenerator`, which imports this module) and,
    with ``kv``, compressed as ``kv.observe`` says: the placeholder's prompt and the
    ``Prefilled``. Call under ``torch.inference_mode()``."""
    prompt = generator.render(generator.prompt("?", passages))
    n = prompt.tail_token
    if kv is None or kv.observe == "end" or kv.tokens(n) >= n:
        window = min(n, kv.window) if kv else 1
        return prompt, generator.prefill_and_compress(prompt, kv, window, context_only=True)
    probed = generator.render(generator.prompt(PROBE, passages))
    if probed.ids[: probed.tail_token] != prompt.ids[:n]:
        raise AssertionError("the probe changed the context's tokens")  # a bug
    tail = len(probed.ids) - n
    if kv.tokens(n) < kv.sinks:
        raise ConfigError(
            f"kv budget {kv.tokens(n)} is smaller than the {kv.sinks} sink tokens always kept"
        )
    # the context's own budget, and the probe's slots on top (always kept, then dropped)
    wide = dataclasses.replace(kv, budget=kv.tokens(n) + tail)
    done = generator.prefill_and_compress(probed, wide, tail)
    for layer in done.cache.layers:  # the probe's slots are every layer's last ones
        layer.keys, layer.values = layer.keys[:, :, :-tail], layer.values[:, :, :-tail]
    comp = done.compressed
    if comp is not None:
        comp.length = n
        comp.budget = kv.tokens(n)
        comp.kept = [k[:, :-tail] for k in comp.kept]
        comp.bytes_after = [layer_bytes(layer) for layer in done.cache.layers]
        comp.bytes_before = [b * n // (n + tail) for b in comp.bytes_before]
    return prompt, done
