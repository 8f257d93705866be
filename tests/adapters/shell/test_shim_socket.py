"""The shim talks only to a helper socket in a folder private to this user, served by this user."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentworld_plugins.adapters.shell.daemon import ShellDaemon, stop
from agentworld_plugins.adapters.shell.shim import socket_dir, socket_path

from agentworld_plugins.testing import clean_env

OTHER_UID = 65534  # nobody
as_root = pytest.mark.skipif(os.getuid() != 0, reason="acting as another user needs root")


def _long_home(root: Path) -> Path:
    home = root / ("h" * 60) / ("o" * 60) / "home"
    home.mkdir(parents=True)
    return home


@pytest.fixture
def xdg(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # short, like /run/user/1000: a socket path under it must fit AF_UNIX's ~100 bytes
    runtime = Path(tempfile.mkdtemp(prefix="aw-xdg-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield runtime
    shutil.rmtree(runtime, ignore_errors=True)


def _shim_env(shim_setup: dict[str, object], home: Path, **extra: str) -> dict[str, str]:
    return clean_env(
        PATH=f"{shim_setup['bin']}{os.pathsep}{os.environ.get('PATH', '')}",
        AGENTWORLD_HOME=str(home),
        AGENTWORLD_SHIM_IDLE="60",
        **extra,
    )


def _bash(env: dict[str, str], command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def long_home(tmp_path: Path, xdg: Path) -> Iterator[Path]:
    home = _long_home(tmp_path)
    yield home
    stop(str(home))  # before xdg's teardown: the helper's socket is found where the test left it


def test_a_long_home_puts_the_socket_in_a_private_runtime_folder(
    shim_setup: dict[str, object], long_home: Path, xdg: Path
) -> None:
    folder = Path(socket_dir(str(long_home)))
    assert folder.parent == xdg
    done = _bash(_shim_env(shim_setup, long_home, XDG_RUNTIME_DIR=str(xdg)), "echo hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hi\n"
    info = folder.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.getuid()
    assert stat.S_ISSOCK(Path(socket_path(str(long_home))).stat().st_mode)


def test_a_socket_folder_open_to_others_is_refused(
    shim_setup: dict[str, object], long_home: Path, xdg: Path
) -> None:
    folder = Path(socket_dir(str(long_home)))
    folder.mkdir()
    folder.chmod(0o777)  # anyone could have bound the socket in it
    done = _bash(_shim_env(shim_setup, long_home, XDG_RUNTIME_DIR=str(xdg)), "echo hi")
    assert done.returncode != 0 and done.stdout == ""
    assert "refusing to send commands to the shell helper socket" in done.stderr
    assert "open to other users" in done.stderr
    assert not Path(socket_path(str(long_home))).exists()  # no helper was started there either


@as_root
def test_a_predictable_tmp_folder_made_by_another_user_is_refused(
    shim_setup: dict[str, object], long_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    folder = Path(socket_dir(str(long_home)))
    assert str(folder).startswith("/tmp/agentworld-")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    os.chown(folder, OTHER_UID, OTHER_UID)
    try:
        env = _shim_env(shim_setup, long_home)
        env.pop("XDG_RUNTIME_DIR", None)
        done = _bash(env, "echo hi")
        assert done.returncode != 0 and done.stdout == ""
        assert f"belongs to uid {OTHER_UID}" in done.stderr
        with pytest.raises(PermissionError, match="belongs to uid"):
            from agentworld_plugins.adapters.shell.shim import make_private_dir

            make_private_dir(str(folder))
        assert ShellDaemon(str(long_home)).serve() == 4
    finally:
        shutil.rmtree(folder, ignore_errors=True)


IMPOSTOR = """
import os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind(sys.argv[1])
os.setgid({uid}); os.setuid({uid})   # listen as another user: the peer credentials say so
sock.listen(1)
print("ready", flush=True)
sock.settimeout(60)
try:
    conn, _ = sock.accept()
except TimeoutError:
    print("nobody came", flush=True)
    sys.exit(0)
conn.settimeout(5)
try:
    data = conn.recv(65536)
except TimeoutError:
    data = b""
print("received", len(data), flush=True)
"""


@as_root
def test_a_socket_served_by_another_user_gets_nothing(
    shim_setup: dict[str, object], long_home: Path, xdg: Path
) -> None:
    folder = Path(socket_dir(str(long_home)))
    folder.mkdir(mode=0o700)
    impostor = subprocess.Popen(
        [sys.executable, "-c", IMPOSTOR.format(uid=OTHER_UID), socket_path(str(long_home))],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert impostor.stdout is not None and impostor.stdout.readline() == "ready\n"
        done = _bash(_shim_env(shim_setup, long_home, XDG_RUNTIME_DIR=str(xdg)), "echo secret-command")
        assert done.returncode != 0 and "secret" not in done.stdout
        assert f"runs as uid {OTHER_UID}" in done.stderr
        assert impostor.stdout.readline() == "received 0\n"
    finally:
        impostor.kill()
        impostor.wait(timeout=30)
        if impostor.stdout is not None:
            impostor.stdout.close()
