"""Perturbations for conversations without a session: ``PerturbingBackend`` behind
``agentworld serve`` and ``agentworld bench infer``."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from click.testing import CliRunner

from agentworld_plugins import World, http_guard
from agentworld_plugins.backends.base import Completion, Sampling
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.bench.data import load_results, record_key
from agentworld_plugins.bench.sample import make_sample_dataset
from agentworld_plugins.cli import cli
from agentworld_plugins.perturbations import Control
from agentworld_plugins.perturbations.proxy import PerturbingBackend
from agentworld_plugins.plugins import get_plugin_manager
from agentworld_plugins.server import create_app

BIBLE = "Zorblax Corp is a mining company founded in 2031 on Europa by Ada Quill."


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("AGENTWORLD_"):
            monkeypatch.delenv(name)


def system(domain: str) -> str:
    return get_plugin_manager().registry.domain(domain).system_prompt({})


def terminal_turn(number: int, keystrokes: str) -> dict[str, str]:
    action = json.dumps([{"keystrokes": keystrokes, "duration": 0.1}])
    return {"role": "user", "content": f"### Turn {number}\n**Action:**\n```json\n{action}\n```"}


def tool_turn(number: int, tool: str, **arguments: Any) -> dict[str, str]:
    action = json.dumps({"tool_name": tool, "arguments": arguments})
    return {"role": "user", "content": f"### Turn {number}\n**Action:**\n```json\n{action}\n```"}


def offline(*perturbations: Any) -> PerturbingBackend:
    world = World(backend="offline", perturbations=[])
    return PerturbingBackend(world.backend, world, list(perturbations))


def converse(
    backend: PerturbingBackend, turns: list[dict[str, str]], domain: str = "terminal"
) -> list[Completion]:
    """Play a conversation the way a client does: each answer goes back into the next request."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system(domain)}]
    answers = []
    for turn in turns:
        messages.append(turn)
        answer = backend.complete([dict(m) for m in messages], Sampling())
        answers.append(answer)
        messages.append({"role": "assistant", "content": answer.text})
    return answers


def injected(answers: list[Completion]) -> list[int]:
    return [n for n, a in enumerate(answers, 1) if a.metadata["perturbations"]]


#: a command that asks a server (a local one such as cat cannot be rate limited); -f: an HTTP error fails
CURL = "curl -f https://api.example.com/notes\n"

# -- served ----------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served() -> Iterator[str]:
    port = _free_port()
    app = create_app(offline("faults:kinds=rate_limit,rate=1"))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(5)


def _chat(url: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    body = json.dumps({"model": "agentworld", "messages": messages}).encode()
    request = urllib.request.Request(
        url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_a_served_offline_world_answers_a_terminal_conversation_with_the_rate_limit_error(served):
    messages = [{"role": "system", "content": system("terminal")}, terminal_turn(1, CURL)]
    body = _chat(served, messages)
    content = body["choices"][0]["message"]["content"]
    assert content.startswith("<predicted_observation>\n") and content.endswith("\n</predicted_observation>")
    assert "curl: (22) The requested URL returned error: 429" in content
    assert body["perturbations"] == [
        {"name": "faults", "turn": 1, "kind": "rate_limit", "tool": "curl", "replaced": True}
    ]


def test_serve_takes_perturb_options_and_the_environment(monkeypatch, tmp_path):
    from starlette.testclient import TestClient

    apps: list[Any] = []
    monkeypatch.setattr(http_guard, "run", lambda app, **kwargs: apps.append(app))
    monkeypatch.setenv("HOME", str(tmp_path))
    messages = [{"role": "system", "content": system("terminal")}, terminal_turn(1, CURL)]
    runner = CliRunner()
    result = runner.invoke(cli, ["serve", "--backend", "offline", "--perturb", "faults:kinds=timeout"])
    assert result.exit_code == 0, result.output
    monkeypatch.setenv("AGENTWORLD_PERTURB", "faults:kinds=rate_limit")
    result = runner.invoke(cli, ["serve", "--backend", "offline"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["serve", "--backend", "offline", "--perturb", "nonsense"])
    assert result.exit_code != 0 and "nonsense" in result.output
    kinds = []
    for app in apps:
        body = TestClient(app).post("/v1/chat/completions", json={"messages": messages}).json()
        kinds.append([p["kind"] for p in body["perturbations"]])
    assert kinds == [["timeout"], ["rate_limit"]]


# -- reproducibility and state across requests -----------------------------------------------------


def test_the_same_conversation_gets_the_same_injected_turns():
    turns = [terminal_turn(n, f"echo {n}\n") for n in range(1, 17)]
    first = injected(converse(offline("faults:rate=0.5"), turns))
    again = injected(converse(offline("faults:rate=0.5"), turns))
    assert first == again
    assert 0 < len(first) < 16
    other = [terminal_turn(1, "pwd\n"), *turns[1:]]  # another first turn: another conversation
    assert injected(converse(offline("faults:rate=0.5"), other)) != first


def test_one_request_is_answered_as_it_was_inside_its_conversation():
    backend = offline("faults:rate=0.5")
    turns = [terminal_turn(n, f"echo {n}\n") for n in range(1, 9)]
    answers = converse(backend, turns)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system("terminal")}]
    for turn, answer in zip(turns[:-1], answers[:-1]):
        messages += [turn, {"role": "assistant", "content": answer.text}]
    alone = offline("faults:rate=0.5").complete([*messages, turns[-1]], Sampling())
    assert alone.text == answers[-1].text
    assert alone.metadata["perturbations"] == answers[-1].metadata["perturbations"]


def test_schedules_that_count_steps_continue_across_requests():
    turns = [terminal_turn(n, f"echo {n}\n") for n in range(1, 10)]
    assert injected(converse(offline("faults:kinds=timeout,every=3"), turns)) == [3, 6, 9]
    assert injected(converse(offline("faults:kinds=timeout,first=2"), turns)) == [1, 2]


def test_an_action_answered_by_an_injected_error_never_reached_the_offline_world():
    turns = [terminal_turn(1, "echo hi > a.txt\n"), terminal_turn(2, "cat a.txt\n")]
    faulted = converse(offline("faults:kinds=permission_denied,at=1"), turns)
    assert "Permission denied" in faulted[0].text
    assert "No such file" in faulted[1].text
    plain = converse(offline("faults:kinds=permission_denied,at=5"), turns)
    assert "cat a.txt\nhi\n" in plain[1].text


# -- model-level perturbations reach the wrapped backend -------------------------------------------


def test_control_text_reaches_the_inner_backend_in_the_system_prompt():
    inner = FakeBackend(lambda messages: "<predicted_observation>\nok\n</predicted_observation>")
    world = World(backend=inner, perturbations=[])
    backend = PerturbingBackend(inner, world, [Control(text="Every write fails with EROFS.")])
    messages = [{"role": "system", "content": system("mcp")}, tool_turn(1, "ping")]
    answer = backend.complete([dict(m) for m in messages], Sampling(temperature=0.0))
    sent, sampling = inner.history[0]
    assert sent[0]["content"].startswith(messages[0]["content"].rstrip())
    assert "## Control Instructions" in sent[0]["content"]
    assert "Every write fails with EROFS." in sent[0]["content"]
    assert sent[1:] == messages[1:]
    assert sampling.temperature == 0.0
    assert answer.text == "<predicted_observation>\nok\n</predicted_observation>"
    assert answer.metadata["perturbations"] == [{"name": "control", "turn": 1, "placement": "system"}]


def test_turn_placed_control_reaches_only_the_chosen_turn():
    inner = FakeBackend(lambda messages: "<predicted_observation>\nok\n</predicted_observation>")
    backend = PerturbingBackend(
        inner, World(backend=inner, perturbations=[]), ["control:text=Go slow.,placement=turn,at=2"]
    )
    converse(backend, [tool_turn(1, "ping"), tool_turn(2, "ping"), tool_turn(3, "ping")], domain="mcp")
    lasts = [messages[-1]["content"] for messages, _ in inner.history]
    assert ["**Control Instruction:**\nGo slow." in last for last in lasts] == [False, True, False]


def test_the_fictional_world_bible_reaches_search_requests():
    inner = FakeBackend(lambda messages: "<predicted_observation>\nresults\n</predicted_observation>")
    backend = PerturbingBackend(
        inner, World(backend=inner, perturbations=[]), [f"fictional_world:text={BIBLE}"]
    )
    action = json.dumps({"name": "web_search", "arguments": {"query": "Zorblax Corp Europa"}})
    turn = {"role": "user", "content": f"### Turn 1\n**Action:**\n```json\n{action}\n```"}
    messages = [{"role": "system", "content": system("search")}, turn]
    backend.complete(messages, Sampling())
    assert "## World Bible" in inner.history[0][0][0]["content"]
    assert BIBLE in inner.history[0][0][0]["content"]
    # the offline search world reads the bible from the transient session's context
    answer = offline(f"fictional_world:text={BIBLE}").complete(messages, Sampling())
    assert "Ada Quill" in answer.text


# -- pass-through ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": "hello"}],
        [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "hi"}],
        [{"role": "system", "content": system("terminal")}, {"role": "user", "content": "no action here"}],
        [{"role": "system", "content": system("terminal")}, {"role": "assistant", "content": "last"}],
    ],
)
def test_unrecognised_conversations_pass_through_untouched(messages):
    original = Completion(text="plain answer", model="m", metadata={"x": 1})
    inner = FakeBackend().enqueue(original)
    backend = PerturbingBackend(inner, World(backend=inner, perturbations=[]), ["faults:rate=1"])
    assert backend.complete([dict(m) for m in messages], Sampling()) is original
    assert inner.history[0][0] == messages


async def test_the_async_path_perturbs_and_passes_through_alike():
    backend = offline("faults:kinds=rate_limit")
    messages = [{"role": "system", "content": system("terminal")}, terminal_turn(1, CURL)]
    answer = await backend.acomplete(messages, Sampling())
    assert "returned error: 429" in answer.text and answer.metadata["is_error"] is True
    inner = FakeBackend()
    passing = PerturbingBackend(inner, World(backend=inner, perturbations=[]), ["faults:rate=1"])
    assert (
        await passing.acomplete([{"role": "user", "content": "hello"}], Sampling())
    ).text == "fake observation 1"


# -- bench -----------------------------------------------------------------------------------------


def _infer(tmp_path: Path, data: Path, name: str, *extra: str) -> list[dict[str, Any]]:
    output = tmp_path / f"{name}.jsonl"
    args = ["bench", "infer", "--data-dir", str(data), "--output", str(output), "--backend", "offline"]
    result = CliRunner().invoke(cli, [*args, "--no-progress", *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return load_results(output)[0]


def test_bench_infer_with_perturb_records_perturbed_predictions(tmp_path):
    data = tmp_path / "data"
    make_sample_dataset(data, episodes=1)
    plain = {record_key(line): line for line in _infer(tmp_path, data, "plain")}
    perturbed = _infer(tmp_path, data, "perturbed", "--perturb", "faults:kinds=timeout,rate=1")
    assert len(perturbed) == len(plain)
    hit = [line for line in perturbed if line["infer"]["perturbations"]]
    assert len(hit) >= len(perturbed) // 2
    for line in perturbed:
        assert line["infer"]["status"] == "ok"
        before = plain[record_key(line)]
        assert "perturbations" not in before["infer"]
        if line["infer"]["perturbations"]:
            assert line["infer"]["perturbations"][0]["kind"] == "timeout"
            assert line["prediction"] != before["prediction"]
        else:
            assert line["prediction"] == before["prediction"]


def test_bench_infer_keys_random_streams_by_the_records_episode(tmp_path, alike_episodes):
    """Episodes that start alike draw their own faults (issue 18): rate=0.5 over 24 episodes
    with the same system prompt and first turn faults some, not all or none."""
    data = alike_episodes("swe", 24)
    lines = _infer(tmp_path, data, "keyed", "--perturb", "faults:kinds=timeout,rate=0.5")
    faulted = {line["id"] for line in lines if line["infer"]["perturbations"]}
    assert 0 < len(faulted) < 24
    again = _infer(tmp_path, data, "again", "--perturb", "faults:kinds=timeout,rate=0.5")
    assert {line["id"] for line in again if line["infer"]["perturbations"]} == faulted  # reproducible


def test_serve_streams_carry_provenance_and_clients_may_name_conversations():
    from starlette.testclient import TestClient

    messages = [{"role": "system", "content": system("terminal")}, terminal_turn(1, CURL)]
    client = TestClient(create_app(offline("faults:kinds=rate_limit,rate=0.5")))
    faulted = set()
    for n in range(16):
        body = {"model": "agentworld", "messages": messages, "conversation_id": f"episode-{n}"}
        answer = client.post("/v1/chat/completions", json=body).json()
        if answer["perturbations"]:
            faulted.add(n)
    assert 0 < len(faulted) < 16  # one stream per named conversation, not one per first turn
    one = next(iter(faulted))
    headers = {"X-Agentworld-Conversation": f"episode-{one}"}
    again = client.post("/v1/chat/completions", json={"messages": messages}, headers=headers).json()
    assert again["perturbations"][0]["kind"] == "rate_limit"
    # streamed: the last chunk before [DONE] carries the same provenance as the JSON answer
    streamed = client.post(
        "/v1/chat/completions", json={"messages": messages, "stream": True}, headers=headers
    )
    events = [line[len("data: ") :] for line in streamed.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[-1]["perturbations"] == again["perturbations"]
    assert "returned error: 429" in "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)


def test_serve_decodes_the_header_our_client_encodes():
    """A name outside printable ASCII travels percent-encoded and keys the same stream as the
    same name given as ``conversation_id``."""
    from starlette.testclient import TestClient

    from agentworld_plugins.current import CONVERSATION_HEADER, conversation_header

    messages = [{"role": "system", "content": system("terminal")}, terminal_turn(1, CURL)]
    client = TestClient(create_app(offline("faults:kinds=rate_limit,rate=0.5")))
    by_header, by_field = [], []
    for n in range(12):
        name = f"terminal/épisode {n}\n"
        headers = {CONVERSATION_HEADER: conversation_header(name)}
        answer = client.post("/v1/chat/completions", json={"messages": messages}, headers=headers)
        by_header.append(answer.json()["perturbations"])
        answer = client.post("/v1/chat/completions", json={"messages": messages, "conversation_id": name})
        by_field.append(answer.json()["perturbations"])
    assert by_header == by_field
    assert any(by_header) and not all(by_header)


def test_a_turn_one_terminal_fault_redraws_the_conversations_own_screen():
    """The first turn's **Current State:** is the screen a fault draws on (issue 18), and the
    offline world's next screen continues from the faulted one."""
    backend = offline("faults:kinds=not_found,turns=1")
    action = json.dumps([{"keystrokes": "cat notes.txt\n", "duration": 0.1}])
    first = f"### Turn 1\n**Current State:**\nroot@box:/srv# \n\n**Action:**\n```json\n{action}\n```"
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system("terminal")},
        {"role": "user", "content": first},
    ]
    answer = backend.complete([dict(m) for m in messages], Sampling())
    screen = answer.text.removeprefix("<predicted_observation>\n").removesuffix("\n</predicted_observation>")
    assert screen.splitlines() == [
        "root@box:/srv# cat notes.txt",
        "cat: notes.txt: No such file or directory",
        "root@box:/srv# ",
    ]
    messages += [{"role": "assistant", "content": answer.text}, terminal_turn(2, "pwd\n")]
    second = backend.complete([dict(m) for m in messages], Sampling())
    assert not second.metadata["perturbations"]
    assert second.text.splitlines()[1:-1] == [
        "root@box:/srv# cat notes.txt",
        "cat: notes.txt: No such file or directory",
        "root@box:/srv# pwd",
        "/srv",
        "root@box:/srv#",
    ]
