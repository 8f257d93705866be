"""Quoting names the way ls and bash show them, and printf %q."""

from __future__ import annotations

import re

_SAFE_NAME = re.compile(r"[A-Za-z0-9_./+,:=@%^-]+")


def single_quoted(text: str) -> str:
    """``text`` as one single-quoted shell word, ``'`` written as ``'\\''`` (bash's
    ``sh_single_quote``)."""
    return "'" + text.replace("'", "'\\''") + "'"


def quote_always(name: str) -> str:
    """GNU ``quoteaf``: shell-escape quoting, always quoted (``'x'``)."""
    if "'" not in name:
        return f"'{name}'"
    if not any(c in name for c in '"$`\\!'):
        return f'"{name}"'
    return single_quoted(name)


def quote_if_needed(name: str) -> str:
    """GNU ``quotef``: shell-escape quoting only where the name needs it."""
    if name and _SAFE_NAME.fullmatch(name) and not name.startswith(("~", "#")):
        return name
    return quote_always(name)


def locale_quote(name: str) -> str:
    """GNU ``quote`` in a UTF-8 locale (mkdir, find): the name in curved single quotes."""
    return f"\u2018{name}\u2019"


def _display(text: str) -> str:
    """Text fit for a screen: undecodable bytes become U+FFFD, NUL bytes vanish."""
    if not text:
        return text
    text = text.replace("\x00", "")
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _shell_quote(text: str) -> str:
    """``printf %q``: backslashes before special characters, ``$'...'`` for control ones."""
    if text == "":
        return "''"
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        body = "".join(
            {"\n": "\\n", "\t": "\\t", "\r": "\\r", "'": "\\'", "\\": "\\\\"}.get(c, c)
            if ord(c) >= 32 or c in "\n\t\r"
            else f"\\{ord(c):03o}"
            for c in text
        )
        return f"$'{body}'"
    return "".join("\\" + c if not (c.isalnum() or c in "_./:=@%+,-") and ord(c) < 128 else c for c in text)


#: the characters that make bash's ``set -x`` quote a word (its ``sh_contains_shell_metas``)
_TRACE_METAS = frozenset(" \t\n'\"\\|&;()<>!{}*[?]^$`")


def xtrace_quote(word: str) -> str:
    """A word as ``set -x`` shows it: as is, or in single quotes where the shell would read it
    differently (``'a b'``, ``''``, ``'it'\\''s'``, ``'~x'``; bash's ``sh_single_quote``)."""
    if word and not (
        any(c in _TRACE_METAS for c in word)
        or word[0] in "~#"
        or "=~" in word
        or ":~" in word
        or any(ord(c) < 32 or ord(c) == 127 for c in word)
    ):
        return word
    return single_quoted(word)
