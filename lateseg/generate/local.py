"""Local generator: any Hugging Face causal LM answering from numbered passages.

Full KV cache for now; chunk-aligned KV compression is issue 6.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lateseg.encode.models import (
    DEFAULT_GENERATOR,
    pick_device,
    quiet_transformers,
    resolve_generator,
)
from lateseg.errors import GenerationError, ModelError
from lateseg.generate.citations import format_passages, parse_citations
from lateseg.types import Answer, Hit

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You answer questions about documents using only the numbered passages given. "
    "Answer in one or two sentences and cite the passage you used with its number in "
    "square brackets, for example [1]. If the passages do not answer the question, say so."
)


class LocalGenerator:
    """A causal LM loaded lazily from a name or folder (default: SmolLM2-135M-Instruct)."""

    def __init__(
        self,
        model: str = DEFAULT_GENERATOR,
        device: str | None = None,
        max_new_tokens: int = 160,
        context_chars: int = 6000,
    ) -> None:
        self.model_name = model
        self.device = device
        self.max_new_tokens = max_new_tokens
        self.context_chars = context_chars
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch

        quiet_transformers()
        from transformers import AutoModelForCausalLM, AutoTokenizer

        where = resolve_generator(self.model_name)
        self.device = pick_device(self.device)
        dtype = torch.bfloat16 if self.device.startswith("cuda") else torch.float32
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(where)
            model = AutoModelForCausalLM.from_pretrained(where, dtype=dtype)
        except Exception as e:
            raise ModelError(
                f"cannot load generator {self.model_name!r} from {where!r}: {e}"
            ) from e
        self._model = model.to(self.device).eval()  # type: ignore[arg-type]

    def prompt(self, question: str, passages: Sequence[Hit]) -> list[dict[str, str]]:
        body = format_passages(passages, self.context_chars)
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Passages:\n\n{body}\n\nQuestion: {question}"},
        ]

    def generate(self, messages: list[dict[str, str]]) -> str:
        """Greedy completion of a chat."""
        import torch

        self._load()
        tok = self._tokenizer
        if not getattr(tok, "chat_template", None):
            raise GenerationError(f"generator {self.model_name!r} has no chat template")
        enc = tok.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        ).to(self.device)
        with torch.inference_mode():
            out = self._model.generate(
                **enc,
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                pad_token_id=tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id,
            )
        return tok.decode(out[0, enc["input_ids"].shape[1] :], skip_special_tokens=True).strip()

    def answer(self, question: str, passages: Sequence[Hit], encoder: LateEncoder) -> Answer:
        """Generate an answer citing ``passages``.

        When the model writes no valid ``[n]`` marker, the passage whose embedding is
        closest to the answer is attributed as its citation (``cited_by="attribution"``),
        so the answer is never left without a source and the caller can tell which.
        """
        if not passages:
            return Answer("No indexed passage matches the question.", ())
        text = self.generate(self.prompt(question, passages))
        cited = parse_citations(text, passages)
        if cited:
            return Answer(text, tuple(cited), tuple(passages), "generative", "model")
        vecs = encoder.embed_texts([text, *(p.text for p in passages)])
        best = int(np.argmax(vecs[1:] @ vecs[0]))
        return Answer(text, (passages[best],), tuple(passages), "generative", "attribution")
