"""Engine-answered calls against a plain MCP SDK server, over the same transport, in the same run.

Stdio servers, each started once and held by one MCP client, one server process per tool on each
side (so each process answers the same number of calls at the same rate):

* **plain**: a FastMCP server (the MCP Python SDK) with the tools ``echo`` and ``create_entities``
  doing trivial work (``"Echo: " + message``; appending the entities to a list);
* **engine**: ``agentworld mcp serve --backend offline --snapshot`` of the same tool definitions
  as server-everything's and server-memory's mirrors declare them, answered by the known-server
  engines (everything's ``echo``, memory's knowledge graph).

Rounds alternate the two (so load on the machine hits both alike); the figure is the ratio of the
medians, engine / plain, per tool. Goal: under 1.2x.

    python benchmarks/bench_known_servers.py [--rounds 300] [--pin]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

PLAIN = '''
from mcp.server import MCPServer

server = MCPServer("plain")
graph = []


@server.tool(structured_output=False)
def echo(message: str) -> str:
    """Echoes back the input string"""
    return "Echo: " + message


@server.tool(structured_output=False)
def create_entities(entities: list[dict]) -> str:
    """Create entities"""
    graph.extend(entities)
    return str(len(graph))


server.run()
'''

EVERYTHING = [
    {
        "name": "echo",
        "description": "Echoes back the input string",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"message": {"type": "string", "description": "Message to echo"}},
            "required": ["message"],
        },
    },
] + [
    {"name": name, "description": name, "inputSchema": {"type": "object", "properties": {}}}
    for name in ("get-sum", "get-tiny-image", "get-annotated-message", "get-resource-links", "get-env")
]
MEMORY = [
    {
        "name": "create_entities",
        "description": "Create multiple new entities in the knowledge graph",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "entities": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "entityType": {"type": "string"},
                            "observations": {"type": "array", "items": {"type": "string"}},
                        },
                        "required": ["name", "entityType", "observations"],
                    },
                }
            },
            "required": ["entities"],
        },
    },
] + [
    {"name": name, "description": name, "inputSchema": {"type": "object", "properties": {}}}
    for name in ("create_relations", "add_observations", "read_graph", "search_nodes", "open_nodes")
]


def _call(tool: str, index: int) -> dict[str, Any]:
    if tool == "echo":
        return {"message": f"hello {index}"}
    return {"entities": [{"name": f"e{index}", "entityType": "thing", "observations": ["x"]}]}


async def _rounds(
    plain: StdioServerParameters, engines: dict[str, StdioServerParameters], rounds: int
) -> dict[str, Any]:
    times: dict[str, dict[str, list[float]]] = {t: {"plain": [], "engine": []} for t in engines}
    # one server process per tool on each side: a process answering twice the calls stays warmer
    # (its caches hot), which alone made a shared plain process look ~10% faster
    async with (
        Client(plain) as a,
        Client(plain) as a2,
        Client(engines["echo"]) as b,
        Client(engines["create_entities"]) as c,
    ):
        clients = {"plain": {"echo": a, "create_entities": a2}, "engine": {"echo": b, "create_entities": c}}
        for index in range(rounds + 20):  # the first 20 warm both up
            for tool in times:
                for label in ("plain", "engine") if index % 2 else ("engine", "plain"):
                    started = time.perf_counter()
                    result = await clients[label][tool].call_tool(tool, _call(tool, index))
                    elapsed = time.perf_counter() - started
                    assert not result.is_error, result
                    if index >= 20:
                        times[tool][label].append(elapsed)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument(
        "--pin",
        action="store_true",
        help="run this client on CPU 0 and every server on CPU 1 (Linux, taskset): each round trip then "
        "crosses the same two cores, whichever server it goes to",
    )
    args = parser.parse_args()
    server = [sys.executable]
    if args.pin:
        if shutil.which("taskset") is None or not hasattr(os, "sched_setaffinity"):
            parser.error("--pin needs Linux and taskset")
        os.sched_setaffinity(0, {0})
        server = ["taskset", "-c", "1", sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        script = home / "plain.py"
        script.write_text(PLAIN)
        env = {"PATH": os.environ["PATH"], "AGENTWORLD_HOME": str(home)}
        plain = StdioServerParameters(command=server[0], args=[*server[1:], str(script)], env=env)
        engines = {}
        for tool, tools in (("echo", EVERYTHING), ("create_entities", MEMORY)):
            listed = home / f"{tool}.json"
            listed.write_text(json.dumps({"tools": tools}))
            engines[tool] = StdioServerParameters(
                command=server[0],
                args=[
                    *server[1:],
                    "-m",
                    "agentworld_plugins",
                    "mcp",
                    "serve",
                    "--backend",
                    "offline",
                    "--tools",
                    str(listed),
                ],
                env=env,
            )
        times = anyio.run(_rounds, plain, engines, args.rounds)
    print(f"{'tool':<16} {'plain ms':>9} {'engine ms':>10} {'ratio':>6}")
    for tool, pair in times.items():
        p, e = statistics.median(pair["plain"]) * 1000, statistics.median(pair["engine"]) * 1000
        print(f"{tool:<16} {p:9.3f} {e:10.3f} {e / p:6.2f}")


if __name__ == "__main__":
    main()
