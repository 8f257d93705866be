"""What one run of a command line returns: output, status and its unknown effects."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ShellResult:
    """What one :meth:`VirtualMachine.run` gave: the streams, the exit status, and whether any
    command had an effect the simulation cannot know (``unknown_effect``)."""

    stdout: str
    stderr: str
    exit_code: int
    #: a program on PATH ran whose effect is not simulated (its output was left empty)
    unknown_effect: bool = False
    #: the command lines of those programs
    unknown_commands: list[str] = field(default_factory=list)
    #: stdout and stderr interleaved in the order a terminal would show them
    output: str = ""
    #: the shell exited (``exit``)
    exited: bool = False
    #: the run's own deadline (``run(..., deadline=)``, a harness's timeout) passed on the
    #: virtual clock and ended the command there (status 124)
    timed_out: bool = False
