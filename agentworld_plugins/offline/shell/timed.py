"""The ``time`` keyword: ``time [-p] [--] PIPELINE`` runs the pipeline and then writes how long it
took on the shell's standard error, in ``TIMEFORMAT`` (``-p``: POSIX's ``real 0.00`` lines).

bashlex cannot parse ``time``, so the parser's pre-pass writes ``time``, its options and their
blanks as a ``!`` followed by tabs and blanks of the same length (:func:`time_prefix`): bashlex
reads a negated pipeline, and the executor knows the marker (:func:`timed_mark`), which survives
a substitution's text being parsed again. The times are the step's virtual clock
(:mod:`.limits`): ``real`` is the work done plus what ``sleep`` slept, ``user`` the work, ``sys``
zero, so ``time sleep 2`` says ``real 0m2.000s`` on any machine at any load.

``TIMEFORMAT`` is read as bash reads it: ``%[p][l]R``, ``U``, ``S`` (``E`` as ``R``), with ``p``
the digits after the point (0 to 3, more read as 3) and ``l`` minutes and seconds (``1m2.500s``);
``%P`` the CPU percentage; ``%%``; a lone ``%`` at the end stands for itself. Any other letter is
``TIMEFORMAT: `c': invalid format character`` and nothing is printed. An empty ``TIMEFORMAT``
prints nothing; unset, it is bash's ``\\nreal\\t%3lR\\nuser\\t%3lU\\nsys\\t%3lS``.
"""

from __future__ import annotations

import re

#: what the pre-pass writes for ``time`` (``time -p``: the last tab a blank)
MARK = "!\t\t\t"
POSIX_MARK = "!\t\t "
DEFAULT_FORMAT = "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS"
POSIX_FORMAT = "real %2R\nuser %2U\nsys %2S"

#: ``time``, ``-p`` and ``--`` (each optional, in that order; either one asks for POSIX's format,
#: as in bash 5.2) and the blanks after them, when a command follows (a bare ``time`` is left to
#: bashlex, which refuses it)
_PREFIX = re.compile(r"time[ \t]+(?:(-p)[ \t]+)?(?:(--)[ \t]+)?(?=[^\s;&|)])")


def time_prefix(text: str, i: int) -> tuple[str, int] | None:
    """What the pre-pass writes for the ``time`` keyword at ``text[i]`` (a command starts
    there): a marker as long as what it replaces, or ``\\time`` after a pipe (``a | time b``
    runs the program ``time``, as bash does), and the index after what it replaces; None when
    no pipeline follows it."""
    m = _PREFIX.match(text, i)
    if m is None:
        return None
    j = i
    while j > 0 and text[j - 1] in " \t":
        j -= 1
    two = text[max(0, j - 2) : j]
    if two == "|&" or (two.endswith("|") and two != "||"):
        return "\\time", i + 4
    mark = POSIX_MARK if m.group(1) or m.group(2) else MARK
    return mark + " " * (m.end() - i - len(mark)), m.end()


def timed_mark(text: str, at: int) -> str | None:
    """The format a ``!`` at ``text[at]`` stands for when it is a ``time`` marker, else None
    (``""``: ``TIMEFORMAT`` decides)."""
    if text.startswith(MARK, at):
        return ""
    if text.startswith(POSIX_MARK, at):
        return POSIX_FORMAT
    return None


class TimeFormatError(Exception):
    """A letter ``TIMEFORMAT`` does not know after a ``%`` (``\\0``: the text ended there)."""

    def __init__(self, letter: str) -> None:
        super().__init__(letter)
        self.letter = letter


def format_times(fmt: str, real_us: int, user_us: int, sys_us: int) -> str:
    """``fmt`` with the times (microseconds) written in, as bash writes them (truncated, not
    rounded); raises :class:`TimeFormatError`."""
    out: list[str] = []
    i, n = 0, len(fmt)
    values = {"R": real_us, "E": real_us, "U": user_us, "S": sys_us}
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if i + 1 >= n:
            out.append("%")
            break
        i += 1
        c = fmt[i]
        if c == "%":
            out.append("%")
            i += 1
            continue
        if c == "P":
            cpu = 0 if real_us == 0 else min(10_000, (user_us + sys_us) * 10_000 // real_us)
            out.append(f"{cpu // 100}.{cpu % 100:02d}")
            i += 1
            continue
        digits = 3
        if c.isdigit():
            digits = min(3, int(c))
            i += 1
        long = fmt.startswith("l", i)
        if long:
            i += 1
        letter = fmt[i] if i < n else "\0"
        if letter not in values:
            raise TimeFormatError(letter)
        out.append(_seconds(values[letter], digits, long))
        i += 1
    return "".join(out)


def _seconds(us: int, digits: int, long: bool) -> str:
    whole, ms = divmod(us // 1000, 1000)
    fraction = f".{ms // 10 ** (3 - digits):0{digits}d}" if digits else ""
    if long:
        return f"{whole // 60}m{whole % 60}{fraction}s"
    return f"{whole}{fraction}"
