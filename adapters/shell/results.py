"""What the shell fronts return: :class:`CommandResult` (streams and exit status of one command),
:class:`LineResult` (one line typed at a prompt), and the parsers of the tools' answer formats."""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentworld_plugins.session import Observation

__all__ = [
    "MAX_OUTPUT",
    "CommandResult",
    "LineResult",
    "parse_bash_footer",
    "parse_shell_result",
    "truncate_output",
]

#: characters of stdout (and of stderr) a command result keeps; the rest becomes a marker
MAX_OUTPUT = int(os.environ.get("AGENTWORLD_SHELL_MAX_OUTPUT", "1000000") or 1000000)


@dataclass
class CommandResult:
    """What one command gave: the streams, the exit status, and the observation behind them."""

    stdout: str
    stderr: str
    exit_code: int
    observation: Observation | None = None

    @property
    def returncode(self) -> int:
        return self.exit_code

    @property
    def output(self) -> str:
        """stdout then stderr, as an agent that merges the streams sees them."""
        return self.stdout + self.stderr

    @property
    def timed_out(self) -> bool:
        """The command's ``timeout`` passed (on the offline world's virtual clock)."""
        return bool(self.observation is not None and self.observation.metadata.get("timed_out"))


@dataclass
class LineResult:
    """One line typed at an interactive prompt: what it printed and the next prompt."""

    output: str
    prompt: str
    status: int = 0
    #: the exit status when the line ended the shell (``exit``), else None
    exited: int | None = None


def truncate_output(text: str, limit: int | None = None) -> str:
    """``text`` cut to ``limit`` characters with a marker saying how much was left out."""
    limit = MAX_OUTPUT if limit is None else limit
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return f"{cut}\n[agentworld: output truncated, {len(text) - limit} more characters]\n"


def _field_text(value: str) -> str:
    value = value.strip("\n")
    return "" if value.strip() in ("(empty)", "(none)", "") else value


def _last(pattern: re.Pattern[str], text: str, start: int, end: int) -> re.Match[str] | None:
    found = None
    for m in pattern.finditer(text, start, end):
        found = m
    return found


_STDOUT = re.compile(r"^Stdout:[ \t]?", re.MULTILINE)
_STDERR = re.compile(r"^Stderr:[ \t]?", re.MULTILINE)
_ERROR = re.compile(r"^Error:[ \t]?(.*)$", re.MULTILINE)
_EXIT = re.compile(r"^Exit Code:[ \t]*(.*)$", re.MULTILINE)
_SIGNAL = re.compile(r"^Signal:[ \t]*(.*)$", re.MULTILINE)
_FOOTER = re.compile(
    r"\n?\[(?:The command completed|Command finished) with exit code (-?\d+)\.?\]\s*$",
)


def parse_shell_result(text: str, *, is_error: bool = False) -> tuple[str, str, int]:
    """``(stdout, stderr, exit_code)`` from a ``run_shell_command`` answer.

    The fields are Command, Directory, Stdout, Stderr, Error, Exit Code, Signal, Background PIDs.
    Program output may itself contain lines such as ``Error: ...``, so the trailing fields are
    found from the end. ``(empty)`` and ``(none)`` mean nothing; non-empty streams end with a
    newline (the format strips it). Without an exit code, a signal gives ``128 + signal``, an
    error message gives 1. An answer in no known format is taken as stdout (stderr when
    ``is_error``), exit status 1 when ``is_error`` else 0.
    """
    text = text.replace("\r\n", "\n")
    m_out = _STDOUT.search(text)
    if m_out is None:
        footer = _FOOTER.search(text)
        if footer:
            out = text[: footer.start()]
            return (out + "\n" if out and not out.endswith("\n") else out), "", int(footer.group(1))
        body = text if (not text or text.endswith("\n")) else text + "\n"
        return ("", body, 1) if is_error else (body, "", 0)
    begin = m_out.end()
    m_code = _last(_EXIT, text, begin, len(text))
    tail_end = m_code.start() if m_code else len(text)
    m_err = _last(_ERROR, text, begin, tail_end)
    streams_end = m_err.start() if m_err else tail_end
    m_serr = _last(_STDERR, text, begin, streams_end)
    if m_serr:
        stdout = _field_text(text[begin : m_serr.start()])
        stderr = _field_text(text[m_serr.end() : streams_end])
    else:
        stdout = _field_text(text[begin:streams_end])
        stderr = ""
    error = _field_text(m_err.group(1)) if m_err else ""
    code: int | None = None
    if m_code:
        with contextlib.suppress(ValueError):
            code = int(m_code.group(1).strip())
    if code is None:
        m_sig = _SIGNAL.search(text, begin)
        signal_no = None
        if m_sig:
            with contextlib.suppress(ValueError):
                signal_no = int(m_sig.group(1).strip())
        code = 128 + signal_no if signal_no else (1 if (error or is_error) else 0)
    if error and not stderr:
        stderr = error
    stdout = stdout + "\n" if stdout and not stdout.endswith("\n") else stdout
    stderr = stderr + "\n" if stderr and not stderr.endswith("\n") else stderr
    return stdout, stderr, code


def parse_bash_footer(text: str) -> tuple[str, int | None]:
    """``(output, exit_code)`` from an ``execute_bash`` answer (None: no exit code shown)."""
    footer = _FOOTER.search(text)
    if footer is None:
        return text, None
    out = text[: footer.start()]
    return (out + "\n" if out and not out.endswith("\n") else out), int(footer.group(1))
