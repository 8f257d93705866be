"""Text helpers shared by the observation formats."""

from __future__ import annotations


def split_lines(text: str) -> list[str]:
    """Lines split at newlines only: ``str.splitlines`` also splits at U+2028 and friends, which
    may appear inside a name or a text."""
    return [line.removesuffix("\r") for line in text.split("\n")]
