"""Coding-agent tools (Gemini CLI / Qwen Code and OpenHands names) on a simulated machine, as
LangChain tools and over MCP, sharing the machine with the shell.

    python examples/shell/coding_tools.py
"""

from __future__ import annotations

import asyncio

from agentworld_plugins.adapters.shell import VirtualTerminal, coding_mcp_server, coding_tools
from mcp import Client

from agentworld_plugins import World

terminal = VirtualTerminal(World(backend="offline"))
tools = {tool.name: tool for tool in coding_tools(terminal)}
print(
    tools["write_file"].invoke({"file_path": "/app/util.py", "content": "def double(x):\n    return 2 * x\n"})
)
print(tools["edit"].invoke({"file_path": "/app/util.py", "old_string": "2 * x", "new_string": "x + x"}))
print(tools["run_shell_command"].invoke({"command": "grep -n return util.py"}))
print(terminal.run("cat util.py").stdout)  # the shell sees what the tools did


async def over_mcp() -> None:
    async with Client(coding_mcp_server(terminal), mode="legacy") as client:
        listed = await client.list_tools()
        print(
            len(listed.tools),
            "MCP tools;",
            (await client.call_tool("glob", {"pattern": "*.py"})).content[0].text,
        )


asyncio.run(over_mcp())
