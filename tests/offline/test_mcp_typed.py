"""Typed answers for ad-hoc tools (#24 item 5): a clock tool tells the time, an action verb makes
a record that a get/list tool reads back, a read-only list shows things of its kind, a key-value
list without a ``key`` lists the keys; through the offline world, LangChain tool substitution and a
real MCP client over stdio."""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import mcp_types as types
from agentworld_plugins.adapters.langchain import simulate_tools
from langchain_core.tools import StructuredTool
from mcp import Client, StdioServerParameters

from agentworld_plugins import World
from agentworld_plugins.offline.mcp.resources import known_resources
from agentworld_plugins.offline.mcp.world import STATE_KEY, mcp_step

_OBJ = {"type": "object"}


def _tool(name: str, description: str = "", **props: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {**_OBJ, "properties": props}}


S, INT = {"type": "string"}, {"type": "integer"}
TOOLS = [
    _tool("write_note", "Write a note", title=S, body=S),
    _tool("list_notes", "List the notes"),
    _tool("read_note", "Read a note by its title", title=S),
    _tool("place_order", "Place an order for a product", product=S, quantity=INT),
    _tool("get_order", "Look up an order", order_id=S),
    _tool("list_orders", "List orders"),
    _tool("get_time", "Get the current time", timezone=S),
    _tool("list_commits", "List the commits of a repository", repo=S, limit=INT),
    _tool("get_weather", "Current weather for a city", city=S),
    _tool("set_value", "Store a value under a key", key=S, value=S),
    _tool("get_value", "Read the value of a key", key=S),
    _tool("list_keys", "List the stored keys"),
]


def _call(state: dict[str, Any], name: str, **args: Any) -> Any:
    result = mcp_step(state, name, args, {"tools": TOOLS})
    assert not result.is_error, result.text
    return json.loads(result.text)


def test_action_verbs_acknowledge_with_an_id_and_read_back() -> None:
    state: dict[str, Any] = {}
    note = _call(state, "write_note", title="groceries", body="milk, eggs")
    assert note["status"] == "written" and note["title"] == "groceries" and note["body"] == "milk, eggs"
    assert note["note_id"] == note["id"]
    order = _call(state, "place_order", product="pen", quantity=2)
    assert order["status"] == "placed" and order["quantity"] == 2 and order["order_id"]
    # what was written is what the matching get/list tools read
    assert [n["title"] for n in _call(state, "list_notes")] == ["groceries"]
    assert _call(state, "read_note", title="groceries")["body"] == "milk, eggs"
    got = _call(state, "get_order", order_id=order["order_id"])
    assert got["product"] == "pen" and got["quantity"] == 2
    assert [o["order_id"] for o in _call(state, "list_orders")] == [order["order_id"]]
    missing = mcp_step(state, "get_order", {"order_id": "order_99"}, {"tools": TOOLS})
    assert missing.is_error and "not found" in missing.text
    # readers of the state (sql rewards) know these resources and their fields before any call
    known = known_resources(TOOLS)
    assert {"title", "body", "created_at"} <= set(known["note"])
    assert set(state[STATE_KEY]["resources"]) >= {"note", "order"}


def test_clock_tools_tell_the_offline_time_in_the_zone_asked() -> None:
    state: dict[str, Any] = {}
    utc = _call(state, "get_time", timezone="UTC")
    tokyo = _call(state, "get_time", timezone="Asia/Tokyo")
    first, second = datetime.fromisoformat(utc["datetime"]), datetime.fromisoformat(tokyo["datetime"])
    assert second > first and tokyo["datetime"].endswith("+09:00")
    assert re.fullmatch(r"\d\d:\d\d:\d\d", tokyo["time"]) and tokyo["day_of_week"] == second.strftime("%A")
    bad = mcp_step(state, "get_time", {"timezone": "Mars/Olympus"}, {"tools": TOOLS})
    assert bad.is_error and "Mars/Olympus" in bad.text


def test_read_only_lists_show_things_of_their_kind_and_keep_them() -> None:
    state: dict[str, Any] = {}
    commits = _call(state, "list_commits", repo="acme/api")
    assert commits and all(re.fullmatch(r"[0-9a-f]{40}", c["sha"]) for c in commits)
    assert all(c["message"] and c["author"] and c["repo"] == "acme/api" for c in commits)
    assert _call(state, "list_commits", repo="acme/api") == commits  # the same ones again
    assert len(_call(state, "list_commits", repo="acme/api", limit=2)) == 2
    other = _call(state, "list_commits", repo="acme/web")
    assert other and {c["sha"] for c in other}.isdisjoint(c["sha"] for c in commits)
    weather = _call(state, "get_weather", city="Lisbon")
    assert isinstance(weather["temperature_c"], float) and weather["conditions"]
    assert _call(state, "get_weather", city="Lisbon") == weather


def test_a_created_kind_starts_empty_rather_than_made_up() -> None:
    tools = [_tool("create_user", "Add a user", email=S), _tool("list_users", "List users")]
    state: dict[str, Any] = {}
    assert json.loads(mcp_step(state, "list_users", {}, {"tools": tools}).text) == []


def test_a_key_value_list_without_a_key_argument_lists_the_keys() -> None:
    state: dict[str, Any] = {}
    _call(state, "set_value", key="colour", value="teal")
    _call(state, "set_value", key="size", value="L")
    assert _call(state, "list_keys") == {"keys": ["colour", "size"], "count": 2}
    assert _call(state, "get_value", key="size")["value"] == "L"


def test_through_langchain_tool_substitution() -> None:
    def never(**kwargs: Any) -> str:
        raise AssertionError("the real tool must not run")

    real = [
        StructuredTool(name=t["name"], description=t["description"], args_schema=t["inputSchema"], func=never)
        for t in TOOLS
    ]
    tools = {t.name: t for t in simulate_tools(real, world=World(backend="offline"))}
    ack = json.loads(tools["place_order"].invoke({"product": "lamp", "quantity": 1}))
    assert ack["status"] == "placed" and ack["product"] == "lamp"
    assert json.loads(tools["get_order"].invoke({"order_id": ack["order_id"]}))["product"] == "lamp"
    assert "datetime" in json.loads(tools["get_time"].invoke({"timezone": "Europe/Paris"}))


async def test_through_a_real_mcp_client(tmp_path: Path) -> None:
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps({"tools": TOOLS}))
    args = ["-m", "agentworld_plugins", "mcp", "serve", "--backend", "offline", "--tools", str(tools_file)]
    async with Client(StdioServerParameters(command=sys.executable, args=args)) as client:
        wrote = await client.call_tool("write_note", {"title": "plan", "body": "ship it"})
        listed = await client.call_tool("list_notes", {})
        commits = await client.call_tool("list_commits", {"repo": "acme/api"})
    texts = []
    for result in (wrote, listed, commits):
        block = result.content[0]
        assert not result.is_error and isinstance(block, types.TextContent)
        texts.append(json.loads(block.text))
    assert texts[0]["status"] == "written" and len(texts[1]) == 1
    assert texts[1][0]["id"] == texts[0]["id"] and texts[1][0]["body"] == "ship it"
    assert all(len(c["sha"]) == 40 for c in texts[2])


def test_only_plain_clock_names_tell_the_time() -> None:
    tools = [_tool("convert_time", "Convert a time between zones", time=S, target_timezone=S)]
    state: dict[str, Any] = {}
    answer = mcp_step(state, "convert_time", {"time": "10:00", "target_timezone": "UTC"}, {"tools": tools})
    assert answer.metadata.get("offline_family") != "typed"
    assert "day_of_week" not in answer.text
