"""Which steps a perturbation touches, when it fires, and each session's seeded random stream.

Three pieces, used by every harness-level perturbation:

- :func:`describe_action` turns any domain's validated action into an :class:`ActionView`: the
  *tool* (MCP/swe tool name, search tool, the program a terminal command runs, a BrowserGym or
  pyautogui function, an Android ``action_type``), the *command* text and the action as text;
- :class:`Target` matches a view by domain, tool glob, command glob, regex and turn range;
- :class:`Schedule` says whether a matching step fires: ``always``, with probability ``rate``,
  ``every`` Nth match, the ``first`` N matches, or ``at`` listed turn numbers.

:class:`SessionRandom` is counter-based: the number drawn for (session, perturbation, turn,
purpose) is a hash, so it does not depend on how many draws came before, and a session continued
in another process (a shell shim, a server replica) draws the same numbers.

>>> rng = SessionRandom("seed=7", "faults")
>>> rng.uniform(3, "fire") == SessionRandom("seed=7", "faults").uniform(3, "fire")
True
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import json
import random
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from .. import pyast
from .commandline import program_of, simple_commands

_SEPARATOR = re.compile(r"\s*(?:\|\||&&|;|\|)\s*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\bC-[a-z]\b|\bM-[a-z]\b")

#: argument names that hold a file or folder path, most telling first
PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path", "directory", "filename")
#: argument names that hold the thing a tool call acts on, most telling first
_TARGET_KEYS = (
    *PATH_KEYS,
    "url",
    "uri",
    "id",
    "key",
    "name",
    "repo",
    "query",
)
#: shell tools of coding agents whose ``command`` argument is a bash command line
SHELL_TOOLS = ("run_shell_command", "execute_bash", "bash", "shell", "run_command", "exec_command")


@dataclass
class ActionView:
    """What targeting and error texts need to know about one action, in any domain."""

    domain: str
    tool: str = ""
    command: str = ""
    text: str = ""
    target: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)
    #: an action that changes nothing (wait, done, give up): faults leave it alone
    inert: bool = False
    #: for a shell command line (terminal keystrokes, a shell tool's ``command``): every program it
    #: runs and the text of each simple command, which ``tools=`` / ``commands=`` also match
    programs: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    #: the simple command a fault is about (the one targeting matched), if not the first
    focus: str = ""

    def tool_names(self) -> list[str]:
        """The names ``tools=`` matches: the tool, then the programs of its command line."""
        return [self.tool, *(p for p in self.programs if p != self.tool)]

    def command_texts(self) -> list[str]:
        """The texts ``commands=`` matches: the whole command, then each simple command."""
        return [self.command, *(p for p in self.parts if p != self.command)]


def _shell_line(view: ActionView, line: str) -> ActionView:
    simple = simple_commands(line)
    view.programs = list(dict.fromkeys(c.program for c in simple))
    view.parts = [c.text for c in simple]
    return view


def split_command(command: str) -> tuple[str, list[str]]:
    """The program of the first simple command in a shell line and its arguments.

    >>> split_command("FOO=1 sudo rm -rf /tmp/x && ls")
    ('rm', ['-rf', '/tmp/x'])
    """
    rest = strip_setup(command)
    first = _SEPARATOR.split(rest, maxsplit=1)[0] if rest else ""
    try:
        tokens = shlex.split(first, comments=True)
    except ValueError:
        tokens = first.split()
    return program_of(tokens)


def strip_setup(command: str) -> str:
    """``command`` without the simple commands before it that only set the shell up for it
    (``export FOO=1; cmd``: how the shim passes the caller's environment; ``set -e; cmd``)."""
    rest = command.strip()
    while rest:
        first, *after = _SEPARATOR.split(rest, maxsplit=1)
        if not after or not re.match(r"\s*;", rest[len(first) :]):
            return rest
        try:
            tokens = shlex.split(first, comments=True)
        except ValueError:  # a quote the cut split (`export Q='a;b'`): no setup to skip
            return rest
        if not _is_setup(tokens):
            return rest
        rest = after[0].strip()
    return rest


def _is_setup(tokens: list[str]) -> bool:
    """Whether a simple command only sets up the shell for the next one (``export A=1``, ``set -e``)."""
    if not tokens:
        return False
    if tokens[0] == "export":
        return len(tokens) > 1 and all("=" in t for t in tokens[1:])
    return (
        tokens[0] == "set"
        and len(tokens) > 1
        and all(t.startswith(("-", "+")) or t.isidentifier() for t in tokens[1:])
    )


def last_operand(args: list[str]) -> str | None:
    """The last argument that is not an option or a redirection (the file a command acts on)."""
    operands = [a for a in args if a and not a.startswith("-") and not re.match(r"^\d*[<>]", a)]
    return operands[-1] if operands else None


def _argument_target(arguments: dict[str, Any]) -> str | None:
    for key in _TARGET_KEYS:
        value = arguments.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    for key, value in arguments.items():
        if key.endswith("_id") and isinstance(value, (str, int)) and not isinstance(value, bool):
            return str(value)
    queries = arguments.get("queries")
    if isinstance(queries, list) and queries and isinstance(queries[0], str):
        return queries[0]
    return None


def _tool_call(domain: str, data: dict[str, Any]) -> ActionView:
    tool = str(data.get("tool_name") or data.get("name") or "")
    given = data.get("arguments")
    arguments: dict[str, Any] = given if isinstance(given, dict) else {}
    command = ""
    args: list[str] = []
    target = _argument_target(arguments)
    if tool in SHELL_TOOLS and isinstance(arguments.get("command"), str):
        command = arguments["command"]
        _, args = split_command(command)
        target = last_operand(args) or target
    elif domain == "search":
        queries = arguments.get("queries", arguments.get("query"))
        if isinstance(queries, str):
            queries = [queries]
        command = " | ".join(str(q) for q in queries or []) or str(arguments.get("url") or "")
    text = json.dumps({"tool_name": tool, "arguments": arguments}, ensure_ascii=False, sort_keys=True)
    view = ActionView(domain, tool, command, text, target, dict(arguments), args)
    return _shell_line(view, command) if tool in SHELL_TOOLS and command else view


def _terminal(data: Any) -> ActionView:
    batches = data if isinstance(data, list) else []
    keys = "".join(str(b.get("keystrokes", "")) for b in batches if isinstance(b, dict))
    lines = [_CONTROL.sub("", line).strip() for line in keys.split("\n")]
    lines = [line for line in lines if line]
    command = lines[0] if lines else ""
    program, args = split_command(command)
    view = ActionView(
        "terminal",
        tool=program,
        command=command,
        text=keys,
        target=last_operand(args),
        args=args,
        inert=not command,
    )
    return _shell_line(view, "\n".join(lines))


def _first_call(code: str) -> str:
    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            try:
                return ast.unparse(node.func)
            except RecursionError:
                return ""
    return ""


def _web(data: Any) -> ActionView:
    from ..domains.web import WebActionError, parse_web_action

    text = str(data)
    try:
        calls = parse_web_action(text)
    except WebActionError:
        calls = []
    tool, arguments = calls[0] if calls else ("", {})
    target = arguments.get("url") or arguments.get("bid") or arguments.get("from_bid")
    inert = bool(calls) and all(n in ("noop", "send_msg_to_user", "report_infeasible") for n, _ in calls)
    return ActionView("web", tool, text, text, str(target) if target else None, dict(arguments), inert=inert)


def _android(data: dict[str, Any]) -> ActionView:
    kind = str(data.get("action_type", ""))
    target = data.get("app_name") or data.get("text")
    if target is None and data.get("index") is not None:
        target = str(data["index"])
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    inert = kind in ("wait", "status", "answer")
    return ActionView("android", kind, text, text, target, dict(data), inert=inert)


def _os(data: Any) -> ActionView:
    code = str(data)
    if code in ("WAIT", "DONE", "FAIL"):
        return ActionView("os", code, code, code, inert=True)
    found = re.search(r"""['"](/[^'"]+|~/[^'"]+)['"]""", code)
    return ActionView("os", _first_call(code), code, code, found.group(1) if found else None)


def describe_action(domain: str, action: Any) -> ActionView:
    """An :class:`ActionView` of a validated action (or its JSON form) of ``domain``."""
    data = action.model_dump(mode="json", by_alias=False) if hasattr(action, "model_dump") else action
    if domain == "terminal":
        return _terminal(data)
    if domain == "web":
        return _web(data)
    if domain == "os":
        return _os(data)
    if domain == "android" and isinstance(data, dict):
        return _android(data)
    if isinstance(data, dict) and ("tool_name" in data or "name" in data):
        return _tool_call(domain, data)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, sort_keys=True)
    tool = ""
    if isinstance(data, dict):
        tool = str(data.get("action_type") or data.get("type") or data.get("op") or "")
    return ActionView(domain, tool, text if isinstance(data, str) else "", text)


# --- targeting --------------------------------------------------------------------------------


def parse_turns(value: str) -> tuple[int, int | None]:
    """``"3-10"`` -> (3, 10), ``"5-"`` -> (5, None), ``"-4"`` -> (1, 4), ``"7"`` -> (7, 7).

    Raises ``ValueError`` saying how to write a range.
    """
    text = value.strip()
    match = re.fullmatch(r"(\d*)\s*(?:-|\.\.)\s*(\d*)|(\d+)", text)
    if not match or text in ("-", ".."):
        raise ValueError(f"turns={value!r} is not a turn range; write 3-10, 5- (from 5 on), -4 or 7")
    high: int | None
    if match.group(3):
        low = high = int(match.group(3))
    else:
        low = int(match.group(1)) if match.group(1) else 1
        high = int(match.group(2)) if match.group(2) else None
    if low < 1 or (high is not None and high < low):
        raise ValueError(f"turns={value!r} is empty; turns count from 1 and the range must not run backwards")
    return low, high


@dataclass
class Target:
    """Which steps a perturbation considers. Empty criteria match everything.

    ``tools`` and ``commands`` are shell-style globs (``write_*``, ``git push*``); ``match`` is a
    regular expression searched in the action's text; ``turns`` an inclusive range.
    """

    domains: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    match: re.Pattern[str] | None = None
    turns: tuple[int, int | None] | None = None

    def domain_matches(self, domain: str) -> bool:
        return not self.domains or any(fnmatch.fnmatchcase(domain, d) for d in self.domains)

    def matches(self, view: ActionView, turn: int) -> bool:
        if not self.domain_matches(view.domain):
            return False
        if self.turns is not None:
            low, high = self.turns
            if turn < low or (high is not None and turn > high):
                return False
        if self.tools and not any(_globbed(view.tool_names(), g) for g in self.tools):
            return False
        if self.commands and not any(_globbed(view.command_texts(), g) for g in self.commands):
            return False
        return not (self.match is not None and not self.match.search(view.text))

    def focus(self, view: ActionView) -> str:
        """The simple command of a shell line that ``tools`` / ``commands`` picked out, when it
        is not the line's first (so a fault's text is about ``curl`` in ``cd /srv && curl x``)."""
        if len(view.parts) < 2:
            return ""
        by_tool = bool(self.tools) and not _globbed([view.tool], *self.tools)
        by_command = bool(self.commands) and not _globbed([view.command], *self.commands)
        if not (by_tool or by_command):
            return ""
        for text in view.parts:
            if by_tool and not _globbed([split_command(text)[0]], *self.tools):
                continue
            if by_command and not _globbed([text], *self.commands):
                continue
            return "" if text == view.parts[0] else text
        return ""


def _globbed(names: list[str], *patterns: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)


# --- schedules --------------------------------------------------------------------------------


@dataclass
class Schedule:
    """When a matching step fires. At most one of ``rate``, ``every``, ``first``, ``at``; none
    means always."""

    rate: float | None = None
    every: int | None = None
    first: int | None = None
    at: frozenset[int] | None = None

    def describe(self) -> str:
        if self.rate is not None:
            return f"rate={self.rate}"
        if self.every is not None:
            return f"every={self.every}"
        if self.first is not None:
            return f"first={self.first}"
        if self.at is not None:
            return "at=" + "+".join(str(t) for t in sorted(self.at))
        return "always"

    def fires(self, rng: SessionRandom, turn: int, match_number: int) -> bool:
        """Whether the ``match_number``-th matching step (counted from 1), on ``turn``, fires."""
        if self.rate is not None:
            return rng.uniform(turn, "fire") < self.rate
        if self.every is not None:
            return match_number % self.every == 0
        if self.first is not None:
            return match_number <= self.first
        if self.at is not None:
            return turn in self.at
        return True


# --- random streams ---------------------------------------------------------------------------


class SessionRandom:
    """Reproducible random numbers for one session and one perturbation.

    ``base`` identifies the session: ``seed=<n>`` when the session has a seed (so two sessions
    with the same seed draw the same numbers, whatever their ids), else ``id=<session id>``.
    ``salt`` tells perturbations apart (their name and own ``seed`` option).
    """

    def __init__(self, base: str, salt: str) -> None:
        self.base = base
        self.salt = salt

    @classmethod
    def for_session(cls, session: Any, salt: str) -> SessionRandom:
        seed = getattr(session, "seed", None)
        base = f"seed={seed}" if seed is not None else f"id={getattr(session, 'id', '')}"
        return cls(base, salt)

    def _digest(self, turn: int, purpose: str) -> bytes:
        key = f"{self.base}|{self.salt}|{turn}|{purpose}".encode()
        return hashlib.blake2b(key, digest_size=8).digest()

    def uniform(self, turn: int, purpose: str) -> float:
        """A number in [0, 1) fixed by (session, salt, turn, purpose)."""
        return int.from_bytes(self._digest(turn, purpose), "big") / 2.0**64

    def rng(self, turn: int, purpose: str) -> random.Random:
        """A :class:`random.Random` seeded by (session, salt, turn, purpose)."""
        return random.Random(int.from_bytes(self._digest(turn, purpose), "big"))
