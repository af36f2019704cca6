"""One registry idiom for every extension family: KV presses, file formats, chunkers,
ingest engines, index stores and answer writers.

A family is a :class:`Registry`; a member is a class with a ``name`` (and a ``summary``
of a few words for ``--help``), made known by the family's :meth:`~Registry.register`
decorator. Adding a member is one module and one ``@FAMILY.register`` line: the family's
front ends (the CLI's choices, the server, the manifest, error messages) list it, and
the family's conformance test in ``tests/`` runs it through the family's whole matrix.

A registry is a read-only mapping of name to class, so ``name in FAMILY``,
``FAMILY[name]`` and ``tuple(FAMILY)`` (the names in registration order) work as on a
dict. :meth:`~Registry.get` and :meth:`~Registry.from_dict` check what they are given
(untrusted: a manifest, a request) and fail with a :class:`~lateseg.errors.ConfigError`
that lists the known names or the member's own settings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar

from lateseg.errors import ConfigError

T = TypeVar("T")


class Registry(Mapping[str, type[T]], Generic[T]):
    """The members of one extension family, by name. ``family`` names it in messages
    ("chunker"); ``key`` is the field of a member's dict that holds its name
    (``to_dict``/``from_dict``: ``"type"`` for chunkers, ``"method"`` for presses);
    ``option`` is the setting a user writes the name in (``kv_method``), and ``noun`` what
    a member is called in a sentence (``press``; default ``family``), for messages."""

    def __init__(
        self, family: str, key: str = "type", option: str | None = None, noun: str | None = None
    ) -> None:
        self.family = family
        self.key = key
        self.option = option or family
        self.noun = noun or family
        self._members: dict[str, type[T]] = {}

    def register(self, cls: type[T]) -> type[T]:
        """Class decorator: make ``cls`` known by its ``name``. A second class under a
        name already taken is refused (one name, one member)."""
        name = getattr(cls, "name", "")
        if not isinstance(name, str) or not name:
            raise TypeError(f"a {self.family} needs a class attribute 'name' to register")
        held = self._members.get(name)
        if held is not None and _identity(held) != _identity(cls):
            raise ValueError(f"{self.family} {name!r} is already {'.'.join(_identity(held))}")
        self._members[name] = cls
        return cls

    def unregister(self, name: str) -> None:
        """Forget ``name`` (for tests that register a toy member)."""
        self._members.pop(name, None)

    def __getitem__(self, name: str) -> type[T]:
        return self._members[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def get_class(self, name: object) -> type[T]:
        """The member called ``name``; an unknown name lists the known ones."""
        if not isinstance(name, str) or name not in self._members:
            raise ConfigError(
                f"{self.option}={name!r:.80}; choose one of {', '.join(self._members)}"
            )
        return self._members[name]

    def make(self, name: object, **settings: Any) -> T:
        """The member ``name`` made with ``settings``: for a dataclass member an unknown
        setting lists the member's own (its fields)."""
        cls = self.get_class(name)
        if dataclasses.is_dataclass(cls):
            own = [f.name for f in dataclasses.fields(cls) if f.init]
            unknown = sorted(set(settings) - set(own))
            if unknown:
                raise ConfigError(
                    f"the {name} {self.family} has no setting {', '.join(unknown)}; "
                    + (f"its settings: {', '.join(own)}" if own else "it has none")
                )
        return cls(**settings)

    def from_dict(self, data: object) -> T:
        """The member a ``to_dict`` described (a manifest, JSON): a mapping with its name
        under :attr:`key`; made by the class's own ``from_dict`` where it has one, else
        with the rest of the mapping as settings (:meth:`make`)."""
        if not isinstance(data, Mapping) or not isinstance(data.get(self.key), str):
            raise ConfigError(f"a {self.noun} is a mapping with its {self.key!r}: not {data!r:.80}")
        cls = self.get_class(data[self.key])
        rest = {k: v for k, v in data.items() if k != self.key}
        build = getattr(cls, "from_dict", None)
        if build is not None:
            return build(rest)  # type: ignore[no-any-return]
        return self.make(data[self.key], **rest)

    def described(self) -> str:
        """``name (summary), ...`` for ``--help`` and messages."""
        return ", ".join(
            f"{name} ({summary})" if (summary := getattr(cls, "summary", "")) else name
            for name, cls in self._members.items()
        )


def _identity(cls: type) -> tuple[str, str]:
    """Where a class is defined: the same class registered again (a module reloaded) is
    itself; another class of the same name in another module is not."""
    return cls.__module__, cls.__qualname__
