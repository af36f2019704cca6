"""The local Hugging Face generator as a :class:`~lateseg.generate.writer.Writer`, like the
model servers and LangChain chat models: ``pipe.ask(q, llm=LocalGenerator(...))`` has it
write the draft that the answer path (:mod:`~lateseg.generate.remote.generator`) checks
and cites, from the same whole-chunk context and prompt as any other writer.

:class:`LocalWriter` uses the generator's own model and tokenizer (loaded once per
process, :mod:`~lateseg.generate.loading`) and its decode loop
(:meth:`~lateseg.generate.local.LocalGenerator.complete`); the ``copy`` and ``generate``
answer modes do not go through it and answer as they always did. This module imports no
model code: a :class:`~lateseg.generate.local.LocalGenerator` is recognised without
importing it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lateseg.generate.writer import Completion, Usage, register

if TYPE_CHECKING:
    from lateseg.generate.local import LocalGenerator


@register
class LocalWriter:
    """``generator`` (a :class:`~lateseg.generate.local.LocalGenerator`) as a writer: its
    chat template, greedy decoding by default (``temperature`` above 0 samples), at most
    ``max_tokens`` new tokens, stopping at the ``stop`` strings; tokens counted by its
    tokenizer, as it fits passages to its own budget."""

    name = "local"
    summary = "the local Hugging Face generator, a LocalGenerator"

    def __init__(self, generator: LocalGenerator) -> None:
        self.generator = generator

    def __repr__(self) -> str:
        return f"LocalWriter({self.generator.model_name!r})"

    @classmethod
    def accepts(cls, llm: object) -> bool:
        """Whether ``llm`` is a local generator (read without importing one: the class
        exists only once :mod:`lateseg.generate.local` has been imported)."""
        module = sys.modules.get("lateseg.generate.local")
        return module is not None and isinstance(llm, module.LocalGenerator)

    @classmethod
    def of(cls, llm: LocalGenerator) -> LocalWriter:
        """The writer of the local generator ``llm``."""
        return cls(llm)

    @property
    def counting(self) -> str:
        return f"{self.generator.model_name} tokenizer"

    def model_name(self) -> str:
        return self.generator.model_name

    def count_tokens(self, text: str) -> int:
        return len(self.generator.tokenizer(text, add_special_tokens=False)["input_ids"])

    def chat(
        self,
        messages: Sequence[dict[str, str]],
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Completion:
        done = self.generator.complete(
            list(messages), max_new_tokens=max_tokens, stop=stop, temperature=temperature
        )
        usage = Usage(done.prompt_tokens, done.completion_tokens)
        return Completion(done.text, self.model_name(), done.finish_reason, usage)
