"""Glob patterns and POSIX regular expressions translated to Python regexes."""

from __future__ import annotations

import re
from functools import lru_cache

from .regex import RegexTooComplex, _Linear, _re2_pattern

_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v",
    "blank": " \\t",
    "punct": "!-/:-@\\[-`{-~",
    "xdigit": "0-9A-Fa-f",
    "word": "a-zA-Z0-9_",
    "print": " -~",
    "graph": "!-~",
    "cntrl": "\\x00-\\x1f\\x7f",
}


def _bracket(pat: str, i: int) -> tuple[str, int] | None:
    """Translate a ``[...]`` expression starting at ``pat[i] == '['``; None if unterminated."""
    j = i + 1
    negate = False
    if j < len(pat) and pat[j] in "!^":
        negate = True
        j += 1
    items: list[str] = []
    first = True
    while j < len(pat):
        c = pat[j]
        if c == "]" and not first:
            body = "".join(items)
            return ("[^" if negate else "[") + body + "]", j + 1
        first = False
        if c == "[" and pat.startswith("[:", j):
            end = pat.find(":]", j + 2)
            if end > 0 and pat[j + 2 : end] in _CLASSES:
                items.append(_CLASSES[pat[j + 2 : end]])
                j = end + 2
                continue
        if c == "\\" and j + 1 < len(pat):
            items.append(re.escape(pat[j + 1]))
            j += 2
            continue
        if c == "-" and items and j + 1 < len(pat) and pat[j + 1] != "]":
            items.append("-")
            j += 1
            continue
        items.append("\\" + c if c in "\\^[]" else c)
        j += 1
    return None


@lru_cache(maxsize=512)
def glob_regex(pat: str, nocase: bool = False, extended: bool = False) -> re.Pattern[str]:
    """A shell glob (``*``, ``?``, ``[...]``, backslash escapes) as an anchored regex
    (``nocase``: letters match either case, as under ``shopt -s nocaseglob``; ``extended``:
    extglob's ``?(a|b)``, ``*(..)``, ``+(..)``, ``@(..)`` and ``!(..)`` too)."""
    body = _glob_body(pat, extended)
    flags = re.IGNORECASE if nocase else 0
    compiled = re.compile("(?s:" + body + r")\Z", flags)  # a bad class is re's error, as before
    linear = _re2_pattern("(?s:" + body + r")\z", flags)  # `*a*a*a*b` on a long word: linear time
    return compiled if linear is None else _Linear(linear, compiled.pattern)  # type: ignore[return-value]


_EXTGLOB = {"?": "(?:{})?", "*": "(?:{})*", "+": "(?:{})+", "@": "(?:{})", "!": "(?:(?!(?:{})\\Z).*)"}


def _glob_body(pat: str, extended: bool) -> str:
    out: list[str] = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if extended and c in _EXTGLOB and pat.startswith("(", i + 1):
            group = _group(pat, i + 1)
            if group is not None:  # !(..) is exact where it ends the pattern, as it mostly does
                end, patterns = group
                alternatives = "|".join(_glob_body(alt, True) for alt in patterns)
                out.append(_EXTGLOB[c].format(alternatives))
                i = end + 1
                continue
        if c == "\\" and i + 1 < len(pat):
            out.append(re.escape(pat[i + 1]))
            i += 2
        elif c == "*":
            out.append(".*")
            i += 1
        elif c == "?":
            out.append(".")
            i += 1
        elif c == "[":
            got = _bracket(pat, i)
            if got is None:
                out.append("\\[")
                i += 1
            else:
                out.append(got[0])
                i = got[1]
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _group(pat: str, start: int) -> tuple[int, list[str]] | None:
    """The extglob group whose ``(`` is at ``start``: where it closes, and its patterns (split at
    its own ``|``; nested groups and escapes passed over); None where it does not close."""
    depth, begin = 0, start + 1
    parts: list[str] = []
    i = start
    while i < len(pat):
        c = pat[i]
        if c == "\\":
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i, [*parts, pat[begin:i]]
        elif c == "|" and depth == 1:
            parts.append(pat[begin:i])
            begin = i + 1
        i += 1
    return None


def has_glob(pat: str) -> bool:
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "\\":
            i += 2
            continue
        if c in "*?" or (c == "[" and "]" in pat[i + 2 :] if i + 1 < len(pat) else False):
            return True
        i += 1
    return False


def _unescape_glob(pat: str) -> str:
    return re.sub(r"\\(.)", r"\1", pat, flags=re.S)


def _escape_glob(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def posix_regex(pattern: str, extended: bool) -> str:
    """A POSIX basic (or extended) regular expression as a Python one."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if not extended and d in "(){}|+?":
                out.append(d)
            elif d in "<>":
                out.append(r"\b")
            elif d in "wWsSbB" or d.isdigit():
                out.append("\\" + d)
            elif d == "n":
                out.append("\\n")
            elif d == "t":
                out.append("\\t")
            else:
                out.append(re.escape(d))
            i += 2
            continue
        if c == "[":
            got = _bracket(pattern, i)
            if got is None:
                # glibc: a pattern that ends at `[` or `[^` is not a bracket at all
                ends = pattern[i + 1 :] in ("", "^")
                raise re.error("premature end" if ends else "unterminated character set")
            out.append(got[0])
            i = got[1]
            continue
        if not extended and c in "(){}|+?":
            out.append("\\" + c)
        elif c == "*" and (not out or out[-1] in ("(", "|", "^")):
            out.append("\\*")
        elif extended and c == "{" and not re.match(r"\{\d*(,\d*)?\}", pattern[i:]):
            out.append("\\{")
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _regex_error(exc: re.error) -> str:
    msg = str(exc)
    if "unterminated character set" in msg:
        return "Unmatched [, [^, [:, [., or [="
    if "missing )" in msg or "unbalanced parenthesis" in msg:
        return "Unmatched ( or \\("
    if "nothing to repeat" in msg:
        return "Invalid preceding regular expression"
    if isinstance(exc, RegexTooComplex):
        return str(exc)
    return "Invalid regular expression"


def path_glob(pattern: str) -> str:
    """A glob with ``**`` (any depth) as a regex over ``/``-separated relative paths."""
    out: list[str] = []
    i = 0
    pattern = pattern.lstrip("./") if pattern.startswith("./") else pattern
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape("["))
                i += 1
            else:
                body = pattern[i + 1 : j]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = j + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)
