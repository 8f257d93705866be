"""Per-call latency of the fake MCP server over stdio against a plain MCP SDK server, same run.

Both servers are real subprocesses driven by the MCP SDK's ``Client`` over stdio:

- the fake: ``agentworld mcp serve --tools ... --backend scenario:...`` with a scenario that
  answers every call at once (an instant backend), so what is measured is the server's own work:
  argument validation, the world session's turn (rendering, growing history, hooks, parsing),
  structured-output validation, serialisation;
- the baseline: the SDK's low-level ``Server`` whose tool returns a constant.

Calls alternate between the two (same machine state for both, each going first every other
time); the first ones are warm-up.

    python benchmarks/bench_mcp.py [--calls 300]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

ANSWER = {"id": 42, "status": "ok", "items": ["alpha", "beta"]}

TOOLS = [
    {
        "name": "lookup",
        "description": "Look a record up by its key.",
        "inputSchema": {
            "type": "object",
            "properties": {"key": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["key"],
        },
    },
    {
        "name": "lookup_structured",
        "description": "Look a record up by its key; structured result.",
        "inputSchema": {
            "type": "object",
            "properties": {"key": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["key"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "status": {"type": "string"},
                "items": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["id", "status"],
        },
    },
]

BASELINE = """
import json
import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOLS = json.loads({tools!r})
ANSWER = json.loads({answer!r})


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in TOOLS])


async def call_tool(ctx, params):
    text = json.dumps(ANSWER)
    structured = ANSWER if params.name == "lookup_structured" else None
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)


server = Server("baseline", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
"""


async def _measure(calls: int, warmup: int, tool: str, folder: Path) -> tuple[list[float], list[float]]:
    serve = ["mcp", "serve", "--tools", str(folder / "tools.json")]
    backend = ["--backend", f"scenario:{folder / 'instant.yaml'}"]
    fake = StdioServerParameters(command=sys.executable, args=["-m", "agentworld_plugins", *serve, *backend])
    plain = StdioServerParameters(command=sys.executable, args=[str(folder / "baseline.py")])
    fake_times: list[float] = []
    plain_times: list[float] = []
    async with Client(fake) as fake_client, Client(plain) as plain_client:
        for i in range(calls + warmup):
            arguments = {"key": f"record-{i}", "limit": 5}
            pair = [(plain_client, plain_times), (fake_client, fake_times)]
            for client, times in pair if i % 2 else pair[::-1]:  # neither always goes first
                started = time.perf_counter()
                result = await client.call_tool(tool, arguments)
                elapsed = time.perf_counter() - started
                assert not result.is_error, result
                if i >= warmup:
                    times.append(elapsed)
    return fake_times, plain_times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300, help="measured calls per tool and server")
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "tools.json").write_text(json.dumps({"tools": TOOLS}))
        scenario = {
            "steps": [{"match": {"regex": "."}, "observation": json.dumps(ANSWER), "repeat": "always"}]
        }
        (folder / "instant.yaml").write_text(json.dumps(scenario))
        (folder / "baseline.py").write_text(
            BASELINE.format(tools=json.dumps(TOOLS), answer=json.dumps(ANSWER))
        )
        print(
            f"{args.calls} calls per tool after {args.warmup} warm-up calls; one session of {args.calls + args.warmup} turns"
        )
        print(f"{'tool':<20}{'plain SDK server':>18}{'agentworld fake':>18}{'ratio':>8}")
        for tool in ("lookup", "lookup_structured"):
            fake_times, plain_times = anyio.run(_measure, args.calls, args.warmup, tool, folder)
            plain_med = statistics.median(plain_times) * 1000
            fake_med = statistics.median(fake_times) * 1000
            print(f"{tool:<20}{plain_med:>15.3f} ms{fake_med:>15.3f} ms{fake_med / plain_med:>8.2f}")


if __name__ == "__main__":
    main()
