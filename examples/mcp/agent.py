"""A triage agent that talks MCP to the fake GitHub-issues server, with the MCP SDK's client.

Run it offline (no model, no key, no network)::

    python examples/mcp/agent.py
    python examples/mcp/agent.py --record triage.jsonl          # keep the world's turns
    AGENTWORLD_BASE_URL=http://localhost:8000/v1 python examples/mcp/agent.py   # Qwen-AgentWorld

The agent is an ordinary MCP client: it launches ``agentworld mcp serve --pack github-issues`` over
stdio exactly as Claude Desktop would launch a real server, lists the tools, and works a bug
report through them. Every call is answered by the world (the embedded offline world unless a
world model is configured), which keeps state: the issue it creates is the one it later lists,
comments on and closes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

REPO = {"owner": "acme", "repo": "billing-api"}


def _show(label: str, result: Any) -> str:
    text = result.content[0].text if result.content else ""
    try:  # JSON results on one line
        text = json.dumps(json.loads(text), ensure_ascii=False)
    except ValueError:
        text = text.strip().splitlines()[0] if text.strip() else "(empty)"
    flag = "ERROR " if result.is_error else ""
    return f"{label:<24} {flag}{text[:100]}"


async def triage(client: Client) -> list[str]:
    """The agent's episode; returns one line per step (the agent's log)."""
    log = []
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    log.append(f"{'tools':<24} {', '.join(sorted(tools))}")

    found = await client.call_tool("search_issues", {"q": "repo:acme/billing-api is:open invoice rounding"})
    log.append(_show("search_issues", found))

    # an argument mistake, answered the way a FastMCP server would answer it
    bad = await client.call_tool("create_issue", {**REPO, "title": "", "labels": "bug"})
    log.append(_show("create_issue (bad args)", bad))

    created = await client.call_tool(
        "create_issue",
        {
            **REPO,
            "title": "Invoice totals off by one cent",
            "body": "Rounding in VAT lines.",
            "labels": ["bug"],
        },
    )
    log.append(_show("create_issue", created))
    number = created.structured_content["number"] if created.structured_content else 1

    listed = await client.call_tool("list_issues", {**REPO, "state": "open"})
    log.append(_show("list_issues", listed))

    comment = {**REPO, "issue_number": number, "body": "Reproduced with invoice 2024-118; fix in #312."}
    log.append(_show("add_issue_comment", await client.call_tool("add_issue_comment", comment)))

    closed = await client.call_tool(
        "update_issue", {**REPO, "issue_number": number, "state": "closed", "state_reason": "completed"}
    )
    log.append(_show("update_issue", closed))

    issue = await client.call_tool("get_issue", {**REPO, "issue_number": number})
    log.append(_show("get_issue", issue))
    if issue.structured_content:
        state = issue.structured_content["state"]
        log.append(f"{'':<24} structuredContent validated; issue #{number} is now {state}")
    return log


def server(extra: list[str]) -> StdioServerParameters:
    """What a client config says: start the fake server with these arguments.

    The MCP SDK starts stdio servers with a minimal environment (PATH, HOME, ...), so the world
    settings this agent was run with (``AGENTWORLD_BASE_URL``, ``AGENTWORLD_BACKEND``, ...) are
    handed on explicitly, as a client config's ``env`` entry would.
    """
    args = ["-m", "agentworld_plugins", "mcp", "serve", "--pack", "github-issues", *extra]
    env = {k: v for k, v in os.environ.items() if k.startswith("AGENTWORLD_")}
    return StdioServerParameters(command=sys.executable, args=args, env=env)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", help="append the world's turns to this JSONL file")
    parser.add_argument(
        "--backend", help="world backend (default: offline, or openai with AGENTWORLD_BASE_URL)"
    )
    args = parser.parse_args()
    extra = []
    if args.record:
        extra += ["--record", args.record]
    if args.backend:
        extra += ["--backend", args.backend]
    async with Client(server(extra)) as client:
        for line in await triage(client):
            print(line)


if __name__ == "__main__":
    anyio.run(main)
