"""``known_resources``: every resource the offline MCP world files a call under, with every field
its items come to hold, is known from the tools alone, before any call."""

from __future__ import annotations

from typing import Any

import pytest

from agentworld_plugins.offline.mcp import STATE_KEY, known_resources, mcp_step
from agentworld_plugins.offline.mcp.document import Schema
from agentworld_plugins.plugins import get_plugin_manager

_OBJECT = {"type": "object"}
#: tools of other shapes than the packs': a folded noun, nested and listed items, a parent's counter
OTHERS = [
    {
        "name": "create_appointment",
        "inputSchema": {**_OBJECT, "properties": {"title": {"type": "string"}, "start": {"type": "string"}}},
        "outputSchema": {
            **_OBJECT,
            "properties": {"appointment": {**_OBJECT, "properties": {"id": {"type": "string"}, "room": {"type": "string"}}}},
            "required": ["appointment"],
        },
    },
    {
        "name": "create_invoice",
        "inputSchema": {**_OBJECT, "properties": {"customer_id": {"type": "integer"}, "total": {"type": "number"}}},
    },
    {
        "name": "list_customers",
        "inputSchema": _OBJECT,
        "outputSchema": {
            **_OBJECT,
            "properties": {
                "customers": {
                    "type": "array",
                    "items": {**_OBJECT, "properties": {"id": {"type": "integer"}, "tier": {"type": "string"}}},
                }
            },
        },
    },
    {
        "name": "add_ticket_note",
        "inputSchema": {**_OBJECT, "properties": {"ticket_id": {"type": "integer"}, "text": {"type": "string"}}},
    },
    {"name": "create_ticket", "inputSchema": {**_OBJECT, "properties": {"title": {"type": "string"}}}},
]  # fmt: skip


def _tool_sets() -> dict[str, list[dict[str, Any]]]:
    registry = get_plugin_manager().registry
    return {**{name: registry.tool_pack(name) for name in sorted(registry.tool_packs)}, "others": OTHERS}


@pytest.mark.parametrize("name", list(_tool_sets()))
def test_what_the_world_files_is_known_from_the_tools(name: str) -> None:
    tools = _tool_sets()[name]
    known = known_resources(tools)
    state: dict[str, Any] = {}
    creates = sorted(tools, key=lambda t: not t["name"].startswith(("create", "add", "send")))
    for seed, tool in enumerate([*creates, *creates]):  # twice: the second reads what the first made
        arguments = Schema(tool.get("inputSchema") or _OBJECT, seed).fake()
        mcp_step(state, tool["name"], arguments if isinstance(arguments, dict) else {}, {"tools": tools})
    buckets = state.get(STATE_KEY, {}).get("resources", {})
    for resource, bucket in buckets.items():
        assert resource in known, (resource, sorted(known))
        for alias in bucket.get("aliases", ()):
            assert known[alias] == known[resource]
        for item in bucket["items"].values():
            assert set(item) <= set(known[resource]), (resource, set(item) - set(known[resource]))
    if name == "github-issues":
        assert set(buckets) == {"issue", "issue_comment"}
    if name == "others":
        assert {"event", "appointment", "invoice", "customer", "ticket", "ticket_note"} <= set(known)
        assert {"room", "title"} <= set(known["event"]) and "tier" in known["customer"]
        assert "notes" in known["ticket"]  # a new ticket_note counts on its ticket
