"""The budget of one offline step: deterministic counts of work and memory, checked as it runs.

Every :meth:`~.machine.VirtualMachine.run` gets a :class:`Budget` (``limits`` of the machine,
read once from the environment when it is made). The interpreter counts work as it goes, in units
of a nominal microsecond: each command, each byte copied into a pipe, a capture, a file or a
joined value, each parse, sort and match by its size. Places that would allocate from a number the
agent typed (brace ranges, ``printf`` widths, ``seq``, variables, here-strings) ask
:func:`reserve` first and refuse before allocating. Past the budget the run stops with the message
a shell under ``ulimit`` prints and a non-zero status; the machine stays usable. Nothing here
reads the clock to decide, so the same input gives the same output on any machine at any load.
The wall clock is only a far-off safety limit (:func:`wall_seconds`), reported differently
(:attr:`ResourceLimit.wall_clock`, the result flagged as an unknown effect).

Time in the offline world is virtual: a step's clock is its work (:data:`WORK_PER_SECOND`) plus
what ``sleep`` slept, and ``timeout`` ends its command when that clock passes its deadline
(:class:`Timeout`), at once, without waiting.

Settings (``Settings.offline_step_seconds`` / ``offline_step_memory_mb`` /
``offline_unknown_programs`` of the session's world, applied at each step; without a session, the
environment, read when a machine is made):

- ``AGENTWORLD_OFFLINE_STEP_SECONDS`` (default 5): virtual CPU seconds of one step (5 s is
  5,000,000 units of work); past it the step ends with ``CPU time limit exceeded`` and status
  152 (128 + SIGXCPU).
- ``AGENTWORLD_OFFLINE_STEP_MEMORY_MB`` (default 256): bytes one step may write in all (pipes,
  captures, files); a single value may take a third of it (:data:`VALUE_SHARE`), since its copies
  are held at once; past either ``xmalloc: cannot allocate N bytes``, status 2.
- ``AGENTWORLD_OFFLINE_UNKNOWN_PROGRAMS`` (default ``fail``): what a program the offline world
  cannot simulate (``python3 x.py``, ``pip install``, ``curl``) answers: ``fail`` prints a
  one-line notice on stderr and exits 126; ``succeed`` prints nothing and exits 0. Either way the
  result is flagged (``ShellResult.unknown_effect``, ``metadata["offline_unknown_effect"]``).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

#: units of work in one virtual second (a unit is about a microsecond of a nominal machine)
WORK_PER_SECOND = 1_000_000
#: the work of one command (a simple command, a loop's test, a function call)
COMMAND_WORK = 2
#: bytes copied (written to a pipe, a capture, a file; joined into a value) per unit of work
BYTES_PER_UNIT = 16
#: bytes copied in one piece (a value joined or replaced, made by C code) per unit of work
COPY_BYTES_PER_UNIT = 512
#: units of work between two looks at the wall clock
WALL_EVERY = 200_000
#: the wall-clock safety limit of a step: this many times its budget, and at least WALL_FLOOR s
WALL_FACTOR = 20
WALL_FLOOR = 60.0

#: one value may take this fraction of the memory budget (1/3: a value and two copies fit in it)
VALUE_SHARE = 3

DEFAULT_SECONDS = 5.0
DEFAULT_MEMORY_MB = 256

#: 128 + SIGXCPU, the status of a process killed for exceeding its CPU-time limit
TIME_STATUS = 152
#: the status bash exits with when xmalloc fails
MEMORY_STATUS = 2
#: the status of a program the offline world cannot run (bash's "found but cannot execute")
UNKNOWN_STATUS = 126


@dataclass(frozen=True)
class StepLimits:
    """How much work one step may do (in virtual seconds) and how many bytes it may hold or write."""

    seconds: float = DEFAULT_SECONDS
    memory_mb: int = DEFAULT_MEMORY_MB
    #: programs that cannot be simulated fail visibly (False: they pretend success, silently)
    unknown_fails: bool = True

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * 1024 * 1024

    @classmethod
    def from_settings(cls, settings: Any) -> StepLimits:
        """Limits from a :class:`~agentworld_plugins.config.Settings` (``offline_step_*``)."""
        return cls(
            seconds=float(settings.offline_step_seconds),
            memory_mb=int(settings.offline_step_memory_mb),
            unknown_fails=settings.offline_unknown_programs != "succeed",
        )

    @classmethod
    def from_env(cls) -> StepLimits:
        """Limits from ``AGENTWORLD_OFFLINE_STEP_SECONDS`` / ``..._MEMORY_MB`` (bad values: defaults)."""
        key = tuple(os.environ.get(f"AGENTWORLD_OFFLINE_{name}") for name in _ENV_NAMES)
        found = _FROM_ENV.get(key)
        if found is None:
            found = _FROM_ENV[key] = cls._read_env()
        return found

    @classmethod
    def _read_env(cls) -> StepLimits:
        return cls(
            seconds=_positive(os.environ.get("AGENTWORLD_OFFLINE_STEP_SECONDS"), DEFAULT_SECONDS),
            memory_mb=int(_positive(os.environ.get("AGENTWORLD_OFFLINE_STEP_MEMORY_MB"), DEFAULT_MEMORY_MB)),
            unknown_fails=os.environ.get("AGENTWORLD_OFFLINE_UNKNOWN_PROGRAMS", "fail").strip().lower()
            not in ("succeed", "success", "0", "false", "off"),
        )


def wall_seconds(limits: StepLimits) -> float:
    """The far-off wall-clock limit of a step (a host too loaded to do the work in time)."""
    return max(WALL_FLOOR, WALL_FACTOR * limits.seconds)


_ENV_NAMES = ("STEP_SECONDS", "STEP_MEMORY_MB", "UNKNOWN_PROGRAMS")
_FROM_ENV: dict[tuple[str | None, ...], StepLimits] = {}


def _positive(raw: str | None, default: float) -> float:
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if value > 0 else default


class ResourceLimit(BaseException):
    """The step went past its budget. A ``BaseException`` so that no simulated program's
    ``except Exception`` swallows it: it ends the whole run, as a kill would."""

    def __init__(self, message: str, status: int, *, wall_clock: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        #: stopped by the wall-clock safety limit, not by a deterministic count
        self.wall_clock = wall_clock


class Timeout(BaseException):
    """The virtual deadline of a ``timeout`` around the running command has passed."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.level = level


class Budget:
    """The running account of one step: work done, virtual time, bytes written.

    Work is counted in units of a nominal microsecond (:data:`WORK_PER_SECOND` a virtual
    second): a command costs :data:`COMMAND_WORK`, a byte through a pipe, a capture or a file
    1/:data:`BYTES_PER_UNIT`, a parse, a sort or a match its size. The counts, not the clock,
    end a step, so the same input gives the same output on any machine at any load. Virtual time
    is that work plus what ``sleep`` slept; ``timeout`` sets deadlines on it. The wall clock is
    looked at only every :data:`WALL_EVERY` units, against a far-off safety limit.
    """

    __slots__ = ("deadlines", "limits", "slept", "stop_at", "wall_deadline", "wall_next", "work",
                 "work_limit", "written")  # fmt: skip

    def __init__(self, limits: StepLimits) -> None:
        self.limits = limits
        self.work = 0
        self.work_limit = max(1, int(limits.seconds * WORK_PER_SECOND))
        self.slept = 0.0
        #: virtual deadlines (seconds since the step began) of the ``timeout`` commands running
        self.deadlines: list[float] = []
        self.stop_at = min(self.work_limit, WALL_EVERY)
        self.wall_deadline = time.monotonic() + wall_seconds(limits)
        self.wall_next = WALL_EVERY
        self.written = 0

    @property
    def now(self) -> float:
        """Virtual seconds since the step began."""
        return self.work / WORK_PER_SECOND + self.slept

    def spend(self, units: int = 1) -> None:
        """Count ``units`` of work; past the budget (or a ``timeout``'s deadline) the step ends."""
        self.work += units
        if self.work > self.stop_at:
            self._over()

    def _over(self) -> None:
        if self.work > self.wall_next:
            self.wall_next = self.work + WALL_EVERY
            if time.monotonic() > self.wall_deadline:
                raise ResourceLimit(
                    f"the offline step was stopped by the host's wall-clock safety limit "
                    f"({wall_seconds(self.limits):g} s; the host is overloaded): this result is not "
                    "deterministic",
                    TIME_STATUS,
                    wall_clock=True,
                )
        if self.work > self.work_limit:
            raise ResourceLimit(
                f"CPU time limit exceeded (the offline step budget is {self.limits.seconds:g} s of work)",
                TIME_STATUS,
            )
        self._check_deadlines()
        self._restop()

    def _check_deadlines(self) -> None:
        now = self.now
        for level, deadline in enumerate(self.deadlines):
            if now >= deadline:
                raise Timeout(level)

    def _restop(self) -> None:
        """The work count at which :meth:`spend` next has something to check."""
        stop = min(self.work_limit, self.wall_next)
        if self.deadlines:
            left = min(self.deadlines) - self.slept
            stop = min(stop, max(self.work, int(left * WORK_PER_SECOND)))
        self.stop_at = stop

    def sleep(self, seconds: float) -> None:
        """Virtual time passes (``sleep``): up to the nearest ``timeout`` deadline, which fires."""
        if self.deadlines:
            nearest = min(self.deadlines)
            if self.now + seconds >= nearest:
                self.slept = max(self.slept, nearest - self.work / WORK_PER_SECOND)
                self._check_deadlines()
        self.slept += seconds
        self._restop()

    def push_deadline(self, seconds: float) -> int:
        """A ``timeout`` of ``seconds`` from now; returns its level (for :meth:`pop_deadline`)."""
        self.deadlines.append(self.now + seconds)
        self._restop()
        return len(self.deadlines) - 1

    def pop_deadline(self, level: int) -> None:
        del self.deadlines[level:]
        self._restop()

    def reserve(self, size: int) -> None:
        """Refuse, before allocating, a single value of ``size`` bytes over its share of the budget
        (:data:`VALUE_SHARE`: the copies of a value in flight, encoded, cut and decoded, are held
        at once, so a value of the whole budget held three times the budget)."""
        if size > self.limits.memory_bytes // VALUE_SHARE:
            raise ResourceLimit(
                f"xmalloc: cannot allocate {size} bytes (the offline step memory budget is "
                f"{self.limits.memory_mb} MB, a third of it for one value)",
                MEMORY_STATUS,
            )

    def hold(self, size: int) -> None:
        """A new value of ``size`` bytes is made: refused over the budget, else its copying counted."""
        self.reserve(size)
        self.spend(1 + size // COPY_BYTES_PER_UNIT)

    def charge(self, size: int) -> None:
        """Count ``size`` bytes written (work and memory); past the budget the step ends."""
        self.written += size
        if self.written > self.limits.memory_bytes:
            raise ResourceLimit(
                f"xmalloc: cannot allocate {size} bytes "
                f"(the offline step wrote more than its memory budget of {self.limits.memory_mb} MB)",
                MEMORY_STATUS,
            )
        self.spend(1 + size // BYTES_PER_UNIT)


_local = threading.local()
#: used outside any run (a tool calling brace_expand directly): the default limits, no deadline
_UNBOUNDED = Budget(StepLimits(seconds=1e9))
_UNBOUNDED.wall_deadline = float("inf")


def current() -> Budget:
    """The budget of the step running in this thread (a lenient one outside any step)."""
    return getattr(_local, "budget", None) or _UNBOUNDED


def enter(budget: Budget) -> Budget | None:
    """Make ``budget`` this thread's; returns the one it replaces (give it to :func:`leave`)."""
    previous = getattr(_local, "budget", None)
    _local.budget = budget
    return previous


def leave(previous: Budget | None) -> None:
    _local.budget = previous


def reserve(size: int) -> None:
    """Refuse a value of ``size`` bytes the current step cannot hold."""
    current().reserve(size)


def spend(units: int) -> None:
    """Count ``units`` of work against the current step."""
    current().spend(units)


def hold(size: int) -> None:
    """A new value of ``size`` bytes: refused over the memory budget, its copying counted as work."""
    current().hold(size)
