"""The machine a virtual terminal starts as: :class:`MachineSpec` (files, directory, host, user,
environment, a description in words) and bash's prompt escapes (:func:`render_ps1`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentworld_plugins.errors import ConfigError
from agentworld_plugins.files import parse_data

__all__ = ["DEFAULT_PS1", "MachineSpec", "render_ps1"]

DEFAULT_PS1 = "\\u@\\h:\\w\\$ "

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

    def offline_options(self) -> dict[str, Any]:
        """The machine as ``OfflineBackend.start_machine`` takes it (all but the description)."""
        return {k: v for k, v in self.to_dict().items() if k != "description"}

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
