"""A LangChain agent as people write it: MCP tools from langchain-mcp-adapters' default
``MultiServerMCPClient.get_tools()`` and a shell tool that runs ``bash -c``.

Nothing in it knows about agentworld. Where its MCP servers are comes from ``MCP_SERVERS`` (a
JSON ``{name: connection}`` as ``MultiServerMCPClient`` takes it), and ``bash`` is whatever is on
``PATH``. ``test_agent.py`` points both at one simulated world; without a real LLM the model is a
scripted chat model that asks for the same tool calls a real one would.

    MCP_SERVERS='{"files": {...}}' python agent.py
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langchain_mcp_adapters.client import MultiServerMCPClient


@tool
def run_shell(command: str) -> str:
    """Run a bash command and return its output and exit status."""
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)
    return f"{done.stdout}{done.stderr}[exit {done.returncode}]"


class ScriptedModel(FakeMessagesListChatModel):
    """Answers with the next scripted message (a stand-in for an LLM that calls tools)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


def _call(name: str, args: dict[str, Any], n: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{n}"}])


SCRIPT = [
    _call("write_file", {"path": "/app/report.md", "content": "# Report\n\nstatus: draft\n"}, 1),
    _call("run_shell", {"command": "sed -i 's/draft/done/' /app/report.md && grep status /app/report.md"}, 2),
    _call("read_text_file", {"path": "/app/report.md"}, 3),
    AIMessage(content="The report is written and marked done."),
]


async def main() -> None:
    client = MultiServerMCPClient(json.loads(os.environ["MCP_SERVERS"]))
    tools = [*await client.get_tools(), run_shell]  # default get_tools(): a new session per call
    agent = create_agent(ScriptedModel(responses=SCRIPT), tools)
    result = await agent.ainvoke({"messages": [("user", "Write the status report and mark it done.")]})
    print(json.dumps([{"type": m.type, "content": m.text} for m in result["messages"]]))


if __name__ == "__main__":
    asyncio.run(main())
