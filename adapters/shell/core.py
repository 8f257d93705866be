"""The virtual terminal: one simulated machine behind every way an agent runs commands.

A :class:`VirtualTerminal` has two fronts, each a :class:`~agentworld_plugins.Session`:

- the **command** front (swe domain): ``run(command, cwd, timeout) -> CommandResult`` sends a
  ``run_shell_command`` call and parses the Stdout / Stderr / Exit Code fields of the answer into
  real streams and a real exit status; the coding tools (``read_file``, ``edit``,
  ``execute_bash``, ``str_replace_editor``, ...) go to the same session (:meth:`tool`);
- the **screen** front (terminal domain): ``send_keys(keys) -> screen`` types into the machine's
  interactive bash and returns the 160x40 screen; :meth:`send_line` turns that into
  "output + next prompt" for line-oriented fronts (``agentworld shell``, the interactive shim).

Both fronts simulate **one machine**. With a world model, each front is its own conversation and
the model keeps the machine consistent from the shared description in both system prompts. With
the offline world the fronts share the machine itself: one :class:`~..offline.vfs.VirtualFS` under
two shells (``bash -c`` style for commands, an interactive bash for the screen), kept in each
session's ``state["offline"]`` where the offline backend looks for it. So a file written by
``bash -c`` is there when the tmux look-alike runs ``cat``, while ``cd`` and ``export`` stay in the
shell where they were typed, as on a real machine.

With a ``store`` the terminal lives in the SQLite session store (:mod:`.store`) under its
``session_id``: every operation takes the session's lock, reloads it when another process
changed it, steps, and appends the new turns, so separate ``bash -c`` processes continue one
session. Nothing is ever run on the host.

>>> term = VirtualTerminal(World(backend="offline"))                        # doctest: +SKIP
>>> term.run("echo hi > a.txt && cat a.txt").stdout                         # doctest: +SKIP
'hi\\n'
>>> term.send_keys("cat a.txt\\n").splitlines()[-2:]                        # doctest: +SKIP
['hi', 'root@agentworld:/app#']
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import pickle
import re
import shlex
import sys
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentworld_plugins.errors import AgentWorldError, ConfigError
from agentworld_plugins.files import parse_data

from .store import SessionStore, TurnRow

if TYPE_CHECKING:
    from agentworld_plugins.session import Observation, Session, Turn, World

__all__ = [
    "DOMAINS",
    "FRONTS",
    "KEY_NAMES",
    "MAX_OUTPUT",
    "CommandResult",
    "LineResult",
    "MachineSpec",
    "VirtualTerminal",
    "keys_to_text",
    "parse_bash_footer",
    "parse_shell_result",
    "render_ps1",
    "truncate_output",
]

T = TypeVar("T")

#: the two fronts and the domain each one's session belongs to
FRONTS = ("command", "screen")
DOMAINS = {"command": "swe", "screen": "terminal"}
ROWS, COLS = 40, 160
#: characters of stdout (and of stderr) a command result keeps; the rest becomes a marker
MAX_OUTPUT = int(os.environ.get("AGENTWORLD_SHELL_MAX_OUTPUT", "1000000") or 1000000)
#: scrollback lines kept for a screen drawn by a world model
SCROLLBACK = 2000
#: an offline snapshot bigger than this is written every SNAPSHOT_EVERY turns (replay in between)
BIG_SNAPSHOT = 1 << 20
SNAPSHOT_EVERY = 16
SNAPSHOT_FORMAT = 1
DEFAULT_PS1 = "\\u@\\h:\\w\\$ "

#: tmux key names and the characters they stand for
KEY_NAMES: dict[str, str] = {
    "Enter": "\n",
    "C-m": "\n",
    "C-j": "\n",
    "KPEnter": "\n",
    "^M": "\n",
    "Escape": "\x1b",
    "Tab": "\t",
    "BTab": "\x1b[Z",
    "BSpace": "\x7f",
    "Space": " ",
    "Up": "\x1b[A",
    "Down": "\x1b[B",
    "Right": "\x1b[C",
    "Left": "\x1b[D",
    "Home": "\x1b[H",
    "End": "\x1b[F",
    "DC": "\x1b[3~",
    "Delete": "\x1b[3~",
    "PageUp": "\x1b[5~",
    "PPage": "\x1b[5~",
    "PageDown": "\x1b[6~",
    "NPage": "\x1b[6~",
}
for _letter in "abcdefghijklmnopqrstuvwxyz":
    KEY_NAMES.setdefault(f"C-{_letter}", chr(ord(_letter) - 96))
    KEY_NAMES.setdefault(f"^{_letter.upper()}", chr(ord(_letter) - 96))

_EXIT_LINE = re.compile(r"^\s*(?:exit|logout)(?:\s+(-?\d+))?\s*;?\s*$")


# -- the machine -----------------------------------------------------------------------------------

_MACHINE_KEYS = {"files", "cwd", "hostname", "user", "env", "description"}
_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]*$")
_USER = re.compile(r"^[a-z_][a-z0-9_.-]*$")


@dataclass
class MachineSpec:
    """The machine a session starts as.

    ``files`` is a ``{path: content}`` seed (relative paths land in ``cwd``, folders end with
    ``/``) or the path of a real folder to copy (read once, never written); ``description`` is
    free text the world model reads (the offline world ignores it).
    """

    files: dict[str, str] | str | None = None
    cwd: str = "/app"
    hostname: str = "agentworld"
    user: str = "root"
    env: dict[str, str] = field(default_factory=dict)
    description: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.cwd, str) or not self.cwd.startswith("/"):
            raise ConfigError(f"The machine's cwd {self.cwd!r} is not an absolute path", hint="e.g. /app")
        if not _HOST.match(self.hostname or ""):
            raise ConfigError(f"Hostname {self.hostname!r} is not valid", hint="letters, digits, '.' and '-'")
        if not _USER.match(self.user or ""):
            raise ConfigError(f"User name {self.user!r} is not valid", hint="e.g. root or ubuntu")
        if self.files is not None and not isinstance(self.files, (dict, str)):
            raise ConfigError(
                f"The machine's files must be a {{path: content}} mapping or a folder, got {type(self.files).__name__}",
                hint='e.g. {"src/app.py": "print(1)\\n"}',
            )
        self.env = {str(k): str(v) for k, v in (self.env or {}).items()}

    @property
    def home(self) -> str:
        return "/root" if self.user == "root" else f"/home/{self.user}"

    def prompt(self) -> str:
        """The first prompt of its interactive shell, e.g. ``root@agentworld:/app# ``."""
        cwd = self.cwd
        if cwd == self.home or cwd.startswith(self.home + "/"):
            cwd = "~" + cwd[len(self.home) :]
        return f"{self.user}@{self.hostname}:{cwd}{'#' if self.user == 'root' else '$'} "

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "cwd": self.cwd,
            "hostname": self.hostname,
            "user": self.user,
            "env": dict(self.env),
            "description": self.description,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MachineSpec:
        unknown = set(data) - _MACHINE_KEYS
        if unknown:
            raise ConfigError(
                f"Unknown machine field(s): {', '.join(sorted(unknown))}",
                hint=f"a machine description takes {', '.join(sorted(_MACHINE_KEYS))}",
            )
        return cls(**{k: v for k, v in data.items() if v is not None})

    @classmethod
    def load(cls, path: str | os.PathLike[str], **overrides: Any) -> MachineSpec:
        """A machine from ``--state``: a folder (copied as the project), a JSON/YAML machine
        description (its fields above, or a plain ``{path: content}`` mapping), or a text file
        describing the machine in words for the world model."""
        source = Path(path).expanduser()
        given = {k: v for k, v in overrides.items() if v is not None}
        if source.is_dir():
            return cls(files=str(source.resolve()), **given)
        try:
            text = source.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"Cannot read the machine state {source} ({exc.strerror or exc})",
                hint="pass a folder, a JSON/YAML machine description or a text file",
            ) from None
        if source.suffix.lower() in (".json", ".yaml", ".yml"):
            try:
                data = parse_data(text, source)
            except Exception as exc:
                raise ConfigError(
                    f"The machine state {source} does not parse: {exc}", hint="fix its syntax"
                ) from None
            if not isinstance(data, dict):
                raise ConfigError(
                    f"The machine state {source} must hold a mapping",
                    hint='e.g. {"hostname": "box", "files": {"app.py": "print(1)\\n"}}',
                )
            if not set(data) & _MACHINE_KEYS:
                data = {"files": data}
            spec = cls.from_dict(data)
            for key, value in given.items():
                setattr(spec, key, value)
            spec.__post_init__()
            return spec
        return cls(description=text, **given)

    @classmethod
    def coerce(cls, value: Any) -> MachineSpec:
        if isinstance(value, MachineSpec):
            return value
        if value is None:
            return cls()
        if isinstance(value, dict):
            return cls.from_dict(value)
        if isinstance(value, (str, Path)):
            return cls.load(value)
        raise ConfigError(
            f"Cannot make a machine from {value!r}", hint="pass a MachineSpec, a dict or a path"
        )

    def build_offline(self) -> dict[str, dict[str, Any]]:
        """The offline world's state of both fronts: one filesystem, two shells."""
        from agentworld_plugins.offline.shell import VirtualMachine
        from agentworld_plugins.offline.vfs import FsError, VirtualFS

        try:
            fs = VirtualFS.from_seed(self.files, base=self.cwd)
        except FsError as exc:
            raise ConfigError(
                f"Cannot seed the machine from {self.files!r}: {exc.strerror}",
                hint="pass a {path: content} mapping or the path of an existing folder",
            ) from None
        common: dict[str, Any] = {"env": dict(self.env), "user": self.user, "hostname": self.hostname}
        command = VirtualMachine(fs, self.cwd, interactive=False, **common)
        screen = VirtualMachine(fs, self.cwd, interactive=True, **common)
        return {
            "command": {"applied": 0, "state": {"vm": command}},
            "screen": {"applied": 0, "state": {"vm": screen}},
        }

    def describe(self, budget: int = 12000) -> str:
        """The machine in words, for a world model's system prompt."""
        lines = [
            "## The Machine",
            "Every result must agree with this machine and with everything shown earlier. Other fronts "
            "(other shells, file tools) may change it between turns; their changes are real.",
            f"- host name: {self.hostname}; user: {self.user}; working directory: {self.cwd}",
        ]
        if self.env:
            lines.append("- environment: " + ", ".join(f"{k}={v}" for k, v in sorted(self.env.items())))
        if self.description:
            lines += ["", self.description.strip()]
        entries = self._listing()
        if entries:
            lines += ["", "Files at the start:"]
            used = sum(len(x) for x in lines)
            for path, content in entries:
                if used > budget:
                    lines.append("(more files not listed)")
                    break
                if content is None:
                    lines.append(f"{path}/")
                elif len(content) <= 2000 and used + len(content) < budget:
                    lines += [f"--- {path} ---", content.rstrip("\n")]
                else:
                    lines.append(f"{path} ({len(content)} characters)")
                used = sum(len(x) + 1 for x in lines)
        return "\n".join(lines) + "\n"

    def _listing(self, limit: int = 300) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        if isinstance(self.files, dict):
            for raw, content in sorted(self.files.items()):
                path = raw if raw.startswith("/") else f"{self.cwd.rstrip('/')}/{raw}"
                out.append((path.rstrip("/"), None if raw.endswith("/") else str(content)))
        elif isinstance(self.files, str):
            root = Path(self.files)
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules", "__pycache__"))
                rel = Path(dirpath).relative_to(root).as_posix()
                base = self.cwd.rstrip("/") + ("" if rel == "." else "/" + rel)
                for name in sorted(filenames):
                    try:
                        text = (Path(dirpath) / name).read_text(encoding="utf-8")
                    except (OSError, UnicodeDecodeError):
                        text = ""
                    out.append((f"{base}/{name}", text))
                    if len(out) >= limit:
                        return out
        return out


# -- results ---------------------------------------------------------------------------------------


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


def keys_to_text(keys: Iterable[str]) -> str:
    """tmux-style keys (literal text or key names such as ``Enter``, ``C-c``) as characters."""
    return "".join(KEY_NAMES.get(k, k) for k in keys)


def render_ps1(ps1: str, vm: Any) -> str:
    """Bash's prompt escapes (``\\u \\h \\H \\w \\W \\$ \\n \\\\ \\[ \\] \\e \\a \\s \\v``) for ``vm``."""
    user = vm.user
    home = vm.vars.get("HOME", "")
    cwd = vm.cwd
    shown = (
        "~" + cwd[len(home) :]
        if home and home != "/" and (cwd == home or cwd.startswith(home + "/"))
        else cwd
    )
    base = "~" if shown == "~" else (cwd.rsplit("/", 1)[-1] or "/")
    table = {
        "u": user,
        "h": vm.hostname.split(".", 1)[0],
        "H": vm.hostname,
        "w": shown,
        "W": base,
        "$": "#" if user == "root" else "$",
        "n": "\n",
        "\\": "\\",
        "[": "",
        "]": "",
        "e": "\x1b",
        "a": "\x07",
        "s": "bash",
        "v": "5.2",
        "V": "5.2.21",
        "r": "\r",
    }
    out: list[str] = []
    i = 0
    while i < len(ps1):
        ch = ps1[i]
        if ch == "\\" and i + 1 < len(ps1) and ps1[i + 1] in table:
            out.append(table[ps1[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _observation_json(observation: Observation) -> dict[str, Any]:
    from pydantic_core import to_jsonable_python

    data: dict[str, Any] = to_jsonable_python(observation.model_dump(), fallback=str)
    return data


def _json_safe(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _replaced(observation: dict[str, Any]) -> bool:
    """Whether a perturbation answered the turn instead of the world (the action never ran)."""
    entries = (observation.get("metadata") or {}).get("perturbations") or []
    return any(isinstance(e, dict) and e.get("replaced") for e in entries)


def uses_offline(backend: Any, depth: int = 0) -> bool:
    """Whether ``backend`` is, wraps or chains the embedded offline backend."""
    from agentworld_plugins.backends.offline import OfflineBackend

    if isinstance(backend, OfflineBackend):
        return True
    if depth > 8:
        return False
    inner = [*(getattr(backend, "backends", None) or []), getattr(backend, "inner", None)]
    return any(b is not None and uses_offline(b, depth + 1) for b in inner)


@functools.lru_cache(maxsize=1)
def snapshot_tag() -> str:
    """What a stored offline snapshot must have been written by to be loaded."""
    try:
        from importlib.metadata import version

        package = version("agentworld-plugins")
    except Exception:  # pragma: no cover - not installed
        package = "0"
    return f"{package}|py{sys.version_info[0]}.{sys.version_info[1]}|{SNAPSHOT_FORMAT}"


# -- the terminal ----------------------------------------------------------------------------------


class VirtualTerminal:
    """One simulated machine with a command front and a screen front (see the module docstring).

    ``world`` defaults to ``World()``. ``store`` is a :class:`~.store.SessionStore`, a path to one,
    ``True`` for the one in ``AGENTWORLD_HOME``, or None to keep the session in memory.
    ``machine`` (a :class:`MachineSpec`, dict or ``--state`` path) is used when the session is new;
    a stored session keeps the machine it started as. ``perturbations`` apply to both fronts, on
    top of the world's own.
    """

    def __init__(
        self,
        world: World | None = None,
        *,
        session_id: str | None = None,
        machine: MachineSpec | dict[str, Any] | str | Path | None = None,
        store: SessionStore | str | Path | bool | None = None,
        perturbations: Iterable[Any] = (),
        seed: int | None = None,
    ) -> None:
        if world is None:
            from agentworld_plugins.session import World

            world = World()
        self.world = world
        self.id = session_id or uuid.uuid4().hex[:12]
        self._given_machine = None if machine is None else MachineSpec.coerce(machine)
        self._given_seed = seed
        self.perturbations = list(perturbations)
        if store is True:
            store = SessionStore.at_home(world.settings.home)
        elif isinstance(store, (str, Path)):
            store = SessionStore(store)
        self.store: SessionStore | None = store or None
        self._lock = threading.RLock()
        self._closed = False
        self._offline_backend: bool | None = None
        self._reset_memory()
        if self.store is None:
            self._start_fresh()

    # -- memory ----------------------------------------------------------------------------------

    def _reset_memory(self) -> None:
        self.machine: MachineSpec = self._given_machine or MachineSpec()
        self.seed: int | None = self._given_seed
        self._sessions: dict[str, Session] = {}
        self._turns: dict[str, list[Turn]] = {f: [] for f in FRONTS}
        self._extra: dict[str, dict[str, Any]] = {f: {} for f in FRONTS}
        self._offline: dict[str, dict[str, Any]] | None = None
        self._scrollback: list[str] = []
        self._exited = False
        self._seq = 0
        self._saved = {f: 0 for f in FRONTS}
        self._version = -1
        self._snapshot_seq = 0
        self._snapshot_size = 0
        self._snapshot_dirty = False
        self._meta_dirty = False
        self._description: str | None = None
        self._system_prompts: dict[str, str] = {}

    def _uses_offline(self) -> bool:
        if self._offline_backend is None:
            self._offline_backend = uses_offline(self.world.backend)
        return self._offline_backend

    def _start_fresh(self) -> None:
        self._offline = self.machine.build_offline() if self._uses_offline() else None

    def _config(self) -> dict[str, Any]:
        return {
            "machine": self.machine.to_dict(),
            "seed": self.seed,
            "perturbations": [p for p in self.perturbations if isinstance(p, str)],
        }

    def _meta(self) -> dict[str, Any]:
        prompts = {**self._system_prompts, **{f: s.system_prompt for f, s in self._sessions.items()}}
        return {
            "state": self._extra,
            "scrollback": self._scrollback[-SCROLLBACK:],
            "exited": self._exited,
            "system_prompts": prompts,
            "domains": DOMAINS,
        }

    # -- the store -------------------------------------------------------------------------------

    def _sync(self) -> None:
        assert self.store is not None
        version = self.store.version(self.id)
        if version is None:
            self._reset_memory()
            self._start_fresh()
            self._version = self.store.create(self.id, self._config(), self._meta())
            if self._version != 0:
                self._load()
        elif version != self._version:
            self._load()

    def _load(self) -> None:
        from agentworld_plugins.session import Observation, Turn

        assert self.store is not None
        record = self.store.load(self.id)
        if record is None:  # deleted meanwhile: start again
            self._version = -1
            self._sync()
            return
        self._reset_memory()
        self.machine = MachineSpec.from_dict(record.config.get("machine") or {})
        self.seed = record.config.get("seed")
        meta = record.meta
        self._extra = {f: dict((meta.get("state") or {}).get(f) or {}) for f in FRONTS}
        self._scrollback = list(meta.get("scrollback") or [])
        self._exited = bool(meta.get("exited"))
        self._system_prompts = dict(meta.get("system_prompts") or {})
        for row in record.turns:
            observation = Observation.model_validate(row.observation)
            self._turns[row.front].append(Turn(row.number, row.action, row.prompt, observation))
        self._seq = record.turns[-1].seq if record.turns else 0
        self._saved = {f: len(self._turns[f]) for f in FRONTS}
        if self._uses_offline():
            self._offline = self._restore_offline(
                record.snapshot, record.snapshot_seq, record.snapshot_tag, record.turns
            )
        self._version = record.version

    def _restore_offline(
        self, blob: bytes | None, snapshot_seq: int, tag: str | None, rows: list[TurnRow]
    ) -> dict[str, dict[str, Any]]:
        """The offline machine after the stored turns: the snapshot, then a replay of the turns
        written after it (deterministic: each domain's ``offline_step``)."""
        ran_offline = blob is not None or any(
            (r.observation.get("metadata") or {}).get("offline") for r in rows
        )
        if not ran_offline:
            return self.machine.build_offline()
        state: dict[str, dict[str, Any]] | None = None
        start = 0
        if blob is not None and tag == snapshot_tag():
            try:
                state = pickle.loads(blob)
                start = snapshot_seq
            except Exception:
                state = None
        if state is None:
            state = self.machine.build_offline()
            start = 0
        registry = self.world.pm.registry
        for front in FRONTS:
            before = [r for r in rows if r.front == front and r.seq <= start]
            if int(state[front].get("applied", 0)) < len(before):
                continue  # another backend answered some turns: the offline backend replays them itself
            domain = registry.domain(DOMAINS[front])
            context = self._context(front)
            for row in rows:
                if row.front != front or row.seq <= start or _replaced(row.observation):
                    continue
                with contextlib.suppress(Exception):
                    domain.offline_step(state[front]["state"], domain.validate_action(row.action), context)
            state[front]["applied"] = len(self._turns[front])
        self._snapshot_seq = start
        return state

    def _persist(self) -> None:
        assert self.store is not None
        rows: list[TurnRow] = []
        for front in FRONTS:
            turns = self._turns[front]
            for turn in turns[self._saved[front] :]:
                self._seq += 1
                rows.append(
                    TurnRow(
                        self._seq,
                        front,
                        turn.number,
                        turn.action,
                        turn.prompt,
                        _observation_json(turn.observation),
                    )
                )
            self._saved[front] = len(turns)
        for front, session in self._sessions.items():
            self._extra[front] = {k: v for k, v in session.state.items() if k != "offline" and _json_safe(v)}
        if not rows and not self._meta_dirty and not self._snapshot_dirty:
            return
        snapshot = None
        if self._offline is not None and (rows or self._snapshot_dirty):
            used = any(self._offline[f].get("applied") for f in FRONTS)
            due = self._snapshot_size < BIG_SNAPSHOT or self._seq - self._snapshot_seq >= SNAPSHOT_EVERY
            if used and (due or self._snapshot_dirty):
                snapshot = pickle.dumps(self._offline, protocol=pickle.HIGHEST_PROTOCOL)
                self._snapshot_size = len(snapshot)
                self._snapshot_seq = self._seq
        self._version = self.store.save(
            self.id,
            self._version,
            rows,
            meta=self._meta(),
            snapshot=snapshot,
            snapshot_seq=self._seq,
            snapshot_tag=snapshot_tag() if snapshot is not None else None,
        )
        self._meta_dirty = self._snapshot_dirty = False

    def _operate(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the up-to-date session, holding it, and store what it added."""
        with self._lock:
            if self._closed:
                raise AgentWorldError(
                    f"Virtual terminal {self.id} is closed", hint="create a new VirtualTerminal"
                )
            if self.store is None:
                return fn()
            with self.store.lock(self.id):
                self._sync()
                try:
                    return fn()
                finally:
                    self._persist()

    # -- sessions --------------------------------------------------------------------------------

    def _context(self, front: str) -> dict[str, Any]:
        context: dict[str, Any] = {"cwd": self.machine.cwd, "env": dict(self.machine.env)}
        if self.machine.files is not None:
            context["files"] = self.machine.files
        if front == "screen":
            context["initial_state"] = self.machine.prompt()
        return context

    def session(self, front: str) -> Session:
        """The front's session (``"command"``: swe domain, ``"screen"``: terminal domain)."""
        if front not in DOMAINS:
            raise ConfigError(f"Unknown front {front!r}", hint="use 'command' or 'screen'")
        found = self._sessions.get(front)
        if found is not None:
            return found
        from .definitions import all_tools

        context = self._context(front)
        tools = all_tools() if front == "command" else None
        session = self.world.session(
            DOMAINS[front],
            tools=tools,
            perturbations=self.perturbations,
            seed=self.seed,
            session_id=f"{self.id}.{front}",
            **context,
        )
        session.state.update(json.loads(json.dumps(self._extra[front])))
        if self._offline is not None:
            session.state["offline"] = self._offline[front]
        session.trajectory.turns = self._turns[front]
        if self._description is None:
            self._description = self.machine.describe()
        session.system_prompt = f"{session.system_prompt.rstrip()}\n\n{self._description}"
        session.trajectory.system_prompt = session.system_prompt
        self._sessions[front] = session
        return session

    def _step(self, front: str, action: Any) -> Observation:
        return self._operate(lambda: self.session(front).step(action))

    @property
    def turns(self) -> dict[str, list[Turn]]:
        """The turns of each front so far (in this process's view of the session)."""
        return {f: list(v) for f, v in self._turns.items()}

    # -- the command front -----------------------------------------------------------------------

    @staticmethod
    def compose(command: str, *, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
        """The command line that runs ``command`` with ``env`` exported and ``stdin`` fed to it."""
        if env:
            exports = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
            command = f"export {exports}\n{command}"
        if stdin:
            delimiter = "AGENTWORLD_STDIN"
            while delimiter in stdin:
                delimiter += "_"
            body = stdin if stdin.endswith("\n") else stdin + "\n"
            command = f"{{ {command}\n}} <<'{delimiter}'\n{body}{delimiter}"
        return command

    def run(
        self,
        command: str,
        cwd: str | None = None,
        timeout: float | None = None,
        *,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
    ) -> CommandResult:
        """Run ``command`` like ``bash -c`` (a fresh shell in the project root, or ``cwd``).

        ``timeout`` is accepted for the protocols that pass one; the simulation has no clock, a
        command that would run forever ends with exit status 124.
        """
        arguments: dict[str, Any] = {"command": self.compose(command, env=env, stdin=stdin)}
        if cwd:
            arguments["directory"] = cwd
        observation = self._step("command", {"tool_name": "run_shell_command", "arguments": arguments})
        stdout, stderr, code = parse_shell_result(observation.text, is_error=observation.is_error)
        return CommandResult(truncate_output(stdout), truncate_output(stderr), code, observation)

    async def arun(
        self,
        command: str,
        cwd: str | None = None,
        timeout: float | None = None,
        *,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
    ) -> CommandResult:
        return await asyncio.to_thread(self.run, command, cwd, timeout, env=env, stdin=stdin)

    def tool(self, name: str, arguments: dict[str, Any] | None = None) -> Observation:
        """Call one coding tool (``read_file``, ``edit``, ``str_replace_editor``, ...) on the machine."""
        return self._step("command", {"tool_name": name, "arguments": dict(arguments or {})})

    async def atool(self, name: str, arguments: dict[str, Any] | None = None) -> Observation:
        return await asyncio.to_thread(self.tool, name, arguments)

    def execute_bash(self, command: str) -> CommandResult:
        """Run ``command`` in the persistent shell of the command front (OpenHands' ``execute_bash``:
        ``cd`` and ``export`` last). Its output merges both streams into ``stdout``."""
        observation = self.tool("execute_bash", {"command": command})
        output, code = parse_bash_footer(observation.text)
        if code is None:
            code = 1 if observation.is_error else 0
        return CommandResult(truncate_output(output), "", code, observation)

    def read_file(self, path: str) -> str:
        """A file's text on the machine (``cat``); raises when it cannot be read."""
        result = self.run(f"cat -- {shlex.quote(path)}")
        if result.exit_code != 0:
            raise AgentWorldError(
                f"Cannot read {path} on the simulated machine: {result.stderr.strip()}", hint="check the path"
            )
        return result.stdout

    def write_file(self, path: str, content: str) -> Observation:
        """Write a file on the machine (the coding tools' ``write_file``)."""
        return self.tool("write_file", {"file_path": path, "content": content})

    # -- the screen front ------------------------------------------------------------------------

    @staticmethod
    def keystrokes(keys: str | Sequence[Any], duration: float | None = None) -> list[dict[str, Any]]:
        """The terminal action for ``keys``: text, a list of tmux keys, or keystroke dicts."""
        wait = 0.1 if duration is None else max(0.0, min(float(duration), 600.0))
        if isinstance(keys, str):
            return [{"keystrokes": KEY_NAMES.get(keys, keys), "duration": wait}]
        keys = list(keys)
        if keys and all(isinstance(k, dict) for k in keys):
            return [dict(k) for k in keys]
        text = keys_to_text(str(k) for k in keys)
        return [{"keystrokes": text, "duration": wait}] if text else []

    def _offline_screen(self) -> Any:
        if self._offline is None:
            return None
        return self._offline["screen"]["state"].get("terminal")

    def _note_screen(self, screen: str) -> None:
        if self._offline_screen() is not None:
            return
        new = screen.split("\n")
        old = self._scrollback
        for size in range(min(len(old), len(new)), 0, -1):
            if old[-size:-1] == new[: size - 1] and new[size - 1].startswith(old[-1].rstrip()):
                self._scrollback = old[:-size] + new
                break
        else:
            self._scrollback = old + new
        del self._scrollback[:-SCROLLBACK]
        self._meta_dirty = True

    def _note_exits(self, batches: list[dict[str, Any]]) -> None:
        typed = "".join(str(b.get("keystrokes", "")) for b in batches)
        if any(_EXIT_LINE.match(line) for line in typed.split("\n")[:-1]) or "\x04" in typed:
            self._exited = True
            self._meta_dirty = True

    def send_keys(self, keys: str | Sequence[Any], duration: float | None = None) -> str:
        """Type ``keys`` into the interactive shell; return the screen (last 40 lines)."""
        batches = self.keystrokes(keys, duration)

        def op() -> str:
            observation = self.session("screen").step(batches)
            self._note_screen(observation.text)
            self._note_exits(batches)
            return observation.text

        return self._operate(op)

    async def asend_keys(self, keys: str | Sequence[Any], duration: float | None = None) -> str:
        return await asyncio.to_thread(self.send_keys, keys, duration)

    def _screen_now(self) -> str:
        terminal = self._offline_screen()
        if terminal is not None:
            return str(terminal.view())
        turns = self._turns["screen"]
        if turns:
            return turns[-1].observation.text
        return self.machine.prompt().rstrip()

    def screen(self) -> str:
        """The visible screen now (no step is taken)."""
        return self._operate(self._screen_now)

    def transcript(self) -> list[str]:
        """Every line the screen has shown (the scrollback, up to 2000 lines)."""

        def op() -> list[str]:
            terminal = self._offline_screen()
            if terminal is not None:
                return [line.rstrip() for line in terminal.lines]
            return list(self._scrollback) or self._screen_now().split("\n")

        return self._operate(op)

    def clear_history(self) -> None:
        """Forget the scrollback above the visible screen (``tmux clear-history``)."""

        def op() -> None:
            terminal = self._offline_screen()
            if terminal is not None:
                del terminal.lines[:-ROWS]
                self._snapshot_dirty = True
            self._scrollback = self._scrollback[-ROWS:]
            self._meta_dirty = True

        self._operate(op)

    @property
    def alive(self) -> bool:
        """False once ``exit`` was typed at the interactive shell or the terminal was closed."""
        return not self._closed and not self._exited

    def _prompt_now(self) -> str:
        if self._offline is not None:
            vm = self._offline["screen"]["state"]["vm"]
            terminal = self._offline_screen()
            if terminal is not None and terminal.pending:
                return str(vm.vars.get("PS2", "> "))
            return render_ps1(vm.vars.get("PS1", DEFAULT_PS1), vm)
        last = self._screen_now().split("\n")[-1]
        return last + " " if re.search(r"[#$>]$", last) else last

    def prompt(self) -> str:
        """The interactive shell's prompt now (PS1, or PS2 inside an unfinished command)."""
        return self._operate(self._prompt_now)

    def send_line(self, line: str) -> LineResult:
        """Type ``line`` and Enter; return what it printed and the next prompt (interactive fronts)."""
        batches = self.keystrokes(line.rstrip("\n") + "\n")

        def op() -> LineResult:
            terminal = self._offline_screen()
            before = len(terminal.lines) if terminal is not None else 1
            previous = self._screen_now().split("\n")
            observation = self.session("screen").step(batches)
            self._note_screen(observation.text)
            terminal = self._offline_screen()
            typed = line.rstrip("\n")
            output_lines: list[str]
            if terminal is not None:
                lines = terminal.lines
                echo = before - 1
                if not (0 <= echo < len(lines) - 1 and lines[echo].endswith(typed)):
                    echo = next((k for k in range(len(lines) - 2, -1, -1) if lines[k].endswith(typed)), -1)
                output_lines = [ln.rstrip() for ln in lines[echo + 1 : -1]] if echo >= 0 else []
            else:
                output_lines = _new_output(previous, observation.text.split("\n"), typed)
            codes = observation.metadata.get("exit_codes") or []
            status = int(codes[-1]) if codes else (1 if observation.is_error else 0)
            exited = None
            match = _EXIT_LINE.match(line)
            if match:
                exited = int(match.group(1)) & 0xFF if match.group(1) else status
                self._exited = True
                self._meta_dirty = True
            output = "\n".join(output_lines) + ("\n" if output_lines else "")
            return LineResult(output, self._prompt_now(), status, exited)

        return self._operate(op)

    def interrupt(self) -> str:
        """Ctrl-C at the interactive shell; returns the new prompt."""

        def op() -> str:
            self.session("screen").step([{"keystrokes": "C-c", "duration": 0.1}])
            return self._prompt_now()

        return self._operate(op)

    # -- lifecycle -------------------------------------------------------------------------------

    def reload(self) -> None:
        """Forget this process's view of the session; the next operation reads the store."""
        with self._lock:
            self._version = -1

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self.store is not None:
                self.store.close()

    def __enter__(self) -> VirtualTerminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        counts = ", ".join(f"{f}={len(self._turns[f])}" for f in FRONTS)
        return f"<VirtualTerminal {self.id} {self.machine.user}@{self.machine.hostname} turns: {counts}>"


def _new_output(previous: list[str], screen: list[str], line: str) -> list[str]:
    """The lines a command printed, from the screens before and after it (a model-drawn screen)."""
    body = screen[:-1]
    for k in range(len(body) - 1, -1, -1):
        if line and body[k].rstrip().endswith(line.rstrip()):
            return body[k + 1 :]
    for size in range(min(len(previous), len(body)), 0, -1):
        if previous[-size:-1] == body[: size - 1]:
            return body[size:]
    return body
