"""Known MCP servers recognised by the shape of their tool set (the real server against the
engine is tests/conformance/test_known_servers.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from agentworld_plugins.offline.mcp import mcp_step
from agentworld_plugins.offline.mcp.servers import known_server


def _tools(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "inputSchema": {"type": "object"}} for n in names]


def test_a_memory_look_alike_needs_most_of_the_servers_tools() -> None:
    five = _tools("create_entities", "create_relations", "add_observations", "read_graph", "search_nodes")
    assert known_server({t["name"]: t for t in five}) is not None
    assert known_server({t["name"]: t for t in five[:4]}) is None  # four tools: a generic tool set


def test_the_graph_is_kept_in_the_session_state_and_failed_batches_change_nothing() -> None:
    tools = _tools("create_entities", "create_relations", "add_observations", "read_graph", "search_nodes")
    state: dict[str, Any] = {}
    context = {"tools": tools}
    made = mcp_step(
        state,
        "create_entities",
        {"entities": [{"name": "Ada", "entityType": "person", "observations": []}]},
        context,
    )
    assert made.metadata["structured_content"]["entities"][0]["name"] == "Ada"
    failed = mcp_step(
        state,
        "add_observations",
        {
            "observations": [
                {"entityName": "Ada", "contents": ["a"]},
                {"entityName": "Nobody", "contents": ["b"]},
            ]
        },
        context,
    )
    assert failed.is_error and failed.text == "Entity with name Nobody not found"
    graph = mcp_step(state, "read_graph", {}, context).metadata["structured_content"]
    assert graph == {
        "entities": [{"name": "Ada", "entityType": "person", "observations": []}],
        "relations": [],
    }


def test_which_known_server_calls_are_light() -> None:
    """Light (answered on the caller's thread): a known server's call bounded by its arguments,
    once its engine exists, while the state is small; never a call that reads the whole state."""
    from agentworld_plugins.offline.mcp.servers import LIGHT_STATE
    from agentworld_plugins.offline.mcp.world import mcp_light

    tools = _tools("create_entities", "create_relations", "add_observations", "read_graph", "search_nodes")
    context = {"tools": tools}
    state: dict[str, Any] = {}
    assert not mcp_light(state, "create_entities", context)  # no engine yet: making it is not light
    mcp_step(state, "create_entities", {"entities": []}, context)
    assert mcp_light(state, "create_entities", context)
    assert not mcp_light(state, "read_graph", context)  # as long as the graph
    assert not mcp_light(state, "no_such_tool", context)
    assert not mcp_light(state, "create_entities", {"tools": _tools("create_entities", "read_graph")})
    many = [{"name": f"e{i}", "entityType": "t", "observations": []} for i in range(LIGHT_STATE + 1)]
    mcp_step(state, "create_entities", {"entities": many}, context)
    assert not mcp_light(state, "create_entities", context)  # a large graph: in a worker thread


def test_the_names_kept_for_create_entities_follow_deletions() -> None:
    tools = _tools("create_entities", "delete_entities", "add_observations", "read_graph", "search_nodes")
    state: dict[str, Any] = {}
    context = {"tools": tools}
    ada = {"entities": [{"name": "Ada", "entityType": "person", "observations": []}]}
    assert mcp_step(state, "create_entities", ada, context).metadata["structured_content"]["entities"]
    assert mcp_step(state, "create_entities", ada, context).metadata["structured_content"]["entities"] == []
    mcp_step(state, "delete_entities", {"entityNames": ["Ada"]}, context)
    again = mcp_step(state, "create_entities", ada, context).metadata["structured_content"]["entities"]
    assert [e["name"] for e in again] == ["Ada"]  # deleted, so new again


EVERYTHING = [
    "echo",
    "get-env",
    "get-sum",
    "get-tiny-image",
    "toggle-simulated-logging",
    "get-resource-links",
]


def test_everythings_get_env_is_the_world_machines_environment() -> None:
    from agentworld_plugins.offline.shell import VirtualMachine

    machine = VirtualMachine(interactive=False)
    exported = {k: v for k, v in machine.vars.items() if k in machine.exported}
    state: dict[str, Any] = {}
    shown = mcp_step(state, "get-env", {}, {"tools": _tools(*EVERYTHING)})
    assert not shown.is_error
    assert json.loads(shown.text) == exported and "PATH" in exported and "HOME" in exported


_FIRST_CALLS = """
import json, sys
from agentworld_plugins.offline.mcp import mcp_step
tools = [{"name": n, "inputSchema": {"type": "object"}} for n in sys.argv[1].split(",")]
answer = mcp_step({}, sys.argv[2], json.loads(sys.argv[3]), {"tools": tools})
print(json.dumps([answer.text, [m for m in ("bm25s", "agentworld_plugins.offline.shell") if m in sys.modules]]))
"""


@pytest.mark.parametrize(
    ("tools", "name", "arguments"),
    [
        (EVERYTHING, "echo", {"message": "hi"}),
        (["fetch"], "fetch", {"url": "https://example.com/"}),
        (["create_entities", "create_relations", "add_observations", "read_graph", "search_nodes"],
         "read_graph", {}),
    ],
)  # fmt: skip
def test_a_servers_first_call_imports_neither_the_shell_nor_the_search_index(
    tools: list[str], name: str, arguments: dict[str, Any]
) -> None:
    """What a fake server's start costs: the offline shell (bashlex's tables) and bm25s (numpy,
    scipy) are imported by the tools that use them, not by every server's first call."""
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_CALLS, ",".join(tools), name, json.dumps(arguments)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text, imported = json.loads(done.stdout)
    assert text and imported == []
