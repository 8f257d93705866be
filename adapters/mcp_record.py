"""Your own tools as a benchmark: a transparent MCP proxy that records what the REAL server answers.

Put ``agentworld mcp record --output calls.jsonl --`` in front of a real server's command in your
agent's MCP config. The agent talks to the proxy as it would to the server: every request
(tools, resources, prompts) is forwarded to the real server and its real answer goes back
unchanged. Each ``tools/call`` is also appended to ``calls.jsonl`` as a turn of an ``mcp``
trajectory (AgentWorldBench record form): the turn prompt in the trained format, the real result as
the observation. ``agentworld bench convert calls.jsonl --output-dir my-bench/`` then makes
``mcp_test.jsonl``, and ``agentworld bench run --data-dir my-bench/ ...`` scores a world model on
your own tools (docs/bench.md has the recipe).

>>> proxy = RecordingProxy(["npx", "-y", "@modelcontextprotocol/server-github"], "calls.jsonl")  # doctest: +SKIP
>>> anyio.run(proxy.run_stdio)                                                                    # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
import os
import shlex
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server import Server, ServerRequestContext

from agentworld_plugins.errors import ConfigError
from agentworld_plugins.session import Observation, Trajectory, Turn

from .mcp_catalog import Catalog
from .mcp_mirror import MirrorError, _describe, _tail, _take
from .mcp_server import TrajectoryRecorder

__all__ = ["RecordingProxy", "result_text"]


def result_text(result: types.CallToolResult) -> str:
    """A tool result as the observation text the world model predicts: the text contents joined
    by newlines; other contents as their JSON; the structured content when there is no content."""
    parts: list[str] = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            parts.append(item.text)
        else:
            parts.append(json.dumps(item.model_dump(by_alias=True, mode="json", exclude_none=True)))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    return "\n".join(parts)


class RecordingProxy:
    """Forward one agent's MCP session to the real server started from ``argv``, recording calls.

    :param argv: the real server's command.
    :param output: the JSONL file each call is appended to (AgentWorldBench record form).
    :param session_id: the trajectory's id (default: a fresh one per run).
    :param prompts_dir: a prompts folder for the recorded system prompt (default: the bundled one).
    """

    def __init__(
        self,
        argv: Sequence[str],
        output: str | Path,
        *,
        session_id: str | None = None,
        prompts_dir: str | Path | None = None,
        timeout: float = 60.0,
        env: dict[str, str] | None = None,
    ) -> None:
        if not argv:
            raise ConfigError("mcp record needs the real server's command", hint="e.g. -- npx -y SERVER")
        self.argv = list(argv)
        self.output = Path(output).expanduser()
        self.session_id = session_id or f"mcp-{uuid.uuid4().hex[:12]}"
        self.prompts_dir = Path(prompts_dir).expanduser() if prompts_dir else None
        self.timeout = timeout
        self.env = env
        self.trajectory: Trajectory | None = None
        self._recorder: TrajectoryRecorder | None = None
        self._lock = anyio.Lock()

    # -- recording -------------------------------------------------------------------------------

    def _start_trajectory(self, catalog: Catalog) -> None:
        from agentworld_plugins.plugins import get_plugin_manager

        domain = get_plugin_manager().registry.domain("mcp")
        system = domain.system_prompt({"tools": catalog.tool_definitions()}, self.prompts_dir)
        self.trajectory = Trajectory(self.session_id, "mcp", system)
        self._recorder = TrajectoryRecorder(self.output)

    async def _record(self, name: str, arguments: dict[str, Any], result: types.CallToolResult) -> None:
        from agentworld_plugins.plugins import get_plugin_manager

        assert self.trajectory is not None and self._recorder is not None
        domain = get_plugin_manager().registry.domain("mcp")
        action = {"tool_name": name, "arguments": arguments}
        async with self._lock:  # calls may overlap; turns are numbered in the order they finish
            number = len(self.trajectory.turns) + 1
            prompt = domain.render_turn(number, domain.validate_action(action))
            metadata = (
                {} if result.structured_content is None else {"structured_content": result.structured_content}
            )
            observation = Observation(
                text=result_text(result), is_error=bool(result.is_error), metadata=metadata
            )
            self.trajectory.turns.append(Turn(number, action, prompt, observation))
            self._recorder.write(SimpleNamespace(trajectory=self.trajectory))  # type: ignore[arg-type]

    # -- forwarding ------------------------------------------------------------------------------

    def _server(self, upstream: Client, catalog: Catalog) -> Server[Any]:
        caps = upstream.server_capabilities

        async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
            return await upstream.list_tools(cursor=getattr(params, "cursor", None))

        async def call_tool(
            ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            arguments = dict(params.arguments or {})
            result = await upstream.call_tool(params.name, arguments)
            if params.name:
                await self._record(params.name, arguments, result)
            return result

        handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
        if caps.resources is not None:

            async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
                return await upstream.list_resources(cursor=getattr(params, "cursor", None))

            async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
                return await upstream.list_resource_templates(cursor=getattr(params, "cursor", None))

            async def read_resource(
                ctx: Any, params: types.ReadResourceRequestParams
            ) -> types.ReadResourceResult:
                return await upstream.read_resource(str(params.uri))

            handlers.update(
                on_list_resources=list_resources,
                on_list_resource_templates=list_templates,
                on_read_resource=read_resource,
            )
        if caps.prompts is not None:

            async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
                return await upstream.list_prompts(cursor=getattr(params, "cursor", None))

            async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
                return await upstream.get_prompt(params.name, params.arguments)

            handlers.update(on_list_prompts=list_prompts, on_get_prompt=get_prompt)
        info = upstream.server_info
        return Server(
            catalog.server_name or "recorded",
            version=(info.version if info else None) or "",
            title=info.title if info else None,
            instructions=upstream.instructions,
            **handlers,
        )

    async def run_stdio(self) -> None:
        """Start the real server, then serve this process's stdin/stdout until the agent leaves."""
        from mcp.server.stdio import stdio_server

        shown = shlex.join(self.argv)
        params = StdioServerParameters(
            command=self.argv[0], args=self.argv[1:], env={**os.environ, **(self.env or {})}
        )
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
            started = False
            try:
                # the deadline covers the real server's start and listing only: lifted once serving
                with anyio.CancelScope(deadline=anyio.current_time() + self.timeout) as scope:
                    async with Client(stdio_client(params, errlog=errlog)) as upstream:
                        catalog = await _take(upstream, shown)
                        started = True
                        scope.deadline = math.inf
                        self._start_trajectory(catalog)
                        server = self._server(upstream, catalog)
                        async with stdio_server() as (read_stream, write_stream):
                            await server.run(
                                read_stream, write_stream, server.create_initialization_options()
                            )
            except Exception as exc:
                if started:
                    raise
                tail = _tail(errlog)
                raise MirrorError(
                    f"The real server `{shown}` failed to start: {_describe(exc)}"
                    + (f"; stderr: {tail}" if tail else ""),
                    hint="run the command by hand to see why",
                ) from None
            finally:
                if self._recorder is not None:
                    self._recorder.close()
            if scope.cancelled_caught and not started:
                raise MirrorError(
                    f"The real server `{shown}` did not answer within {self.timeout:g}s",
                    hint="run the command by hand to see why, or raise --timeout",
                )
