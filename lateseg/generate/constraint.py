"""What constrained decoding asks of a constraint: the decode loop
(:func:`lateseg.generate.decode.decode`) knows only this protocol, so it imports no answer
mode; copy mode's :class:`lateseg.generate.copying.CopyConstraint` is one.
"""

from __future__ import annotations

from typing import Protocol


class Constraint(Protocol):
    """The tokens a generation may write next."""

    def allowed(self) -> list[int]:
        """The token IDs that may come next (besides the stop tokens, when closable)."""
        ...

    def advance(self, token: int) -> None:
        """Take the token written."""
        ...

    @property
    def closable(self) -> bool:
        """Whether the generation may end here."""
        ...
