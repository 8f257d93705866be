"""The shim's helper: one long-lived process per ``AGENTWORLD_HOME`` that answers shim requests.

Started by the first ``bash`` shim that finds none (``python -m
agentworld_plugins.adapters.shell.daemon --home HOME``); it listens on a Unix socket in
``HOME/run`` (mode 0700), answers each connection with :class:`~.service.ShellService` in a
thread, and exits after ``AGENTWORLD_SHIM_IDLE`` seconds without requests (default 900), when a
shim built from newer sources asks (it answers ``restart``), or on ``agentworld shim stop``.

Everything it knows is also in the session store, so stopping it loses nothing: the next shim
starts a new one that continues the sessions. It never runs a command on the host.

Wire format (both ways): a 4-byte big-endian length, then a ``marshal``-encoded dict.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import threading
import time
from typing import Any

from .shim import _recv, _send, build_token, make_private_dir, peer_uid, socket_path, socket_problem

__all__ = ["ShellDaemon", "main", "request", "stop"]

DEFAULT_IDLE = 900.0


class ShellDaemon:
    """A Unix-socket server of shim requests."""

    def __init__(self, home: str, *, build: str | None = None, idle: float = DEFAULT_IDLE) -> None:
        from .service import ShellService

        self.home = os.path.abspath(os.path.expanduser(home))
        self.path = socket_path(self.home)
        self.build = build or build_token()
        self.idle = idle
        self.service = ShellService()
        self._last = time.monotonic()
        self._busy = 0
        self._busy_lock = threading.Lock()
        self._stop = threading.Event()
        self._lock_fd: int | None = None
        self._sock: socket.socket | None = None

    # -- one daemon per home ---------------------------------------------------------------------

    def _take_lock(self, wait: float = 5.0) -> bool:
        import fcntl

        run = os.path.join(self.home, "run")
        os.makedirs(run, mode=0o700, exist_ok=True)
        fd = os.open(os.path.join(run, "shelld.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._lock_fd = fd
                return True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    return False
                time.sleep(0.05)

    def serve(self) -> int:
        """Serve until idle or stopped; 0 when it served, 3 when another daemon holds the home."""
        if not self._take_lock():
            return 3
        try:
            make_private_dir(os.path.dirname(self.path))
        except PermissionError as exc:
            print(f"agentworld shell daemon: refusing to serve: {exc}", file=sys.stderr, flush=True)
            return 4
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            sock.bind(self.path)
        finally:
            os.umask(old_umask)
        sock.listen(128)
        sock.settimeout(1.0)
        self._sock = sock
        print(f"agentworld shell daemon {os.getpid()} serving {self.path}", file=sys.stderr, flush=True)
        try:
            while not self._stop.is_set():
                try:
                    conn, _ = sock.accept()
                except TimeoutError:
                    if not self._busy and time.monotonic() - self._last > self.idle:
                        break
                    continue
                self._last = time.monotonic()
                threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()
        finally:
            self._shutdown()
        return 0

    def _shutdown(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _serve_one(self, conn: socket.socket) -> None:
        with self._busy_lock:
            self._busy += 1
        try:
            with conn:
                uid = peer_uid(conn)
                if uid is not None and uid != os.getuid():
                    return  # another user reached the socket (its folder should not allow it)
                conn.settimeout(None)
                request = _recv(conn)
                answer = self.answer(request)
                _send(conn, answer)
        except (OSError, ValueError, EOFError):
            pass  # the shim went away; nothing to tell
        finally:
            with self._busy_lock:
                self._busy -= 1
            self._last = time.monotonic()

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "stop":
            self._stop.set()
            return {"ok": True, "pid": os.getpid()}
        if op == "status":
            return {
                "ok": True,
                "pid": os.getpid(),
                "build": self.build,
                "sessions": len(self.service._terminals),
            }
        if request.get("build") not in (None, self.build):
            self._stop.set()  # a shim from newer sources: make way for a helper built from them
            return {"restart": True}
        return self.service.handle(request)


def request(home: str, message: dict[str, Any], timeout: float = 5.0) -> dict[str, Any] | None:
    """Send one request to the daemon of ``home``; None when none is running."""
    path = socket_path(os.path.abspath(os.path.expanduser(home)))
    if socket_problem(path):
        return None  # never talk to a socket someone else may own
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        if socket_problem(path, sock):
            return None
        _send(sock, message)
        return _recv(sock)
    except OSError:
        return None
    finally:
        sock.close()


def stop(home: str, wait: float = 5.0) -> bool:
    """Stop the daemon of ``home``; True when one was running."""
    answer = request(home, {"op": "stop"})
    if answer is None:
        return False
    path = socket_path(os.path.abspath(os.path.expanduser(home)))
    deadline = time.monotonic() + wait
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agentworld-shell-daemon", description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True)
    parser.add_argument("--build", default=None)
    parser.add_argument("--idle", type=float, default=None)
    args = parser.parse_args(argv)
    idle = (
        args.idle if args.idle is not None else float(os.environ.get("AGENTWORLD_SHIM_IDLE") or DEFAULT_IDLE)
    )
    from agentworld_plugins.plugins import get_plugin_manager

    get_plugin_manager()  # plugins load with this process's environment ...
    for key in [k for k in os.environ if k.startswith("AGENTWORLD_")]:
        del os.environ[key]  # ... but each request brings the settings of the shim that sent it
    return ShellDaemon(args.home, build=args.build, idle=idle).serve()


if __name__ == "__main__":
    sys.exit(main())
