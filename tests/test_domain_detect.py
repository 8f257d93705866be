"""The domain of a bare conversation comes from its turns, whatever the system prompt says: the
official script's ``infer`` against ``agentworld serve`` (offline world) gets every domain's own
answer. Real HTTP on 127.0.0.1."""

from __future__ import annotations

import json

import openai
import pytest

from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.bench.data import DOMAINS
from agentworld_plugins.bench.official import inference_messages
from agentworld_plugins.bench.sample import sample_records
from agentworld_plugins.cli.serve import ForcedDomainBackend
from agentworld_plugins.domain_detect import classify_action, forced_domain, guess_domain
from agentworld_plugins.errors import BackendError
from agentworld_plugins.http_guard import serving
from agentworld_plugins.plugins import get_plugin_manager
from agentworld_plugins.server import create_app
from agentworld_plugins.session import World

# system prompts worded unlike ours: the official ones all open with the same heading
OTHER_WORDING = "# Role and Objective\n\nYou simulate an environment. Predict what it returns.\n"


def _reworded(system: str) -> str:
    """Another wording of a system prompt that keeps its tool definitions (as the official
    templates' ``{tool_definitions}`` do)."""
    from agentworld_plugins.backends.offline import context_from_system

    tools = context_from_system(system).get("tools")
    return OTHER_WORDING + (f"\n# Tools\n\n{json.dumps(tools, indent=2)}\n" if tools else "")


@pytest.fixture
def offline_url():
    from agentworld_plugins.backends.offline import OfflineBackend

    with serving(create_app(OfflineBackend(get_plugin_manager().registry))) as base:
        yield base + "/v1"


@pytest.mark.parametrize("domain", DOMAINS)
def test_official_style_infer_gets_each_domain_in_its_own_format(offline_url, domain):
    client = openai.OpenAI(base_url=offline_url, api_key="EMPTY")
    for record in sample_records(domain):
        ours = client.chat.completions.create(model="m", messages=inference_messages(record), temperature=0.6)
        other = {**record, "system_str": _reworded(record["system_str"])}
        theirs = client.chat.completions.create(
            model="m", messages=inference_messages(other), temperature=0.6
        )
        assert theirs.choices[0].message.content == ours.choices[0].message.content
        bare = {**record, "system_str": ""}  # no system message at all
        assert guess_domain(inference_messages(bare)) == domain


def test_action_shapes():
    assert classify_action("json", "[]") == "terminal"
    assert classify_action(None, "fill('12', 'hello')") == "web"
    assert classify_action(None, "pyautogui.click(10, 20)") == "os"
    assert classify_action("json", '{"action_type": "click", "index": 3}') == "android"
    assert classify_action("json", '{"name": "web_search", "arguments": {"query": "x"}}') == "search"
    assert classify_action("json", '{"tool_name": "list_issues", "arguments": {}}') == "mcp"
    assert (
        classify_action("json", '{"tool_name": "run_shell_command", "arguments": {"command": "ls"}}') == "swe"
    )
    # a filesystem MCP server's read_file stays mcp when its tool definitions are not a coding agent's
    tools = {"read_file", "list_allowed_directories", "move_file", "get_file_info"}
    assert classify_action("json", '{"tool_name": "read_file", "arguments": {}}', tools) == "mcp"
    assert classify_action(None, "hello there") is None


def test_serve_domain_forces_one(offline_url):
    from agentworld_plugins.backends.offline import OfflineBackend

    registry = get_plugin_manager().registry
    record = sample_records("swe")[0]
    messages = inference_messages({**record, "system_str": _reworded(record["system_str"])})
    assert guess_domain(messages) == "swe"
    token = forced_domain.set("mcp")
    try:
        assert guess_domain(messages) == "mcp"
    finally:
        forced_domain.reset(token)
    forced = ForcedDomainBackend(OfflineBackend(registry), "mcp")
    as_mcp = forced.complete(messages, Sampling())
    as_swe = OfflineBackend(registry).complete(messages, Sampling())
    assert as_mcp.text != as_swe.text and "domain mcp" in forced.describe()


# -- honest answers: the wrong domain never answers ---------------------------------------------------


def _ask(url, system, action):
    from agentworld_plugins.turns import render_turn

    client = openai.OpenAI(base_url=url, api_key="EMPTY", max_retries=0)
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": render_turn(1, action)}
    ]
    return client.chat.completions.create(model="m", messages=messages, temperature=0.6)


OFFICIAL_HEADING = "# Role and Objective\n\nYou simulate an environment. Predict what it returns.\n"


@pytest.mark.parametrize(
    "action", ['{"query": "weather in Oslo"}', '[{"foo": 1}]', "[[1, 2], [3]]", '{"city": "Oslo"}']
)
@pytest.mark.parametrize("system", ["", OFFICIAL_HEADING])
def test_json_of_no_domains_shape_is_a_400_naming_it(offline_url, system, action):
    """A dict literal parses as Python too: it must not come back as an Ubuntu desktop."""
    with pytest.raises(openai.BadRequestError) as info:
        _ask(offline_url, system, action)
    message = info.value.body["message"]
    assert "JSON of no domain's shape" in message and json.loads(action) == json.loads(
        message.split("The action ", 1)[1].split(" is JSON", 1)[0]
    )
    assert "keystrokes" in message and "action_type" in message  # the shapes it could have had


def test_an_earlier_turn_still_tells_the_domain(offline_url):
    """A search conversation whose latest action is malformed gets search's own validation error."""
    from agentworld_plugins.turns import render_turn

    record = next(r for r in sample_records("search") if r["turn_idx"] > 1)
    messages = inference_messages({**record, "system_str": OFFICIAL_HEADING})
    assert guess_domain(messages) == "search"
    messages[-1] = {
        "role": "user",
        "content": render_turn(record["turn_idx"], '{"query": "weather in Oslo"}'),
    }
    assert guess_domain(messages) == "search"


@pytest.mark.parametrize("depth", [65, 1000, 100_000])
@pytest.mark.parametrize("domain", [None, "terminal", "mcp", "os"])
def test_deeply_nested_actions_get_a_400_never_a_500(offline_url, depth, domain):
    from pathlib import Path

    prompts = Path(__file__).resolve().parents[1] / "prompts"
    system = (prompts / domain / "system_prompt.txt").read_text() if domain else ""
    nested = "[" * depth + "]" * depth
    for action in (nested, '{"tool_name": "x", "arguments": ' + nested + "}"):
        if domain == "os" and depth == 65:
            continue  # under the desktop's prompt, 65 levels of literals are a valid Python program
        with pytest.raises(openai.BadRequestError):
            _ask(offline_url, system, action)


def test_our_headings_are_our_prompts_first_lines():
    from pathlib import Path

    from agentworld_plugins.domain_detect import BUNDLED_HEADINGS, heading_of

    root = Path(__file__).resolve().parents[1] / "prompts"
    found = {heading_of((root / d / "system_prompt.txt").read_text()): d for d in DOMAINS}
    assert found == BUNDLED_HEADINGS


@pytest.mark.parametrize(
    ("system", "action", "said"),
    [
        # a plugin domain's prompt on a server without the plugin: a 400 naming it, whatever the action
        (
            "# Greeting Service World Model\n\nYou stand in for a greeting service.\n",
            '[{"keystrokes": "ls\\n"}]',
            "Greeting Service World Model",
        ),
        (
            "# Greeting Service World Model\n\nYou stand in for a greeting service.\n",
            '{"tool_name": "get_weather", "arguments": {"city": "Oslo"}}',
            "Greeting Service World Model",
        ),
        # our own mcp prompt (reworded after its heading) with keystrokes: mcp's own validation error
        ("# MCP Server World Model\n\nSomething else here.\n", '[{"keystrokes": "ls\\n"}]', "mcp action"),
    ],
)
def test_a_prompts_own_domain_decides_not_the_actions_look(offline_url, system, action, said):
    with pytest.raises(openai.BadRequestError) as info:
        _ask(offline_url, system, action)
    assert said in info.value.body["message"]


@pytest.mark.parametrize("depth", [65, 5_000, 100_000])
def test_a_deeply_nested_action_is_no_domain_and_serve_never_answers_500(depth: int) -> None:
    """Found by hostile input: ``json.loads`` of a 5,000-deep action raised RecursionError (a 500)."""
    from test_http_guard import request

    from agentworld_plugins.http_guard import serving
    from agentworld_plugins.server import create_app

    action = "[" * depth + "]" * depth
    try:
        assert classify_action("json", action) is None
    except BackendError as exc:  # too deep to be any domain's action: said so (serve's 400)
        assert "not one any domain could take" in exc.message
    content = f"### Turn 1\n**Action:**\n```json\n{action}\n```"
    body = {
        "model": "m",
        "messages": [{"role": "system", "content": "Hi."}, {"role": "user", "content": content}],
    }
    with World(backend="offline") as world, serving(create_app(world.backend)) as base:
        status, _, answer = request(base, "POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status in (200, 400) and isinstance(answer, dict), (status, answer)
