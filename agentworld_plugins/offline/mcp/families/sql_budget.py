"""The deterministic work budget of the ``sql`` family's statements.

SQLite's progress handler counts virtual-machine instructions, but a few built-in functions do
unbounded work inside one instruction: ``printf('%.*c', 1000000000, 'x')`` loops a billion times
before it finds the result too long (2.3 s), ``instr``, ``replace``, ``trim`` and ``LIKE``/``GLOB``
compare every position of one argument with the other (``instr`` of a 4 MB needle in an 8 MB
haystack runs for hours). :class:`StatementBudget` replaces those functions on the session's
connection with versions that charge their worst-case work to the statement's budget *before*
they run, then let SQLite's own implementation (on a private helper connection with the same
limits) compute the answer, so results are SQLite's, byte for byte. A ``printf``/``format`` whose
width or precision alone passes the string length limit answers NULL at once, as SQLite does after
its long loop.

Work is counted in VM instructions: the progress handler adds :data:`PROGRESS_EVERY` per call, a
replaced function one per :data:`CHARS_PER_UNIT` characters it may compare or write. Past
:data:`MAX_WORK` the statement ends with SQLite's ``interrupted`` and the budget named; the same
statement ends at the same point on any machine at any load. The wall clock is only a far-off
safety limit (the offline step's :func:`~agentworld_plugins.offline.shell.limits.wall_seconds`,
at least 60 s) for the work that stays uncounted (copying values of at most ``MAX_LENGTH`` bytes
inside one instruction), reported as not deterministic.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from ...shell.limits import StepLimits, wall_seconds

#: VM instructions between two calls of the progress handler
PROGRESS_EVERY = 1000
#: VM instructions one statement may run (or their equivalent in charged function work)
MAX_WORK = 20_000_000
#: characters compared or written by a charged function per unit of work
CHARS_PER_UNIT = 64
#: the work a charged function costs at least (the call itself)
CALL_WORK = 8

_INT_BITS = 0x7FFFFFFF
_SPEC = re.compile(r"%([-+ 0#!,]*)(\*|\d+)?(?:\.(\*|\d*))?(l{0,2})([a-zA-Z%]?)")
#: conversions whose precision sets a minimum length (zero padding, repeated characters, digits)
_PRECISION_PADS = set("cdiuxXofeE")


class BudgetSpent(Exception):
    """Raised inside a charged function: the statement is over its budget."""


def _c_int(value: int) -> int:
    """``value`` as C's ``(int)`` cast of an ``sqlite3_int64`` leaves it."""
    return ((value + 2**31) % 2**32) - 2**31


class StatementBudget:
    """The work account of one connection's current statement, and the functions it charges."""

    def __init__(self, conn: sqlite3.Connection, max_length: int) -> None:
        self.max_length = max_length
        self.work = 0
        self.spent = False  # past MAX_WORK: the statement was stopped deterministically
        self.wall_clock = False  # stopped by the far-off wall-clock limit instead
        self._wall_deadline = 0.0
        self._helper = sqlite3.connect(":memory:", check_same_thread=False)
        if hasattr(self._helper, "setlimit"):  # Python 3.11+
            self._helper.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_length)  # type: ignore[attr-defined,unused-ignore]
        conn.set_progress_handler(self._progress, PROGRESS_EVERY)
        functions: list[tuple[str, int, Callable[..., Any]]] = [
            ("printf", -1, self._printf),
            ("instr", 2, self._instr),
            ("replace", 3, self._replace),
            ("like", 2, self._like),
            ("like", 3, self._like_escaped),
            ("glob", 2, self._glob),
        ]
        try:
            self._builtin("format", ("%d", 1))  # SQLite 3.38+
            functions.append(("format", -1, self._format))
        except sqlite3.OperationalError:
            pass
        for name in ("trim", "ltrim", "rtrim"):
            functions.append((name, 2, self._trimmer(name)))
        for name, arity, function in functions:
            conn.create_function(name, arity, function, deterministic=True)

    # -- the account -----------------------------------------------------------------------------

    def start(self) -> None:
        """A new statement: a fresh account and wall-clock deadline."""
        self.work = 0
        self.spent = self.wall_clock = False
        self._wall_deadline = time.monotonic() + wall_seconds(StepLimits.from_env())

    def _progress(self) -> int:
        self.work += PROGRESS_EVERY
        if self.work > MAX_WORK:
            self.spent = True
            return 1
        if time.monotonic() > self._wall_deadline:
            self.wall_clock = True
            return 1
        return 0

    def charge(self, chars: int) -> None:
        """Count a function's work (``chars`` compared or written) before it runs."""
        self.work += CALL_WORK + chars // CHARS_PER_UNIT
        if self.work > MAX_WORK:
            self.spent = True
            raise BudgetSpent

    def error_text(self, text: str) -> str:
        """SQLite's error, with the budget that stopped the statement named."""
        if self.spent:
            return f"interrupted (the statement ran past the offline world's budget of {MAX_WORK:,} steps)"
        if self.wall_clock:
            return (
                "interrupted (stopped by the host's wall-clock safety limit of "
                f"{wall_seconds(StepLimits.from_env()):g} s; the host is overloaded): this result is "
                "not deterministic"
            )
        return text

    # -- SQLite's own functions, on the helper connection ---------------------------------------

    def _builtin(self, name: str, args: tuple[Any, ...]) -> Any:
        marks = ", ".join("?" * len(args))
        return self._helper.execute(f"SELECT {name}({marks})", args).fetchone()[0]

    @staticmethod
    def _size(value: Any) -> int:
        return len(value) if isinstance(value, (str, bytes)) else 24  # a number's text

    def _instr(self, haystack: Any, needle: Any) -> Any:
        self.charge(self._size(haystack) * max(1, self._size(needle)))
        return self._builtin("instr", (haystack, needle))

    def _replace(self, text: Any, old: Any, new: Any) -> Any:
        size, old_size = self._size(text), max(1, self._size(old))
        self.charge(size * old_size + (size // old_size) * self._size(new))
        return self._builtin("replace", (text, old, new))

    def _like(self, pattern: Any, text: Any) -> Any:
        self.charge(self._size(text) * max(1, self._size(pattern)))
        return self._builtin("like", (pattern, text))

    def _like_escaped(self, pattern: Any, text: Any, escape: Any) -> Any:
        self.charge(self._size(text) * max(1, self._size(pattern)))
        return self._builtin("like", (pattern, text, escape))

    def _glob(self, pattern: Any, text: Any) -> Any:
        self.charge(self._size(text) * max(1, self._size(pattern)))
        return self._builtin("glob", (pattern, text))

    def _trimmer(self, name: str) -> Callable[[Any, Any], Any]:
        def trim(text: Any, chars: Any) -> Any:
            self.charge(self._size(text) * max(1, self._size(chars)))
            return self._builtin(name, (text, chars))

        return trim

    def _printf(self, *args: Any) -> Any:
        return self._formatted("printf", args)

    def _format(self, *args: Any) -> Any:
        return self._formatted("format", args)

    def _formatted(self, name: str, args: tuple[Any, ...]) -> Any:
        if args and isinstance(args[0], str) and self._shortest(args[0], args[1:]) > self.max_length:
            self.charge(len(args[0]))
            return None  # SQLite's answer once its buffer passes the length limit
        self.charge(sum(self._size(a) for a in args))
        result = self._builtin(name, args)
        self.charge(self._size(result))
        return result

    def _shortest(self, fmt: str, args: tuple[Any, ...]) -> int:
        """A lower bound of the length of ``printf(fmt, *args)``: its widths and padding precisions."""
        longest = 0
        taken = 0

        def star() -> int:
            nonlocal taken
            value = args[taken] if taken < len(args) else None
            taken += 1
            number = _c_int(self._as_int(value))
            return -number if number >= -_INT_BITS and number < 0 else max(number, 0)

        for spec in _SPEC.finditer(fmt):
            _flags, width, precision, _length, kind = spec.groups()
            if kind == "%":
                continue
            wide = star() if width == "*" else int(width or 0) & _INT_BITS
            digits = star() if precision == "*" else int(precision or 0) & _INT_BITS
            if kind:
                taken += 1  # the converted argument
            longest = max(longest, wide, digits if kind in _PRECISION_PADS else 0)
        return longest

    def _as_int(self, value: Any) -> int:
        if isinstance(value, int):
            return value
        if value is None:
            return 0
        result = self._helper.execute("SELECT CAST(? AS INTEGER)", (value,)).fetchone()[0]
        return int(result or 0)
