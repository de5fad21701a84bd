"""Quoting what a user typed in an error message: a short prefix of a huge input, never all of it."""

from __future__ import annotations

LIMIT = 40
"""Characters of an input that an error message quotes."""


def shorten(text: str, limit: int = LIMIT) -> str:
    """``text``, or its first ``limit`` characters followed by how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def quote(value: object, limit: int = LIMIT) -> str:
    """``repr(value)`` of a short input; of a long string, the repr of its first ``limit``
    characters followed by how long it was (``'4HPwATDgc/ABMA4HPw...'... (90000 characters)``)."""
    if not isinstance(value, str) or len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value)} characters)"
