"""Untrusted input read from files: at most so many bytes of a file
(:func:`read_bounded`, the one bounded read of manifests, settings, question files and
ignore files), and type checks of settings (manifests): JSON values against the fields of
a config dataclass, so a mistyped value is named instead of failing later with a
``TypeError`` deep inside a stage."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any

from lateseg.errors import ConfigError


def check_fields(cls: type, values: dict[str, Any], where: str) -> None:
    """Raise :class:`ConfigError` unless every key is a field of the dataclass ``cls``
    and its value fits the field's type (``int``, ``float``, ``str``, ``bool``, each
    optionally ``| None``). ``where`` prefixes the field's name in the message."""
    types = {f.name: str(f.type) for f in dataclasses.fields(cls)}
    for key, value in values.items():
        if key not in types:
            raise ConfigError(f"{where}.{key}: unknown field (known: {', '.join(types)})")
        kinds = [t.strip() for t in types[key].split("|")]
        if value is None and "None" in kinds:
            continue
        ok = (
            ("int" in kinds and is_int(value))
            or ("float" in kinds and is_number(value))
            or ("str" in kinds and isinstance(value, str))
            or ("bool" in kinds and isinstance(value, bool))
        )
        if not ok:
            want = " or ".join(_NAMES.get(k, k) for k in kinds if k != "None")
            raise ConfigError(f"{where}.{key}: {shown(value)} is not {want}")


_NAMES = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true/false"}


def is_int(v: Any) -> bool:
    """A JSON integer of sane size (not a bool, which Python counts as an int)."""
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**53


def is_number(v: Any) -> bool:
    """A finite JSON number (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def shown(v: Any) -> str:
    """A short rendering of a value for an error message."""
    text = repr(v) if isinstance(v, str) else json.dumps(v, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def read_bounded(path: str | os.PathLike[str], limit: int) -> tuple[bytes, bool]:
    """The first ``limit`` bytes of the file ``path`` and whether there was more: never
    more than ``limit + 1`` bytes are read, whatever the file's size (a FIFO, a growing
    file, ``/dev/zero``). :class:`OSError` (missing, unreadable, a folder) is the
    caller's to word."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    return data[:limit], len(data) > limit
