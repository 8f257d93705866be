"""The shell's table of background jobs: ``cmd &`` runs at once, in a subshell, and is noted
here as a finished job (its pid is ``$!``); ``jobs``, ``wait`` and ``disown`` read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: the first pid a background job gets (then one more per job); `ps` shows 1 and 42
FIRST_PID = 100


@dataclass
class Job:
    number: int
    pid: int
    status: int
    text: str
    reported: bool = False


def jobs_of(vm: Any) -> list[Job]:
    jobs: list[Job] = vm.__dict__.setdefault("_jobs", [])
    return jobs


def started(vm: Any, text: str, status: int) -> None:
    """Note a background job that ran to its end with ``status`` (``$!`` is its pid)."""
    jobs = jobs_of(vm)
    pid = vm.__dict__.get("_last_pid", FIRST_PID - 1) + 1
    vm.__dict__["_last_pid"] = pid
    jobs.append(Job(max((j.number for j in jobs), default=0) + 1, pid, status, " ".join(text.split())))
    statuses: dict[int, int] = vm.__dict__.setdefault("_pid_status", {})
    statuses[pid] = status  # what `wait PID` answers, also once the job is forgotten
    if len(statuses) > 1024:
        del statuses[next(iter(statuses))]
    if len(jobs) > 256:  # bash keeps a bounded list of finished jobs too
        del jobs[0]


def last_pid(vm: Any) -> str:
    """``$!``: the pid of the last job started, empty before any."""
    pid = vm.__dict__.get("_last_pid")
    return "" if pid is None else str(pid)
