"""``agentworld serve`` over the offline world answers a remote session as the world answers a local
one (initial state on turn 1, screens that change) and refuses conversations it cannot honour."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from agentworld_plugins import World
from agentworld_plugins.http_guard import serving
from agentworld_plugins.server import create_app
from agentworld_plugins.turns import render_turn, state_of_turn

PAGE = (
    "URL: https://shop.example/\nTitle: Shop\n\nRootWebArea 'Shop', focused\n"
    "\t[5] textbox 'Search'\n\t[6] button 'Go'\n\t[7] link 'Cart', url='https://shop.example/cart'"
)
_FIELD = {
    "text": "",
    "content_description": "Search",
    "class_name": "android.widget.EditText",
    "resource_name": "app:id/q",
    "is_clickable": True,
    "is_editable": True,
    "is_scrollable": False,
    "is_checked": False,
    "is_selected": False,
    "is_focused": False,
    "bbox": [0, 100, 1000, 200],
}
SCREEN = "UI element 0: " + json.dumps(_FIELD)
CASES = {  # (initial state, actions, text the first answer shows because the screen changed)
    "web": (PAGE, ["fill('5', 'mouse')", "click('6')"], "value='mouse'"),
    "android": (SCREEN, [{"action_type": "input_text", "text": "alarm", "index": 0}], '"text": "alarm"'),
    "terminal": (
        "user@box:~$ ",
        [[{"keystrokes": "pwd\n"}], [{"keystrokes": "cd /tmp && pwd\n"}]],
        "/home/user",
    ),
}


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    with serving(create_app(World(backend="offline").backend)) as base:
        yield base + "/v1"


@pytest.mark.parametrize("domain", sorted(CASES))
def test_remote_session_sees_what_a_local_one_sees(served: str, domain: str) -> None:
    state, actions, changed = CASES[domain]
    local = World(backend="offline").session(domain, initial_state=state)
    remote = World(base_url=served, model="agentworld", max_retries=0).session(domain, initial_state=state)
    seen = []
    for action in actions:
        want, got = local.step(action).text, remote.step(action).text
        assert got == want
        seen.append(got)
    assert changed in seen[0] and changed not in state  # turn 1 acted on the initial state


def test_state_of_turn_reads_back_what_render_turn_wrote() -> None:
    for state in ("root@box:/app# ", "line 1\nline 2\n", ""):
        assert state_of_turn(render_turn(1, "{}", state=state)) == state
    assert state_of_turn(render_turn(2, "{}")) is None


def test_a_domain_the_server_does_not_have_gets_a_400(served: str) -> None:
    """A plugin's conversation sent to a server started without the plugin is not answered as `os`."""
    system = "# Greeting Service World Model\n\nYou stand in for a tiny greeting service.\n"
    body = {
        "model": "agentworld",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": render_turn(1, '{"name": "Ada"}')},
        ],
    }
    request = urllib.request.Request(
        served + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=30)
    assert info.value.code == 400
    message = json.loads(info.value.read())["error"]["message"]
    assert "Greeting Service World Model" in message
    assert "restart" in message


def test_a_plugin_domain_the_server_has_is_answered_as_itself() -> None:
    """Its action looks like a search call ({"name": ...}); its system prompt says which it is."""
    import sys
    from pathlib import Path

    from agentworld_plugins.backends.base import Sampling
    from agentworld_plugins.backends.fake import FakeBackend
    from agentworld_plugins.backends.offline import OfflineBackend
    from agentworld_plugins.plugins import new_plugin_manager

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "agentworld-hello"))
    try:
        import agentworld_hello
    finally:
        sys.path.pop(0)
    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(agentworld_hello, name="hello")
    recorder = FakeBackend(responder=lambda messages: "x")
    World(backend=recorder, plugin_manager=pm).session("hello").step({"name": "Ada"})
    messages, _ = recorder.history[-1]
    answer = OfflineBackend(pm.registry).complete(messages, Sampling())
    assert "Hello, Ada!" in answer.text


@pytest.mark.parametrize(
    "action", ['[{"keystrokes": "ls\\n"}]', '{"tool_name": "get_weather", "arguments": {"city": "Oslo"}}']
)
def test_under_a_plugin_domains_prompt_another_domains_action_gets_the_plugins_400(action: str) -> None:
    """The server has the plugin: keystrokes or a tool call under its prompt get its validation
    error over HTTP, not a terminal screen or an mcp answer."""
    import sys
    from pathlib import Path

    from agentworld_plugins.backends.fake import FakeBackend
    from agentworld_plugins.backends.offline import OfflineBackend
    from agentworld_plugins.plugins import new_plugin_manager

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "agentworld-hello"))
    try:
        import agentworld_hello
    finally:
        sys.path.pop(0)
    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(agentworld_hello, name="hello")
    recorder = FakeBackend(responder=lambda messages: "x")
    World(backend=recorder, plugin_manager=pm).session("hello").step({"name": "Ada"})
    system = recorder.history[-1][0][0]["content"]
    body = {
        "model": "agentworld",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": render_turn(1, action)},
        ],
    }
    with serving(create_app(OfflineBackend(pm.registry))) as base:
        request = urllib.request.Request(
            base + "/v1/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=30)
    assert info.value.code == 400
    message = json.loads(info.value.read())["error"]["message"]
    assert "hello action" in message and '{"name": "Ada"}' in message


def test_a_perturbation_the_offline_world_ignores_is_said_to_the_client(capfd) -> None:
    """`serve --perturb control:...` over the offline world: the answer carries the warning (JSON
    and streamed), and the server's console says it once."""
    from agentworld_plugins.perturbations.config import perturbations_from_options
    from agentworld_plugins.perturbations.proxy import PerturbingBackend
    from agentworld_plugins.plugins import get_plugin_manager

    world = World(
        backend="offline",
        perturbations=perturbations_from_options(
            ("control:text=the disk is full",), None, get_plugin_manager().registry
        ),
    )
    served = PerturbingBackend(world.backend, world, world.perturbations)
    system = World(backend="offline").session("terminal").system_prompt
    body = {
        "model": "agentworld",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": render_turn(1, '[{"keystrokes": "pwd\\n"}]')},
        ],
    }
    with serving(create_app(served)) as base:
        answers = []
        for stream in (False, True, False):
            request = urllib.request.Request(
                base + "/v1/chat/completions",
                data=json.dumps({**body, "stream": stream}).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                answers.append(response.read().decode())
    plain = json.loads(answers[0])
    (warning,) = plain["warnings"]
    assert (
        "control perturbation needs a world model" in warning
        and "/" in plain["choices"][0]["message"]["content"]
    )
    chunks = [json.loads(line[6:]) for line in answers[1].splitlines() if line.startswith("data: {")]
    assert chunks[-1]["warnings"] == [warning]
    assert capfd.readouterr().err.count(f"agentworld: warning: {warning}") == 1
