"""Files the package writes stay private, inside their folder, and free of the agent's secrets."""

from __future__ import annotations

import hmac
import json
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from agentworld_plugins.adapters.shell.store import SessionStore
from click.testing import CliRunner

from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.cassette import CassetteBackend
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.cli import cli
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.redaction import REDACTED
from agentworld_plugins.session import Trajectory, World

SECRET = "sk-" + "a1b2c3d4" * 4


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_shim_install_refuses_names_with_path_separators(tmp_path: Path) -> None:
    target = tmp_path / "bin"
    for names in ("../x", "/abs/y", "bash,sub/sh", "..", "a\\b"):
        done = CliRunner().invoke(cli, ["shim", "install", str(target), "--names", names])
        assert done.exit_code != 0, names
        assert "is not a plain file name" in done.output
    assert not (tmp_path / "x").exists() and not Path("/abs/y").exists()
    assert not target.exists() or not any(target.iterdir())


def test_session_store_is_created_private(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "shell.db")
    store.create("s1", {"machine": "x"})
    created = [p for p in tmp_path.iterdir() if p.name.startswith("shell.db")]
    assert created and all(_mode(p) == 0o600 for p in created)
    store.close()


def test_cassette_is_created_private(tmp_path: Path) -> None:
    inner = FakeBackend()
    inner.enqueue("ok")
    backend = CassetteBackend(tmp_path / "run.db", inner, mode="all")
    backend.complete([{"role": "user", "content": "hi"}], Sampling())
    created = [p for p in tmp_path.iterdir() if p.name.startswith("run.db")]
    assert created and all(_mode(p) == 0o600 for p in created)


def test_trajectories_redact_what_cassettes_redact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTWORLD_REDACT", raising=False)
    with World(backend="offline") as world:
        session = world.session("terminal")
        session.step([{"keystrokes": f"export OPENAI_API_KEY={SECRET}\n"}])
        session.step([{"keystrokes": "curl -H 'Authorization: Bearer abcdefgh12345678' http://u:pw@h/\n"}])
        trajectory: Trajectory = session.trajectory
        path = trajectory.to_jsonl(tmp_path / "t.jsonl")
        text = path.read_text()
        assert SECRET not in text and "abcdefgh12345678" not in text and "u:pw@" not in text
        assert REDACTED in text
        assert _mode(path) == 0o600
        # the records are still whole otherwise, and readable back
        (again,) = Trajectory.from_jsonl(path)
        assert len(again.turns) == 2
        kept = trajectory.to_jsonl(tmp_path / "raw.jsonl", redact=False).read_text()
        assert SECRET in kept
        monkeypatch.setenv("AGENTWORLD_REDACT", "0")
        assert SECRET in trajectory.to_jsonl(tmp_path / "env.jsonl").read_text()


def test_fake_server_compares_its_key_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a, b):  # the real comparison, watched
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    with FakeWorldModelServer(api_key="k3y") as server:
        for header, expected in (("Bearer k3y", 200), ("Bearer wrong", 401), ("Bearer k\u00e9y", 401)):
            request = urllib.request.Request(server.url + "/models", headers={"Authorization": header})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    status = response.status
                    json.loads(response.read())
            except urllib.error.HTTPError as exc:
                status = exc.code
                exc.close()
            assert status == expected
    assert any(b == b"Bearer k3y" for _, b in seen) and len(seen) >= 3
