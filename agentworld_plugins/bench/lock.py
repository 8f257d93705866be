"""One writer per results file: a second ``bench infer`` or ``bench judge`` on the same ``--output``
is refused with a clear error instead of interleaving (and later rewriting away) the first one's
lines.

The lock is an advisory ``flock`` on ``<output>.lock``, held for the whole run and released by the
kernel when the process ends (a killed run leaves no stale lock). The lock file holds the pid of
its holder, for the error message, and is removed when the run ends.

Two names of one file must not make two writers: the output is first resolved through symlinks
(the lock, and every write, go to the real file, so a link stays a link), and a file with more
than one hard link is refused (a run replaces the file when it resumes or finishes, which would
leave the other names holding a stale copy and let a second run start on one of them).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import Any

from ..errors import AgentWorldError
from ..files import PRIVATE_MODE

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, runs are not guarded
    fcntl = None  # type: ignore[assignment]


class OutputBusyError(AgentWorldError):
    """Another process is writing the same results file."""


def real_output(path: str | Path) -> Path:
    """``path`` with ``~`` expanded and every symlink resolved (the file itself may not exist yet)."""
    return Path(os.path.realpath(Path(path).expanduser()))


class OutputLock:
    """``with OutputLock(path): ...`` holds the lock of ``path`` or raises :class:`OutputBusyError`."""

    def __init__(self, path: str | Path, label: str = "bench") -> None:
        self.given = Path(path).expanduser()
        self.path = real_output(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.label = label
        self._fd: int | None = None

    def acquire(self) -> None:
        self._refuse_hard_links()
        if fcntl is None:
            return
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, PRIVATE_MODE)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _read_pid(fd)
                os.close(fd)
                raise OutputBusyError(
                    f"{self.path} is being written by another run"
                    + (f" (pid {holder})" if holder else "")
                    + f"; a second {self.label} on the same file would lose lines",
                    hint="wait for it to finish (then rerun to resume), or pass a different --output",
                ) from None
            # the holder before us may have removed the file after we opened it: lock the live one
            try:
                same = os.fstat(fd).st_ino == os.stat(self.lock_path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def _refuse_hard_links(self) -> None:
        try:
            links = os.stat(self.path).st_nlink
        except FileNotFoundError:
            return
        if links > 1:
            shown = str(self.given) + (f" (the file {self.path})" if self.given != self.path else "")
            raise OutputBusyError(
                f"{shown} has {links} hard links: {self.label} replaces the file when it resumes or "
                "finishes, so the other names would keep a stale copy and a second run could write there",
                hint=f"give the results a file of its own: cp {self.path} NEW.jsonl and pass --output NEW.jsonl",
            )

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.lock_path)  # while still held, so no one locks a file about to vanish
        except FileNotFoundError:
            pass
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.release()


def _read_pid(fd: int) -> Any:
    try:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return None
    return text if text.isdigit() else None
