"""jobs, wait and disown over the shell's background jobs.

``cmd &`` runs at once, in a subshell (``execute``), so by the time the next command runs each job
has finished: ``$!`` names it, ``wait $!`` gives its status, ``jobs`` reports it ``Done`` (or
``Exit N``) once, as bash reports a finished job (a ``wait`` first forgets it), and ``kill $!``
finds no such process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..jobtable import Job, jobs_of
from ..registry import builtin

if TYPE_CHECKING:
    from ..proc import _Proc


def _find(p: _Proc, spec: str) -> Job | None:
    jobs = jobs_of(p.vm)
    if spec.startswith("%"):
        key = spec[1:]
        if key in ("", "%", "+"):
            return jobs[-1] if jobs else None
        if key == "-":
            return jobs[-2] if len(jobs) > 1 else None
        if key.isdigit():
            return next((j for j in jobs if j.number == int(key)), None)
        return next((j for j in reversed(jobs) if j.text.startswith(key)), None)
    return next((j for j in jobs if str(j.pid) == spec), None)


@builtin("wait")
def _b_wait(p: _Proc) -> int:
    """``wait``: every job has ended, and bash forgets them; ``wait PID`` / ``wait %N``: that
    job's status (bash keeps the statuses of the pids it waited for)."""
    args = [a for a in p.args if a not in ("-n", "-f", "--")]
    jobs = jobs_of(p.vm)
    if not args:
        last = jobs[-1].status if jobs else None
        jobs.clear()
        if "-n" in p.args:
            return 127 if last is None else last
        return 0
    statuses: dict[int, int] = p.vm.__dict__.get("_pid_status", {})
    status = 0
    for spec in args:
        job = _find(p, spec)
        if job is not None:
            jobs.remove(job)
            status = job.status
        elif spec.isdigit() and int(spec) in statuses:
            status = statuses[int(spec)]
        elif spec.startswith("%"):
            p.shell_err(f"wait: {spec}: no such job")
            status = 127
        elif not spec.isdigit():
            p.shell_err(f"wait: `{spec}': not a pid or valid job spec")
            status = 1
        else:
            p.shell_err(f"wait: pid {spec} is not a child of this shell")
            status = 127
    return status


@builtin("jobs")
def _b_jobs(p: _Proc) -> int:
    jobs = [j for j in jobs_of(p.vm) if not j.reported]
    pids_only = "-p" in p.args
    for k, job in enumerate(jobs):
        if pids_only:
            p.out(f"{job.pid}\n")
            continue
        mark = "+" if k == len(jobs) - 1 else "-" if k == len(jobs) - 2 else " "
        state = "Done" if job.status == 0 else f"Exit {job.status}"
        pid = f"{job.pid} " if "-l" in p.args else ""
        p.out(f"[{job.number}]{mark}  {pid}{state:<24}{job.text}\n")
        job.reported = True
    if not pids_only:
        p.vm.__dict__["_jobs"] = [j for j in jobs_of(p.vm) if not j.reported]
    return 0


@builtin("disown")
def _b_disown(p: _Proc) -> int:
    jobs = jobs_of(p.vm)
    specs = [a for a in p.args if not a.startswith("-") or a.startswith("%")]
    if "-a" in p.args:
        jobs.clear()
        return 0
    if not specs:  # the current job
        del jobs[-1:]
        return 0
    status = 0
    for spec in specs:
        job = _find(p, spec)
        if job is None:
            p.shell_err(f"disown: {spec}: no such job")
            status = 1
        else:
            jobs.remove(job)
    return status
