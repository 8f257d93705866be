"""Known MCP servers recognised by the shape of their tool set (the real server against the
engine is tests/conformance/test_known_servers.py)."""

from __future__ import annotations

from typing import Any

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
