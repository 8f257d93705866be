"""Sessions of a remote world through a real ``agentworld serve --perturb`` on 127.0.0.1: our client
names each conversation (``X-Agentworld-Conversation``), so sessions that start alike draw their
own faults, and a session replayed under its id draws the same ones."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins import World
from agentworld_plugins.backends.openai import OpenAIBackend
from agentworld_plugins.bench.data import load_results
from agentworld_plugins.cli import cli
from agentworld_plugins.testing import serve_process

FAULT = "Permission denied"
ACTIONS = [[{"keystrokes": f"cat notes{n}.txt\n", "duration": 0.1}] for n in range(3)]
ENV = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("AGENTWORLD_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def perturbing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``agentworld serve --backend offline --perturb faults:kinds=permission_denied,rate=0.5``."""
    env = {**ENV, "HOME": str(tmp_path_factory.mktemp("home"))}
    with serve_process(
        "--backend", "offline", "--perturb", "faults:kinds=permission_denied,rate=0.5", env=env
    ) as url:
        yield url + "/v1"


def _world(url: str, transport: str) -> World:
    if transport == "sdk":  # what World(base_url=...) builds
        return World(base_url=url, model="agentworld", max_retries=0, perturbations=[])
    backend = OpenAIBackend([url], model="agentworld", transport="lean", max_retries=0)
    return World(backend=backend, perturbations=[])


def _play(world: World, session_id: str | None = None) -> tuple[bool, ...]:
    """One terminal session, the same start every time; which of its turns were faulted."""
    session = world.session("terminal", initial_state="root@box:/srv# ", session_id=session_id)
    return tuple(FAULT in session.step(action).text for action in ACTIONS)


@pytest.mark.parametrize("transport", ["sdk", "lean"])
def test_sessions_that_start_alike_draw_their_own_faults_and_replay_them(
    perturbing_server: str, transport: str
) -> None:
    world = _world(perturbing_server, transport)
    ids = [f"{transport}-episode-{n}" for n in range(8)]
    try:
        played = {session_id: _play(world, session_id) for session_id in ids}
        replayed = {session_id: _play(world, session_id) for session_id in ids}
    finally:
        world.close()
    # unnamed, the server would key all of them by the same system prompt and first turn
    assert len(set(played.values())) > 1
    assert replayed == played


def test_bench_infer_against_a_remote_perturbing_server_keys_faults_by_episode(
    perturbing_server: str, tmp_path: Path, alike_episodes: Callable[[str, int], Path]
) -> None:
    """``bench infer --base-url`` (the lean transport) sends each record's ``domain/episode-id``."""
    data = alike_episodes("terminal", 16)

    def infer(name: str) -> set[str]:
        output = tmp_path / f"{name}.jsonl"
        args = ["bench", "infer", "--data-dir", str(data), "--output", str(output)]
        args += ["--base-url", perturbing_server, "--model", "agentworld", "--no-progress"]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        lines = load_results(output)[0]
        assert len(lines) == 16 and all(line["infer"]["status"] == "ok" for line in lines)
        return {line["id"] for line in lines if FAULT in (line["prediction"] or "")}

    faulted = infer("first")
    assert 0 < len(faulted) < 16
    assert infer("again") == faulted
