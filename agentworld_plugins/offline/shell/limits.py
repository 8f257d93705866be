"""The budget of one offline step: wall-clock seconds and memory, checked cheaply as it runs.

Every :meth:`~.machine.VirtualMachine.run` gets a :class:`Budget` (``limits`` of the machine,
read once from the environment when it is made). The interpreter checks the clock every
:data:`CHECK_EVERY` commands and on every write; places that would allocate from a number the
agent typed (brace ranges, ``printf`` widths, ``seq``, variables, here-strings) ask
:func:`reserve` first and refuse before allocating. Past the budget the run stops with the
message a shell under ``ulimit`` prints and a non-zero status; the machine stays usable.

Settings (``Settings.offline_step_seconds`` / ``offline_step_memory_mb`` /
``offline_unknown_programs`` of the session's world, applied at each step; without a session, the
environment, read when a machine is made):

- ``AGENTWORLD_OFFLINE_STEP_SECONDS`` (default 5): wall-clock seconds of one step; past it the
  step ends with ``CPU time limit exceeded`` and status 152 (128 + SIGXCPU).
- ``AGENTWORLD_OFFLINE_STEP_MEMORY_MB`` (default 256): bytes one step may hold in one value or
  write in all (pipes, captures, files); past it ``xmalloc: cannot allocate N bytes``, status 2.
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

#: commands between two looks at the clock (a look costs ~50 ns; a command ~10 us)
CHECK_EVERY = 64

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
    """How long one step may run and how many bytes it may hold or write."""

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

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class Budget:
    """The running account of one step: a deadline and the bytes written so far."""

    __slots__ = ("deadline", "limits", "written")

    def __init__(self, limits: StepLimits) -> None:
        self.limits = limits
        self.deadline = time.monotonic() + limits.seconds
        self.written = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise ResourceLimit(
                f"CPU time limit exceeded (the offline step budget is {self.limits.seconds:g} s)",
                TIME_STATUS,
            )

    def reserve(self, size: int) -> None:
        """Refuse, before allocating, a single value of ``size`` bytes over the budget."""
        if size > self.limits.memory_bytes:
            raise ResourceLimit(
                f"xmalloc: cannot allocate {size} bytes "
                f"(the offline step memory budget is {self.limits.memory_mb} MB)",
                MEMORY_STATUS,
            )

    def charge(self, size: int) -> None:
        """Count ``size`` bytes written; past the budget the step ends."""
        self.written += size
        if self.written > self.limits.memory_bytes:
            raise ResourceLimit(
                f"xmalloc: cannot allocate {size} bytes "
                f"(the offline step wrote more than its memory budget of {self.limits.memory_mb} MB)",
                MEMORY_STATUS,
            )


_local = threading.local()
#: used outside any run (a tool calling brace_expand directly): the default limits, no deadline
_UNBOUNDED = Budget(StepLimits(seconds=1e9))


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
