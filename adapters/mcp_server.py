"""A drop-in fake MCP server: a real MCP server whose tool calls are answered by the world model.

From the command line (stdio is what Claude Desktop, Cursor and VS Code launch)::

    agentworld mcp serve --tools tools.json --backend offline
    agentworld mcp serve --pack github-issues --http --port 8765 --token s3cret
    agentworld mcp serve --mirror --save-snapshot github.json -- npx -y @modelcontextprotocol/server-github

From Python, in-process (what the tests do)::

    import anyio
    from mcp import Client
    from agentworld_plugins import World
    from agentworld_plugins.adapters.mcp_catalog import load_catalog
    from agentworld_plugins.adapters.mcp_server import FakeMcpServer

    fake = FakeMcpServer(World(backend="offline"), load_catalog("tools.json"))

    async def main() -> None:
        async with Client(fake.server, mode="legacy") as client:
            print(await client.call_tool("list_issues", {"repo": "acme/api"}))

    anyio.run(main)          # or anyio.run(fake.run_stdio) to serve stdin/stdout

The layers follow the MCP SDK's:

- transport: :meth:`FakeMcpServer.run_stdio`, :meth:`FakeMcpServer.http_app` (streamable HTTP with an
  optional bearer token) and :meth:`FakeMcpServer.serve_http`;
- session: :class:`ConnectionSessions` gives every MCP client connection its own world session,
  so state carries across that client's calls and no other client sees it;
- dispatcher: :class:`ToolDispatcher` turns one ``tools/call`` into one world step (arguments
  validated first, structured output validated after, one corrective retry) and the observation
  into a ``CallToolResult``;
- front: :class:`FakeMcpServer` wires them to the SDK's low-level ``Server``.
"""

from __future__ import annotations

import contextvars
import hmac
import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from agentworld_plugins.errors import ActionValidationError, AgentWorldError, ConfigError
from agentworld_plugins.files import open_private
from agentworld_plugins.hookspecs import hookimpl, leaves_messages
from agentworld_plugins.http_guard import HttpGuard, HttpLimits
from agentworld_plugins.perturbations import output_fault
from agentworld_plugins.redaction import redact_record
from agentworld_plugins.session import Observation, Session, World
from agentworld_plugins.worlds import SharedWorld

from .mcp_catalog import Catalog
from .mcp_replay import Recorded, Replay
from .mcp_surface import MirroredServer, surface_handlers
from .mcp_validation import StructuredOutput, ToolSchemas, argument_errors, content_of, parse_structured

__all__ = [
    "ISOLATION",
    "ConnectionSessions",
    "FakeMcpServer",
    "ToolDispatcher",
    "TrajectoryRecorder",
    "WorldConnection",
]

logger = logging.getLogger("agentworld.mcp")

#: an observation that answers the current turn without asking the backend (set per call)
_PREANSWER: contextvars.ContextVar[Observation | None] = contextvars.ContextVar("mcp_preanswer", default=None)
#: a note appended to the current turn's request only (the retry after invalid structured output)
_RETRY_NOTE: contextvars.ContextVar[str | None] = contextvars.ContextVar("mcp_retry_note", default=None)

RETRY_NOTE = (
    "**Note:** The previous prediction for this action was rejected because it does not match the "
    "tool's outputSchema ({problem}). Predict the server's response to this action again: one JSON "
    "object that validates against the outputSchema, and nothing else."
)


def _package_version() -> str:
    try:
        return version("agentworld-plugins")
    except PackageNotFoundError:  # pragma: no cover - running from a plain checkout
        return "0"


# -- recording -------------------------------------------------------------------------------------


class TrajectoryRecorder:
    """Appends each finished turn to a JSONL file (AgentWorldBench record form), flushed at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._fh = open_private(self.path, "a")
        except OSError as exc:
            raise ConfigError(
                f"Cannot open trajectory file {self.path}: {exc.strerror}", hint="check the --record path"
            ) from None
        self._lock = threading.Lock()

    def write(self, session: Session) -> None:
        record = session.trajectory.records()[-1]
        line = json.dumps(redact_record(record), ensure_ascii=False, default=str) + "\n"
        with self._lock:
            self._fh.write(line)
            self._fh.flush()

    def close(self) -> None:
        with self._lock:
            self._fh.close()


# -- session layer ---------------------------------------------------------------------------------


@dataclass
class WorldConnection:
    """The world session MCP calls are answered from (one connection's, or the server's that
    all its connections share). Calls take turns (``lock``): each sees the effects of the ones
    before, and the session's history stays one clean line of turns. ``shared`` is the world the
    session is a front of: each call runs on it as other connections and processes left it."""

    session: Session
    #: one call at a time; an uncontended call takes it without a trip through the event loop
    lock: anyio.Lock = field(default_factory=lambda: anyio.Lock(fast_acquire=True))
    calls: int = 0
    closed: bool = False
    shared: SharedWorld | None = None


class _TurnControl:
    """Per-session plugin through which the dispatcher steers a turn (state lives in contextvars,
    so concurrent calls of other sessions are not affected)."""

    @hookimpl(tryfirst=True)
    def before_step(self, session: Session, action: Any) -> Observation | None:
        return _PREANSWER.get()

    @hookimpl
    @leaves_messages
    def transform_messages(self, session: Session, messages: list[dict[str, Any]]) -> Any:
        note = _RETRY_NOTE.get()
        if note is None or not messages:
            return None
        last = dict(messages[-1])
        last["content"] = f"{last.get('content') or ''}\n\n{note}"
        return [*messages[:-1], last]


_STATE_KEY = "agentworld_session"


def _mcp_connection(ctx: ServerRequestContext[Any, Any]) -> Any:
    # The SDK keeps the per-client Connection (with its public ``state`` and ``exit_stack``) on the
    # request's ServerSession without a public accessor. Without it, every request shares one session.
    return getattr(ctx.session, "_connection", None)


#: how MCP connections map to worlds: all share the server's world, or each has its own
ISOLATION = ("world", "connection")


class ConnectionSessions:
    """Maps MCP client connections to world sessions.

    ``isolate="world"`` (the default, as real servers behave): every connection of this server
    uses one world session, so what one client wrote is there for the next client, a reconnect
    or (with a named world, ``open_shared`` returning a stored :class:`SharedWorld`) a restarted
    server. ``isolate="connection"``: each handshake-era connection (stdio, streamable HTTP with
    ``Mcp-Session-Id``, in-process legacy) gets a world of its own, closed with the connection;
    the 2026-07-28 protocol has no connection, so its requests share one.
    """

    def __init__(
        self,
        open_session: Callable[[], Session],
        keep_closed: int = 64,
        *,
        isolate: str = "connection",
        open_shared: Callable[[], tuple[SharedWorld, Session]] | None = None,
    ) -> None:
        if isolate not in ISOLATION:
            raise ConfigError(f"Unknown isolation {isolate!r}", hint="use 'world' or 'connection'")
        if isolate == "world" and open_shared is None:
            raise ConfigError("isolate='world' needs the world to share", hint="pass open_shared")
        self._open_session = open_session
        self._open_shared = open_shared
        self.isolate = isolate
        self._shared: WorldConnection | None = None
        self.active: dict[str, WorldConnection] = {}
        #: the most recently closed connections, newest last (for inspection and tests)
        self.closed: deque[WorldConnection] = deque(maxlen=keep_closed)
        self.opened = 0

    def _open(self) -> WorldConnection:
        conn = WorldConnection(self._open_session())
        self.active[conn.session.id] = conn
        self.opened += 1
        logger.info("world session %s opened", conn.session.id)
        return conn

    def _close(self, conn: WorldConnection) -> None:
        conn.closed = True
        self.active.pop(conn.session.id, None)
        self.closed.append(conn)
        logger.info("world session %s closed after %d calls", conn.session.id, conn.calls)

    def world_connection(self) -> WorldConnection:
        """The one world session all connections share (``isolate="world"``)."""
        if self._shared is None:
            if self._open_shared is not None:
                shared, session = self._open_shared()
                self._shared = WorldConnection(session, shared=shared)
                self.active[session.id] = self._shared
                self.opened += 1
            else:
                self._shared = self._open()
        return self._shared

    def for_request(self, ctx: ServerRequestContext[Any, Any]) -> WorldConnection:
        if self.isolate == "world":
            return self.world_connection()
        mcp_conn = _mcp_connection(ctx)
        if mcp_conn is not None and mcp_conn.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            found: WorldConnection | None = mcp_conn.state.get(_STATE_KEY)
            if found is None:
                found = mcp_conn.state[_STATE_KEY] = self._open()
                mcp_conn.exit_stack.callback(self._close, found)
            return found
        return self.world_connection()

    def all(self) -> list[WorldConnection]:
        """Recently closed connections (in closing order), then the open ones (in opening order)."""
        return [*self.closed, *self.active.values()]


# -- dispatcher layer ------------------------------------------------------------------------------


def _text_result(
    text: str, *, is_error: bool = False, structured: Any = None, metadata: dict[str, Any] | None = None
) -> types.CallToolResult:
    return types.CallToolResult(
        content=content_of(text, metadata),
        structured_content=structured,
        is_error=is_error,
    )


class ToolDispatcher:
    """Answers ``tools/call`` requests from a world session."""

    def __init__(
        self, catalog: Catalog, recorder: TrajectoryRecorder | None = None, replay: Replay | None = None
    ) -> None:
        self.tools = {tool.name: tool for tool in catalog.tools}
        self.schemas = {t.name: ToolSchemas(t.input_schema, t.output_schema) for t in catalog.tools}
        self.recorder = recorder
        self.replay = replay

    def unknown_tool(self, name: str) -> str:
        listing = ", ".join(sorted(self.tools)) or "(none)"
        return f"Unknown tool: {name}\nAvailable tools: {listing}"

    async def call(
        self, conn: WorldConnection, name: str, arguments: dict[str, Any] | None
    ) -> types.CallToolResult:
        """One call, in its turn: checked, stepped, recorded."""
        async with conn.lock:
            conn.calls += 1
            if conn.shared is None:
                return await self._recorded(conn.session, name, arguments or {})
            return await conn.shared.aoperate(lambda: self._recorded(conn.session, name, arguments or {}))

    async def _recorded(self, session: Session, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        turns = len(session.trajectory.turns)
        result = await self._call(session, name, arguments)
        if self.recorder is not None and len(session.trajectory.turns) > turns:
            self.recorder.write(session)
        return result

    async def _call(self, session: Session, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        action = {"tool_name": name, "arguments": arguments}
        recorded = self.replay.take(name, arguments) if self.replay is not None else None
        if recorded is not None:
            return await self._replayed(session, action, recorded)
        schemas = self.schemas.get(name)
        if schemas is None:
            return await self._answer_without_model(session, action, self.unknown_tool(name))
        problem = argument_errors(name, arguments, schemas)
        if problem is not None:
            return await self._answer_without_model(session, action, problem)
        observation = await session.astep(action)
        if observation.is_error or schemas.output is None:
            return _text_result(
                observation.text, is_error=observation.is_error, metadata=observation.metadata
            )
        known = observation.metadata.get("structured_content")
        if (
            known is not None
            and output_fault(observation.metadata) is None
            and schemas.output.is_valid(known)
        ):
            # the world's engine gave the server's own text and structured result, as the real
            # server sends both (they differ: a list as text, {"entities": [...]} structured)
            return _text_result(observation.text, structured=known)
        parsed = parse_structured(observation.text, schemas)
        if not parsed.ok and output_fault(observation.metadata) is not None:
            # a truncated/empty result was damaged on purpose: the agent gets it as a failed call,
            # never our corrective retry (the world model is not asked again)
            session.trajectory.turns[-1].observation.is_error = True
            return _text_result(observation.text, is_error=True)
        if not parsed.ok:
            observation, parsed = await self._retry(session, action, observation, parsed, schemas, name)
            if observation.is_error or not parsed.ok:
                return _text_result(observation.text, is_error=True)
        text = observation.text if parsed.exact else json.dumps(parsed.value, ensure_ascii=False, indent=2)
        return _text_result(text, structured=parsed.value)

    async def _replayed(
        self, session: Session, action: dict[str, Any], recorded: Recorded
    ) -> types.CallToolResult:
        """The recorded answer, the call kept in the world: the offline engines apply it (their
        own answer replaced by the recorded one), a world model is not asked but reads it in the
        history."""
        metadata: dict[str, Any] = {"answered_by": "replay"}
        if recorded.structured is not None:
            metadata["structured_content"] = recorded.structured
        seen = Observation(text=recorded.text, is_error=recorded.is_error, metadata=metadata)
        try:
            if session.world.offline is not None:
                await session.astep(action)
                session.trajectory.turns[-1].observation = seen
            else:
                token = _PREANSWER.set(seen)
                try:
                    await session.astep(action)
                finally:
                    _PREANSWER.reset(token)
        except ActionValidationError:  # not even a tool call: the recorded answer all the same
            pass
        return _text_result(recorded.text, is_error=recorded.is_error, structured=recorded.structured)

    async def _answer_without_model(
        self, session: Session, action: dict[str, Any], text: str
    ) -> types.CallToolResult:
        """Answer as the real server would (unknown tool, bad arguments) and keep the turn in the
        history: the world model learns from it what the agent saw."""
        token = _PREANSWER.set(Observation(text=text, is_error=True, metadata={"answered_by": "mcp-server"}))
        try:
            observation = await session.astep(action)
        except ActionValidationError:  # not even a tool call (an empty name): nothing to record
            return _text_result(text, is_error=True)
        finally:
            _PREANSWER.reset(token)
        return _text_result(observation.text, is_error=observation.is_error)

    async def _retry(
        self,
        session: Session,
        action: dict[str, Any],
        first: Observation,
        parsed: StructuredOutput,
        schemas: ToolSchemas,
        name: str,
    ) -> tuple[Observation, StructuredOutput]:
        """Ask again once, with the validation problem appended to this turn's request only.

        The rejected answer leaves the history (kept in the new observation's metadata), so the
        session reads as one turn per call and the server's prefix cache still matches.
        """
        rejected = session.trajectory.turns.pop()
        token = _RETRY_NOTE.set(RETRY_NOTE.format(problem=parsed.problem))
        try:
            observation = await session.astep(action)
        except BaseException:
            session.trajectory.turns.append(rejected)
            raise
        finally:
            _RETRY_NOTE.reset(token)
        observation.metadata["output_retry"] = {
            "problem": parsed.problem,
            "rejected": first.raw or first.text,
        }
        if observation.is_error:
            return observation, parsed
        second = parse_structured(observation.text, schemas)
        if second.ok:
            return observation, second
        failed = Observation(
            text=f"Output validation error: the result of {name} does not match its outputSchema: {second.problem}",
            raw=observation.raw,
            reasoning=observation.reasoning,
            is_error=True,
            metadata={**observation.metadata, "output_invalid": second.problem},
        )
        session.trajectory.turns[-1].observation = failed
        return failed, second


# -- transports ------------------------------------------------------------------------------------


def _jsonrpc_error(status: int, message: str, path: str) -> dict[str, Any]:
    """An HTTP-level error as the MCP SDK writes one: a JSON-RPC error without an id."""
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600 if status < 500 else -32603, "message": message},
    }


class BearerAuth:
    """ASGI middleware: HTTP requests must carry ``Authorization: Bearer <token>`` (else 401)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    def _authorized(self, scope: dict[str, Any]) -> bool:
        for key, value in scope.get("headers") or []:
            if key == b"authorization":
                # the auth scheme is case-insensitive (RFC 9110 11.1): "bearer x" is "Bearer x"
                scheme, _, credentials = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(
                    credentials.strip(), self._expected
                )
        return False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = json.dumps(
                {"error": "invalid_token", "error_description": "send Authorization: Bearer <token>"}
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="agentworld"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


# -- the front -------------------------------------------------------------------------------------


class FakeMcpServer:
    """A real MCP server (``self.server``, the SDK's low-level ``Server``) backed by a :class:`World`.

    :param world: where sessions come from (backend, plugins, settings).
    :param catalog: the tools (and resources and prompts lists) to offer.
    :param name: the server name reported to clients (default: the catalog's, else ``agentworld``).
    :param record: a JSONL file each turn is appended to as it is produced.
    :param perturbations: per-session perturbations (names or plugin objects), as ``World.session``.
    :param isolate: ``"world"`` (every connection shares the server's world) or ``"connection"``.
    :param replay: recorded answers (:class:`~.mcp_replay.Replay`) given to the calls recorded.
    :param context: more session context (task, world_bible, initial_state, ...).
    """

    def __init__(
        self,
        world: World,
        catalog: Catalog,
        *,
        name: str | None = None,
        record: str | Path | None = None,
        perturbations: Iterable[Any] = (),
        isolate: str = "world",
        replay: Replay | None = None,
        **context: Any,
    ) -> None:
        self.world = world
        self.catalog = catalog
        self.name = name or catalog.server_name or "agentworld"
        self.perturbations = list(perturbations)
        self.context = context
        self.recorder = TrajectoryRecorder(record) if record is not None else None
        self.dispatcher = ToolDispatcher(catalog, self.recorder, replay)
        self.sessions = ConnectionSessions(self._open_session, isolate=isolate, open_shared=self._open_shared)
        self._control = _TurnControl()
        self._tool_definitions = catalog.tool_definitions()
        self.server: Server[Any] = self._build()

    def _session_options(self) -> dict[str, Any]:
        return {
            "tools": self._tool_definitions,
            "perturbations": [self._control, *self.perturbations],
            **self.context,
        }

    def _open_session(self) -> Session:
        return self.world.make_session("mcp", **self._session_options())

    @property
    def front(self) -> str:
        """This server's front name in its world (servers of other names are other fronts)."""
        return f"mcp:{self.name}"

    def _open_shared(self) -> tuple[SharedWorld, Session]:
        """The world every connection shares: the named world (``World(name=...)``, ``--world``,
        kept in ``AGENTWORLD_HOME``), else one of this process."""
        machine = {k: self.context[k] for k in ("files", "cwd") if self.context.get(k) is not None}
        store = True if self.world.name is not None else None
        shared = SharedWorld(self.world, self.world.name, store=store, machine=machine)
        session = shared.front(self.front, "mcp", **self._session_options())
        return shared, session

    # -- handlers ----------------------------------------------------------------------------------

    def _build(self) -> Server[Any]:
        catalog = self.catalog
        declared = catalog.capabilities or {}
        handlers: dict[str, Any] = {"on_list_tools": self._list_tools, "on_call_tool": self._call_tool}
        if catalog.resources or catalog.resource_templates or declared.get("resources") is not None:
            handlers["on_list_resources"] = self._list_resources
            handlers["on_list_resource_templates"] = self._list_resource_templates
        if catalog.prompts or declared.get("prompts") is not None:
            handlers["on_list_prompts"] = self._list_prompts
        handlers.update(surface_handlers(self))  # what the mirrored server declared beyond tools
        server: Server[Any] = MirroredServer(
            self.name,
            version=_package_version() if catalog.server_version is None else catalog.server_version,
            title=catalog.server_title,
            instructions=catalog.instructions,
            get_tool_input_schema=self._input_schema,
            **handlers,
        )
        server.declared = catalog.capabilities  # type: ignore[attr-defined]
        server.add_request_handler("server/discover", types.RequestParams, self._discover)
        return server

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        schemas = self.dispatcher.schemas.get(name)
        return schemas.input_schema if schemas else None

    async def _discover(self, ctx: ServerRequestContext[Any, Any], params: Any) -> types.DiscoverResult:
        # A 2026-07-28 HTTP request carries no session, so HTTP clients are told to use the
        # handshake era, where each keeps its own Mcp-Session-Id and thus its own world session.
        over_http = ctx.request is not None
        versions = HANDSHAKE_PROTOCOL_VERSIONS if over_http else MODERN_PROTOCOL_VERSIONS
        return types.DiscoverResult(
            supported_versions=list(versions),
            capabilities=self.server.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=self.server.instructions,
        )

    async def _list_tools(self, ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.catalog.tools)

    async def _list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: Any
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=self.catalog.resources)

    async def _list_resource_templates(
        self, ctx: ServerRequestContext[Any, Any], params: Any
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=self.catalog.resource_templates)

    async def _list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: Any
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=self.catalog.prompts)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            conn = self.sessions.for_request(ctx)
            return await self.dispatcher.call(conn, params.name, params.arguments)
        except AgentWorldError as exc:
            logger.error("tool %s failed: %s", params.name, exc)
            return _text_result(f"Error executing tool {params.name}: {exc}", is_error=True)
        except Exception as exc:  # a bug or an unexpected backend failure: the client still gets an answer
            logger.exception("tool %s failed", params.name)
            return _text_result(
                f"Error executing tool {params.name}: {type(exc).__name__}: {exc}", is_error=True
            )

    # -- transports --------------------------------------------------------------------------------

    async def run_stdio(self) -> None:
        """Serve one client over this process's stdin/stdout until it disconnects."""
        from mcp.server.stdio import stdio_server

        mirrored = self.catalog.protocol_version
        try:
            async with stdio_server() as (read_stream, write_stream):
                options = self.server.create_initialization_options()
                if mirrored is None or mirrored in MODERN_PROTOCOL_VERSIONS:
                    await self.server.run(read_stream, write_stream, options)
                    return
                # the mirrored server spoke the handshake era only: so does this one (a client
                # then initializes and gets that era's capabilities, as from the real server)
                from mcp.server.runner import serve_loop

                async with self.server.lifespan(self.server) as state:
                    await serve_loop(
                        self.server, read_stream, write_stream, lifespan_state=state, init_options=options
                    )
        finally:
            self.close()

    def http_app(
        self,
        *,
        token: str | None = None,
        host: str = "127.0.0.1",
        path: str = "/mcp",
        limits: HttpLimits | None = None,
    ) -> Any:
        """The streamable-HTTP ASGI app (at ``path``), behind a bearer token when one is given.

        It runs behind :class:`HttpGuard` (``limits``): bodies are capped, errors are JSON-RPC
        shaped, and an ``Mcp-Session-Id`` session idle for ``limits.session_idle`` seconds is
        closed with its world session. Build it once per server: its lifespan runs the SDK's
        session manager, which runs once.
        """
        limits = limits or HttpLimits()
        app = self.server.streamable_http_app(
            streamable_http_path=path,
            host=host,
            max_request_body_size=limits.max_body,
            session_idle_timeout=limits.session_idle,
        )
        return HttpGuard(BearerAuth(app, token) if token else app, error=_jsonrpc_error, limits=limits)

    def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8765,
        *,
        token: str | None = None,
        limits: HttpLimits | None = None,
    ) -> None:
        """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted."""
        from agentworld_plugins import http_guard

        try:
            app = self.http_app(token=token, host=host, limits=limits)
            http_guard.run(app, host=host, port=port, limits=limits, lifespan="on")
        finally:
            self.close()

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()
