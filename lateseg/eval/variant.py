"""How one row of an evaluation searches and answers (:class:`Variant`), and how a
``--compare`` value names one."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from lateseg.errors import ConfigError

#: What a variant may set, and how a ``--compare`` value is read.
VARIANT_KEYS = ("index", "k", "mode", "answer", "min_confidence", "rerank", "passages")
#: ``answer="none"``: retrieval only, no answers asked.
NO_ANSWER = "none"


@dataclass(frozen=True)
class Variant:
    """One way to search and answer: the ``index`` (None: the evaluation's), ``k``
    passages by search ``mode``, answered as ``answer`` (a mode of ``ask``, or
    ``"none"``: retrieval only), a quote rated below ``min_confidence`` unsure (None:
    ask's default), the best re-ranked by ``rerank``, code hits returned as ``passages``
    say (:data:`~lateseg.ask.options.PASSAGES`). ``name`` labels its row."""

    name: str = "default"
    index: str | None = None
    k: int = 5
    mode: str = "auto"
    answer: str = "quote"
    min_confidence: float | None = None
    rerank: str | None = None
    passages: str = "auto"

    def __post_init__(self) -> None:
        from lateseg.answer.confidence import check_min_confidence
        from lateseg.ask.options import ANSWER_MODES, SearchOptions

        # the same checks
        SearchOptions(k=self.k, mode=self.mode, rerank=self.rerank, passages=self.passages)
        if self.answer not in (*ANSWER_MODES, NO_ANSWER):
            raise ConfigError(
                f"answer={self.answer!r}; choose one of {', '.join((*ANSWER_MODES, NO_ANSWER))}"
            )
        if self.min_confidence is not None:
            check_min_confidence(self.min_confidence)

    @classmethod
    def parse(cls, text: str, base: Variant) -> Variant:
        """The variant ``text`` describes (``mode=hybrid,k=10``: comma-separated
        ``key=value`` of :data:`VARIANT_KEYS`), the rest as ``base``; named by ``text``."""
        given: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, eq, value = part.partition("=")
            key = key.strip().replace("-", "_")
            if not eq or key not in VARIANT_KEYS:
                raise ConfigError(
                    f"--compare {text!r}: {part!r} is not KEY=VALUE with KEY one of "
                    f"{', '.join(VARIANT_KEYS)}"
                )
            value = value.strip()
            try:
                if key == "k":
                    given[key] = int(value)
                elif key == "min_confidence":
                    given[key] = float(value)
                else:
                    given[key] = (
                        None if value.lower() in ("", "none") and key == "rerank" else value
                    )
            except ValueError:
                raise ConfigError(f"--compare {text!r}: {key}={value!r} is not a number") from None
        if not given:
            raise ConfigError(f"--compare {text!r} changes nothing; give KEY=VALUE pairs")
        return dataclasses.replace(base, name=text, **given)

    def ask_options(self) -> dict[str, Any]:
        """``Pipeline.ask``'s keywords: every quote rated, never doubted (the threshold is
        applied afterwards, so one ask gives the answer as shown and as always given)."""
        out: dict[str, Any] = {"k": self.k, "mode": self.mode, "answer": self.answer}
        if self.passages != "auto":
            out["passages"] = self.passages
        if self.rerank:
            out["rerank"] = self.rerank
        if self.answer == "quote":
            out["min_confidence"] = 0.0
        return out
