"""mawk's reading of a regular expression, before the shared POSIX translation: what it refuses
(with its reasons: ``missing operand``, ``missing ')'``, ``bad class -- [], [^] or [``,
``syntax error ^* or ^+``, ``bad interval expression``) and what it takes that Python's engine
would not (an unmatched ``)`` is a literal; a run of repetition operators is one operator)."""

from __future__ import annotations

import re

_INTERVAL = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")


class MawkRegexError(Exception):
    """A regex mawk does not compile; ``reason`` in its words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _bracket_end(source: str, i: int) -> int:
    """Where the bracket expression opening at ``i`` ends (past its ``]``)."""
    j = i + 1
    if j < len(source) and source[j] == "^":
        j += 1
    if j < len(source) and source[j] == "]":
        j += 1
    while j < len(source) and source[j] != "]":
        if source.startswith(("[:", "[=", "[."), j):
            close = source.find(source[j + 1] + "]", j + 2)
            if close < 0:
                break
            j = close + 2
            continue
        j += 1
    if j >= len(source):
        raise MawkRegexError("bad class -- [], [^] or [")
    return j + 1


def _collapsed(ops: str) -> str:
    """One operator for a run of them (``a+?`` is ``(a+)?``, which is ``a*``)."""
    if len(set(ops)) == 1:
        return ops[0]
    return "*"


def mawk_regex(source: str) -> str:
    """``source`` as the shared POSIX translation should read it, or :class:`MawkRegexError`."""
    out: list[str] = []
    depth = 0
    operand = False  # the current branch has something a repetition can apply to
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "\\":
            out.append(source[i : i + 2] if i + 1 < n else "\\\\")  # a last backslash is itself
            i += 2
            operand = True
            continue
        if c == "[":
            end = _bracket_end(source, i)
            out.append(source[i:end])
            i = end
            operand = True
            continue
        if c in "*+?":
            j = i
            while j < n and source[j] in "*+?":
                j += 1
            if not operand:
                if out and out[-1] == "^":
                    raise MawkRegexError("syntax error ^* or ^+")
                raise MawkRegexError("missing operand")
            out.append(_collapsed(source[i:j]))
            i = j
            continue
        if c == "{":
            m = _INTERVAL.match(source, i)
            if m and operand and (m.group(1) or m.group(2)):
                low, comma, high = m.groups()
                if comma and high and int(high) < int(low or 0):
                    raise MawkRegexError("bad interval expression")
                out.append(m.group(0) if low else "{0" + m.group(0)[1:])
                i = m.end()
                continue
            out.append("\\{")
            i += 1
            operand = True
            continue
        if c == "(":
            depth += 1
            operand = False
            out.append(c)
        elif c == ")":
            if depth == 0:
                out.append("\\)")
                operand = True
            else:
                if not operand:
                    raise MawkRegexError("missing operand")
                depth -= 1
                out.append(c)
                operand = True
        elif c == "|":
            if not operand:
                raise MawkRegexError("missing operand")
            out.append(c)
            operand = False
        elif c == "^":
            out.append(c)
        else:
            out.append(c)
            operand = True
        i += 1
    if depth:
        raise MawkRegexError("missing ')'")
    if out and out[-1] == "|":
        raise MawkRegexError("missing operand")
    return "".join(out)
