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


@pytest.mark.parametrize("depth", [65, 5_000, 100_000])
def test_a_deeply_nested_action_is_no_domain_and_serve_never_answers_500(depth: int) -> None:
    """Found by hostile input: ``json.loads`` of a 5,000-deep action raised RecursionError (a 500)."""
    from test_http_guard import request

    from agentworld_plugins.http_guard import serving
    from agentworld_plugins.server import create_app

    action = "[" * depth + "]" * depth
    assert classify_action("json", action) is None
    content = f"### Turn 1\n**Action:**\n```json\n{action}\n```"
    body = {
        "model": "m",
        "messages": [{"role": "system", "content": "Hi."}, {"role": "user", "content": content}],
    }
    with World(backend="offline") as world, serving(create_app(world.backend)) as base:
        status, _, answer = request(base, "POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status in (200, 400) and isinstance(answer, dict), (status, answer)
