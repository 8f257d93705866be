"""Coding-agent tools on the terminal's machine: LangChain tools, an MCP server, the tool packs."""

from __future__ import annotations

from agentworld_plugins.adapters.shell import VirtualTerminal, coding_mcp_server, coding_tools
from langchain_core.utils.function_calling import convert_to_openai_tool
from mcp import Client

from agentworld_plugins import World
from agentworld_plugins.plugins import new_plugin_manager


def test_langchain_tools_share_the_machine(world: World) -> None:
    term = VirtualTerminal(world)
    tools = {t.name: t for t in coding_tools(term)}
    assert {
        "run_shell_command",
        "read_file",
        "write_file",
        "edit",
        "replace",
        "list_directory",
        "glob",
    } <= set(tools)
    assert {"grep_search", "todo_write", "execute_bash", "str_replace_editor"} <= set(tools)
    schema = convert_to_openai_tool(tools["run_shell_command"])["function"]["parameters"]
    assert schema["required"] == ["command"]
    assert (
        tools["write_file"]
        .invoke({"file_path": "/app/calc.py", "content": "x = 1\n"})
        .startswith("Successfully")
    )
    assert "Successfully modified" in tools["edit"].invoke(
        {"file_path": "/app/calc.py", "old_string": "x = 1", "new_string": "x = 2"}
    )
    assert term.run("cat calc.py").stdout == "x = 2\n"  # the shell sees what the tools wrote
    term.run("echo 'needle here' > notes.txt")
    assert "L1: needle here" in tools["grep_search"].invoke({"pattern": "needle"})
    viewed = tools["str_replace_editor"].invoke({"command": "view", "path": "/app/notes.txt"})
    assert "needle here" in viewed
    assert tools["read_file"].invoke({}).startswith("Error: invalid arguments for read_file")


def test_only_some_tools(world: World) -> None:
    names = [t.name for t in coding_tools(VirtualTerminal(world), pack="openhands")]
    assert names == ["execute_bash", "str_replace_editor"]
    assert [t.name for t in coding_tools(VirtualTerminal(world), names=["glob"])] == ["glob"]


async def test_mcp_server_on_the_same_machine(world: World) -> None:
    term = VirtualTerminal(world)
    term.run("echo from-shell > shared.txt")
    server = coding_mcp_server(term)
    async with Client(server, mode="legacy") as client:
        listed = await client.list_tools()
        assert "run_shell_command" in {t.name for t in listed.tools}
        read = await client.call_tool("read_file", {"absolute_path": "/app/shared.txt"})
        assert not read.is_error and read.content[0].text.strip() == "from-shell"
        ran = await client.call_tool("run_shell_command", {"command": "cat nope"})
        assert ran.is_error and "Exit Code: 1" in ran.content[0].text
        unknown = await client.call_tool("launch_rocket", {})
        assert unknown.is_error


def test_tool_packs_are_registered() -> None:
    packs = new_plugin_manager().registry.tool_packs  # the shell adapter comes in through its entry point
    assert {t["name"] for t in packs["openhands"]} == {"execute_bash", "str_replace_editor"}
    assert "run_shell_command" in {t["name"] for t in packs["coding-agent"]}
