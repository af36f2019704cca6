"""SQLite's ``GLOB`` patterns as POSIX regular expressions: the source filter of every
search means the same on a PostgreSQL index (``~``) as on the SQLite one."""

from __future__ import annotations


def glob_regex(glob: str) -> str | None:
    """A POSIX regular expression (PostgreSQL's ``~``) matching what SQLite's ``GLOB``
    matches, or None where GLOB matches nothing (a set never closed, or one that holds
    no character). ``*`` is any text, ``?`` one character, ``[...]`` one of a set
    (``a-z`` ranges by code point, ``^`` first inverts, ``]`` first is a member);
    everything else is literal, and the whole name must match."""
    out, i = ["^"], 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            parsed = _glob_set(glob, i + 1)
            if parsed is None:
                return None
            part, i = parsed
            if part is None:
                return None
            out.append(part)
        else:
            out.append(_literal(ch))
        i += 1
    return "".join(out) + "$"


def _glob_set(glob: str, i: int) -> tuple[str | None, int] | None:
    """The set starting at ``glob[i]`` (after its ``[``), read as SQLite reads it: the
    bracket expression (None: it holds no character) and the index of its ``]``; None
    when it is never closed."""
    invert = i < len(glob) and glob[i] == "^"
    i += invert
    members: list[str] = []
    if i < len(glob) and glob[i] == "]":
        members.append("\\]")
        i += 1
    prior = ""
    while i < len(glob) and glob[i] != "]":
        c = glob[i]
        if c == "-" and prior and i + 1 < len(glob) and glob[i + 1] != "]":
            hi = glob[i + 1]
            if prior <= hi:
                members[-1] = f"{_literal(prior)}-{_literal(hi)}"
            # (a reversed range holds nothing: the lone prior character stays)
            prior = ""
            i += 2
            continue
        members.append(_literal(c))
        prior = c
        i += 1
    if i >= len(glob):
        return None
    if not members:
        return (".", i) if invert else (None, i)
    return f"[{'^' if invert else ''}{''.join(members)}]", i


def _literal(ch: str) -> str:
    """``ch`` matched literally, in or out of a bracket expression (a backslash before
    a character that is not a letter or digit is that character)."""
    return ch if ch.isalnum() else "\\" + ch
